//! The Rust types of `tokenpaint::types` (feature `serde`) against what the core writes: every
//! report of the fixture corpus, a report with everything the browser adds (paints, late frames,
//! Resource Timing, ratings, stalls, per-token arrays) and a summary with targets read into
//! [`Report`] and [`Summary`], and written out again, give back the same JSON, less the keys
//! that were null. A field the core writes and the types lack, or of another shape, fails here.
#![cfg(all(feature = "serde", not(target_arch = "wasm32")))]

use serde_json::Value;
use std::path::Path;
use tokenpaint::figures::browser::Shell;
use tokenpaint::figures::report::{write_with, Meta};
use tokenpaint::summary::{parse_slos, Summary as CoreSummary};
use tokenpaint::timeline::entries::{LongFrame, LongFrames, ResourceEntry};
use tokenpaint::timeline::session::{EndKind, Session};
use tokenpaint::types::{Report, Status, Summary};

/// `v` without the object keys whose value is null (absent and null both mean unknown), every
/// number as a float (JSON does not tell 36 from 36.0).
fn unnull(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), unnull(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(unnull).collect()),
        Value::Number(n) => serde_json::json!(n.as_f64()),
        v => v.clone(),
    }
}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str, what: &str) -> T {
    let original: Value = serde_json::from_str(json).unwrap();
    let typed: T = serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: {e}\n{json}"));
    let back = serde_json::to_value(&typed).unwrap();
    let (a, b) = (unnull(&original), unnull(&back));
    if a != b {
        if let (Value::Object(a), Value::Object(b)) = (&a, &b) {
            for (k, v) in a {
                assert_eq!(Some(v), b.get(k), "{what}: key {k}");
            }
            for k in b.keys() {
                assert!(a.contains_key(k), "{what}: key {k} not in the core's JSON");
            }
        }
        panic!("{what}: differs");
    }
    typed
}

fn meta() -> Meta<'static> {
    Meta {
        id: 7,
        url: "/v1/chat/completions",
        timeline: true,
        label: "chat",
        ..Meta::default()
    }
}

#[test]
fn every_fixture_report_reads_into_the_rust_types_and_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut read = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
            let ct = match ext.as_deref() {
                Some("sse") => "text/event-stream",
                Some("ndjson") => "application/x-ndjson",
                Some("txt") => "text/plain",
                Some("json") => "application/json",
                _ => continue,
            };
            let mut s = Session::new("auto", ct, "", 0.0, 5.0, 200);
            s.keep_text();
            s.chunk(&std::fs::read(&path).unwrap(), 100.0);
            s.end(EndKind::Complete, 300.0);
            let json = write_with(&s.tl, &meta(), None, None, None).0;
            let r: Report = round_trip(&json, &path.display().to_string());
            assert_eq!(r.id, 7);
            assert_eq!(r.label.as_deref(), Some("chat"));
            read += 1;
        }
    }
    assert!(read >= 15, "{read} fixtures");
}

fn sse(data: &str) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

/// A stream painted on a page: per-token paints, a stall, a long frame over late tokens,
/// Resource Timing, usage and server timings.
fn painted_session() -> Session {
    let mut s = Session::new("auto", "text/event-stream", "", 0.0, 5.0, 200);
    s.resource(ResourceEntry {
        start: 0.0,
        dns: (Some(0.5), Some(1.0)),
        connect: (Some(1.0), Some(2.0)),
        request_start: Some(2.5),
        response_start: Some(5.0),
        response_end: Some(900.0),
    });
    for i in 0..40 {
        let t = 100.0 + 20.0 * f64::from(i);
        let w = format!(" w{i}");
        let ev = format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{w}"}}}}]}}"#);
        s.chunk(&sse(&ev), t);
        // Tokens 20..25 wait 180 ms: a stall and late paints under a long frame.
        let lag = if (20..25).contains(&i) { 180.0 } else { 4.0 };
        s.appended(&w, t + lag / 2.0);
        s.painted(t + lag / 2.0, t + lag / 2.0, t + lag);
    }
    s.chunk(
        &sse(r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":40}}"#),
        900.0,
    );
    s.chunk(b"data: [DONE]\n\n", 900.0);
    s.end(EndKind::Complete, 901.0);
    s
}

#[test]
fn a_painted_report_with_browser_figures_reads_into_the_rust_types_and_back() {
    let s = painted_session();
    let shell = Shell {
        long_frames: true,
        resource_timing: true,
        timer_ms: Some(0.1),
        ..Shell::default()
    };
    let mut frames = LongFrames::default();
    frames.push(LongFrame {
        seq: 3,
        start: 500.0,
        duration: 180.0,
        blocking: 130.0,
    });
    let json = write_with(&s.tl, &meta(), Some(&shell), Some(&frames), None).0;
    let r: Report = round_trip(&json, "painted");
    assert_eq!(r.status, Status::Ok);
    assert_eq!(r.tokens, Some(40));
    assert!(r.lag.is_some() && r.ttft_perceived.is_some(), "{json}");
    assert!(
        r.late_paints.as_ref().is_some_and(|l| !l.frames.is_empty()),
        "{json}"
    );
    assert!(r.resource_timing.is_some() && r.ratings.is_some(), "{json}");
    assert!(r.stalls.as_ref().is_some_and(|s| s.count > 0), "{json}");
    assert_eq!(r.timeline.as_ref().map(|t| t.arrived.len()), Some(40));
    assert!(r.verdict().is_some());
}

#[test]
fn a_summary_with_targets_reads_into_the_rust_types_and_back() {
    let mut sum = CoreSummary::new();
    sum.set_slos(parse_slos("ttftPerceived 0.95 1000; lag 0.5 10"));
    for _ in 0..3 {
        let s = painted_session();
        let (_, f) = write_with(&s.tl, &meta(), Some(&Shell::default()), None, None);
        sum.add(&f);
    }
    let json = sum.to_json();
    let typed: Summary = round_trip(&json, "summary");
    assert_eq!(typed.all.count, 3);
    assert_eq!(typed.all.slo.len(), 2);
    assert!(typed.all.goodput.is_some());
    assert!(typed.by.label.contains_key("chat"), "{json}");
    assert_eq!(typed.all.ttft_perceived.count, 3);
}

#[test]
fn a_failed_report_reads_with_every_figure_unknown() {
    // The shell's report when tokenpaint itself failed (js/stream.js).
    let json = r#"{"id":3,"url":"/x","transport":"fetch","status":"failed",
        "error":{"kind":"internal","code":null,"message":"trap"},"diagnosis":[],
        "unavailable":["report"],"ttft":null,"tokens":null,"phases":null,"sampleRate":1}"#;
    let r: Report = serde_json::from_str(json).unwrap();
    assert_eq!(r.status, Status::Failed);
    assert_eq!((r.ttft, r.tokens, r.phases), (None, None, None));
    assert_eq!(r.error.map(|e| e.kind), Some("internal".into()));
}

#[test]
fn live_progress_is_written_by_the_names_of_the_progress_type() {
    // The core writes its figures by name; the shell adds its own five (hub.js
    // `#deliverProgress`). Together they are the whole of `Progress`, read back unchanged: a name
    // the core writes that the type lacks, or a field of the type nobody writes, fails here.
    let s = painted_session();
    for now in [150.0, 950.0] {
        let core: Value = serde_json::from_str(&s.progress(now).json()).unwrap();
        let Value::Object(mut all) = core else {
            panic!("not an object: {core}");
        };
        let shell = serde_json::json!({ "id": 7, "url": "/v1/chat/completions", "t": now, "backlog": 0, "ended": true });
        all.extend(shell.as_object().unwrap().clone());
        let p: tokenpaint::types::Progress =
            round_trip(&Value::Object(all).to_string(), "progress");
        assert!(p.arrived > 0 && p.ttft.is_some(), "{p:?}");
    }
}
