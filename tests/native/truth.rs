//! Figures that were wrong, or said `healthy` without evidence, once tokenpaint left its own lab
//! (issue 13). Each test feeds a session what a real stream and page gave, then reads the report
//! as a user would. They use only the session's public feeding API and the report's JSON, so each
//! one also ran against the code before the fix, and failed there.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use tokenpaint::figures::report::{write, Meta};
use tokenpaint::timeline::session::{EndKind, Session};

fn report(s: &Session) -> Value {
    let meta = Meta {
        id: 1,
        url: "u",
        timeline: true,
        ..Meta::default()
    };
    serde_json::from_str(&write(&s.tl, &meta).0).unwrap()
}

/// A verdict's fix, in words: the verdict catalog's text for its fix id (the shell adds it to
/// the reports it delivers).
fn fix(v: &Value) -> String {
    let cat: Value = serde_json::from_str(include_str!("../../src/verdicts.json")).unwrap();
    let id = v["fixId"].as_str().unwrap();
    let mut of = cat["verdicts"].as_array().unwrap().iter();
    of.find_map(|c| c["fixes"][id].as_str())
        .unwrap()
        .to_string()
}

fn verdicts(r: &Value) -> Vec<&str> {
    r["diagnosis"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["verdict"].as_str().unwrap())
        .collect()
}

fn sse(data: &str) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

fn content(text: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#)
}

/// `n` words arriving every `step` ms from `first`, each appended and painted `lag` ms later.
fn words(s: &mut Session, n: usize, first: f64, step: f64, lag: f64) {
    for i in 0..n {
        let t = first + step * i as f64;
        let w = format!(" w{i}");
        s.chunk(&sse(&content(&w)), t);
        s.appended(&w, t + lag / 2.0);
        s.painted(t + lag / 2.0, t + lag / 2.0, t + lag);
    }
}

#[test]
fn tool_call_deltas_never_make_a_zero_tpot() {
    // One content delta, then 50 tool-call deltas; usage counts the tool call's tokens.
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    s.chunk(&sse(&content("Let me look that up.")), 100.0);
    s.appended("Let me look that up.", 102.0);
    s.painted(102.0, 102.0, 104.0);
    for i in 0..50 {
        let ev = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q"}}]}}]}"#;
        s.chunk(&sse(ev), 120.0 + 20.0 * i as f64);
    }
    s.chunk(
        &sse(r#"{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":58}}"#),
        1200.0,
    );
    s.end(EndKind::Complete, 1201.0);
    let r = report(&s);
    assert_eq!(r["toolCalls"], 50);
    assert!(
        r["tpot"].is_null(),
        "one timed content delta: TPOT is unknown, got {}",
        r["tpot"]
    );
    assert_eq!(r["tokens"], 1, "the timed content, not usage");
    assert_eq!(r["tokensSource"], "counted");
}

#[test]
fn several_choices_are_counted_per_choice_and_tpot_is_not_divided_by_all_of_them() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for i in 0..20 {
        let t = 100.0 + 20.0 * i as f64;
        for index in 0..2 {
            let ev = format!(
                r#"{{"choices":[{{"index":{index},"delta":{{"content":" c{index}w{i}"}}}}]}}"#
            );
            s.chunk(&sse(&ev), t);
        }
        s.appended(&format!(" c0w{i}"), t + 1.0);
        s.painted(t + 1.0, t + 1.0, t + 3.0);
    }
    // Usage counts both choices' tokens.
    s.chunk(
        &sse(r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":40}}"#),
        600.0,
    );
    s.end(EndKind::Complete, 601.0);
    let r = report(&s);
    let tpot = r["tpot"].as_f64().unwrap();
    assert!(
        (tpot - 20.0).abs() < 1e-9,
        "tpot {tpot}, the truth is 20 ms"
    );
    let choices = r["choices"].as_array().expect("per-choice counts");
    assert_eq!(choices.len(), 2);
    assert_eq!(
        (&choices[0]["index"], &choices[0]["deltas"]),
        (&0.into(), &20.into())
    );
    assert_eq!(
        (&choices[1]["index"], &choices[1]["deltas"]),
        (&1.into(), &20.into())
    );
}

#[test]
fn reasoning_with_server_timings_has_phases_that_add_up_and_none_negative() {
    // 100 reasoning deltas then 50 answer deltas, every 20 ms; queue 100, prefill 300; the
    // server's generation time (vLLM-style metrics) covers all 150 deltas.
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for i in 0..150 {
        let t = 440.0 + 20.0 * i as f64;
        if i < 100 {
            let ev =
                format!(r#"{{"choices":[{{"index":0,"delta":{{"reasoning_content":" r{i}"}}}}]}}"#);
            s.chunk(&sse(&ev), t);
        } else {
            let w = format!(" a{i}");
            s.chunk(&sse(&content(&w)), t);
            s.appended(&w, t + 2.0);
            s.painted(t + 2.0, t + 2.0, t + 5.0);
        }
    }
    let metrics = r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":150},"metrics":{"queue_time_ms":100,"time_to_first_token_ms":300,"generation_time_ms":2980}}"#;
    s.chunk(&sse(metrics), 3425.0);
    s.end(EndKind::Complete, 3426.0);
    let r = report(&s);
    // "First token" is the answer's; the first chunk (vLLM's TTFT, OpenTelemetry's
    // time_to_first_chunk) is the first reasoning delta.
    assert_eq!(
        (r["ttfc"].as_f64(), r["ttft"].as_f64()),
        (Some(440.0), Some(2440.0))
    );
    assert_eq!(r["reasoning"]["deltas"], 100);
    let phases = r["phases"].as_array().unwrap();
    let mut sum = 0.0;
    for p in phases {
        if let Some(ms) = p["ms"].as_f64() {
            assert!(ms >= 0.0, "negative phase {p}");
            sum += ms;
        }
    }
    let total = r["phasesTotal"]["ms"].as_f64().unwrap();
    let unattributed = r["phasesTotal"]["unattributed"].as_f64().unwrap();
    assert!((sum + unattributed - total).abs() < 1e-6);
    assert!(
        unattributed.abs() < 1.0,
        "phases explain the stream: {unattributed}"
    );
    let held = phases.iter().find(|p| p["name"] == "intermediary").unwrap();
    assert!(
        held["ms"].as_f64().unwrap() < 1.0,
        "no invented hold: {held}"
    );
    assert!(!verdicts(&r).contains(&"intermediary-buffered"), "{r}");
}

#[test]
fn an_empty_200_stream_is_incomplete_not_ok() {
    let mut s = Session::new("auto", "text/event-stream", "", 0.0, 5.0, 200);
    s.end(EndKind::Complete, 6.0);
    let r = report(&s);
    assert_eq!(r["status"], "incomplete");
    assert_eq!(r["error"]["kind"], "empty-stream");
    // Keep-alive comments alone are no event either.
    let mut s = Session::new("auto", "text/event-stream", "", 0.0, 5.0, 200);
    s.chunk(b": ping\n\n", 10.0);
    s.end(EndKind::Complete, 11.0);
    assert_eq!(report(&s)["error"]["kind"], "empty-stream");
}

#[test]
fn an_unobserved_page_is_never_healthy() {
    // A fine stream whose text tokenpaint never saw on the page (a shadow root it could not
    // enter, or the wrong element observed).
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for i in 0..40 {
        s.chunk(&sse(&content(&format!(" w{i}"))), 100.0 + 20.0 * i as f64);
    }
    s.end(EndKind::Complete, 900.0);
    let r = report(&s);
    let v = verdicts(&r);
    assert!(!v.contains(&"healthy"), "{v:?}");
    let last = r["diagnosis"].as_array().unwrap().last().unwrap();
    assert_eq!(last["verdict"], "insufficient-evidence");
    assert_eq!(last["missing"][0], "dom");
    assert!(fix(last).contains("observe"));
}

#[test]
fn text_found_only_in_part_is_not_evidence_of_health() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for i in 0..40 {
        let t = 100.0 + 20.0 * i as f64;
        let w = format!(" w{i}");
        s.chunk(&sse(&content(&w)), t);
        if i < 10 {
            s.appended(&w, t + 2.0);
            s.painted(t + 2.0, t + 2.0, t + 4.0);
        }
    }
    s.end(EndKind::Complete, 900.0);
    let r = report(&s);
    assert!(r["matchedPct"].as_f64().unwrap() < 50.0);
    assert!(!verdicts(&r).contains(&"healthy"), "{:?}", verdicts(&r));
    assert!(verdicts(&r).contains(&"insufficient-evidence"));
}

#[test]
fn a_hidden_interval_told_at_every_report_counts_once() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    words(&mut s, 10, 100.0, 20.0, 6.0);
    // The shell says "still hidden since 500" at each report it takes, then the real end.
    s.hidden(500.0, f64::INFINITY);
    s.hidden(500.0, f64::INFINITY);
    s.hidden(500.0, 700.0);
    s.end(EndKind::Complete, 800.0);
    let r = report(&s);
    assert_eq!(r["hidden"]["intervals"], 1);
    assert_eq!(r["hidden"]["ms"], 200.0);
}

/// 60 six-character deltas arriving every 20 ms from 100 ms (300 characters/s), revealed one
/// character per commit every `char_ms` from 110 ms, each commit painted in a frame of its own.
fn typewriter(char_ms: f64) -> Session {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    let n = 60;
    for i in 0..n {
        s.chunk(
            &sse(&content(&format!("{:06}", i))),
            100.0 + 20.0 * i as f64,
        );
    }
    let all: String = (0..n).map(|i| format!("{:06}", i)).collect();
    for (k, c) in all.chars().enumerate() {
        let t = 110.0 + char_ms * k as f64;
        s.appended(&c.to_string(), t);
        s.painted(t, t, t + 2.0);
    }
    s.end(EndKind::Complete, 100.0 + 20.0 * n as f64);
    s
}

#[test]
fn a_typing_animation_slower_than_arrival_is_its_own_verdict() {
    // 300 characters/s arrive (6-character deltas every 20 ms); the page types 50 per second
    // (one character every 20 ms), painting every frame.
    let s = typewriter(20.0);
    let r = report(&s);
    assert_eq!(r["delivery"]["pattern"], "smoothed");
    let v = verdicts(&r);
    assert_eq!(v[0], "client-smoothing", "{v:?}");
    assert!(!v.contains(&"client-render-bound"), "{v:?}");
}

#[test]
fn bursts_from_a_server_that_answered_directly_are_the_servers_own_buffering() {
    // llama-cpp-python (uvicorn), no proxy: the first token, 1.6 s of silence, then the other
    // 59 at once.
    let run = |headers: &str| {
        let mut s = Session::new("openai-chat", "text/event-stream", headers, 0.0, 5.0, 200);
        s.chunk(&sse(&content("First")), 100.0);
        s.appended("First", 101.0);
        s.painted(101.0, 101.0, 103.0);
        let mut rest = String::new();
        for i in 1..60 {
            let w = format!(" w{i}");
            s.chunk(&sse(&content(&w)), 1700.0 + 0.02 * i as f64);
            rest.push_str(&w);
        }
        s.appended(&rest, 1702.0);
        s.painted(1702.0, 1702.0, 1704.0);
        s.end(EndKind::Complete, 1705.0);
        report(&s)
    };
    let r = run("server: uvicorn\n");
    let d = &r["diagnosis"][0];
    assert_eq!(d["verdict"], "server-buffered", "{}", r["diagnosis"]);
    assert_eq!(d["place"], "server");
    assert!(!fix(d).contains("nginx"));
    // Through nginx, the proxy is named; with no header at all, the place is unknown.
    let r = run("server: nginx/1.22.1\n");
    assert_eq!(r["diagnosis"][0]["verdict"], "intermediary-buffered");
    assert_eq!(r["diagnosis"][0]["place"], "proxy");
    let r = run("");
    assert_eq!(r["diagnosis"][0]["place"], "unknown");
}

#[test]
fn a_page_too_busy_to_keep_up_is_render_bound_not_smoothing() {
    // The same reveal pattern, but each commit ends a 45 ms render: frames come late.
    let s = typewriter(45.0);
    let r = report(&s);
    assert_eq!(r["delivery"]["pattern"], "smoothed");
    assert_eq!(verdicts(&r)[0], "client-render-bound", "{:?}", verdicts(&r));
}

#[test]
fn a_refusal_is_timed_as_what_the_user_sees_and_counted_apart() {
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for (i, w) in ["I can't", " help", " with that."].iter().enumerate() {
        let t = 100.0 + 20.0 * i as f64;
        let ev = format!(r#"{{"choices":[{{"index":0,"delta":{{"refusal":"{w}"}}}}]}}"#);
        s.chunk(&sse(&ev), t);
        s.appended(w, t + 2.0);
        s.painted(t + 2.0, t + 2.0, t + 4.0);
    }
    s.end(EndKind::Complete, 200.0);
    let r = report(&s);
    assert_eq!(r["refusal"]["deltas"], 3);
    assert_eq!(r["refusal"]["first"], 100.0);
    assert_eq!(r["ttft"], 100.0);
    assert_eq!(r["matchedPct"], 100.0);
    assert_eq!(r["status"], "ok");
}

#[test]
fn without_a_single_paint_backlog_and_late_paints_are_unknown_not_numbers() {
    // The page showed the text, but no frame painted it (a hidden page, no rAF): how much
    // waited for paint, and what was late, is not known.
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    for i in 0..10 {
        let t = 100.0 + 20.0 * i as f64;
        let w = format!(" w{i}");
        s.chunk(&sse(&content(&w)), t);
        s.appended(&w, t + 2.0);
    }
    s.end(EndKind::Complete, 400.0);
    let meta = Meta {
        id: 1,
        url: "u",
        timeline: false,
        ..Meta::default()
    };
    let shell = tokenpaint::figures::browser::Shell::default();
    let json = tokenpaint::figures::report::write_with(&s.tl, &meta, Some(&shell), None, None).0;
    let r: Value = serde_json::from_str(&json).unwrap();
    assert!(r["unavailable"]
        .as_array()
        .unwrap()
        .contains(&"paint".into()));
    assert!(
        r["backlogPeak"].is_null(),
        "backlogPeak {}",
        r["backlogPeak"]
    );
    assert!(r["latePaints"].is_null(), "latePaints {}", r["latePaints"]);
    assert!(verdicts(&r).contains(&"insufficient-evidence"));
}
