//! Reports and summaries as Rust types (feature `serde`), for Rust apps that read what the
//! profiler gives them: [`Report`] for one finished stream, [`Summary`] over many.
//!
//! The core writes its reports without serde ([`crate::figures::report`]), to keep the wasm module
//! small; these types read that JSON back. A native test (`tests/native/typed.rs`) reads the core's
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The report's id, one per stream of a page.
    pub id: u64,
    /// The share of streams profiled: `sampleRate × streamSampleRate` (1 unless they were set), to
    /// weigh reports merged from many pages; absent outside a browser. Always there in the browser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_rate: Option<f64>,
    /// The request URL without query string or fragment (which may carry keys).
    pub url: String,
    /// The stream's label (`label`, or `labeled()`), if any.
    pub label: Option<String>,
    /// What carried the stream to the page: one of `fetch`, `xhr`, `eventsource`, `websocket`,
    /// `socket.io`, `push` (the `stream()` handle) or `unknown` (an answer no stream carried:
    /// `read`).
    pub transport: String,
    /// For an EventSource that reconnected: the last event id this stream resumed from (the stream
    /// before it ended there).
    pub resumed_from: Option<String>,
    /// The detected or given wire format, or how the shell read the answer: one of `openai-chat`,
    /// `openai-responses`, `anthropic`, `ollama`, `tgi`, `llamacpp`, `ai-sdk-ui`, `ai-sdk-data`,
    /// `sse-text`, `text`, `json`, `unknown` (JSON events of no known shape), `open-webui` or
    /// `gradio` (an app's protocol, read by the shell) or `learned` (a path the shell learned from
    /// the page: `read`).
    pub format: Option<String>,
    /// How the stream ended: `ok`, `error` (HTTP status ≥ 400, an error sent in the stream, a
    /// network failure), `aborted` (cancelled by the app or an AbortSignal), `incomplete` (the body
    /// ended inside an event, or a 2xx body carried no event at all), `failed` (tokenpaint itself
    /// failed; the app was unaffected).
    pub status: Status,
    /// What went wrong, when something did: `{ kind, code, message }`. Kept in a failed report.
    pub error: Option<ErrorInfo>,
    /// The HTTP status of the response. Null only in a failed report.
    pub http_status: Option<u16>,
    /// The request start (`performance.now()`), the zero of every other time. Null only in a failed
    /// report.
    pub start_time: Option<f64>,
    /// When the response headers arrived.
    pub headers: Option<f64>,
    /// Time to the first byte of the body.
    pub ttfb: Option<f64>,
    /// Time to first chunk: the first event, whatever it carried (a role, reasoning, a tool call or
    /// text): vLLM's benchmark TTFT, OpenTelemetry's `time_to_first_chunk`.
    pub ttfc: Option<f64>,
    /// Measured TTFT: arrival of the first chunk carrying answer content.
    pub ttft: Option<f64>,
    /// Measured E2E: arrival of the last answer content chunk (usage and the end marker excluded).
    pub e2e: Option<f64>,
    /// When the body ended: its last byte read, the end marker and usage included, or the abort
    /// or error that ended it (OpenTelemetry's `gen_ai.client.operation.duration`).
    pub body_end: Option<f64>,
    /// Perceived TTFT: the paint bracket `{ frame, painted }` of the first visible answer text.
    pub ttft_perceived: Option<PaintBracket>,
    /// Perceived E2E: the paint bracket of the last visible answer text.
    pub e2e_perceived: Option<PaintBracket>,
    /// Time per output token: (E2E − TTFT) / (tokens − 1), over the timed answer only; null with
    /// fewer than two answer deltas.
    pub tpot: Option<f64>,
    /// Perceived time per output token: (perceived E2E − perceived TTFT) / (tokens − 1), from the
    /// paints of the first and the last answer text: the pace the answer appeared at on screen,
    /// next to `tpot`, the pace it arrived at. Null when either paint or `tpot` is.
    pub tpot_perceived: Option<f64>,
    /// Gaps between consecutive answer content chunks, `{ count, p50, p95, max }`.
    pub itl: Option<Spread>,
    /// Whose pace `tpot` and `itl` are: the arrivals', a buffer's (an intermediary released them
    /// together) or the page's reads (a blocked page read them together).
    pub pace: Option<Pace>,
    /// Which clock stamped the arrivals (`page-read`, or `service-worker` with the opt-in arrival
    /// clock) and how late the page read them (see "Arrival against read" in docs/report.md
    /// below).
    pub arrivals: Option<Arrivals>,
    /// Output tokens of the timed answer: from the server's `usage` when it counts exactly that,
    /// else counted deltas. Null only in a failed report.
    pub tokens: Option<u64>,
    /// Where `tokens` comes from: one of `usage` or `counted`. Null only in a failed report.
    pub tokens_source: Option<String>,
    /// Why usage was not taken as the count of timed tokens: one of `no-usage`, `tool-calls`,
    /// `several-choices` or `reasoning-not-split`.
    pub tokens_counted_because: Option<String>,
    /// Answer deltas received. Null only in a failed report.
    pub deltas: Option<u64>,
    /// Per-token `records` kept, the `cap` (`maxTokenDetail`), and whether the detail was
    /// `decimated`. Past the cap each record stands for a run of deltas (its times are the run's
    /// last delta's; `timeline.count` says how many). Counts, characters, TTFT, E2E, their
    /// perceived versions and ITL `max` stay exact; ITL and lag percentiles then come from a
    /// sketch, within 1%; `delivery`, `stalls` and the intermediary estimate use the runs. Null
    /// only in a failed report.
    pub detail: Option<Detail>,
    /// Characters of answer text received. Null only in a failed report.
    pub chars: Option<u64>,
    /// Body bytes received. Null only in a failed report.
    pub bytes: Option<u64>,
    /// Body chunks received. Null only in a failed report.
    pub chunks: Option<u64>,
    /// Token usage as the server reported it (`cachedTokens`: prompt tokens served from a prefix
    /// cache).
    pub usage: Option<Usage>,
    /// Reasoning deltas, kept apart from the answer: their count, characters, and first and last
    /// arrival.
    pub reasoning: Option<Side>,
    /// Refusal deltas (OpenAI `delta.refusal`, `response.refusal.delta`): shown in place of an
    /// answer, so timed like one, and counted here.
    pub refusal: Option<Side>,
    /// Tool-call deltas (never counted as answer). Null only in a failed report.
    pub tool_calls: Option<u64>,
    /// Arrival of the first and the last tool-call delta.
    pub tool_call_span: Option<Span>,
    /// With several choices (`n > 1`): each choice's delta count; choice 0 is the answer shown and
    /// timed.
    pub choices: Option<Vec<Choice>>,
    /// Why generation stopped, as the server said (`stop`, `length`, `end_turn`, …).
    pub finish_reason: Option<String>,
    /// Timings the server sent in the body or headers, in ms (vLLM `metrics`, llama.cpp `timings`,
    /// Ollama durations, TGI's headers, Server-Timing); each null when the server did not say.
    pub server_timings: Option<ServerTimings>,
    /// Delivery lag per answer delta, painted − arrived: `{ count, p50, p95, max }`.
    pub lag: Option<Spread>,
    /// The most characters that had arrived but were not yet painted at any moment; null when the
    /// page was not read or nothing was painted.
    pub backlog_peak: Option<f64>,
    /// The share of arrived visible answer text found on screen, 0–100 (markup not counted). Trust
    /// the lag figures when it is near 100.
    pub matched_pct: Option<f64>,
    /// How the page put the text on screen.
    pub delivery: Option<Delivery>,
    /// Waits longer than `threshold` ms with text arrived and nothing painted (the page's
    /// freezes, as the user sees them): `count`, `totalMs` (the time frozen), `longest` (the
    /// longest freeze), and the `list` of `[start, end]` (the first 20).
    pub stalls: Option<Stalls>,
    /// The frames the page painted from the first answer text's arrival to its last paint:
    /// `painted`, `dropped`, `fps`, the display's `intervalMs` and the `longestGapMs` (null where
    /// the page's frames were not counted: no requestAnimationFrame, or fewer than two frames).
    pub frames: Option<FrameCount>,
    /// How the page answered the user's interactions (key presses, clicks, taps: Event Timing)
    /// from the request start to the last paint: `count`, the longest input delay
    /// (`delayMaxMs`), the median and longest duration to the next paint (`durationP50Ms`,
    /// `durationMaxMs`) and when the longest began (`worstAtMs`). Null without any interaction,
    /// or where the browser has no Event Timing (`unavailable` then says `event-timing`).
    pub input: Option<InputTiming>,
    /// The phases of end-to-end latency, in order (see "Where the time went" in docs/report.md
    /// below).
    pub phases: Option<Vec<Phase>>,
    /// What the phases add up to (`ms`, `of`) and the part no known phase explains
    /// (`unattributed`).
    pub phases_total: Option<PhasesTotal>,
    /// The first answer token's path to the screen: `queue`, `prefill`, `network`, `reasoning`
    /// (decoding before the answer), `intermediary` (its hold of the first token) and `client`
    /// (arrived to painted), each null when unknown, and the `unattributed` rest of perceived
    /// TTFT (null when nothing was painted).
    pub first_token: Option<FirstToken>,
    /// Arrivals compared with steady decoding: what an intermediary (or the page's late reads)
    /// held.
    pub intermediary: Option<Intermediary>,
    /// Which part is slow, most important first, with evidence and fix (see
    /// docs/diagnosis.md).
    pub diagnosis: Vec<Verdict>,
    /// If the page was hidden during the stream: `intervals`, `ms`, and `excludedSamples` (left out
    /// of lag: nothing paints in a hidden page).
    pub hidden: Option<Hidden>,
    /// Whether the stream carried its end marker (`[DONE]`, `message_stop`, …). Null only in a
    /// failed report.
    pub done_marker: Option<bool>,
    /// Whether the body ended inside an event. Null only in a failed report.
    pub truncated: Option<bool>,
    /// Events that could not be read (`events`, the `first` reason) and a framing error, if any.
    pub malformed: Option<Malformed>,
    /// The answer text, only with `includeText: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The reasoning text, only with `includeText: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_text: Option<String>,
    /// What could not be measured: `format` (events of an unknown shape), `dom` (no observed
    /// element showed the answer), `paint` (commits without a painted frame, e.g. a hidden page),
    /// `usage`, `long-animation-frame` (a browser without it: late paints are counted but not
    /// attributed), `event-timing` (a browser without Event Timing: the user's interactions
    /// while the answer streamed are not measured, as in WebKit), `resource-timing`,
    /// `fine-timer` (the page's timer is 1 ms or coarser, as in
    /// WebKit: `timerMs`), `server-timing` (a cross-origin response without `Timing-Allow-Origin`:
    /// the browser withholds its Resource Timing details and Server-Timing, and no `Server-Timing`
    /// header was exposed by CORS; the server can send `Timing-Allow-Origin` or
    /// `Access-Control-Expose-Headers: Server-Timing`), `devtools-track` (`devtools: true` in an
    /// engine whose DevTools show no custom tracks: all but Chromium).
    pub unavailable: Vec<String>,
    /// When no answer text was found: one of `not-observed` (nothing observed),
    /// `closed-shadow-root`, `cross-origin-iframe` or `not-found` (observed, but the answer was not
    /// there).
    pub dom_reason: Option<String>,
    /// Where the request start comes from: one of `request` (the profiled fetch, `track`'s `start`,
    /// or a socket's ask seen going out), `resource-timing` (a tracked response without `start`),
    /// `headers` (neither: TTFB and TTFT are understated) or `unknown` (an answer on a socket whose
    /// ask was not seen: TTFB, TTFT, E2E and the phases are null). Null only in a failed report.
    pub start_source: Option<String>,
    /// A stream that began before the wasm module loaded: the page's text was read when it loaded
    /// (`at`), and `tokens` commits carry that time, not their own.
    pub caught_up: Option<CaughtUp>,
    /// The tokens painted more than `lateMs` after they arrived, how many overlap a long animation
    /// frame (`attributed`), and those `frames` (`start`, `duration`, `blockingDuration`, `tokens`
    /// delayed, and the `scripts` that ran in them: `sourceURL`, `sourceFunctionName`, `invoker`,
    /// `duration`). This is the "why" of a late paint. Null when nothing was painted; browser only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_paints: Option<LatePaints>,
    /// The request's Resource Timing entry (ms from the start; see
    /// "Ratings" in docs/diagnosis.md); browser only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_timing: Option<ResourceTiming>,
    /// `good`, `needs-improvement` or `poor` per headline metric (see
    /// "Ratings" in docs/diagnosis.md); browser only. In TypeScript: `Partial<Record<RatedMetric,
    /// Rating | null>>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<BTreeMap<String, Option<String>>>,
    /// Where paint times come from: one of `raf` (the rAF and after-paint task bracket); null when
    /// no paint bracket could be taken; browser only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paint_source: Option<String>,
    /// The resolution of `performance.now()` in this page, measured once when the profiler starts
    /// (about 0.1 in Chromium, 1 in WebKit); null when the clock never moved while it was measured
    /// (a privacy clamp coarser than that), and `fine-timer` is then listed as unavailable; browser
    /// only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_ms: Option<f64>,
    /// Per-token arrays `arrived`, `committed`, `frame`, `painted` and `chars` (and `count`, once
    /// decimated); absent with `timeline: false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
    /// The element that showed the answer (`selector`, a short path to it) and how it was found
    /// (`how`); null when none was found (`domReason` says why). Always there in the browser. In
    /// TypeScript: `ShownIn | null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<ShownIn>,
    /// How the answer was read: `by` is `reader` (a reader knew the wire format: `format` names
    /// it, a wire format of the core's or an app's such as `open-webui` or `gradio`), `learned`
    /// (no reader knew it: `path` is where in each event the page showed the answer to be) or
    /// `none` (an answer grew on the page and none of the streams and sockets seen carried it:
    /// `why`, and `seen`). Null when the format is not known. Always there in the browser. In
    /// TypeScript: `ReadBy | null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadBy>,
    /// What the answer's start (`startTime`) is: `by` is `request` (its own request, or an HTTP
    /// request the page sent after the user's submit that carried the question: `url`), `frame`
    /// (a socket frame that carried it: `url` is the socket's), `submit` (the user's Enter, click or
    /// form submit, where nothing sent carried the question's text), `post` (the page's last POST,
    /// where no submit was seen), `sent` (the socket's last frame out), `resource-timing` or
    /// `headers` (what stood in for a request not seen), or `unknown`. Always there in the browser.
    /// In TypeScript: `StartBy | null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<StartBy>,
    /// The stream's timeline, saved to be analysed again by a newer tokenpaint
    /// (`tokenpaint/analyse`, docs/timeline.md); only with `saveTimeline: true`. Its form and
    /// version here; its other fields are the saved form's, read as a whole by the analysis. In
    /// TypeScript: `{ tokenpaint: 'timeline'; version: number; [field: string]: unknown }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<SavedTimeline>,
}

/// A saved timeline: its form and version (the rest is read by the analysis module).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SavedTimeline {
    /// Always `timeline`.
    pub tokenpaint: String,
    /// The version of the form; a build reads every version up to its own.
    pub version: u32,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ErrorInfo {
    /// One of `http`, `stream` (sent by the server in the body), `network`, `aborted`, `truncated`,
    /// `not-ended`, `empty-stream` (a 2xx stream with no event: llama.cpp-based servers answer a
    /// prompt longer than their context so, with the error only in their log), `unread` (an
    /// answer grew on the page and no stream or socket seen carried it: see `read`) or
    /// `internal`.
    pub kind: String,
    /// The server's or the browser's code, if any.
    pub code: Option<String>,
    /// The message, if any.
    pub message: Option<String>,
}

/// When a token was painted: between the start of its frame and the after-paint mark (ms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct PaintBracket {
    /// The start of the frame that painted it.
    pub frame: f64,
    /// The after-paint mark.
    pub painted: f64,
}

/// A distribution in brief.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Span {
    /// The first.
    pub first: f64,
    /// The last.
    pub last: f64,
}

/// The deltas of one choice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Choice {
    /// The choice's index.
    pub index: u64,
    /// Its deltas.
    pub deltas: u64,
}

/// Timings the server sent in the body (vLLM `metrics`, llama.cpp `timings`, Ollama durations).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Delivery {
    /// One of `per-token`, `throttled` (with the measured `interval`), `smoothed` (a typewriter,
    /// with its `rate`), `buffered-until-end` or `partial` (some text never appeared).
    pub pattern: String,
    /// Throttled: the median interval between updates (ms).
    pub interval: Option<f64>,
    /// Smoothed: the reveal rate (characters per second).
    pub rate: Option<f64>,
}

/// Waits with text arrived and nothing painted, longer than the threshold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// How the page answered the user's interactions while the answer streamed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct InputTiming {
    /// Interactions.
    pub count: u64,
    /// The longest input delay: from an interaction to its handlers' start (ms).
    pub delay_max_ms: f64,
    /// The median duration: from an interaction to the next paint after its handlers (ms).
    pub duration_p50_ms: f64,
    /// The longest duration (ms).
    pub duration_max_ms: f64,
    /// When the longest began, from the request start (ms).
    pub worst_at_ms: f64,
}

/// The frames the page painted while the answer streamed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct FrameCount {
    /// Frames painted.
    pub painted: u64,
    /// Frames the display would have shown at its own pace that the page did not paint (each
    /// gap of 1.5 intervals or more, in whole intervals, less one; hidden time left out).
    pub dropped: u64,
    /// Frames painted per second.
    pub fps: f64,
    /// The display's frame interval: the median gap between frames (ms).
    pub interval_ms: f64,
    /// The longest gap between two frames (ms).
    pub longest_gap_ms: f64,
}

/// One phase of end-to-end latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Phase {
    /// One of `queue`, `prefill`, `network`, `decode`, `intermediary` or `client`.
    pub name: String,
    /// Its length, when known.
    pub ms: Option<f64>,
    /// One of `server`, `client` or `derived`; null when unknown.
    pub source: Option<String>,
    /// Why `ms` is null: one of `no-server-timings`, `needs-queue-and-prefill`,
    /// `server-exceeds-arrivals`, `too-few-deltas`, `step-unknown`, `not-painted` or
    /// `last-delta-invisible`.
    #[serde(rename = "unknownBecause")]
    pub unknown_because: Option<String>,
    /// How a queue the server did not report was derived: one of `headers-at-work-start` (the
    /// server answered its headers when work began: the wait for them, less the network's part)
    /// or `wait-after-headers` (it answered them at once: the wait after them its prefill does
    /// not explain); null for any other phase.
    pub basis: Option<String>,
}

/// What the phases add up to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct PhasesTotal {
    /// The total.
    pub ms: f64,
    /// What it is the total of: one of `e2ePerceived` or `e2e` (nothing was painted).
    pub of: String,
    /// The part no known phase explains.
    pub unattributed: f64,
    /// The time before the first token that the measured network does not explain, when the
    /// server reported neither its queue nor its prefill: its wait, unsplit (null otherwise, or
    /// when Resource Timing does not tell the network's part).
    #[serde(rename = "serverWaitMs")]
    pub server_wait_ms: Option<f64>,
}

/// The first answer token's path to the screen (ms); the known parts and `unattributed` add
/// up to perceived TTFT.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct FirstToken {
    /// The server's queue (model loading included).
    pub queue: Option<f64>,
    /// The server's prefill.
    pub prefill: Option<f64>,
    /// The rest of the time before the first token arrived.
    pub network: Option<f64>,
    /// Decoding of reasoning before the first answer token.
    pub reasoning: Option<f64>,
    /// What an intermediary held the first token (null when its hold cannot be measured).
    pub intermediary: Option<f64>,
    /// From the first token's arrival to its paint.
    pub client: Option<f64>,
    /// The part of perceived TTFT no known part explains.
    pub unattributed: Option<f64>,
}

/// Arrivals compared with steady decoding.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct Intermediary {
    /// One of `steady`, `bursty` or `all-at-once`.
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
    /// One of `server` or `derived`.
    pub step_source: String,
    /// Tokens per burst.
    pub tokens_per_burst: f64,
    /// Who held what arrived together: one of `nothing`, `intermediary` or `page` (reads bunched
    /// while its main thread was blocked).
    pub held_by: String,
    /// Mean delay per token of the page's late reads.
    pub late_read_ms: f64,
    /// The server's decode span equals the page's: the first and last token not held apart.
    pub matches_server: bool,
    /// The median time between releases but the last (ms; null with fewer than four releases).
    pub period_ms: Option<f64>,
    /// Whether the releases keep that period: four gaps or more, the middle 80% of them within
    /// 35% of it (a buffer let go on a timer).
    pub periodic: bool,
}

/// Whose pace TPOT and ITL are.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct Pace {
    /// One of `arrivals` (as decoded, as far as the page can tell), `buffer` (an intermediary
    /// released them together: the figures are the buffer's pace, not the speed of generation) or
    /// `page-reads` (a blocked page read them together).
    pub of: String,
    /// The server's own time per token, when it reported its decode time.
    pub server_step_ms: Option<f64>,
}

/// Which clock stamped the arrivals, and how late the page read them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct Arrivals {
    /// One of `page-read` (when the page's JavaScript read each chunk, on the main thread) or
    /// `service-worker` (the opt-in arrival clock, off the main thread).
    pub clock: String,
    /// The main thread's blocked time seen while the stream was open (null: the paint clock never
    /// ran).
    pub blocked_ms: Option<f64>,
    /// Mean delay per delta of the page's late reads: measured with the arrival clock, else
    /// inferred from reads bunched after the main thread was blocked (null when the blocking could
    /// not be seen).
    pub late_read_ms: Option<f64>,
    /// Arrival groups read late by the page.
    pub late_read_groups: u64,
    /// How long after the network's last byte (Resource Timing) the page read the body's end.
    pub end_read_late_ms: Option<f64>,
}

/// One verdict of a report's diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct Verdict {
    /// `healthy`, `buffered`, `render-throttled`, `insufficient-evidence`, …
    pub verdict: String,
    /// The figures it rests on.
    pub evidence: BTreeMap<String, Option<f64>>,
    /// What fixes it: the verdict catalog's text for `fixId` (src/verdicts.json, added by the
    /// shell; the core's own report has none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
    /// The fix's id in the verdict catalog: the verdict's name, or `name/variant`
    /// (`intermediary-buffered/proxy`, `insufficient-evidence/dom`, …).
    pub fix_id: String,
    /// `insufficient-evidence`: what is missing (`dom`, `paint`, `matched`, `deltas`,
    /// `server-timings`, `arrival-clock`, or `stream` where no stream carried the answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// Buffering and stall verdicts: where it most likely is, one of `server`, `proxy`, `cdn`,
    /// `compression`, `unknown` or `page`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    /// Buffering verdicts: the response header that says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_header: Option<String>,
    /// What fixing it would gain the user, estimated: perceived TTFT and E2E sooner (ms) and
    /// the `basis` of the estimate (see docs/diagnosis.md); null for `healthy`,
    /// `insufficient-evidence`, or when what the estimate needs is unknown.
    pub gain: Option<Gain>,
    /// Render verdicts (`client-render-bound`, `client-render-growing`, `conversation-weight`,
    /// `page-stall`): the script that took most time in the frames that painted late, as the browser's long-animation-frame entries
    /// name it (set by the shell, which keeps the browser's strings), or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptBlame>,
    /// Render verdicts with no `script`: why, one of `long-animation-frame-unsupported` (the
    /// browser does not name scripts: Firefox, WebKit), `no-late-frames` or `not-attributed`
    /// (the late frames' scripts carry no URL, or only tokenpaint's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_unknown: Option<String>,
}

/// The heaviest script of the frames that painted late.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct ScriptBlame {
    /// Its `sourceURL`.
    pub url: String,
    /// Its `sourceFunctionName` (may be empty).
    pub function: Option<String>,
    /// What ran it (`invoker`: `TimerHandler:setTimeout`, an event listener, …).
    pub invoker: Option<String>,
    /// Its time in those frames, summed (ms).
    pub ms: f64,
    /// The share of those frames it ran in (0 to 1).
    pub share: f64,
}

/// What fixing a verdict's cause would gain the user, estimated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct Gain {
    /// Perceived TTFT sooner (ms).
    pub ttft_perceived: f64,
    /// Perceived E2E sooner (ms).
    pub e2e_perceived: f64,
    /// How the estimate is made: one of `paint-on-arrival`, `paint-on-arrival-server-pace`,
    /// `paint-on-arrival-stream-pace`, `no-hold`, `stall-at-pace`, `no-queue`, `sent-at-once`,
    /// `without-earlier-text` or `at-threshold`.
    pub basis: String,
}

/// When the page was hidden during the stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct Malformed {
    /// How many.
    pub events: u64,
    /// The first of them.
    pub first: Option<String>,
    /// A framing error, if any.
    pub framing: Option<String>,
}

/// The element that showed an answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ShownIn {
    /// A short CSS selector of it: up to four steps up (an id ends it, but in a shadow tree),
    /// each `tag#id` or `tag.class` with `:nth-of-type(k)`; ` >>> ` follows a shadow root's host.
    pub selector: String,
    /// How it was found: one of `target` (named with the stream), `observed` (the child of an
    /// observed element whose text starts like the answer) or `document` (`observe()` with no
    /// element: the largest element around a change whose text starts like the answer, with
    /// nothing before it, no text field and no other answer in it).
    pub how: String,
}

/// How an answer was read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ReadBy {
    /// One of `reader`, `learned` or `none`.
    pub by: String,
    /// The format the reader read: a wire format, or an app's protocol (`open-webui`, `gradio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The learned path: event name, keys and indices, with `[key=value]` for the kind or the
    /// target of each object on the way (`events/data[type=response:completion]/data/delta`),
    /// `/[key=rows -1]` for an operation of a list named by its own key, and
    /// `$html[#id][swap]` for an HTML fragment aimed at an element (`$html[#reply-7][beforeend]`).
    /// The reading that explained the page best: where no reading explained it, the best tried
    /// (the report's `matchedPct` says how far it was from the page, and no figure is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// With `learned`: how the path's values add up, one of `delta` (each is appended to the
    /// answer: deltas, an HTML fragment appended to its target) or `snapshot` (each is the whole
    /// answer so far: a replacement at a key, a fragment that replaces its target's content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// With `learned`: where the answer's first words came, when another message than the
    /// path's carried them (the one that created the answer's element).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
    /// With `learned`: how many readings of the answer were held to the page (each a path and a
    /// mode whose text the page showed), the one given among them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tried: Option<u32>,
    /// With `learned`: how many of the readings tried the page ruled out (it went on with text a
    /// reading says does not come next). The one given won as the one the page showed the most
    /// of, at the answer's end, of those it did not rule out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u32>,
    /// With `none`: why no stream carried it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// With `none`: the streams and sockets that were open while it grew, and how many events
    /// each carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen: Option<Vec<SeenStream>>,
    /// How an answer read in the shell (an app's reader, or learned) ended: one of `marker` (an
    /// end marker at any depth of its events), `whole` (a whole message after its deltas equal to
    /// its text), `quiet` (nothing more came and its element did not change for `quietMs`: its end
    /// is its last event's arrival) or `closed` (the stream or socket closed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
}

/// What an answer's start is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct StartBy {
    /// One of `request`, `frame`, `submit`, `post`, `sent`, `resource-timing`, `headers` or
    /// `unknown` (see [`Report::start`]).
    pub by: String,
    /// The request's or the socket's URL, where a request or a frame carried the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A stream or socket that was open while an answer nobody could read grew on the page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SeenStream {
    /// Its URL, without query string or fragment.
    pub url: String,
    /// What carried it (as a report's `transport`).
    pub transport: String,
    /// How many events it carried.
    pub events: u64,
}

/// A stream that began before the module loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CaughtUp {
    /// When the page's text was read.
    pub at: f64,
    /// Commits that carry that time rather than their own.
    pub tokens: u64,
}

/// Late tokens and the long animation frames that overlapped them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SloResult {
    /// The metric. In TypeScript: `SloMetric`.
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct GroupVerdict {
    /// One of `capacity`, `tail` or `client-tail`.
    pub verdict: String,
    /// The figures it rests on.
    pub evidence: BTreeMap<String, Option<f64>>,
    /// What fixes it: the verdict catalog's text for `fixId` (src/verdicts.json, added by the
    /// shell; the core's own report has none).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub fix: String,
    /// The fix's id in the verdict catalog: the verdict's name, or `name/variant`
    /// (`intermediary-buffered/proxy`, `insufficient-evidence/dom`, …).
    pub fix_id: String,
}

/// Percentiles over a group of finished streams.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The longest freeze of each answer (ms; 0 for an answer painted without one).
    pub freeze: Percentiles,
    /// Frames painted per second while each answer streamed.
    pub fps: Percentiles,
    /// Frames dropped while each answer streamed.
    pub dropped_frames: Percentiles,
    /// The longest interaction of the user's while each answer streamed (ms, Event Timing).
    pub input_duration: Percentiles,
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
    /// Every verdict with an estimated gain, over all the group's streams, the fix worth most
    /// first (perceived TTFT and E2E gained together).
    pub gains: Vec<GroupGain>,
}

/// What fixing one verdict's cause would gain over a group's streams, estimated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct GroupGain {
    /// The verdict.
    pub verdict: String,
    /// Streams that got it.
    pub streams: u64,
    /// Perceived TTFT gained, summed over them (ms).
    pub ttft_perceived: f64,
    /// Perceived E2E gained, summed over them (ms).
    pub e2e_perceived: f64,
}

/// The summary: overall, and by format, URL and label.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SummaryBy {
    /// By wire format.
    pub format: BTreeMap<String, SummaryGroup>,
    /// By URL.
    pub url: BTreeMap<String, SummaryGroup>,
    /// By label.
    pub label: BTreeMap<String, SummaryGroup>,
}
