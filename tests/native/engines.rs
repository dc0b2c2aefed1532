//! What a report says about the engine it was measured in (issue 16): the timer's resolution,
//! and with a 1 ms timer (WebKit, Firefox when not cross-origin isolated) no figure measured in
//! the page carries sub-millisecond precision, while the server's own timings keep theirs.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use tokenpaint::figures::browser::Shell;
use tokenpaint::figures::report::{write_with, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

/// Deltas 7, 7, 8, 7, 7 ms apart (a mean of 7.2 ms), painted 3 and 4 ms after arrival in turn
/// (a median of 3.5 ms), with llama.cpp-style server timings in the usage chunk.
fn report(timer_ms: Option<f64>) -> Value {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 100.0, 200);
    let mut t = 300.0;
    for (i, gap) in [0.0, 7.0, 7.0, 8.0, 7.0, 7.0].iter().enumerate() {
        t += gap;
        let w = format!("w{i} ");
        s.chunk(
            format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{w}\"}}}}]}}\n\n").as_bytes(),
            t,
        );
        s.appended(&w, t + 1.0);
        let paint = t + if i % 2 == 0 { 3.0 } else { 4.0 };
        s.painted(paint - 1.0, paint - 1.0, paint);
    }
    s.chunk(b"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":6},\"timings\":{\"prompt_ms\":12.345,\"predicted_ms\":36.789}}\n\ndata: [DONE]\n\n", t + 1.0);
    s.end(EndKind::Complete, t + 1.0);
    let shell = Shell {
        timer_ms,
        ..Shell::default()
    };
    let meta = Meta {
        id: 1,
        url: "u",
        ..Meta::default()
    };
    serde_json::from_str(&write_with(&s.tl, &meta, Some(&shell), None, None).0).unwrap()
}

fn whole(v: &Value) -> bool {
    v.as_f64().is_some_and(|x| x.fract() == 0.0)
}

#[test]
fn a_one_millisecond_timer_gives_whole_milliseconds_and_says_so() {
    let fine = report(Some(0.1));
    let coarse = report(Some(1.0));
    // The same stream: a fine timer keeps the mean and the median as computed.
    assert_eq!(fine["tpot"], 7.2, "{}", fine["tpot"]);
    assert_eq!(fine["lag"]["p50"], 3.5, "{}", fine["lag"]);
    assert_eq!(fine["timerMs"], 0.1);
    assert!(!fine["unavailable"]
        .as_array()
        .unwrap()
        .contains(&"fine-timer".into()));
    // A 1 ms timer: whole milliseconds, and the report says why.
    assert_eq!(coarse["timerMs"], 1.0);
    assert!(coarse["unavailable"]
        .as_array()
        .unwrap()
        .contains(&"fine-timer".into()));
    for path in ["tpot", "ttft", "e2e"] {
        assert!(whole(&coarse[path]), "{path}: {}", coarse[path]);
    }
    for k in ["p50", "p95", "max"] {
        assert!(whole(&coarse["lag"][k]), "lag.{k}: {}", coarse["lag"][k]);
        assert!(whole(&coarse["itl"][k]), "itl.{k}: {}", coarse["itl"][k]);
    }
    // The server's timings are not the page's timer: they keep their precision.
    assert!(!coarse["serverTimings"].is_null());
    assert_eq!(coarse["serverTimings"], fine["serverTimings"]);
    // A clock that never moved while the shell measured it: coarse, its step unknown.
    let frozen = report(Some(f64::INFINITY));
    assert_eq!(frozen["timerMs"], Value::Null);
    assert!(frozen["unavailable"]
        .as_array()
        .unwrap()
        .contains(&"fine-timer".into()));
    assert!(whole(&frozen["tpot"]), "tpot: {}", frozen["tpot"]);
    // Not measured (native use): no timer figure, nothing said about it.
    let native = report(None);
    assert_eq!(native["timerMs"], Value::Null);
    assert!(!native["unavailable"]
        .as_array()
        .unwrap()
        .contains(&"fine-timer".into()));
}
