//! Hostile input: bounded time and memory, typed errors, no panic.
#![cfg(not(target_arch = "wasm32"))]

use std::time::Instant;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

fn report(s: &Session) -> String {
    write(
        &s.tl,
        &Meta {
            id: 1,
            url: "u",
            timeline: false,
            ..Meta::default()
        },
    )
    .0
}

#[test]
fn a_10_mb_line_is_a_typed_error_and_the_stream_goes_on() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 0.0, 200);
    let t = Instant::now();
    s.chunk(b"data: {\"choices\":[{\"delta\":{\"content\":\"", 0.0);
    let chunk = vec![b'x'; 64 * 1024];
    for i in 0..160 {
        s.chunk(&chunk, f64::from(i));
    }
    s.chunk(
        b"\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"after\"}}]}\n\n",
        200.0,
    );
    s.end(EndKind::Complete, 201.0);
    assert_eq!(s.tl.framing_error, Some("line-too-long"));
    assert_eq!(
        s.tl.records.len(),
        1,
        "the event after the long line is read"
    );
    assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
    assert!(report(&s).contains("\"framing\":\"line-too-long\""));
}

#[test]
fn a_million_tiny_events_are_read_in_bounded_time() {
    let mut s = Session::new("sse-text", "text/event-stream", "", 0.0, 0.0, 200);
    let chunk: Vec<u8> = b"data: x\n\n".repeat(10_000);
    let t = Instant::now();
    for i in 0..100 {
        s.chunk(&chunk, f64::from(i));
    }
    s.end(EndKind::Complete, 100.0);
    assert_eq!(s.tl.deltas, 1_000_000);
    // Per-token detail is capped; the counts stay exact.
    assert!(s.tl.records.len() <= tokenpaint::timeline::session::DEFAULT_DETAIL_CAP);
    let r = report(&s);
    assert!(r.contains("\"deltas\":1000000,"), "{r:.400}");
    assert!(r.contains("\"chars\":1000000,"), "{r:.400}");
    assert!(t.elapsed().as_secs_f64() < 20.0, "{:?}", t.elapsed());
}

#[test]
fn deeply_nested_json_is_skipped_without_recursion() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 0.0, 200);
    let depth = 400_000;
    let mut ev = b"data: {\"x\":".to_vec();
    ev.extend(std::iter::repeat_n(b'[', depth));
    ev.extend(std::iter::repeat_n(b']', depth));
    ev.extend_from_slice(b",\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n");
    s.chunk(&ev, 1.0);
    // Unbalanced: an error, not a crash.
    let mut bad = b"data: {\"x\":".to_vec();
    bad.extend(std::iter::repeat_n(b'{', depth));
    bad.extend_from_slice(b"\n\n");
    s.chunk(&bad, 2.0);
    s.end(EndKind::Complete, 3.0);
    assert_eq!(s.tl.records.len(), 1);
    assert_eq!(s.tl.malformed, 1);
}

#[test]
fn invalid_utf8_and_nul_bytes_are_text_with_replacements() {
    let mut s = Session::new("auto", "text/event-stream", "", 0.0, 0.0, 200);
    s.keep_text();
    s.chunk(
        b"data: {\"choices\":[{\"delta\":{\"content\":\"a\xff\xfe\x00b\"}}]}\n\n",
        1.0,
    );
    s.chunk(b"\x00\x00data: \x00\n\n", 2.0);
    s.end(EndKind::Complete, 3.0);
    assert_eq!(
        s.tl.text.as_ref().unwrap().answer,
        "a\u{fffd}\u{fffd}\u{0}b"
    );
    assert!(serde_json::from_str::<serde_json::Value>(&report(&s)).is_ok());
}

/// An answer whose request nobody saw (one on a socket): nothing measured from its start is a
/// number; what does not need the start (TPOT, counts) still is.
#[test]
fn an_unknown_start_leaves_start_relative_figures_null_not_zero() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", f64::NAN, 500.0, 200);
    s.start_unknown();
    for i in 0..5 {
        let ev = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"w{i} \"}}}}]}}\n\n");
        s.chunk(ev.as_bytes(), 500.0 + 20.0 * f64::from(i));
    }
    s.end(EndKind::Complete, 600.0);
    let r: serde_json::Value = serde_json::from_str(&report(&s)).unwrap();
    assert_eq!(r["startSource"], "unknown");
    for key in [
        "ttfb",
        "ttft",
        "e2e",
        "ttftPerceived",
        "e2ePerceived",
        "phases",
    ] {
        assert!(r[key].is_null(), "{key}: {}", r[key]);
    }
    assert_eq!(r["deltas"], 5);
    assert_eq!(r["tpot"], 20.0);
}
