//! The live view (`Session::progress`): the figures so far at any moment are the ones the
//! report's per-token arrays give at that moment, since both read the same records.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

fn sse(text: &str) -> Vec<u8> {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n")
        .into_bytes()
}

#[test]
fn progress_at_each_moment_is_what_the_report_timeline_says_then() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    let mut samples = Vec::new();
    // 30 words every 20 ms from 100 ms; the page paints each one 70 ms after it arrives, so a
    // backlog builds up and drains.
    for i in 0..30 {
        let t = 100.0 + 20.0 * f64::from(i);
        let w = format!(" w{i}");
        s.chunk(&sse(&w), t);
        s.appended(&w, t + 60.0);
        samples.push((t + 1.0, s.progress(t + 1.0)));
    }
    // Paints come later in this feed: paint every word 70 ms after its arrival, in order, and
    // sample between them.
    for i in 0..30 {
        let t = 100.0 + 20.0 * f64::from(i) + 70.0;
        s.painted(t - 4.0, t - 4.0, t);
        samples.push((t + 0.5, s.progress(t + 0.5)));
    }
    s.end(EndKind::Complete, 800.0);
    let meta = Meta {
        id: 1,
        url: "u",
        timeline: true,
        ..Meta::default()
    };
    let r: Value = serde_json::from_str(&write(&s.tl, &meta).0).unwrap();
    let tl = &r["timeline"];
    let col = |k: &str| {
        tl[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64())
            .collect::<Vec<_>>()
    };
    let (arrived, painted, chars) = (col("arrived"), col("painted"), col("chars"));
    let upto = |ts: &[Option<f64>], at: f64| -> f64 {
        ts.iter()
            .zip(&chars)
            .filter(|(t, _)| t.is_some_and(|t| t <= at))
            .map(|(_, c)| c.unwrap())
            .sum()
    };
    let mut grew = false;
    // While the words arrive (the first 30 samples), the arrived characters so far are the
    // timeline's.
    for (at, p) in samples.iter().take(30) {
        assert_eq!(p.arrived as f64, upto(&arrived, *at), "arrived at {at}");
        grew |= p.arrived > p.painted;
    }
    // After every paint, the painted characters so far are the timeline's.
    for (at, p) in samples.iter().skip(30) {
        assert_eq!(p.painted as f64, upto(&painted, *at), "painted at {at}");
    }
    assert!(grew, "a backlog was seen");
    let last = samples.last().unwrap().1;
    assert_eq!(last.arrived, last.painted);
    assert!((last.ttft - r["ttft"].as_f64().unwrap()).abs() < 1e-9);
    assert!((last.ttft_perceived - r["ttftPerceived"]["painted"].as_f64().unwrap()).abs() < 1e-9);
    assert!((last.lag - 70.0).abs() < 1e-9);
    assert_eq!(last.waiting, 0.0);
    // Mid-stream, before any paint: the oldest wait is counted from the first word's arrival.
    let (at, first) = samples[10];
    assert!(first.ttft_perceived.is_nan() && first.lag.is_nan());
    assert!(
        (first.waiting - (at - 100.0)).abs() < 1e-9,
        "waiting {}",
        first.waiting
    );
}
