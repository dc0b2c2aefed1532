//! The Rust types of `tokenpaint::types` (feature `serde`) against what the core writes: every
//! report of the fixture corpus, a report with everything the browser adds (paints, late frames,
//! Resource Timing, ratings, stalls, per-token arrays) and a summary with targets read into
//! [`Report`] and [`Summary`], and written out again, give back the same JSON, less the keys
//! that were null. A field the core writes and the types lack, or of another shape, fails here;
//! and so does the other direction: a field the types declare that neither the core (over a
//! corpus that reaches every struct it writes) nor the shell (`SHELL_WRITES`) ever writes. And
//! `js/report.d.ts`, which scripts/schema.mjs writes from src/types.rs's text, is held to what the
//! compiler declares: every struct's fields and the status's variants, by serde's own lists.
#![cfg(all(feature = "serde", not(target_arch = "wasm32")))]

use serde_json::Value;
use std::path::Path;
use tokenpaint::figures::browser::Shell;
use tokenpaint::figures::report::{write_with, Meta};
use tokenpaint::streams::{Config, Streams};
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

/// The report of each fixture stream (tests/fixtures), by its path.
fn fixture_reports() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let ct = match path.extension().and_then(|e| e.to_str()) {
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
            out.push((path.display().to_string(), json));
        }
    }
    out
}

#[test]
fn every_fixture_report_reads_into_the_rust_types_and_back() {
    let reports = fixture_reports();
    for (path, json) in &reports {
        let r: Report = round_trip(json, path);
        assert_eq!(r.id, 7);
        assert_eq!(r.label.as_deref(), Some("chat"));
    }
    assert!(reports.len() >= 15, "{} fixtures", reports.len());
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

/// What the shell tells of an engine with long animation frames and Resource Timing, and one
/// long frame over the painted session's late tokens.
fn browser_parts() -> (Shell, LongFrames) {
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
    (shell, frames)
}

#[test]
fn a_painted_report_with_browser_figures_reads_into_the_rust_types_and_back() {
    let s = painted_session();
    let (shell, frames) = browser_parts();
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

// --- the other direction: every field the types declare is one the core writes -------------

/// What a walk through the types saw: for each struct, the fields it declares and the keys the
/// JSON held at some point.
#[derive(Default)]
struct Seen {
    structs: std::collections::BTreeMap<
        &'static str,
        (Vec<&'static str>, std::collections::BTreeSet<String>),
    >,
    /// For each enum the types read, its variants (serde's own list).
    enums: std::collections::BTreeMap<&'static str, Vec<&'static str>>,
}

/// A deserializer over a JSON value that records, at each struct the types read, the fields they
/// declare (serde's own list) and the keys the value has: a field declared that no JSON the core
/// writes ever has is one the types keep for nothing (or one only the shell writes).
struct Probe<'a> {
    v: &'a Value,
    seen: &'a std::cell::RefCell<Seen>,
}

type ProbeError = serde::de::value::Error;

impl<'de, 'a> serde::Deserializer<'de> for Probe<'a> {
    type Error = ProbeError;

    fn deserialize_any<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_str(s),
            Value::Array(a) => visitor.visit_seq(ProbeSeq {
                it: a.iter(),
                seen: self.seen,
            }),
            Value::Object(m) => visitor.visit_map(ProbeMap {
                it: m.iter(),
                value: None,
                seen: self.seen,
            }),
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        match self.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        if let Value::Object(m) = self.v {
            let mut seen = self.seen.borrow_mut();
            let entry = seen
                .structs
                .entry(name)
                .or_insert_with(|| (fields.to_vec(), Default::default()));
            entry.1.extend(m.keys().cloned());
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        use serde::de::IntoDeserializer;
        self.seen.borrow_mut().enums.insert(name, variants.to_vec());
        match self.v {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(serde::de::Error::custom("only unit variants, as strings")),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ProbeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

struct ProbeSeq<'a> {
    it: std::slice::Iter<'a, Value>,
    seen: &'a std::cell::RefCell<Seen>,
}

impl<'de, 'a> serde::de::SeqAccess<'de> for ProbeSeq<'a> {
    type Error = ProbeError;
    fn next_element_seed<T: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ProbeError> {
        match self.it.next() {
            Some(v) => seed.deserialize(Probe { v, seen: self.seen }).map(Some),
            None => Ok(None),
        }
    }
}

struct ProbeMap<'a> {
    it: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
    seen: &'a std::cell::RefCell<Seen>,
}

impl<'de, 'a> serde::de::MapAccess<'de> for ProbeMap<'a> {
    type Error = ProbeError;
    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ProbeError> {
        use serde::de::IntoDeserializer;
        match self.it.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(k.as_str().into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ProbeError> {
        let v = self.value.take().expect("a value after its key");
        seed.deserialize(Probe { v, seen: self.seen })
    }
}

/// Reads `json` into `T` through the probe, recording what each struct declares and holds.
fn probe<T: serde::de::DeserializeOwned>(json: &str, seen: &std::cell::RefCell<Seen>) -> T {
    let v: Value = serde_json::from_str(json).unwrap();
    T::deserialize(Probe { v: &v, seen }).unwrap_or_else(|e| panic!("{e}\n{json}"))
}

/// Every report the tests above make, and the summary of painted streams, read through the probe.
fn written_by_the_core() -> Seen {
    let seen = std::cell::RefCell::new(Seen::default());
    for (_, json) in fixture_reports() {
        let _: Report = probe(&json, &seen);
    }
    let (shell, frames) = browser_parts();
    let s = painted_session();
    let _: Report = probe(
        &write_with(&s.tl, &meta(), Some(&shell), Some(&frames), None).0,
        &seen,
    );
    let mut sum = CoreSummary::new();
    sum.set_slos(parse_slos("ttftPerceived 0.95 1000; lag 0.5 10"));
    let (_, f) = write_with(&s.tl, &meta(), Some(&shell), Some(&frames), None);
    sum.add(&f);
    let _: Summary = probe(&sum.to_json(), &seen);
    // Bursts through nginx: a buffering verdict names its place and the header that told it.
    let mut s = Session::new(
        "openai-chat",
        "text/event-stream",
        "server: nginx/1.22.1\n",
        0.0,
        5.0,
        200,
    );
    s.chunk(&sse(&delta(" First")), 100.0);
    s.appended(" First", 101.0);
    s.painted(101.0, 101.0, 103.0);
    let mut rest = String::new();
    for i in 1..60 {
        let w = format!(" w{i}");
        s.chunk(&sse(&delta(&w)), 1700.0 + 0.02 * f64::from(i));
        rest.push_str(&w);
    }
    s.appended(&rest, 1702.0);
    s.painted(1702.0, 1702.0, 1704.0);
    s.end(EndKind::Complete, 1705.0);
    let (json, burst) = write_with(&s.tl, &meta(), None, None, None);
    let r: Report = probe(&json, &seen);
    assert_eq!(r.verdict(), Some("intermediary-buffered"));
    // A summary of such streams: its verdicts and their gains.
    let mut sum = CoreSummary::new();
    for _ in 0..5 {
        sum.add(&burst);
    }
    let _: Summary = probe(&sum.to_json(), &seen);
    // A tail: most streams answer at once, a few wait seconds (a group verdict).
    let mut sum = CoreSummary::new();
    for i in 0..40 {
        let first = if i % 8 == 0 { 6000.0 } else { 100.0 };
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
        for k in 0..5 {
            s.chunk(&sse(&delta(&format!(" w{k}"))), first + 10.0 * f64::from(k));
        }
        s.end(EndKind::Complete, first + 60.0);
        sum.add(&write_with(&s.tl, &meta(), None, None, None).1);
    }
    let _: Summary = probe(&sum.to_json(), &seen);
    // What the page and the engine add: a second choice, a malformed event, the user's
    // inputs, the frames painted, a hidden interval, a stream read late.
    let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 5.0, 200);
    s.chunk(&sse(&delta(" first")), 100.0);
    s.chunk(
        &sse(r#"{"choices":[{"index":1,"delta":{"content":"other"}}]}"#),
        105.0,
    );
    s.chunk(b"data: {not json\n\n", 106.0);
    s.chunk(&sse(&delta(" second")), 120.0);
    s.end(EndKind::Complete, 130.0);
    let _: Report = probe(&write_with(&s.tl, &meta(), None, None, None).0, &seen);
    let mut s = painted_session();
    s.inputs(&[300.0, 20.0, 80.0]);
    s.frames(
        &(0..60)
            .map(|i| 100.0 + 16.7 * f64::from(i))
            .collect::<Vec<_>>(),
    );
    s.hidden(920.0, 940.0);
    s.caught_up(150.0);
    let _: Report = probe(
        &write_with(&s.tl, &meta(), Some(&shell), Some(&frames), None).0,
        &seen,
    );
    // A long answer past the per-token detail, saved: the timeline's merged records, and the
    // saved timeline.
    let mut streams = Streams::default();
    streams.configure(&Config::parse("detail=8"));
    let id = streams.open("auto", "text/event-stream", "", "/v1/x", 0.0, 5.0, 200);
    for i in 0..400 {
        streams.chunk(
            id,
            &sse(&delta(&format!(" w{i}"))),
            100.0 + 10.0 * f64::from(i),
            false,
            f64::NAN,
        );
    }
    streams.end(id, EndKind::Complete, 4200.0, "");
    let json = streams.finish(id, true, true).expect("a report");
    let r: Report = probe(&json, &seen);
    assert!(
        r.saved.is_some() && r.timeline.is_some_and(|t| t.count.is_some()),
        "{json}"
    );
    seen.into_inner()
}

fn delta(text: &str) -> String {
    format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#)
}

/// The names of the structs src/types.rs declares, in order.
fn type_structs() -> Vec<&'static str> {
    include_str!("../../src/types.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("pub struct "))
        .map(|l| l.split([' ', '<', '{']).next().unwrap_or(""))
        .collect()
}

/// The report's fields the shell adds to what the core writes (the core never writes them): by
/// the module that writes each. tests/native/shell.test.mjs (report assembly) checks that it does.
const SHELL_WRITES: [&str; 11] = [
    // js/browser/longframes.js `expandFrames`: the late frames' scripts, the render verdicts'.
    "LateFrame.scripts",
    "Verdict.script",
    "Verdict.scriptUnknown",
    // js/core/assemble.js: the sample rate, the element, how the answer was read, the entry's
    // strings, and the catalog's fix texts (js/verdicts.js).
    "Report.sampleRate",
    "Report.element",
    "Report.read",
    "Report.start",
    "ResourceTiming.protocol",
    "ResourceTiming.serverTiming",
    "Verdict.fix",
    // js/profiler.js `summary()`: the catalog's fix texts of the summary's verdicts.
    "GroupVerdict.fix",
];

#[test]
fn every_field_the_types_declare_is_one_the_core_writes() {
    let seen = written_by_the_core();
    let mut never = Vec::new();
    for (name, (fields, keys)) in &seen.structs {
        for f in fields {
            if !keys.contains(*f) {
                never.push(format!("{name}.{f}"));
            }
        }
    }
    let declared = type_structs();
    let unseen: Vec<&str> = declared
        .iter()
        .copied()
        .filter(|n| !seen.structs.contains_key(n))
        .collect();
    // The structs no JSON of the core's holds: those only the shell writes (under the fields of
    // SHELL_WRITES), `Progress` (live progress, checked both ways by its own test above) and
    // `Summary`, whose group is flattened into it (serde reads it as a map; its own keys are
    // checked below).
    assert_eq!(
        unseen,
        [
            "Progress",
            "ScriptBlame",
            "ShownIn",
            "ReadBy",
            "StartBy",
            "SeenStream",
            "LateScript",
            "ServerTimingEntry",
            "Summary"
        ],
        "a struct of the types that the corpus never reaches"
    );
    let mut sum = CoreSummary::new();
    sum.add(&write_with(&painted_session().tl, &meta(), None, None, None).1);
    let summary: Value = serde_json::from_str(&sum.to_json()).unwrap();
    for key in ["by", "sampleRate", "weighted"] {
        assert!(summary.get(key).is_some(), "the summary's {key}");
    }
    never.sort();
    let mut shell = SHELL_WRITES.map(String::from).to_vec();
    shell.sort();
    assert_eq!(never, shell, "fields declared that neither the core nor the shell writes (or a stale entry of SHELL_WRITES)");
}

/// The interfaces of `js/report.d.ts` (which scripts/schema.mjs writes from src/types.rs's
/// text): each one's own fields, by name, as written there.
fn ts_interfaces() -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in include_str!("../../js/report.d.ts").lines() {
        if let Some(rest) = line.strip_prefix("export interface ") {
            let name = rest.split([' ', '{']).next().unwrap_or("").to_string();
            current = Some((name, Vec::new()));
        } else if line == "}" {
            if let Some((name, fields)) = current.take() {
                out.insert(name, fields);
            }
        } else if let (Some((_, fields)), Some(field)) = (current.as_mut(), line.strip_prefix("  "))
        {
            // `  name: type;` or `  name?: type;` at the interface's own depth (not a doc).
            let name: String = field
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let rest = &field[name.len()..];
            if !name.is_empty() && (rest.starts_with(':') || rest.starts_with("?:")) {
                fields.push(name);
            }
        }
    }
    out
}

/// Each struct of the types with the fields it declares to serde (its own list, read by the
/// probe from an empty object, whatever the JSON holds).
fn declared_fields() -> Vec<(&'static str, Vec<&'static str>)> {
    use serde::Deserialize;
    use tokenpaint::types::*;
    let seen = std::cell::RefCell::new(Seen::default());
    let empty = Value::Object(Default::default());
    macro_rules! declare {
        ($($t:ty),* $(,)?) => {
            $(let _ = <$t>::deserialize(Probe { v: &empty, seen: &seen });)*
        };
    }
    declare!(
        Report,
        SavedTimeline,
        Progress,
        ErrorInfo,
        PaintBracket,
        Spread,
        Detail,
        Usage,
        Side,
        Span,
        Choice,
        ServerTimings,
        Delivery,
        Stalls,
        InputTiming,
        FrameCount,
        Phase,
        PhasesTotal,
        FirstToken,
        Intermediary,
        Pace,
        Arrivals,
        Verdict,
        ScriptBlame,
        Gain,
        Hidden,
        Malformed,
        ShownIn,
        ReadBy,
        SeenStream,
        StartBy,
        CaughtUp,
        LatePaints,
        LateFrame,
        LateScript,
        ResourceTiming,
        ServerTimingEntry,
        Timeline,
        Percentiles,
        StreamCounts,
        SloResult,
        Goodput,
        GroupVerdict,
        SummaryGroup,
        GroupGain,
        SummaryBy,
    );
    let seen = seen.into_inner();
    seen.structs
        .into_iter()
        .map(|(name, (fields, _))| (name, fields))
        .collect()
}

#[test]
fn the_typescript_status_is_the_rust_status() {
    use serde::Deserialize;
    let seen = std::cell::RefCell::new(Seen::default());
    let ok = Value::String("ok".into());
    let status = Status::deserialize(Probe {
        v: &ok,
        seen: &seen,
    })
    .unwrap();
    assert_eq!(status, Status::Ok);
    let variants = seen.into_inner().enums["Status"].clone();
    let line = include_str!("../../js/report.d.ts")
        .lines()
        .find_map(|l| l.strip_prefix("export type Status = "))
        .expect("js/report.d.ts's Status");
    let ts: Vec<&str> = line
        .trim_end_matches(';')
        .split(" | ")
        .map(|v| v.trim_matches('\''))
        .collect();
    assert_eq!(
        ts, variants,
        "js/report.d.ts's Status against the Rust enum's variants"
    );
}

#[test]
fn the_typescript_types_declare_the_fields_the_rust_types_declare() {
    // The names of js/report.d.ts where they are not the Rust ones (scripts/schema.mjs TS_NAMES).
    let ts_name = |rust: &str| match rust {
        "Report" => "StreamReport".to_string(),
        "ErrorInfo" => "StreamErrorInfo".to_string(),
        n => n.to_string(),
    };
    let ts = ts_interfaces();
    let declared = declared_fields();
    // Every struct of src/types.rs is read by the probe but `Summary` (its group is flattened
    // into it, so serde gives no list of its fields; it is checked by what it writes below).
    let mut all: Vec<&str> = type_structs()
        .into_iter()
        .filter(|n| *n != "Summary")
        .collect();
    let mut probed: Vec<&str> = declared.iter().map(|(n, _)| *n).collect();
    probed.sort();
    all.sort();
    assert_eq!(
        probed, all,
        "a struct of src/types.rs the probe does not declare"
    );
    for (name, fields) in &declared {
        let mut want: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        let mut have = ts
            .get(&ts_name(name))
            .unwrap_or_else(|| panic!("js/report.d.ts has no interface for {name}"))
            .clone();
        want.sort();
        have.sort();
        assert_eq!(
            have,
            want,
            "js/report.d.ts's {} against {name}'s fields",
            ts_name(name)
        );
    }
    // Summary: its group is flattened into it (serde writes the group's keys as its own), and
    // TypeScript says so: `Summary extends SummaryGroup`, with only the keys it writes beyond the
    // group's declared on it (scripts/schema.mjs finds the struct whose fields it holds as they are).
    let keys = |v: Value| -> std::collections::BTreeSet<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let whole = keys(serde_json::to_value(Summary::default()).unwrap());
    let group = keys(serde_json::to_value(tokenpaint::types::SummaryGroup::default()).unwrap());
    let own: Vec<String> = whole.difference(&group).cloned().collect();
    let mut have = ts["Summary"].clone();
    have.sort();
    assert_eq!(
        have, own,
        "js/report.d.ts's Summary against the summary's own keys"
    );
    assert!(
        group.is_subset(&whole)
            && group.len() > 20
            && include_str!("../../js/report.d.ts")
                .contains("export interface Summary extends SummaryGroup {"),
        "the summary holds its group's fields"
    );
}
