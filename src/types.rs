//! Reports and summaries as Rust types (feature `serde`), for Rust apps that read what the
//! profiler gives them: [`Report`] for one finished stream, [`Summary`] over many.
//!
//! The core writes its reports without serde ([`crate::figures::report`]), to keep the wasm module
//! small; these types read that JSON back. A native test (`tests/typed.rs`) reads the core's
//! report of every fixture and summary into them and writes them out again: every field the core
//! writes must come back unchanged, so the two cannot drift apart. Times are milliseconds from the
//! request's start; `None` means unknown, never zero.
//!
//! ```
//! # #[cfg(not(target_arch = "wasm32"))] {
//! let json = r#"{"id":1,"url":"/chat","transport":"fetch","status":"ok","ttft":120.5,
//!                "tokens":42,"diagnosis":[],"unavailable":["dom"]}"#;
//! let report: tokenpaint::types::Report = serde_json::from_str(json).unwrap();
//! assert_eq!(report.ttft, Some(120.5));
//! assert_eq!(report.ttft_perceived, None); // not sent: unknown
//! # }
//! ```
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One finished stream, as the profiler reports it (the `Report` of the JavaScript package).
///
/// Fields the profiler cannot know are `None`. A report of a stream tokenpaint itself failed on
/// has `status: "failed"`, an [`ErrorInfo`], and every figure `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The report's id, one per stream of a page.
    pub id: u64,
    /// The share of streams profiled (`sampleRate × streamSampleRate`); absent outside a browser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_rate: Option<f64>,
    /// The request URL without query string or fragment.
    pub url: String,
    /// The stream's label, if any.
    pub label: Option<String>,
    /// What carried the stream: `fetch`, `xhr`, `eventsource`, `websocket`, `socket.io`, `push`.
    pub transport: String,
    /// For an EventSource reconnect: the last event id the stream resumed from.
    pub resumed_from: Option<String>,
    /// The detected or given wire format (`openai-chat`, `anthropic`, …, `unknown`).
    pub format: Option<String>,
    /// How the stream ended.
    pub status: Status,
    /// What went wrong, when something did.
    pub error: Option<ErrorInfo>,
    /// The HTTP status of the response.
    pub http_status: Option<u16>,
    /// `performance.now()` at the request's start.
    pub start_time: Option<f64>,
    /// Response headers received.
    pub headers: Option<f64>,
    /// Time to the first byte of the body.
    pub ttfb: Option<f64>,
    /// Time to the first chunk (event), whatever it carried.
    pub ttfc: Option<f64>,
    /// Measured TTFT: arrival of the first chunk carrying answer content.
    pub ttft: Option<f64>,
    /// Measured E2E: arrival of the last content chunk.
    pub e2e: Option<f64>,
    /// Perceived TTFT: the first visible answer text painted.
    pub ttft_perceived: Option<PaintBracket>,
    /// Perceived E2E: the last visible answer text painted.
    pub e2e_perceived: Option<PaintBracket>,
    /// (E2E − TTFT) / (tokens − 1), over the timed answer only.
    pub tpot: Option<f64>,
    /// Gaps between consecutive content chunks.
    pub itl: Option<Spread>,
    /// Whose pace TPOT and ITL are (a buffer's, when the arrivals were held together).
    pub pace: Option<Pace>,
    /// Which clock stamped the arrivals, and how late the page read them.
    pub arrivals: Option<Arrivals>,
    /// Output tokens: from usage when the server sent it, else counted deltas.
    pub tokens: Option<u64>,
    /// `usage` or `counted`.
    pub tokens_source: Option<String>,
    /// Why usage was not taken as the count of timed tokens (`no-usage`, `tool-calls`, …).
    pub tokens_counted_because: Option<String>,
    /// Content-bearing deltas received.
    pub deltas: Option<u64>,
    /// Per-token records kept, and whether neighbouring records were merged past the cap.
    pub detail: Option<Detail>,
    /// Characters of answer text received.
    pub chars: Option<u64>,
    /// Body bytes received.
    pub bytes: Option<u64>,
    /// Body chunks received.
    pub chunks: Option<u64>,
    /// Token usage as the server reported it.
    pub usage: Option<Usage>,
    /// Reasoning deltas, timed apart from the answer.
    pub reasoning: Option<Side>,
    /// Refusal deltas, timed with the answer and counted apart.
    pub refusal: Option<Side>,
    /// Tool-call deltas.
    pub tool_calls: Option<u64>,
    /// Arrival of the first and the last tool-call delta.
    pub tool_call_span: Option<Span>,
    /// With several choices: the deltas of each (choice 0 is the answer shown).
    pub choices: Option<Vec<Choice>>,
    /// Why generation stopped, as the server said.
    pub finish_reason: Option<String>,
    /// Timings the server sent in the body.
    pub server_timings: Option<ServerTimings>,
    /// Delivery lag per token: painted − arrived.
    pub lag: Option<Spread>,
    /// Most characters arrived but not yet painted at any moment.
    pub backlog_peak: Option<f64>,
    /// Share of the arrived visible answer text found on screen, 0–100.
    pub matched_pct: Option<f64>,
    /// How the page put the text on screen.
    pub delivery: Option<Delivery>,
    /// Waits with text arrived and nothing painted.
    pub stalls: Option<Stalls>,
    /// The phases of end-to-end latency, in order.
    pub phases: Option<Vec<Phase>>,
    /// What the phases add up to, and the part no known phase explains.
    pub phases_total: Option<PhasesTotal>,
    /// Arrivals compared with steady decoding: what an intermediary held.
    pub intermediary: Option<Intermediary>,
    /// Which part is slow, most important first, with evidence and fix.
    pub diagnosis: Vec<Verdict>,
    /// When the page was hidden during the stream.
    pub hidden: Option<Hidden>,
    /// Whether the stream's end marker (`[DONE]`, `message_stop`, …) came.
    pub done_marker: Option<bool>,
    /// Whether the body ended in the middle of an event.
    pub truncated: Option<bool>,
    /// Events that could not be read.
    pub malformed: Option<Malformed>,
    /// The answer text (only with `includeText`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The reasoning text (only with `includeText`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_text: Option<String>,
    /// What could not be measured: `format`, `dom`, `paint`, `usage`, `long-animation-frame`.
    pub unavailable: Vec<String>,
    /// Why no answer text was found on the page, when none was.
    pub dom_reason: Option<String>,
    /// Where `start_time` comes from: `request`, `resource-timing`, `headers`, `unknown`.
    pub start_source: Option<String>,
    /// A stream that began before the module loaded: when the page was read, and how many commits
    /// carry that time.
    pub caught_up: Option<CaughtUp>,
    /// Late tokens and the long animation frames that overlapped them (browser only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_paints: Option<LatePaints>,
    /// The browser's Resource Timing entry for the request (browser only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_timing: Option<ResourceTiming>,
    /// Ratings of the headline metrics: `good`, `needs-improvement`, `poor` (browser only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<BTreeMap<String, Option<String>>>,
    /// Where paint times come from (`raf`), browser only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paint_source: Option<String>,
    /// The resolution of the page's timer (ms), browser only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_ms: Option<f64>,
    /// Per-token arrays (absent with `timeline: false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

impl Report {
    /// The headline verdict (the first of [`Report::diagnosis`]), e.g. `healthy`, `buffered`.
    pub fn verdict(&self) -> Option<&str> {
        self.diagnosis.first().map(|v| v.verdict.as_str())
    }
}

/// An open stream so far, as `onProgress` gives it: read from the records its report will be
/// made of. Times are ms from the request start; `None` is unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Progress {
    /// The id its report will have.
    pub id: u64,
    /// The request URL without query string or fragment.
    pub url: String,
    /// When (the frame's after-paint time).
    pub t: Option<f64>,
    /// Characters of answer text arrived.
    pub arrived: u64,
    /// Characters of it painted (`None` where tokenpaint does not watch the page or cannot take
    /// paints).
    pub painted: Option<u64>,
    /// Arrived minus painted (`None` as `painted`).
    pub backlog: Option<i64>,
    /// Measured TTFT, once known.
    pub ttft: Option<f64>,
    /// Perceived TTFT, once known.
    pub ttft_perceived: Option<f64>,
    /// The lag of the last painted token.
    pub lag: Option<f64>,
    /// How long the oldest visible text not yet painted has waited (0 when none waits; `None` as
    /// `painted`).
    pub waiting: Option<f64>,
    /// The body has ended; the report waits for the last paints.
    pub ended: bool,
}

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Read to its end.
    Ok,
    /// An HTTP error, or an error the server sent in the body, or a network error.
    Error,
    /// The app aborted it.
    Aborted,
    /// The app stopped reading, or the page left, before its end.
    Incomplete,
    /// tokenpaint itself failed (the app was unaffected): every figure is unknown.
    Failed,
}

/// What went wrong with a stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErrorInfo {
    /// `http`, `stream`, `network`, `aborted`, `truncated`, `not-ended`, `empty-stream`, `internal`.
    pub kind: String,
    /// The server's or the browser's code, if any.
    pub code: Option<String>,
    /// The message, if any.
    pub message: Option<String>,
}

/// When a token was painted: between the start of its frame and the after-paint mark (ms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PaintBracket {
    /// The start of the frame that painted it.
    pub frame: f64,
    /// The after-paint mark.
    pub painted: f64,
}

/// A distribution in brief.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Spread {
    /// Samples.
    pub count: u64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest.
    pub max: f64,
}

/// Per-token records kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Detail {
    /// Records kept.
    pub records: u64,
    /// The cap (`maxTokenDetail`).
    pub cap: u64,
    /// Whether neighbouring records were merged past the cap.
    pub decimated: bool,
}

/// Token usage as the server reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: Option<u64>,
    /// Completion tokens.
    pub completion_tokens: Option<u64>,
    /// Reasoning tokens, within the completion.
    pub reasoning_tokens: Option<u64>,
    /// Prompt tokens served from a cache.
    pub cached_tokens: Option<u64>,
}

/// Reasoning or refusal deltas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Side {
    /// Deltas.
    pub deltas: u64,
    /// Characters.
    pub chars: u64,
    /// Arrival of the first.
    pub first: Option<f64>,
    /// Arrival of the last.
    pub last: Option<f64>,
}

/// A first and a last time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Span {
    /// The first.
    pub first: f64,
    /// The last.
    pub last: f64,
}

/// The deltas of one choice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Choice {
    /// The choice's index.
    pub index: u64,
    /// Its deltas.
    pub deltas: u64,
}

/// Timings the server sent in the body (vLLM `metrics`, llama.cpp `timings`, Ollama durations).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerTimings {
    /// Time queued.
    pub queue: Option<f64>,
    /// Time to first token on the server.
    pub ttft: Option<f64>,
    /// Prompt processing.
    pub prefill: Option<f64>,
    /// Token generation.
    pub decode: Option<f64>,
    /// Mean time between tokens on the server.
    pub itl: Option<f64>,
    /// Model load.
    pub load: Option<f64>,
    /// Total.
    pub total: Option<f64>,
}

/// How the page put the text on screen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Delivery {
    /// `per-token`, `throttled`, `smoothed`, `buffered-until-end`, `partial`.
    pub pattern: String,
    /// Throttled: the median interval between updates (ms).
    pub interval: Option<f64>,
    /// Smoothed: the reveal rate (characters per second).
    pub rate: Option<f64>,
}

/// Waits with text arrived and nothing painted, longer than the threshold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Stalls {
    /// The threshold (`stallMs`).
    pub threshold: f64,
    /// How many.
    pub count: u64,
    /// Their total length.
    pub total_ms: f64,
    /// The longest.
    pub longest: Option<f64>,
    /// Each one's start and end.
    pub list: Vec<(f64, f64)>,
}

/// One phase of end-to-end latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Phase {
    /// `queue`, `prefill`, `network`, `decode`, `intermediary` or `client`.
    pub name: String,
    /// Its length, when known.
    pub ms: Option<f64>,
    /// `server`, `client` or `derived`.
    pub source: Option<String>,
    /// Why it is unknown: `no-server-timings`, `needs-queue-and-prefill`,
    /// `server-exceeds-arrivals`, `too-few-deltas`, `step-unknown`, `not-painted`,
    /// `last-delta-invisible`.
    #[serde(rename = "unknownBecause")]
    pub unknown_because: Option<String>,
}

/// What the phases add up to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PhasesTotal {
    /// The total.
    pub ms: f64,
    /// What it is the total of: `e2ePerceived` or `e2e`.
    pub of: String,
    /// The part no known phase explains.
    pub unattributed: f64,
}

/// Arrivals compared with steady decoding.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Intermediary {
    /// `steady`, `bursty` or `all-at-once`.
    pub pattern: String,
    /// Mean time a token was held.
    pub held_mean_ms: f64,
    /// Time the first token was held.
    pub held_first_ms: f64,
    /// Time the last token was held.
    pub held_last_ms: f64,
    /// The decoding step (`None`: nothing tells it, every token in one read and no server
    /// timings).
    pub step_ms: Option<f64>,
    /// `server` or `derived`.
    pub step_source: String,
    /// Tokens per burst.
    pub tokens_per_burst: f64,
    /// Who held what arrived together: `nothing`, `intermediary` or `page` (late reads).
    pub held_by: String,
    /// Mean delay per token of the page's late reads.
    pub late_read_ms: f64,
    /// The server's decode span equals the page's: the first and last token not held apart.
    pub matches_server: bool,
}

/// Whose pace TPOT and ITL are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pace {
    /// `arrivals`, `buffer` (an intermediary released them together) or `page-reads` (a blocked
    /// page read them together).
    pub of: String,
    /// The server's own time per token, when it reported its decode time.
    pub server_step_ms: Option<f64>,
}

/// Which clock stamped the arrivals, and how late the page read them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Arrivals {
    /// `page-read`: when the page's JavaScript read each chunk, on the main thread.
    pub clock: String,
    /// The main thread's blocked time seen while the stream was open.
    pub blocked_ms: Option<f64>,
    /// Mean delay per delta of reads bunched after the main thread was blocked.
    pub late_read_ms: Option<f64>,
    /// Arrival groups read late by the page.
    pub late_read_groups: u64,
    /// How long after the network's last byte (Resource Timing) the page read the body's end.
    pub end_read_late_ms: Option<f64>,
}

/// One verdict of a report's diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Verdict {
    /// `healthy`, `buffered`, `render-throttled`, `insufficient-evidence`, …
    pub verdict: String,
    /// The figures it rests on.
    pub evidence: BTreeMap<String, Option<f64>>,
    /// What fixes it.
    pub fix: String,
    /// `insufficient-evidence`: what is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// Buffering verdicts: where it most likely is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// Buffering verdicts: the response header that says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_header: Option<String>,
}

/// When the page was hidden during the stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Hidden {
    /// How many times.
    pub intervals: u64,
    /// For how long.
    pub ms: f64,
    /// Lag samples left out.
    pub excluded_samples: u64,
}

/// Events that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Malformed {
    /// How many.
    pub events: u64,
    /// The first of them.
    pub first: Option<String>,
    /// A framing error, if any.
    pub framing: Option<String>,
}

/// A stream that began before the module loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CaughtUp {
    /// When the page's text was read.
    pub at: f64,
    /// Commits that carry that time rather than their own.
    pub tokens: u64,
}

/// Late tokens and the long animation frames that overlapped them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LatePaints {
    /// The threshold (`lateMs`).
    pub threshold: f64,
    /// Late tokens.
    pub tokens: u64,
    /// Late tokens a long frame overlapped.
    pub attributed: Option<u64>,
    /// The long frames.
    pub frames: Vec<LateFrame>,
}

/// A long animation frame that overlapped late tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LateFrame {
    /// Its start.
    pub start: f64,
    /// Its length.
    pub duration: f64,
    /// Its blocking time.
    pub blocking_duration: f64,
    /// Late tokens it overlapped.
    pub tokens: u64,
    /// Its longest scripts (the browser shell fills them in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scripts: Option<Vec<LateScript>>,
    /// The frame's number, before the shell puts its scripts in its place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// A script of a long animation frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LateScript {
    /// What invoked it.
    pub invoker: Option<String>,
    /// Of what type.
    pub invoker_type: Option<String>,
    /// Its source URL.
    #[serde(rename = "sourceURL")]
    pub source_url: Option<String>,
    /// Its function name.
    pub source_function_name: Option<String>,
    /// How long it ran.
    pub duration: f64,
}

/// The browser's Resource Timing entry for the request (ms from the start).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceTiming {
    /// The entry's start.
    pub start_time: Option<f64>,
    /// DNS lookup.
    pub dns: Option<f64>,
    /// Connection set-up.
    pub connect: Option<f64>,
    /// The request sent.
    pub request_start: Option<f64>,
    /// The first byte of the response.
    pub response_start: Option<f64>,
    /// The last byte of the response.
    pub response_end: Option<f64>,
    /// Waiting in the browser before the request was sent.
    pub browser_queue: Option<f64>,
    /// The protocol (`http/1.1`, `h2`, …), from the shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The response's Server-Timing entries, from the shell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_timing: Option<Vec<ServerTimingEntry>>,
}

/// One Server-Timing entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerTimingEntry {
    /// Its name.
    pub name: String,
    /// Its duration.
    pub dur: f64,
    /// Its description.
    pub desc: Option<String>,
}

/// Per-token arrays (ms from the start; `None` unknown).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timeline {
    /// Arrival.
    pub arrived: Vec<Option<f64>>,
    /// DOM commit.
    pub committed: Vec<Option<f64>>,
    /// Start of the frame that painted it.
    pub frame: Vec<Option<f64>>,
    /// The after-paint mark.
    pub painted: Vec<Option<f64>>,
    /// Characters.
    pub chars: Vec<u64>,
    /// Deltas each record stands for (only once decimated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<Vec<u64>>,
}

/// Percentiles of one metric over a group of streams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Percentiles {
    /// Samples.
    pub count: u64,
    /// Median.
    pub p50: Option<f64>,
    /// 90th percentile.
    pub p90: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// Largest.
    pub max: Option<f64>,
}

/// Streams of a group by how they ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamCounts {
    /// Read to their end.
    pub ok: u64,
    /// Errors.
    pub error: u64,
    /// Aborted by the app.
    pub aborted: u64,
    /// Not read to their end.
    pub incomplete: u64,
}

/// One target of a group and whether it holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SloResult {
    /// The metric.
    pub metric: String,
    /// The quantile (0.95 for p95).
    pub quantile: f64,
    /// The target (ms).
    pub max: f64,
    /// The measured value.
    pub value: Option<f64>,
    /// Whether it holds (`None`: no samples).
    pub holds: Option<bool>,
}

/// Streams that met every target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Goodput {
    /// Streams that met every target.
    pub met: u64,
    /// Of how many.
    pub of: u64,
    /// `met / of`.
    pub share: f64,
    /// Streams not `ok` (counted as missed).
    pub not_ok: u64,
}

/// A verdict over a group of streams (`capacity`, `tail`, `client-tail`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GroupVerdict {
    /// The verdict.
    pub verdict: String,
    /// The figures it rests on.
    pub evidence: BTreeMap<String, Option<f64>>,
    /// What fixes it.
    pub fix: String,
}

/// Percentiles over a group of finished streams.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SummaryGroup {
    /// Streams in the group.
    pub count: u64,
    /// Streams by how they ended.
    pub streams: StreamCounts,
    /// Measured TTFT.
    pub ttft: Percentiles,
    /// Perceived TTFT.
    pub ttft_perceived: Percentiles,
    /// Measured E2E.
    pub e2e: Percentiles,
    /// Perceived E2E.
    pub e2e_perceived: Percentiles,
    /// Time per output token.
    pub tpot: Percentiles,
    /// Inter-token latency.
    pub itl: Percentiles,
    /// Delivery lag.
    pub lag: Percentiles,
    /// The queue phase.
    pub queue: Percentiles,
    /// The prefill phase.
    pub prefill: Percentiles,
    /// The network phase.
    pub network: Percentiles,
    /// The decode phase.
    pub decode: Percentiles,
    /// The intermediary phase.
    pub intermediary: Percentiles,
    /// The client phase.
    pub client: Percentiles,
    /// Targets and whether they hold.
    pub slo: Vec<SloResult>,
    /// Streams that met every target, when targets are set.
    pub goodput: Option<Goodput>,
    /// Verdicts over the group.
    pub diagnosis: Vec<GroupVerdict>,
    /// Streams by their headline verdict.
    pub verdicts: BTreeMap<String, u64>,
    /// Tokens painted late.
    pub late_paint_tokens: u64,
}

/// The summary: overall, and by format, URL and label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Summary {
    /// The figures over every stream.
    #[serde(flatten)]
    pub all: SummaryGroup,
    /// The groups by format, URL and label.
    pub by: SummaryBy,
    /// The sample rate the counts are in units of.
    pub sample_rate: f64,
    /// Whether summaries sampled at different rates were merged in (and weighted).
    pub weighted: bool,
}

/// The summary's groups.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummaryBy {
    /// By wire format.
    pub format: BTreeMap<String, SummaryGroup>,
    /// By URL.
    pub url: BTreeMap<String, SummaryGroup>,
    /// By label.
    pub label: BTreeMap<String, SummaryGroup>,
}
