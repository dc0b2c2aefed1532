//! The report of one finished stream, written as JSON from its [`StreamFigures`] and what the
//! stream carried as is (usage, server timings, reasoning counts). Nothing is computed here:
//! [`crate::figures`] decides every figure, and the summary aggregates the same values.
//!
//! Every time is in ms from the request start. What tokenpaint could not know is `null` and is
//! named in `unavailable`, never written as zero.

use crate::prelude::*;

use crate::figures::browser::Shell;
use crate::figures::delivery::Pattern;
use crate::figures::{BrowserFigures, Context, StreamFigures, RESOURCE_FIGURES};
use crate::jsonwrite::JsonWriter;
use crate::stats::Spread;
use crate::timeline::entries::LongFrames;
use crate::timeline::session::{DeltaRecord, Reasoning, Timeline};

/// What the shell tells about a stream besides its timeline (`..Meta::default()` for the rest).
#[derive(Debug, Default, Clone, Copy)]
pub struct Meta<'a> {
    /// The session id.
    pub id: u32,
    /// The request URL.
    pub url: &'a str,
    /// The shell's description of how the body ended (an exception message), if any.
    pub end_message: &'a str,
    /// Whether to include the per-token arrays.
    pub timeline: bool,
    /// The user's label for the stream (may be empty).
    pub label: &'a str,
    /// What carried the stream to the page: `fetch`, `xhr`, `eventsource`, `websocket`,
    /// `socket.io` or `push` (empty: `fetch`).
    pub transport: &'a str,
    /// For a stream that resumed an earlier one (an EventSource reconnect): the last event id it
    /// resumed from (empty: none).
    pub resumed_from: &'a str,
}

/// Computes the figures of `tl` and writes its report; returns both (the summary takes the
/// figures). Outside a browser: nothing of Resource Timing, long frames or ratings.
pub fn write(tl: &Timeline, meta: &Meta<'_>) -> (String, StreamFigures) {
    write_with(tl, meta, None, None, None)
}

/// [`write()`], with what the browser told: the engine's abilities and thresholds, and the
/// page's long animation frames.
pub fn write_with(
    tl: &Timeline,
    meta: &Meta<'_>,
    shell: Option<&Shell>,
    frames: Option<&LongFrames>,
    baseline: Option<(f64, f64)>,
) -> (String, StreamFigures) {
    let cx = Context {
        url: meta.url,
        label: meta.label,
        end_message: meta.end_message,
        shell,
        frames,
        baseline,
    };
    let f = crate::figures::of(tl, &cx);
    (to_json(tl, &f, meta), f)
}

/// The report of `tl` whose figures are `f`, as JSON.
pub fn to_json(tl: &Timeline, f: &StreamFigures, meta: &Meta<'_>) -> String {
    let mut w = JsonWriter::new();
    w.open_object();
    head(&mut w, tl, f, meta);
    latency(&mut w, tl, f);
    counts(&mut w, tl, f);
    page(&mut w, f);
    phases(&mut w, f);
    diagnosis(&mut w, f);
    tail(&mut w, tl, f);
    if let Some(b) = &f.browser {
        browser(&mut w, b);
    }
    // No per-token times from a reading the page contradicts.
    if meta.timeline && !f.disproved {
        timeline(&mut w, tl);
    }
    w.close_object();
    w.finish()
}

/// Identity, status and error.
fn head(w: &mut JsonWriter, tl: &Timeline, f: &StreamFigures, meta: &Meta<'_>) {
    w.key("id");
    w.uint(u64::from(meta.id));
    w.key("url");
    w.str(meta.url);
    w.key("label");
    w.opt_str((!meta.label.is_empty()).then_some(meta.label));
    w.key("transport");
    w.str(if meta.transport.is_empty() {
        "fetch"
    } else {
        meta.transport
    });
    w.key("resumedFrom");
    w.opt_str((!meta.resumed_from.is_empty()).then_some(meta.resumed_from));
    w.key("format");
    w.opt_str(tl.format.map(|f| f.name()));
    w.key("status");
    w.str(f.status.name());
    w.key("error");
    match &f.error {
        Some(e) => {
            w.open_object();
            w.key("kind");
            w.str(e.kind);
            w.key("code");
            w.opt_str((!e.code.is_empty()).then_some(e.code.as_str()));
            w.key("message");
            w.opt_str((!e.message.is_empty()).then_some(e.message.as_str()));
            w.close_object();
        }
        None => w.null(),
    }
    w.key("httpStatus");
    w.uint(u64::from(tl.http_status));
    w.key("startTime");
    w.num(tl.start);
    w.key("headers");
    w.num(tl.headers_at - tl.start);
}

/// Measured and perceived latency.
/// The pace the answer appeared at: from its first text's paint to its last's, per token, over
/// the tokens `tpot` is over.
fn tpot_perceived(f: &StreamFigures) -> Option<f64> {
    let (first, last) = (f.ttft_perceived?.1, f.e2e_perceived?.1);
    // `tpot` is there with two tokens or more.
    f.tpot.map(|_| (last - first) / (f.tokens.n - 1) as f64)
}

fn latency(w: &mut JsonWriter, _tl: &Timeline, f: &StreamFigures) {
    w.key("ttfb");
    w.opt_num(f.ttfb);
    w.key("ttfc");
    w.opt_num(f.ttfc);
    w.key("ttft");
    w.opt_num(f.ttft);
    w.key("e2e");
    w.opt_num(f.e2e);
    w.key("bodyEnd");
    w.opt_num(f.body_end);
    w.key("ttftPerceived");
    bracket(w, f.ttft_perceived);
    w.key("e2ePerceived");
    bracket(w, f.e2e_perceived);
    w.key("tpot");
    w.opt_num(f.tpot);
    w.key("tpotPerceived");
    w.opt_num(tpot_perceived(f));
    w.key("itl");
    spread(w, f.itl_spread);
    // Whose pace TPOT and ITL are: a buffer's, when the arrivals were held together.
    w.key("pace");
    if f.breakdown.is_some() {
        w.open_object();
        w.key("of");
        w.str(f.pace.of);
        w.key("serverStepMs");
        w.opt_num(f.pace.server_step);
        w.close_object();
    } else {
        w.null();
    }
    w.key("arrivals");
    let a = &f.arrivals;
    w.open_object();
    w.key("clock");
    w.str(a.clock);
    w.opt_nums(&[("blockedMs", a.blocked_ms), ("lateReadMs", a.late_read_ms)]);
    w.key("lateReadGroups");
    w.uint(u64::from(a.late_read_groups));
    w.key("endReadLateMs");
    w.opt_num(a.end_read_late_ms);
    w.close_object();
}

/// What was received: tokens, deltas, detail, bytes, usage, reasoning, refusals, tool calls,
/// choices, the finish reason and the server's timings.
fn counts(w: &mut JsonWriter, tl: &Timeline, f: &StreamFigures) {
    w.key("tokens");
    w.uint(f.tokens.n);
    w.key("tokensSource");
    w.str(if f.tokens.from_usage {
        "usage"
    } else {
        "counted"
    });
    w.key("tokensCountedBecause");
    w.opt_str(f.tokens.counted_because);
    w.key("deltas");
    w.uint(tl.deltas);
    // Per-token detail: one record per delta, or merged runs past the cap.
    w.key("detail");
    w.open_object();
    w.key("records");
    w.uint(tl.records.len() as u64);
    w.key("cap");
    w.uint(tl.detail_cap.max(crate::timeline::session::MIN_DETAIL_CAP) as u64);
    w.key("decimated");
    w.bool(tl.decimated.is_some());
    w.close_object();
    w.key("chars");
    w.uint(tl.chars);
    w.key("bytes");
    w.uint(tl.bytes);
    w.key("chunks");
    w.uint(tl.chunks);
    w.key("usage");
    match tl.usage {
        Some(u) => {
            w.open_object();
            w.opt_nums(&[
                ("promptTokens", u.prompt_tokens.map(|v| v as f64)),
                ("completionTokens", u.completion_tokens.map(|v| v as f64)),
                ("reasoningTokens", u.reasoning_tokens.map(|v| v as f64)),
                ("cachedTokens", u.cached_tokens.map(|v| v as f64)),
            ]);
            w.close_object();
        }
        None => w.null(),
    }
    w.key("reasoning");
    deltas_apart(w, &tl.reasoning, tl.start);
    w.key("refusal");
    deltas_apart(w, &tl.refusal, tl.start);
    w.key("toolCalls");
    w.uint(u64::from(tl.tool_calls));
    w.key("toolCallSpan");
    match tl.tool_span {
        Some((a, b)) => {
            w.open_object();
            w.key("first");
            w.num(a - tl.start);
            w.key("last");
            w.num(b - tl.start);
            w.close_object();
        }
        None => w.null(),
    }
    choices(w, tl);
    w.key("finishReason");
    w.opt_str(tl.finish_reason.as_deref());
    server_timings(w, tl);
}

/// With several choices, each one's delta count (choice 0 is the answer the page shows).
fn choices(w: &mut JsonWriter, tl: &Timeline) {
    w.key("choices");
    if tl.other_choices.is_empty() {
        w.null();
        return;
    }
    w.open_array();
    let first = core::iter::once((0, tl.deltas));
    for (index, deltas) in first.chain(tl.other_choices.iter().copied()) {
        w.open_object();
        w.key("index");
        w.uint(u64::from(index));
        w.key("deltas");
        w.uint(deltas);
        w.close_object();
    }
    w.close_array();
}

fn server_timings(w: &mut JsonWriter, tl: &Timeline) {
    w.key("serverTimings");
    if tl.server.is_empty() {
        w.null();
        return;
    }
    let s = &tl.server;
    w.open_object();
    w.opt_nums(&[
        ("queue", s.queue_ms),
        ("ttft", s.ttft_ms),
        ("prefill", s.prefill_ms),
        ("decode", s.decode_ms),
        ("itl", s.itl_ms),
        ("load", s.load_ms),
        ("total", s.total_ms),
    ]);
    w.close_object();
}

/// The last mile: lag, backlog, matched share, delivery pattern and stalls.
fn page(w: &mut JsonWriter, f: &StreamFigures) {
    w.key("lag");
    spread(w, f.lag_spread);
    w.key("backlogPeak");
    w.opt_num(f.backlog_peak.map(|b| b as f64));
    w.key("matchedPct");
    w.opt_num(f.matched);
    w.key("delivery");
    match f.delivery {
        Some(p) => {
            w.open_object();
            w.key("pattern");
            w.str(p.name());
            w.key("interval");
            w.opt_num(match p {
                Pattern::Throttled { interval } => Some(interval),
                _ => None,
            });
            w.key("rate");
            w.opt_num(match p {
                Pattern::Smoothed { rate } => Some(rate),
                _ => None,
            });
            w.close_object();
        }
        None => w.null(),
    }
    w.key("stalls");
    stalls(w, f);
    w.key("input");
    match f.input {
        Some(i) => {
            w.open_object();
            w.key("count");
            w.uint(u64::from(i.count));
            w.nums(&[
                ("delayMaxMs", i.delay_max),
                ("durationP50Ms", i.duration_p50),
                ("durationMaxMs", i.duration_max),
                ("worstAtMs", i.worst_at),
            ]);
            w.close_object();
        }
        None => w.null(),
    }
    w.key("frames");
    match f.frames {
        Some(fr) => {
            w.open_object();
            w.key("painted");
            w.uint(u64::from(fr.painted));
            w.key("dropped");
            w.uint(u64::from(fr.dropped));
            w.nums(&[
                ("fps", fr.fps),
                ("intervalMs", fr.interval),
                ("longestGapMs", fr.longest_gap),
            ]);
            w.close_object();
        }
        None => w.null(),
    }
}

fn stalls(w: &mut JsonWriter, f: &StreamFigures) {
    let Some(stalls) = &f.stalls else {
        w.null();
        return;
    };
    w.open_object();
    w.key("threshold");
    w.num(f.stall_threshold);
    w.key("count");
    w.uint(stalls.len() as u64);
    w.key("totalMs");
    w.num(stalls.iter().map(|s| s.end - s.start).sum());
    w.key("longest");
    w.opt_num(stalls.iter().map(|s| s.end - s.start).reduce(f64::max));
    w.key("list");
    w.open_array();
    for s in stalls.iter().take(20) {
        w.open_array();
        w.num(s.start);
        w.num(s.end);
        w.close_array();
    }
    w.close_array();
    w.close_object();
}

/// The parts of the first token's path, in the order of `Breakdown::first`.
const FIRST_TOKEN: [&str; 7] = [
    "queue",
    "prefill",
    "network",
    "reasoning",
    "intermediary",
    "client",
    "unattributed",
];

/// The phases, what they add up to, and the intermediary analysis.
fn phases(w: &mut JsonWriter, f: &StreamFigures) {
    let b = f.breakdown.as_ref();
    w.key("phases");
    match b {
        Some(b) => {
            w.open_array();
            for (p, why) in b.phases.iter().zip(b.unknown) {
                w.open_object();
                w.key("name");
                w.str(p.name);
                w.key("ms");
                w.opt_num(p.ms);
                w.key("source");
                w.opt_str(p.source.map(|s| s.name()));
                w.key("unknownBecause");
                w.opt_str(why);
                w.key("basis");
                w.opt_str(
                    (p.name == "queue")
                        .then_some(b.queue_basis)
                        .flatten()
                        .map(|q| q.name()),
                );
                w.close_object();
            }
            w.close_array();
        }
        None => w.null(),
    }
    w.key("phasesTotal");
    match b {
        Some(b) => {
            w.open_object();
            w.key("ms");
            w.num(b.total);
            w.key("of");
            w.str(if b.perceived { "e2ePerceived" } else { "e2e" });
            w.key("unattributed");
            w.num(b.unattributed);
            w.key("serverWaitMs");
            w.opt_num(b.server_wait);
            w.close_object();
        }
        None => w.null(),
    }
    w.key("firstToken");
    match b {
        Some(b) => {
            w.open_object();
            for (k, v) in FIRST_TOKEN.iter().zip(b.first) {
                w.key(k);
                w.opt_num(v);
            }
            w.close_object();
        }
        None => w.null(),
    }
    w.key("intermediary");
    let Some(i) = b.and_then(|b| b.intermediary) else {
        w.null();
        return;
    };
    w.open_object();
    w.key("pattern");
    w.str(i.pattern.name());
    w.nums(&[
        ("heldMeanMs", i.held_mean),
        ("heldFirstMs", i.held_first),
        ("heldLastMs", i.held_last),
        ("stepMs", i.step),
    ]);
    w.key("stepSource");
    w.str(if i.step_from_server {
        "server"
    } else {
        "derived"
    });
    w.key("tokensPerBurst");
    w.num(i.tokens_per_burst);
    w.key("heldBy");
    w.str(i.held_by.name());
    w.key("lateReadMs");
    w.num(i.late_read_mean);
    w.key("matchesServer");
    w.bool(i.matches_server);
    w.key("periodMs");
    w.opt_num(i.period.is_finite().then_some(i.period));
    w.key("periodic");
    w.bool(i.periodic);
    w.close_object();
}

fn diagnosis(w: &mut JsonWriter, f: &StreamFigures) {
    w.key("diagnosis");
    w.open_array();
    for v in &f.verdicts {
        w.open_object();
        w.key("verdict");
        w.str(v.verdict);
        w.key("evidence");
        w.open_object();
        for (k, x) in &v.evidence {
            w.key(k);
            w.num(*x);
        }
        w.close_object();
        // The fix's id: its text is in the verdict catalog, outside the wasm.
        debug_assert!(super::catalog::FIX_IDS.contains(&v.fix_id), "{}", v.fix_id);
        w.key("fixId");
        w.str(v.fix_id);
        if !v.missing.is_empty() {
            w.key("missing");
            w.open_array();
            for m in &v.missing {
                w.str(m);
            }
            w.close_array();
        }
        if let Some((place, header)) = v.place {
            w.key("place");
            w.str(place);
            w.key("placeHeader");
            w.opt_str(header);
        }
        w.key("gain");
        match v.gain {
            Some(g) => {
                w.open_object();
                w.nums(&[("ttftPerceived", g.ttft), ("e2ePerceived", g.e2e)]);
                w.key("basis");
                w.str(g.basis);
                w.close_object();
            }
            None => w.null(),
        }
        w.close_object();
    }
    w.close_array();
}

/// Hidden intervals, end marker, malformed events, the text (opt-in), what was unavailable and
/// why, the start's source and a late catch-up.
fn tail(w: &mut JsonWriter, tl: &Timeline, f: &StreamFigures) {
    w.key("hidden");
    if tl.hidden.is_empty() {
        w.null();
    } else {
        w.open_object();
        w.key("intervals");
        w.uint(tl.hidden.len() as u64);
        w.key("ms");
        w.num(f.hidden_ms);
        w.key("excludedSamples");
        w.uint(f.hidden_excluded);
        w.close_object();
    }
    w.key("doneMarker");
    w.bool(tl.done_marker);
    w.key("truncated");
    w.bool(tl.truncated);
    w.key("malformed");
    if tl.malformed > 0 || tl.framing_error.is_some() {
        w.open_object();
        w.key("events");
        w.uint(u64::from(tl.malformed));
        w.key("first");
        w.opt_str(tl.first_malformed);
        w.key("framing");
        w.opt_str(tl.framing_error);
        w.close_object();
    } else {
        w.null();
    }
    if let Some(text) = &tl.text {
        w.key("text");
        w.str(&text.answer);
        w.key("reasoningText");
        w.str(&text.reasoning);
    }
    w.key("unavailable");
    w.open_array();
    for u in &f.unavailable {
        w.str(u);
    }
    w.close_array();
    w.key("domReason");
    w.opt_str(if tl.observed { None } else { tl.dom_reason });
    w.key("startSource");
    w.str(tl.start_source);
    // Text the page showed before the core was ready was read late: its commits carry the
    // time it was read, not their own.
    w.key("caughtUp");
    match f.caught_up {
        Some((at, n)) => {
            w.open_object();
            w.key("at");
            w.num(at);
            w.key("tokens");
            w.uint(n);
            w.close_object();
        }
        None => w.null(),
    }
}

/// What rests on what the browser told: late paints, Resource Timing, ratings, paint source.
fn browser(w: &mut JsonWriter, b: &BrowserFigures) {
    w.key("latePaints");
    match &b.late {
        Some(l) => late_paints(w, l),
        None => w.null(),
    }
    w.key("resourceTiming");
    match &b.resource {
        Some(r) => {
            w.open_object();
            for (k, v) in RESOURCE_FIGURES.iter().zip(r) {
                w.key(k);
                w.opt_num(*v);
            }
            // `protocol` and `serverTiming`, the entry's own strings, are added by the shell.
            w.close_object();
        }
        None => w.null(),
    }
    w.key("ratings");
    w.open_object();
    for (k, v) in &b.ratings {
        w.key(k);
        w.str(v);
    }
    w.close_object();
    w.key("paintSource");
    w.opt_str(b.paint_source);
    w.key("timerMs");
    w.opt_num(b.timer_ms);
}

fn late_paints(w: &mut JsonWriter, l: &crate::figures::LatePaints) {
    w.open_object();
    w.key("threshold");
    w.num(l.threshold);
    w.key("tokens");
    w.uint(l.tokens);
    w.key("attributed");
    w.opt_num(l.attributed.map(|a| a as f64));
    w.key("frames");
    w.open_array();
    for f in &l.frames {
        w.open_object();
        w.nums(&[
            ("start", f.start),
            ("duration", f.duration),
            ("blockingDuration", f.blocking),
        ]);
        w.key("tokens");
        w.uint(f.tokens);
        // The shell puts the frame's scripts in place of its number.
        w.key("seq");
        w.uint(u64::from(f.seq));
        w.close_object();
    }
    w.close_array();
    w.close_object();
}

/// The per-record arrays.
fn timeline(w: &mut JsonWriter, tl: &Timeline) {
    let rel = |t: f64| t - tl.start;
    w.key("timeline");
    w.open_object();
    for (name, get) in [
        ("arrived", (|t| t.arrived) as fn(&DeltaRecord) -> f64),
        ("committed", |t| t.committed),
        ("frame", |t| t.frame),
        ("painted", |t| t.painted),
    ] {
        w.key(name);
        w.open_array();
        for t in &tl.records {
            w.num(rel(get(t)));
        }
        w.close_array();
    }
    w.key("chars");
    w.open_array();
    for t in &tl.records {
        w.uint(u64::from(t.chars));
    }
    w.close_array();
    if tl.decimated.is_some() {
        w.key("count");
        w.open_array();
        for t in &tl.records {
            w.uint(u64::from(t.count));
        }
        w.close_array();
    }
    w.close_object();
}

/// Deltas counted apart from the answer (reasoning, refusal): counts and first and last arrival,
/// or null when there were none.
fn deltas_apart(w: &mut JsonWriter, r: &Reasoning, start: f64) {
    if r.deltas == 0 {
        w.null();
        return;
    }
    w.open_object();
    w.key("deltas");
    w.uint(u64::from(r.deltas));
    w.key("chars");
    w.uint(r.chars);
    w.key("first");
    w.opt_num(r.first.map(|t| t - start));
    w.key("last");
    w.opt_num(r.last.map(|t| t - start));
    w.close_object();
}

fn bracket(w: &mut JsonWriter, b: Option<(f64, f64)>) {
    match b {
        Some((frame, painted)) => {
            w.open_object();
            w.key("frame");
            w.num(frame);
            w.key("painted");
            w.num(painted);
            w.close_object();
        }
        None => w.null(),
    }
}

fn spread(w: &mut JsonWriter, s: Option<Spread>) {
    match s {
        Some(s) => {
            w.open_object();
            w.key("count");
            w.uint(s.count as u64);
            w.key("p50");
            w.num(s.p50);
            w.key("p95");
            w.num(s.p95);
            w.key("max");
            w.num(s.max);
            w.close_object();
        }
        None => w.null(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::session::{EndKind, Session};

    fn report(s: &Session) -> String {
        write(
            &s.tl,
            &Meta {
                id: 1,
                url: "u",
                timeline: true,
                ..Meta::default()
            },
        )
        .0
    }

    fn field<'a>(json: &'a str, key: &str) -> &'a str {
        let at = json
            .find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("{key} in {json}"));
        let rest = &json[at + key.len() + 3..];
        let end = rest
            .char_indices()
            .scan(0i32, |depth, (i, c)| {
                match c {
                    '{' | '[' => *depth += 1,
                    '}' | ']' => *depth -= 1,
                    _ => {}
                }
                Some((i, c, *depth))
            })
            .find(|&(_, c, d)| (d == 0 && c == ',') || d < 0)
            .map(|(i, c, d)| if d < 0 || c == ',' { i } else { i + 1 })
            .unwrap_or(rest.len());
        &rest[..end]
    }

    /// A stream of three tokens, 20 ms apart from 100 ms, each painted 10 ms later.
    fn three_tokens(usage: &str) -> Session {
        let mut s = Session::new("openai-chat", "text/event-stream", "", 1000.0, 1050.0, 200);
        for (i, word) in ["One", " two", " three"].iter().enumerate() {
            let t = 1100.0 + 20.0 * i as f64;
            let ev = format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{word}\"}}}}]}}\n\n"
            );
            s.chunk(ev.as_bytes(), t);
            s.appended(word, t + 4.0);
            s.painted(t + 8.0, t + 8.5, t + 10.0);
        }
        if !usage.is_empty() {
            s.chunk(format!("data: {usage}\n\n").as_bytes(), 1150.0);
        }
        s.chunk(b"data: [DONE]\n\n", 1151.0);
        s.end(EndKind::Complete, 1152.0);
        s
    }

    /// Three tokens arrived 20 ms apart from 100 ms, shown by a page that puts each on screen
    /// at `shown(i)` (ms from the start), painted 10 ms later.
    fn three_tokens_shown(shown: impl Fn(usize) -> f64) -> Session {
        let mut s = Session::new("openai-chat", "text/event-stream", "", 1000.0, 1050.0, 200);
        let words = ["One", " two", " three"];
        for (i, word) in words.iter().enumerate() {
            let ev = format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{word}\"}}}}]}}\n\n"
            );
            s.chunk(ev.as_bytes(), 1100.0 + 20.0 * i as f64);
        }
        s.chunk(b"data: [DONE]\n\n", 1141.0);
        s.end(EndKind::Complete, 1142.0);
        for (i, word) in words.iter().enumerate() {
            let t = 1000.0 + shown(i);
            s.appended(word, t);
            s.painted(t + 8.0, t + 8.5, t + 10.0);
        }
        s
    }

    #[test]
    fn the_perceived_pace_is_the_paints_pace_next_to_the_arrivals() {
        // A typewriter: shown 50 ms apart, from 150 ms.
        let r = report(&three_tokens_shown(|i| 150.0 + 50.0 * i as f64));
        assert_eq!(field(&r, "tpot"), "20");
        assert_eq!(field(&r, "tpotPerceived"), "50");
        // Shown at once: the whole answer appeared in one paint.
        let r = report(&three_tokens_shown(|_| 150.0));
        assert_eq!(field(&r, "tpot"), "20");
        assert_eq!(field(&r, "tpotPerceived"), "0");
        // Nothing painted: unknown, not zero.
        let mut s = Session::new("openai-chat", "text/event-stream", "", 1000.0, 1050.0, 200);
        s.chunk(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n", 1100.0);
        s.end(EndKind::Complete, 1101.0);
        assert_eq!(field(&report(&s), "tpotPerceived"), "null");
    }

    #[test]
    fn measured_and_perceived_figures() {
        let s = three_tokens("");
        let r = report(&s);
        assert_eq!(field(&r, "status"), "\"ok\"");
        assert_eq!(field(&r, "ttfb"), "100");
        assert_eq!(field(&r, "ttft"), "100");
        assert_eq!(field(&r, "e2e"), "140");
        assert_eq!(field(&r, "ttftPerceived"), r#"{"frame":108,"painted":110}"#);
        assert_eq!(field(&r, "e2ePerceived"), r#"{"frame":148,"painted":150}"#);
        assert_eq!(field(&r, "tpot"), "20");
        // Each painted 10 ms after it arrived: shown at the pace it arrived at.
        assert_eq!(field(&r, "tpotPerceived"), "20");
        assert_eq!(
            field(&r, "itl"),
            r#"{"count":2,"p50":20,"p95":20,"max":20}"#
        );
        assert_eq!(
            field(&r, "lag"),
            r#"{"count":3,"p50":10,"p95":10,"max":10}"#
        );
        assert_eq!(field(&r, "tokens"), "3");
        assert_eq!(field(&r, "tokensSource"), "\"counted\"");
        assert_eq!(field(&r, "matchedPct"), "100");
        // Each token is painted before the next arrives: the peak is the longest token.
        assert_eq!(field(&r, "backlogPeak"), "6");
        assert_eq!(field(&r, "unavailable"), r#"["usage"]"#);
        let tl = field(&r, "timeline");
        assert_eq!(field(tl, "arrived"), "[100,120,140]");
        assert_eq!(field(tl, "committed"), "[104,124,144]");
        assert_eq!(field(tl, "frame"), "[108,128,148]");
        assert_eq!(field(tl, "painted"), "[110,130,150]");
        assert_eq!(field(tl, "chars"), "[3,4,6]");
    }

    #[test]
    fn delivery_stalls_and_hidden_samples() {
        let mut s = three_tokens("");
        s.hidden(1115.0, 1125.0);
        let r = report(&s);
        assert_eq!(
            field(&r, "delivery"),
            "null",
            "three tokens are too few to tell"
        );
        assert_eq!(
            field(&r, "stalls"),
            r#"{"threshold":100,"count":0,"totalMs":0,"longest":null,"list":[]}"#
        );
        // " two" arrived at 120 and painted at 130: the hidden interval overlaps it only.
        assert_eq!(
            field(&r, "hidden"),
            r#"{"intervals":1,"ms":10,"excludedSamples":1}"#
        );
        assert_eq!(
            field(&r, "lag"),
            r#"{"count":2,"p50":10,"p95":10,"max":10}"#
        );
    }

    #[test]
    fn usage_gives_the_token_count_for_tpot() {
        let s = three_tokens(r#"{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5}}"#);
        let r = report(&s);
        assert_eq!(field(&r, "tokens"), "5");
        assert_eq!(field(&r, "tokensSource"), "\"usage\"");
        assert_eq!(field(&r, "tpot"), "10");
        assert_eq!(field(&r, "unavailable"), "[]");
    }

    #[test]
    fn unknowns_are_null_and_named() {
        let mut s = Session::new("openai-chat", "text/event-stream", "", 0.0, 1.0, 200);
        s.chunk(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n",
            5.0,
        );
        s.end(EndKind::Complete, 6.0);
        let r = report(&s);
        for k in [
            "ttftPerceived",
            "e2ePerceived",
            "tpot",
            "lag",
            "backlogPeak",
            "matchedPct",
            "itl",
        ] {
            assert_eq!(field(&r, k), "null", "{k}");
        }
        assert_eq!(field(&r, "unavailable"), r#"["dom","usage"]"#);
        assert_eq!(field(field(&r, "timeline"), "committed"), "[null]");
    }

    #[test]
    fn statuses() {
        let mut s = Session::new("openai-chat", "", "", 0.0, 1.0, 503);
        s.end(EndKind::Complete, 2.0);
        let r = report(&s);
        assert_eq!(field(&r, "status"), "\"error\"");
        assert_eq!(
            field(&r, "error"),
            r#"{"kind":"http","code":"503","message":null}"#
        );

        let mut s = Session::new("openai-chat", "", "", 0.0, 1.0, 200);
        s.end(EndKind::Aborted, 2.0);
        let r = write(
            &s.tl,
            &Meta {
                id: 2,
                url: "u",
                end_message: "AbortError",
                timeline: false,
                ..Meta::default()
            },
        )
        .0;
        assert_eq!(field(&r, "status"), "\"aborted\"");
        assert!(!r.contains("\"timeline\""));

        let mut s = Session::new("openai-chat", "", "", 0.0, 1.0, 200);
        s.chunk(
            b"data: {\"error\":{\"message\":\"overloaded\",\"code\":\"busy\"}}\n\n",
            1.5,
        );
        s.end(EndKind::Complete, 2.0);
        let r = report(&s);
        assert_eq!(
            field(&r, "error"),
            r#"{"kind":"stream","code":"busy","message":"overloaded"}"#
        );

        let s = Session::new("openai-chat", "", "", 0.0, 1.0, 200);
        assert_eq!(field(&report(&s), "status"), "\"incomplete\"");
    }
}
