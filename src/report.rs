//! The report of one finished stream: the figures of DESIGN.md's definitions, computed from a
//! [`Timeline`], written as JSON.
//!
//! Every time is in ms from the request start. What tokenpaint could not know is `null` and is
//! named in `unavailable`, never written as zero.

use crate::jsonwrite::JsonWriter;
use crate::session::{EndKind, Timeline};
use crate::stats::{Samples, Spread};

/// How the stream turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Read to the end without an error.
    Ok,
    /// An HTTP error status, an error sent in the stream, or a network failure.
    Error,
    /// Cancelled by the application or an AbortSignal.
    Aborted,
    /// Ended inside an event, or never ended before the report was taken.
    Incomplete,
}

impl Status {
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

/// The figures a summary aggregates, taken from one report.
#[derive(Debug, Clone, Default)]
pub struct Metrics {
    /// The stream's status.
    pub status: Option<Status>,
    /// Measured TTFT.
    pub ttft: Option<f64>,
    /// Perceived TTFT (after-paint time).
    pub ttft_perceived: Option<f64>,
    /// Measured E2E.
    pub e2e: Option<f64>,
    /// Perceived E2E (after-paint time).
    pub e2e_perceived: Option<f64>,
    /// Time per output token.
    pub tpot: Option<f64>,
    /// Gaps between content chunks.
    pub itl: Samples,
    /// Delivery lag per painted token.
    pub lag: Samples,
    /// Phases: queue, prefill, network, decode, intermediary, client.
    pub phases: [Option<f64>; 6],
    /// The format's name.
    pub format: &'static str,
    /// The request URL.
    pub url: String,
    /// The user's label for the stream.
    pub label: String,
}

impl Metrics {
    /// The single-valued metrics in the order of [`crate::summary::METRICS`] (ITL and lag,
    /// which have one value per token, are `None` here).
    pub fn values(&self) -> [Option<f64>; 13] {
        let p = self.phases;
        [
            self.ttft,
            self.ttft_perceived,
            self.e2e,
            self.e2e_perceived,
            self.tpot,
            None,
            None,
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            p[5],
        ]
    }

    /// This stream's value of metric `i` for a target: its own `quantile` for ITL and lag.
    pub fn value_for(&self, i: usize, quantile: f64) -> Option<f64> {
        match i {
            5 => self.itl.quantile(quantile),
            6 => self.lag.quantile(quantile),
            _ => self.values().get(i).copied().flatten(),
        }
    }
}

fn known(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// What the shell tells about a stream besides its timeline.
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
}

/// Writes the report of `tl` and returns it with the metrics a summary takes.
pub fn write(tl: &Timeline, meta: &Meta<'_>) -> (String, Metrics) {
    let rel = |t: f64| t - tl.start;
    let tokens = &tl.records;
    let first = tokens.first().map(|t| rel(t.arrived));
    let last = tokens.last().map(|t| rel(t.arrived));
    // Painting follows arrival order: the first visible delta painted is the first visible one.
    let ttft_p = tl.first_visible_paint.map(|(f, p)| (rel(f), rel(p)));
    let last_visible = tokens.iter().rev().find(|t| t.visible > 0);
    let e2e_p = last_visible.and_then(|t| known(t.painted).map(|p| (rel(t.frame), rel(p))));

    // Output tokens: the server's count when it covers exactly the timed answer deltas, else
    // counted deltas. Usage counts tool-call arguments, every choice, and (unless split out)
    // reasoning: then it is not the count of what was timed.
    let counted = tl.deltas;
    let usage = tl.usage.unwrap_or_default();
    let counted_because = if usage.completion_tokens.is_none() {
        Some("no-usage")
    } else if tl.tool_calls > 0 {
        Some("tool-calls")
    } else if !tl.other_choices.is_empty() {
        Some("several-choices")
    } else if tl.reasoning.deltas > 0 && usage.reasoning_tokens.is_none() {
        Some("reasoning-not-split")
    } else {
        None
    };
    let from_usage = match (counted_because, usage.completion_tokens) {
        (None, Some(c)) => Some(c.saturating_sub(usage.reasoning_tokens.unwrap_or(0))),
        _ => None,
    };
    let n_out = from_usage.unwrap_or(counted);
    // TPOT over the timed answer only: from its first to its last delta.
    let tpot = match (first, last) {
        (Some(a), Some(b)) if n_out > 1 && counted > 1 => Some((b - a) / (n_out - 1) as f64),
        _ => None,
    };
    // While the page was hidden nothing painted: such samples are not lag.
    let now = tl.end.map_or(f64::INFINITY, |e| e.1);
    let mut hidden_excluded = 0u64;
    let hidden = |t: &crate::session::DeltaRecord| {
        !tl.hidden.is_empty() && crate::delivery::overlaps_hidden(t, &tl.hidden, now)
    };
    let (itl, lag) = match &tl.decimated {
        None => {
            let itl = tokens
                .windows(2)
                .map(|w| w[1].arrived - w[0].arrived)
                .collect();
            let lag = tokens
                .iter()
                .filter(|t| {
                    let h = hidden(t);
                    hidden_excluded += u64::from(h);
                    !h
                })
                .filter_map(|t| known(t.painted).map(|p| p - t.arrived))
                .collect();
            (Samples::Exact(itl), Samples::Exact(lag))
        }
        // Painted deltas were sampled as they painted; the others only count if hidden.
        Some(d) => {
            hidden_excluded = d.hidden_excluded
                + tokens
                    .iter()
                    .filter(|t| !t.painted.is_finite() && hidden(t))
                    .map(|t| u64::from(t.count))
                    .sum::<u64>();
            (
                Samples::Sketched(d.itl.clone()),
                Samples::Sketched(d.lag.clone()),
            )
        }
    };
    let itl_spread = itl.spread();
    let lag_spread = lag.spread();

    let (status, error_kind, error_code, error_message): (Status, &str, String, &str) =
        if let Some((EndKind::Aborted, _)) = tl.end {
            (Status::Aborted, "aborted", String::new(), meta.end_message)
        } else if let Some((EndKind::Failed, _)) = tl.end {
            (Status::Error, "network", String::new(), meta.end_message)
        } else if tl.http_status >= 400 {
            let mut w = JsonWriter::new();
            w.uint(u64::from(tl.http_status));
            let message = tl.stream_error.as_ref().map_or("", |e| e.message.as_str());
            (Status::Error, "http", w.finish(), message)
        } else if let Some(e) = &tl.stream_error {
            (Status::Error, "stream", e.code.clone(), e.message.as_str())
        } else if tl.end.is_none() {
            (Status::Incomplete, "not-ended", String::new(), "")
        } else if tl.truncated {
            (Status::Incomplete, "truncated", String::new(), "")
        } else if tl.events == 0 && counted == 0 && tl.reasoning.deltas == 0 && tl.tool_calls == 0 {
            // A 200 stream with no event at all: llama.cpp-based servers answer a prompt longer
            // than their context this way, with the error only in their log.
            (
                Status::Incomplete,
                "empty-stream",
                String::new(),
                "the server sent no event: check its log (a prompt longer than the context is one cause)",
            )
        } else {
            (Status::Ok, "", String::new(), "")
        };

    let mut w = JsonWriter::new();
    w.open_object();
    w.key("id");
    w.uint(u64::from(meta.id));
    w.key("url");
    w.str(meta.url);
    w.key("label");
    w.opt_str((!meta.label.is_empty()).then_some(meta.label));
    w.key("format");
    w.opt_str(tl.format.map(|f| f.name()));
    w.key("status");
    w.str(status.name());
    w.key("error");
    if error_kind.is_empty() {
        w.null();
    } else {
        w.open_object();
        w.key("kind");
        w.str(error_kind);
        w.key("code");
        w.opt_str((!error_code.is_empty()).then_some(error_code.as_str()));
        w.key("message");
        w.opt_str((!error_message.is_empty()).then_some(error_message));
        w.close_object();
    }
    w.key("httpStatus");
    w.uint(u64::from(tl.http_status));
    w.key("startTime");
    w.num(tl.start);
    w.key("headers");
    w.num(rel(tl.headers_at));
    w.key("ttfb");
    w.opt_num(tl.first_byte.map(rel));
    w.key("ttfc");
    w.opt_num(tl.first_event.map(rel));
    w.key("ttft");
    w.opt_num(first);
    w.key("e2e");
    w.opt_num(last);
    w.key("ttftPerceived");
    bracket(&mut w, ttft_p);
    w.key("e2ePerceived");
    bracket(&mut w, e2e_p);
    w.key("tpot");
    w.opt_num(tpot);
    w.key("itl");
    spread(&mut w, itl_spread);
    w.key("tokens");
    w.uint(n_out);
    w.key("tokensSource");
    w.str(if from_usage.is_some() {
        "usage"
    } else {
        "counted"
    });
    w.key("tokensCountedBecause");
    w.opt_str(counted_because);
    w.key("deltas");
    w.uint(counted);
    // Per-token detail: one record per delta, or merged runs past the cap.
    w.key("detail");
    w.open_object();
    w.key("records");
    w.uint(tokens.len() as u64);
    w.key("cap");
    w.uint(tl.detail_cap.max(crate::session::MIN_DETAIL_CAP) as u64);
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
            w.key("promptTokens");
            w.opt_num(u.prompt_tokens.map(|v| v as f64));
            w.key("completionTokens");
            w.opt_num(u.completion_tokens.map(|v| v as f64));
            w.key("reasoningTokens");
            w.opt_num(u.reasoning_tokens.map(|v| v as f64));
            w.key("cachedTokens");
            w.opt_num(u.cached_tokens.map(|v| v as f64));
            w.close_object();
        }
        None => w.null(),
    }
    w.key("reasoning");
    deltas_apart(&mut w, &tl.reasoning, tl.start);
    w.key("refusal");
    deltas_apart(&mut w, &tl.refusal, tl.start);
    w.key("toolCalls");
    w.uint(u64::from(tl.tool_calls));
    w.key("toolCallSpan");
    match tl.tool_span {
        Some((a, b)) => {
            w.open_object();
            w.key("first");
            w.num(rel(a));
            w.key("last");
            w.num(rel(b));
            w.close_object();
        }
        None => w.null(),
    }
    w.key("choices");
    if tl.other_choices.is_empty() {
        w.null();
    } else {
        // Choice 0 is the answer the page shows; the others are counted apart.
        w.open_array();
        let first = std::iter::once((0, counted));
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
    w.key("finishReason");
    w.opt_str(tl.finish_reason.as_deref());
    w.key("serverTimings");
    if tl.server.is_empty() {
        w.null();
    } else {
        let s = &tl.server;
        w.open_object();
        for (k, v) in [
            ("queue", s.queue_ms),
            ("ttft", s.ttft_ms),
            ("prefill", s.prefill_ms),
            ("decode", s.decode_ms),
            ("itl", s.itl_ms),
            ("load", s.load_ms),
            ("total", s.total_ms),
        ] {
            w.key(k);
            w.opt_num(v);
        }
        w.close_object();
    }
    w.key("lag");
    spread(&mut w, lag_spread);
    w.key("backlogPeak");
    w.opt_num(tl.observed.then(|| backlog_peak(tl) as f64));
    w.key("matchedPct");
    let arrived = tl.aligner.arrived_len();
    let matched = (tl.observed && arrived > 0)
        .then(|| 100.0 * tl.aligner.frontier().min(arrived) as f64 / arrived as f64);
    w.opt_num(matched);
    w.key("delivery");
    match crate::delivery::pattern(tokens, matched.unwrap_or(0.0)) {
        Some(p) => {
            w.open_object();
            w.key("pattern");
            w.str(p.name());
            w.key("interval");
            w.opt_num(match p {
                crate::delivery::Pattern::Throttled { interval } => Some(interval),
                _ => None,
            });
            w.key("rate");
            w.opt_num(match p {
                crate::delivery::Pattern::Smoothed { rate } => Some(rate),
                _ => None,
            });
            w.close_object();
        }
        None => w.null(),
    }
    w.key("stalls");
    if tl.observed {
        let stalls = crate::delivery::stalls(tokens, tl.stall_ms);
        w.open_object();
        w.key("threshold");
        w.num(tl.stall_ms);
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
            w.num(rel(s.start));
            w.num(rel(s.end));
            w.close_array();
        }
        w.close_array();
        w.close_object();
    } else {
        w.null();
    }
    let breakdown = crate::phases::breakdown(
        tokens,
        tl.start,
        &tl.server,
        tl.reasoning.first,
        tl.reasoning.deltas,
    );
    w.key("phases");
    match &breakdown {
        Some(b) => {
            w.open_array();
            for p in &b.phases {
                w.open_object();
                w.key("name");
                w.str(p.name);
                w.key("ms");
                w.opt_num(p.ms);
                w.key("source");
                w.opt_str(p.source.map(|s| s.name()));
                w.close_object();
            }
            w.close_array();
        }
        None => w.null(),
    }
    w.key("phasesTotal");
    match &breakdown {
        Some(b) => {
            w.open_object();
            w.key("ms");
            w.num(b.total);
            w.key("of");
            w.str(if b.perceived { "e2ePerceived" } else { "e2e" });
            w.key("unattributed");
            w.num(b.unattributed);
            w.close_object();
        }
        None => w.null(),
    }
    w.key("intermediary");
    match breakdown.as_ref().and_then(|b| b.intermediary) {
        Some(i) => {
            w.open_object();
            w.key("pattern");
            w.str(i.pattern.name());
            w.key("heldMeanMs");
            w.num(i.held_mean);
            w.key("heldFirstMs");
            w.num(i.held_first);
            w.key("heldLastMs");
            w.num(i.held_last);
            w.key("stepMs");
            w.num(i.step);
            w.key("stepSource");
            w.str(if i.step_from_server {
                "server"
            } else {
                "derived"
            });
            w.key("tokensPerBurst");
            w.num(i.tokens_per_burst);
            w.close_object();
        }
        None => w.null(),
    }
    let delivery = crate::delivery::pattern(tokens, matched.unwrap_or(0.0));
    let facts = crate::diagnosis::Facts {
        ttft: first,
        tpot,
        itl_p50: itl_spread.map(|s| s.p50),
        itl_p95: itl_spread.map(|s| s.p95),
        lag_p50: lag_spread.map(|s| s.p50),
        stall_ms: tl.observed.then(|| {
            crate::delivery::stalls(tokens, tl.stall_ms)
                .iter()
                .map(|s| s.end - s.start)
                .sum()
        }),
        delivery: delivery.map(|p| p.name()),
        throttle: match delivery {
            Some(crate::delivery::Pattern::Throttled { interval }) => Some(interval),
            _ => None,
        },
        reasoning_first: tl.reasoning.first.map(rel),
        deltas: counted as usize,
        observed: tl.observed,
        painted: tokens.iter().any(|t| t.painted.is_finite()),
        matched,
        dom_reason: tl.dom_reason,
        reveal_rate: match delivery {
            Some(crate::delivery::Pattern::Smoothed { rate }) => Some(rate),
            _ => None,
        },
        arrival_rate: match (first, last) {
            (Some(a), Some(b)) if b > a => Some(tl.chars as f64 * 1000.0 / (b - a)),
            _ => None,
        },
        perceived_extra: e2e_p.zip(last).map(|(p, l)| p.1 - l),
        buffer_hint: tl.buffer_hint,
        busy_share: tl.frame_pace.busy_share(),
    };
    w.key("diagnosis");
    w.open_array();
    for v in crate::diagnosis::diagnose(&facts, breakdown.as_ref()) {
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
        w.key("fix");
        w.str(v.fix);
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
        w.close_object();
    }
    w.close_array();
    w.key("hidden");
    if tl.hidden.is_empty() {
        w.null();
    } else {
        w.open_object();
        w.key("intervals");
        w.uint(tl.hidden.len() as u64);
        w.key("ms");
        w.num(tl.hidden.iter().map(|&(a, b)| b.min(now) - a).sum());
        w.key("excludedSamples");
        w.uint(hidden_excluded);
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
    if matches!(tl.format, None | Some(crate::wire::Format::Unknown)) && tl.bytes > 0 {
        w.str("format");
    }
    if !tl.observed {
        w.str("dom");
    }
    let unpainted = tokens
        .iter()
        .any(|t| t.committed.is_finite() && !t.painted.is_finite());
    if tl.paint_missing || unpainted {
        w.str("paint");
    }
    if usage.completion_tokens.is_none() {
        w.str("usage");
    }
    w.close_array();
    w.key("domReason");
    w.opt_str(if tl.observed { None } else { tl.dom_reason });
    w.key("startSource");
    w.str(tl.start_source);
    // Text the page showed before the core was ready was read late: its commits carry the
    // time it was read, not their own.
    w.key("caughtUp");
    match tl.caught_up {
        Some(at) => {
            w.open_object();
            w.key("at");
            w.num(rel(at));
            w.key("tokens");
            w.uint(
                tokens
                    .iter()
                    .filter(|t| t.committed == at)
                    .map(|t| u64::from(t.count))
                    .sum(),
            );
            w.close_object();
        }
        None => w.null(),
    }
    if meta.timeline {
        w.key("timeline");
        w.open_object();
        for (name, get) in [
            (
                "arrived",
                (|t| t.arrived) as fn(&crate::session::DeltaRecord) -> f64,
            ),
            ("committed", |t| t.committed),
            ("frame", |t| t.frame),
            ("painted", |t| t.painted),
        ] {
            w.key(name);
            w.open_array();
            for t in tokens {
                w.num(rel(get(t)));
            }
            w.close_array();
        }
        w.key("chars");
        w.open_array();
        for t in tokens {
            w.uint(u64::from(t.chars));
        }
        w.close_array();
        if tl.decimated.is_some() {
            w.key("count");
            w.open_array();
            for t in tokens {
                w.uint(u64::from(t.count));
            }
            w.close_array();
        }
        w.close_object();
    }
    w.close_object();

    let metrics = Metrics {
        status: Some(status),
        ttft: first,
        ttft_perceived: ttft_p.map(|b| b.1),
        e2e: last,
        e2e_perceived: e2e_p.map(|b| b.1),
        tpot,
        itl,
        lag,
        phases: breakdown
            .as_ref()
            .map_or([None; 6], |b| b.phases.map(|p| p.ms)),
        format: tl.format.map_or("", |f| f.name()),
        url: meta.url.into(),
        label: meta.label.into(),
    };
    (w.finish(), metrics)
}

/// Deltas counted apart from the answer (reasoning, refusal): counts and first and last arrival,
/// or null when there were none.
fn deltas_apart(w: &mut JsonWriter, r: &crate::session::Reasoning, start: f64) {
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

/// The most characters that had arrived but were not yet painted at any moment.
fn backlog_peak(tl: &Timeline) -> u64 {
    // Arrivals and paints are each in time order (paints are assigned in token order, from
    // frames in time order): merge the two sequences.
    let tokens = &tl.records;
    let paints: Vec<(f64, u32)> = tokens
        .iter()
        .filter(|t| t.painted.is_finite())
        .map(|t| (t.painted, t.chars))
        .collect();
    let (mut backlog, mut peak, mut p) = (0i64, 0i64, 0);
    for t in tokens {
        while p < paints.len() && paints[p].0 <= t.arrived {
            backlog -= i64::from(paints[p].1);
            p += 1;
        }
        backlog += i64::from(t.chars);
        peak = peak.max(backlog);
    }
    peak.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    fn report(s: &Session) -> String {
        write(
            &s.tl,
            &Meta {
                id: 1,
                url: "u",
                end_message: "",
                timeline: true,
                label: "",
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
                label: "",
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
