//! The catalogues a report is written in: how a stream ended ([`Status`], [`ErrorFigure`]) and
//! the metrics a summary aggregates ([`Metric`]).

use super::*;

/// How the stream turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    /// Read to the end without an error.
    Ok,
    /// An HTTP error status, an error sent in the stream, or a network failure.
    Error,
    /// Cancelled by the application or an AbortSignal.
    Aborted,
    /// Ended inside an event, carried no event at all, or never ended before the report.
    #[default]
    Incomplete,
}

impl Status {
    /// Every status, in the order summaries count them.
    pub const ALL: [Status; 4] = [
        Status::Ok,
        Status::Error,
        Status::Aborted,
        Status::Incomplete,
    ];

    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Aborted => "aborted",
            Status::Incomplete => "incomplete",
        }
    }
}

/// Why a stream is not `ok`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ErrorFigure {
    /// `http`, `stream`, `network`, `aborted`, `truncated`, `not-ended`, `empty-stream`.
    pub kind: &'static str,
    /// The provider's code, or the HTTP status.
    pub code: String,
    /// What the server or the shell said.
    pub message: String,
}

/// A figure a summary aggregates over streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Measured TTFT.
    Ttft,
    /// Perceived TTFT (after-paint time).
    TtftPerceived,
    /// Measured E2E.
    E2e,
    /// Perceived E2E (after-paint time).
    E2ePerceived,
    /// Time per output token.
    Tpot,
    /// Gaps between answer deltas (one sample per gap).
    Itl,
    /// Delivery lag (one sample per painted delta).
    Lag,
    /// The queue phase.
    Queue,
    /// The prefill phase.
    Prefill,
    /// The network phase.
    Network,
    /// The decode phase.
    Decode,
    /// The intermediary hold.
    Intermediary,
    /// Client delivery of the last content.
    Client,
    /// The longest freeze (the longest stall; 0 for a stream painted with none).
    Freeze,
    /// Frames painted per second while the answer streamed.
    Fps,
    /// Frames dropped while the answer streamed.
    DroppedFrames,
    /// The longest of the user's interactions while the answer streamed (to its next paint).
    InputDuration,
}

impl Metric {
    /// Every metric, in the order summaries write them.
    pub const ALL: [Metric; 17] = [
        Metric::Ttft,
        Metric::TtftPerceived,
        Metric::E2e,
        Metric::E2ePerceived,
        Metric::Tpot,
        Metric::Itl,
        Metric::Lag,
        Metric::Queue,
        Metric::Prefill,
        Metric::Network,
        Metric::Decode,
        Metric::Intermediary,
        Metric::Client,
        Metric::Freeze,
        Metric::Fps,
        Metric::DroppedFrames,
        Metric::InputDuration,
    ];

    /// The name reports, summaries and SLO specs use.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ttft => "ttft",
            Metric::TtftPerceived => "ttftPerceived",
            Metric::E2e => "e2e",
            Metric::E2ePerceived => "e2ePerceived",
            Metric::Tpot => "tpot",
            Metric::Itl => "itl",
            Metric::Lag => "lag",
            Metric::Queue => "queue",
            Metric::Prefill => "prefill",
            Metric::Network => "network",
            Metric::Decode => "decode",
            Metric::Intermediary => "intermediary",
            Metric::Client => "client",
            Metric::Freeze => "freeze",
            Metric::Fps => "fps",
            Metric::DroppedFrames => "droppedFrames",
            Metric::InputDuration => "inputDuration",
        }
    }

    /// Whether a target (SLO) can be set on it: a most, so not on a frame rate (more is
    /// better there).
    pub fn has_target(self) -> bool {
        self != Metric::Fps
    }

    /// The metric a name stands for.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Where the metric sits in [`Metric::ALL`] (and in a summary's sketches).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The stream's status and, when it is not `ok`, why.
pub(super) fn status(tl: &Timeline, end_message: &str) -> (Status, Option<ErrorFigure>) {
    let err = |status, kind, code: String, message: &str| {
        let e = ErrorFigure {
            kind,
            code,
            message: message.into(),
        };
        (status, Some(e))
    };
    let stream_message = tl.stream_error.as_ref().map_or("", |e| e.message.as_str());
    match tl.end {
        Some((EndKind::Aborted, _)) => {
            return err(Status::Aborted, "aborted", String::new(), end_message)
        }
        Some((EndKind::Failed, _)) => {
            return err(Status::Error, "network", String::new(), end_message)
        }
        _ => {}
    }
    if tl.http_status >= 400 {
        let mut w = crate::jsonwrite::JsonWriter::new();
        w.uint(u64::from(tl.http_status));
        return err(Status::Error, "http", w.finish(), stream_message);
    }
    if let Some(e) = &tl.stream_error {
        return err(Status::Error, "stream", e.code.clone(), &e.message);
    }
    if tl.end.is_none() {
        return err(Status::Incomplete, "not-ended", String::new(), "");
    }
    if tl.truncated {
        return err(Status::Incomplete, "truncated", String::new(), "");
    }
    if tl.events == 0 && tl.deltas == 0 && tl.reasoning.deltas == 0 && tl.tool_calls == 0 {
        // A 200 stream with no event at all: llama.cpp-based servers answer a prompt longer
        // than their context this way, with the error only in their log.
        let why = "the server sent no event: check its log (a prompt longer than the context is one cause)";
        return err(Status::Incomplete, "empty-stream", String::new(), why);
    }
    (Status::Ok, None)
}

/// Every fix id the core gives (`fixId`, with its verdict): the verdict's name, or
/// `name/variant`. Their texts are in the verdict catalog (src/verdicts.json), outside the wasm:
/// the shell adds them (js/verdicts.js). A test holds this list and the catalog to each other.
pub const FIX_IDS: &[&str] = &[
    "client-buffers-whole-answer",
    "client-updates-deferred",
    "client-input-delayed",
    "client-smoothing",
    "client-render-bound",
    "client-render-growing",
    "conversation-weight",
    "provider-bursts",
    "server-buffered",
    "intermediary-buffered",
    "intermediary-buffered/compressing-proxy",
    "intermediary-buffered/compression",
    "intermediary-buffered/proxy",
    "queue-bound",
    "prefill-bound",
    "network-bound",
    "decode-bound",
    "reasoning-delay",
    "decode-stall",
    "page-stall",
    "browser-queued",
    "insufficient-evidence/dom",
    "insufficient-evidence/dom/closed-shadow-root",
    "insufficient-evidence/dom/cross-origin-iframe",
    "insufficient-evidence/paint",
    "insufficient-evidence/matched",
    "insufficient-evidence/reading",
    "insufficient-evidence/arrival-clock",
    "insufficient-evidence/server-timings",
    "insufficient-evidence/deltas",
    "healthy",
    // A summary's verdicts.
    "capacity",
    "tail",
    "client-tail",
];

// serde_json is a dev-dependency on the host only.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod verdict_catalog {
    use super::FIX_IDS;

    fn catalog() -> serde_json::Value {
        serde_json::from_str(include_str!("../verdicts.json")).expect("src/verdicts.json")
    }

    #[test]
    fn the_core_gives_exactly_the_fix_ids_of_the_catalog() {
        let cat = catalog();
        let mut ids = Vec::new();
        for v in cat["verdicts"].as_array().expect("verdicts") {
            let name = v["id"].as_str().expect("id");
            for (id, text) in v["fixes"].as_object().expect("fixes") {
                assert!(
                    id == name || id.starts_with(&format!("{name}/")),
                    "{id} under {name}"
                );
                assert!(
                    text.as_str().is_some_and(|t| !t.is_empty()),
                    "{id}: no text"
                );
                ids.push(id.as_str());
            }
        }
        for id in FIX_IDS {
            assert!(
                ids.contains(id),
                "the core gives {id}, which the catalog lacks"
            );
        }
        for id in &ids {
            assert!(
                FIX_IDS.contains(id),
                "the catalog has {id}, which the core never gives"
            );
        }
    }

    #[test]
    fn a_fix_id_missing_on_either_side_shows() {
        // The same check, on a catalog with one fix dropped and one added.
        let text = include_str!("../verdicts.json")
            .replace("\"tail\": \"", "\"tail-x\": \"")
            .replace("\"healthy\": \"", "\"healthy/x\": \"");
        let cat: serde_json::Value = serde_json::from_str(&text).expect("json");
        let ids: Vec<String> = cat["verdicts"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|v| v["fixes"].as_object().into_iter().flatten())
            .map(|(k, _)| k.clone())
            .collect();
        assert!(!ids.iter().any(|i| i == "tail") && FIX_IDS.contains(&"tail"));
        assert!(ids.iter().any(|i| i == "healthy/x") && !FIX_IDS.contains(&"healthy/x"));
    }
}
