//! The figures of one finished stream, computed once from its [`Timeline`] and typed: the
//! report ([`crate::figures::report`]) only writes them out, and the summary ([`crate::summary`])
//! aggregates the same values by field. Every time is in ms from the request start; what
//! tokenpaint could not know is `None`, never zero.

use crate::float;
use crate::prelude::*;

mod arrivals;
pub mod browser;
mod catalog;
mod counts;
pub mod delivery;
pub mod diagnosis;
pub mod growth;
mod page;
pub mod phases;
pub mod report;
pub mod smooth;

use arrivals::{arrivals, blocked, pace};
pub use arrivals::{Arrivals, Pace};
use catalog::status;
pub use catalog::{ErrorFigure, Metric, Status, FIX_IDS};
pub use counts::TokenCount;
use counts::{backlog_peak, deltas, samples, unavailable};
use page::browser;
pub use page::{BrowserFigures, LateFrame, LatePaints, ResourceFigure, RESOURCE_FIGURES};

use crate::figures::browser::Shell;
use crate::figures::delivery::{Pattern, Stall};
use crate::figures::diagnosis::{Facts, Verdict};
use crate::figures::phases::Breakdown;
use crate::stats::{Samples, Spread};
use crate::timeline::entries::LongFrames;
use crate::timeline::session::{DeltaRecord, EndKind, Timeline};

/// Everything a report says about one stream that tokenpaint computes (what the stream carried
/// as is, such as usage or server timings, is read from the timeline when writing).
#[derive(Debug, Clone, Default)]
pub struct StreamFigures {
    /// How the stream turned out.
    pub status: Status,
    /// Why it is not `ok`.
    pub error: Option<ErrorFigure>,
    /// The format's name (empty while unknown).
    pub format: &'static str,
    /// The request URL (no query string).
    pub url: String,
    /// The user's label (may be empty).
    pub label: String,
    /// Time to first byte.
    pub ttfb: Option<f64>,
    /// Time to first chunk (event), whatever it carried.
    pub ttfc: Option<f64>,
    /// Measured TTFT: the first answer delta.
    pub ttft: Option<f64>,
    /// Measured E2E: the last answer delta.
    pub e2e: Option<f64>,
    /// When the body ended (its last byte, or the abort or error that ended it).
    pub body_end: Option<f64>,
    /// Perceived TTFT: (frame start, after paint) of the first visible answer text.
    pub ttft_perceived: Option<(f64, f64)>,
    /// Perceived E2E: (frame start, after paint) of the last visible answer text.
    pub e2e_perceived: Option<(f64, f64)>,
    /// Time per output token over the timed answer.
    pub tpot: Option<f64>,
    /// Output tokens of the timed answer.
    pub tokens: TokenCount,
    /// Gaps between answer deltas.
    pub itl: Samples,
    /// Delivery lag per painted delta (hidden intervals left out).
    pub lag: Samples,
    /// `itl` summed up (count, p50, p95, max), computed once: the samples are sorted for it.
    pub itl_spread: Option<Spread>,
    /// `lag` summed up, computed once.
    pub lag_spread: Option<Spread>,
    /// Lag samples left out because the page was hidden.
    pub hidden_excluded: u64,
    /// How long the page was hidden while the stream was open.
    pub hidden_ms: f64,
    /// The most characters arrived but not yet painted (`None` when the page was not read).
    pub backlog_peak: Option<u64>,
    /// The share of arrived visible text found on screen (%).
    pub matched: Option<f64>,
    /// How the page delivered the text.
    pub delivery: Option<Pattern>,
    /// Paint-less waits (`None` when the page was not read).
    pub stalls: Option<Vec<Stall>>,
    /// A wait longer than this is a stall (ms).
    pub stall_threshold: f64,
    /// The frames the page painted while the answer streamed (`None` when the shell counted
    /// none, or fewer than two).
    pub frames: Option<crate::figures::smooth::Frames>,
    /// How the page answered the user's interactions while the answer streamed (`None`
    /// without any, or without Event Timing).
    pub input: Option<crate::figures::smooth::Input>,
    /// The phases of end-to-end latency.
    pub breakdown: Option<Breakdown>,
    /// The longest mid-stream stall of the arrivals (its start from the request start).
    pub arrival_stall: Option<crate::figures::phases::ArrivalStall>,
    /// Which clock stamped the arrivals, and how late the page read them.
    pub arrivals: Arrivals,
    /// Whose pace TPOT and ITL are.
    pub pace: Pace,
    /// Which part is slow, most important first.
    pub verdicts: Vec<Verdict>,
    /// The characters the container held before this answer, and its cost per delta early in
    /// the answer (ms): a baseline for the later answers of the conversation.
    pub conversation: Option<(f64, f64)>,
    /// What could not be measured.
    pub unavailable: Vec<&'static str>,
    /// Text read late because the module loaded after the stream began: (when, deltas).
    pub caught_up: Option<(f64, u64)>,
    /// What only the browser could tell, when a shell told it.
    pub browser: Option<BrowserFigures>,
    /// The answer's reading, learned from the page, is one the page contradicts: no figure of
    /// it is given (nor its per-token times).
    pub disproved: bool,
}

impl StreamFigures {
    /// The single value of `metric` for this stream (ITL and lag have one per delta: `None`).
    pub fn value(&self, metric: Metric) -> Option<f64> {
        let phase = |i: usize| self.breakdown.as_ref().and_then(|b| b.phases[i].ms);
        match metric {
            Metric::Ttft => self.ttft,
            Metric::TtftPerceived => self.ttft_perceived.map(|b| b.1),
            Metric::E2e => self.e2e,
            Metric::E2ePerceived => self.e2e_perceived.map(|b| b.1),
            Metric::Tpot => self.tpot,
            Metric::Itl | Metric::Lag => None,
            Metric::Queue => phase(0),
            Metric::Prefill => phase(1),
            Metric::Network => phase(2),
            Metric::Decode => phase(3),
            Metric::Intermediary => phase(4),
            Metric::Client => phase(5),
            Metric::Freeze => self
                .stalls
                .as_ref()
                .filter(|_| self.e2e_perceived.is_some())
                .map(|s| s.iter().map(|x| x.end - x.start).fold(0.0, f64::max)),
            Metric::Fps => self.frames.map(|f| f.fps),
            Metric::DroppedFrames => self.frames.map(|f| f64::from(f.dropped)),
            Metric::InputDuration => self.input.map(|i| i.duration_max),
        }
    }

    /// The per-delta samples of `metric` (ITL and lag only).
    pub fn samples(&self, metric: Metric) -> Option<&Samples> {
        match metric {
            Metric::Itl => Some(&self.itl),
            Metric::Lag => Some(&self.lag),
            _ => None,
        }
    }

    /// This stream's value of `metric` for a target: its own `quantile` for ITL and lag.
    pub fn value_for(&self, metric: Metric, quantile: f64) -> Option<f64> {
        match self.samples(metric) {
            Some(s) => s.quantile(quantile),
            None => self.value(metric),
        }
    }
}

/// What the shell says about a stream besides its timeline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// The request URL.
    pub url: &'a str,
    /// The user's label for the stream (may be empty).
    pub label: &'a str,
    /// The shell's description of how the body ended (an exception message), if any.
    pub end_message: &'a str,
    /// What the engine gives and the rating thresholds; `None` outside a browser.
    pub shell: Option<&'a Shell>,
    /// The page's recent long animation frames.
    pub frames: Option<&'a LongFrames>,
    /// An earlier answer of this page, in the shortest conversation seen: the characters its
    /// container held before it, and its cost per delta early in the answer (ms).
    pub baseline: Option<(f64, f64)>,
}

fn known(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// The phases, and the longest stall of the arrivals (its start from the request start).
/// Arrivals stamped off the main thread (the arrival clock) are the browser's, whatever the page
/// was doing: a blocked page then explains none of their bunching or gaps.
fn where_time_went(
    tl: &Timeline,
    blocked: &crate::timeline::blocked::Blocked,
) -> (
    Option<Breakdown>,
    Option<crate::figures::phases::ArrivalStall>,
) {
    use crate::figures::phases::{arrival_stall, breakdown, ArrivalStall};
    let off_main = crate::timeline::blocked::Blocked::default();
    let evidence = if tl.reads.seen > 0 {
        &off_main
    } else {
        blocked
    };
    let r = &tl.reasoning;
    (
        breakdown(
            &tl.records,
            tl.start,
            &tl.server,
            r.first,
            r.deltas,
            evidence,
            &wire(tl),
        ),
        arrival_stall(&tl.records, evidence).map(|s| ArrivalStall {
            start: s.start - tl.start,
            ..s
        }),
    )
}

/// What the browser saw of `tl`'s request before its first token: the headers as the network
/// saw them (Resource Timing), else as the page stamped them, and the network's part of that wait.
fn wire(tl: &Timeline) -> crate::figures::phases::Wire {
    let rel = |t: f64| t - tl.start;
    let entry = tl.resource.as_ref();
    let network = entry.and_then(|e| {
        // A connection opened for this request took one round trip (TCP) to set up, or more with
        // TLS: its set-up time is the measured round trip.
        let round_trip = match e.connect {
            (Some(a), Some(b)) if b > a => b - a,
            _ => 0.0,
        };
        e.request_start.map(|r| rel(r) + round_trip)
    });
    let headers = entry
        .and_then(|e| e.response_start)
        .map(rel)
        .or_else(|| tl.headers_at.is_finite().then(|| rel(tl.headers_at)));
    crate::figures::phases::Wire { headers, network }
}

/// The page's stalls (its freezes), from the request start; `None` when the page was not read.
fn stalls_of(tl: &Timeline) -> Option<Vec<Stall>> {
    tl.observed.then(|| {
        let stalls = crate::figures::delivery::stalls(&tl.records, tl.stall_ms);
        let rel = |s: Stall| Stall {
            start: s.start - tl.start,
            end: s.end - tl.start,
        };
        stalls.into_iter().map(rel).collect()
    })
}

/// When the last painted record was painted (absolute ms).
fn last_paint(tl: &Timeline) -> Option<f64> {
    tl.records
        .iter()
        .rev()
        .find_map(|r| r.painted.is_finite().then_some(r.painted))
}

/// The frames the page painted from the first answer text's arrival to its last paint.
fn frames_of(tl: &Timeline) -> Option<crate::figures::smooth::Frames> {
    let first = tl.first_answer()?;
    let last = last_paint(tl)
        .unwrap_or(first)
        .max(tl.last_answer().unwrap_or(first));
    crate::figures::smooth::frames(&tl.frames, first, last, &tl.hidden)
}

/// The user's interactions from the request start to the last paint (or the stream's end).
fn input_of(tl: &Timeline) -> Option<crate::figures::smooth::Input> {
    let last = last_paint(tl)
        .into_iter()
        .chain(tl.end.map(|e| e.1))
        .fold(tl.start, f64::max);
    crate::figures::smooth::input(&tl.inputs, tl.start, tl.start, last)
}

/// Computes the figures of `tl`.
pub fn of(tl: &Timeline, cx: &Context<'_>) -> StreamFigures {
    let rel = |t: f64| t - tl.start;
    let records = &tl.records;
    let ttft = tl.first_answer().map(rel);
    let e2e = tl.last_answer().map(rel);
    let tokens = deltas(tl);
    // TPOT over the timed answer only: from its first to its last delta.
    let tpot = match (ttft, e2e) {
        (Some(a), Some(b)) if tokens.n > 1 && tl.deltas > 1 => {
            Some((b - a) / (tokens.n - 1) as f64)
        }
        _ => None,
    };
    let (itl, lag, hidden_excluded) = samples(tl);
    let arrived = tl.aligner.arrived_len();
    let matched = (tl.observed && arrived > 0)
        .then(|| 100.0 * tl.aligner.frontier().min(arrived) as f64 / arrived as f64);
    let now = tl.end.map_or(f64::INFINITY, |e| e.1);
    let (status, error) = status(tl, cx.end_message);
    let painted = records.iter().any(|t| t.painted.is_finite());
    let blocked = blocked(tl, cx.frames);
    let (breakdown, arrival_stall) = where_time_went(tl, &blocked);
    let mut f = StreamFigures {
        status,
        error,
        format: tl.format.map_or("", |f| f.name()),
        url: cx.url.into(),
        label: cx.label.into(),
        ttfb: tl.first_byte.map(rel),
        ttfc: tl.first_event.map(rel),
        ttft,
        e2e,
        body_end: tl.end.map(|(_, t)| rel(t)),
        // Painting follows arrival order: the first visible delta painted is the first visible
        // one.
        ttft_perceived: tl.first_visible_paint.map(|(f, p)| (rel(f), rel(p))),
        e2e_perceived: records
            .iter()
            .rev()
            .find(|t| t.visible > 0)
            .and_then(|t| known(t.painted).map(|p| (rel(t.frame), rel(p)))),
        tpot,
        tokens,
        itl_spread: itl.spread(),
        lag_spread: lag.spread(),
        itl,
        lag,
        hidden_excluded,
        hidden_ms: tl.hidden.iter().map(|&(a, b)| b.min(now) - a).sum(),
        // Without a single paint, how much waited for paint is not known.
        backlog_peak: (tl.observed && painted).then(|| backlog_peak(records)),
        matched,
        delivery: crate::figures::delivery::pattern(records, matched.unwrap_or(0.0)),
        stalls: stalls_of(tl),
        stall_threshold: tl.stall_ms,
        frames: frames_of(tl),
        input: input_of(tl),
        breakdown,
        arrival_stall,
        caught_up: tl.caught_up.map(|at| {
            let n = records.iter().filter(|t| t.committed == at);
            (rel(at), n.map(|t| u64::from(t.count)).sum())
        }),
        ..StreamFigures::default()
    };
    f.arrivals = arrivals(tl, &f, &blocked);
    f.pace = pace(&f);
    if tl.start_source == "unknown" {
        // Nothing is measured from a start nobody saw (an answer on a socket): unknown, not 0.
        (f.ttfb, f.ttfc, f.ttft, f.e2e) = (None, None, None, None);
        f.body_end = None;
        (f.ttft_perceived, f.e2e_perceived, f.breakdown) = (None, None, None);
    }
    let coarse_timer = cx
        .shell
        .and_then(|s| s.timer_ms)
        .is_some_and(|ms| ms >= crate::figures::browser::COARSE_TIMER_MS);
    if coarse_timer {
        coarsen(&mut f);
    }
    // A reading the shell learned from the page, that the page contradicts: no figure from it,
    // and its one verdict says so.
    let reading = crate::figures::diagnosis::limits::READING_MATCHED;
    if tl.learned && tl.deltas > 0 && f.matched.is_some_and(|m| m < reading) {
        disproved(&mut f);
    }
    let facts = facts(tl, &f, &blocked, cx.baseline);
    f.conversation = facts.prior_chars.zip(facts.growth.map(|g| g.early));
    f.verdicts = crate::figures::diagnosis::diagnose(&facts, f.breakdown.as_ref());
    f.unavailable = unavailable(tl);
    if let Some(shell) = cx.shell {
        f.browser = Some(browser(tl, &f, shell, cx.frames));
        if shell.resource_timing && tl.resource.is_none() {
            f.unavailable.push("resource-timing");
        }
        // A cross-origin response without `Timing-Allow-Origin`: the browser withholds the
        // entry's details and its Server-Timing; unless the header itself was exposed (CORS),
        // whatever the server said there is out of reach.
        let withheld = tl
            .resource
            .as_ref()
            .is_some_and(|e| e.response_start.is_none());
        if withheld && !tl.server_timing_header {
            f.unavailable.push("server-timing");
        }
        if !shell.long_frames {
            f.unavailable.push("long-animation-frame");
        }
        if !shell.event_timing {
            f.unavailable.push("event-timing");
        }
        if coarse_timer {
            f.unavailable.push("fine-timer");
        }
        if shell.no_devtools_track {
            f.unavailable.push("devtools-track");
        }
    }
    f
}

/// An answer whose reading the page contradicts: every figure read from it is unknown (the
/// diagnosis then says only that). What the page did meanwhile (its frames, the user's
/// interactions) stays.
fn disproved(f: &mut StreamFigures) {
    (f.ttfb, f.ttfc, f.ttft, f.e2e, f.body_end, f.tpot) = (None, None, None, None, None, None);
    (f.ttft_perceived, f.e2e_perceived) = (None, None);
    (f.itl, f.lag) = (Samples::default(), Samples::default());
    (f.itl_spread, f.lag_spread) = (None, None);
    (f.breakdown, f.arrival_stall, f.stalls) = (None, None, None);
    (f.backlog_peak, f.delivery, f.caught_up) = (None, None, None);
    f.disproved = true;
}

fn round(v: f64) -> f64 {
    float::round(v * 100.0) / 100.0
}

/// With a timer of 1 ms or coarser, every figure measured in the page is rounded to whole ms:
/// means, interpolated percentiles and phases derived from the page's times would otherwise
/// carry a precision the timer never had. What the server reported keeps its own.
fn coarsen(f: &mut StreamFigures) {
    let whole = |v: &mut f64| *v = float::round(*v);
    let opt = |v: &mut Option<f64>| {
        if let Some(v) = v {
            *v = float::round(*v);
        }
    };
    for v in [
        &mut f.ttfb,
        &mut f.ttfc,
        &mut f.ttft,
        &mut f.e2e,
        &mut f.body_end,
        &mut f.tpot,
    ] {
        opt(v);
    }
    for (a, b) in [&mut f.ttft_perceived, &mut f.e2e_perceived]
        .into_iter()
        .flatten()
    {
        whole(a);
        whole(b);
    }
    for s in [&mut f.itl_spread, &mut f.lag_spread].into_iter().flatten() {
        whole(&mut s.p50);
        whole(&mut s.p95);
        whole(&mut s.max);
    }
    if let Some(Pattern::Throttled { interval }) = &mut f.delivery {
        whole(interval);
    }
    if let Some(b) = &mut f.breakdown {
        for p in &mut b.phases {
            if p.source != Some(crate::figures::phases::Source::Server) {
                opt(&mut p.ms);
            }
        }
        whole(&mut b.total);
        // Still what the phases leave of the total.
        let known: f64 = b.phases.iter().filter_map(|p| p.ms).sum();
        b.unattributed = round((b.total - known).max(0.0));
    }
}

/// What diagnosis looks at.
fn facts(
    tl: &Timeline,
    f: &StreamFigures,
    blocked: &crate::timeline::blocked::Blocked,
    baseline: Option<(f64, f64)>,
) -> Facts {
    let itl = f.itl_spread;
    // The longest stall (the longest freeze), with what the page did meanwhile.
    let freeze = f.stalls.as_ref().and_then(|s| {
        let longest = s.iter().reduce(|a, b| {
            if b.end - b.start > a.end - a.start {
                b
            } else {
                a
            }
        })?;
        Some(crate::figures::smooth::freeze(
            (tl.start + longest.start, tl.start + longest.end),
            tl.start,
            &tl.frames,
            blocked,
            &tl.records,
            f.frames.map_or(f64::NAN, |fr| fr.interval),
        ))
    });
    Facts {
        ttft: f.ttft,
        tpot: f.tpot,
        itl_p50: itl.map(|s| s.p50),
        itl_p95: itl.map(|s| s.p95),
        lag_p50: f.lag_spread.map(|s| s.p50),
        lag_p95: f.lag_spread.map(|s| s.p95),
        stall_ms: f
            .stalls
            .as_ref()
            .map(|s| s.iter().map(|s| s.end - s.start).sum()),
        delivery: f.delivery.map(|p| p.name()),
        throttle: match f.delivery {
            Some(Pattern::Throttled { interval }) => Some(interval),
            _ => None,
        },
        reasoning_first: tl.reasoning.first.map(|t| t - tl.start),
        deltas: tl.deltas as usize,
        observed: tl.observed,
        painted: tl.records.iter().any(|t| t.painted.is_finite()),
        matched: f.matched,
        disproved: f.disproved,
        dom_reason: tl.dom_reason,
        reveal_rate: match f.delivery {
            Some(Pattern::Smoothed { rate }) => Some(rate),
            _ => None,
        },
        arrival_rate: match (f.ttft, f.e2e) {
            (Some(a), Some(b)) if b > a => Some(tl.chars as f64 * 1000.0 / (b - a)),
            _ => None,
        },
        perceived_extra: f.e2e_perceived.zip(f.e2e).map(|(p, l)| p.1 - l),
        buffer_hint: tl.buffer_hint,
        busy_share: tl.frame_pace.busy_share(),
        browser_queue: tl.resource.as_ref().and_then(|e| e.browser_queue()),
        arrival_stall: f.arrival_stall,
        blocked_longest: f
            .ttft
            .zip(f.e2e_perceived.map(|p| p.1).or(f.e2e))
            .and_then(|(a, b)| {
                blocked
                    .intervals()
                    .iter()
                    // A merged interval's blocked time, not its span (free time between).
                    .map(|&(s, e, ms)| (s.max(tl.start + a), e.min(tl.start + b), ms / (e - s)))
                    .filter(|(s, e, _)| e > s)
                    .map(|(s, e, dense)| (s - tl.start, (e - s) * dense))
                    .reduce(|x, y| if y.1 > x.1 { y } else { x })
            }),
        blocked_share: f
            .arrivals
            .blocked_ms
            .zip(f.ttft)
            .zip(f.e2e_perceived.map(|p| p.1).or(f.e2e))
            .map(|((b, first), last)| b / (last - first).max(1.0)),
        paint_stall: freeze.map(|z| (z.at, z.ms)),
        input: f.input,
        freeze,
        growth: crate::figures::growth::render_growth(&tl.records, tl.decimated.is_some()),
        prior_chars: tl.prior_chars,
        baseline,
        e2e: f.e2e,
        shown: (f.ttft_perceived.map(|p| p.1), f.e2e_perceived.map(|p| p.1)),
        server_decode: f.breakdown.as_ref().and_then(|b| {
            b.phases[3]
                .ms
                .filter(|_| b.phases[3].source == Some(crate::figures::phases::Source::Server))
        }),
        read_late: f.arrivals.clock == "page-read"
            && f.arrivals.blocked_ms.is_some_and(|b| b > 0.0),
        stream_pace: stream_pace(&tl.records, blocked),
    }
}

/// The answer's span from its first delta to its last at the pace its arrivals kept before the
/// page's main thread was first blocked (ms): where the busy page then read late, its reads no
/// longer say when the bytes came, the pace before does. The median time per delta over those
/// read on time, times the gaps in all; `None` with fewer than four read on time.
pub(crate) fn stream_pace(
    records: &[crate::timeline::session::DeltaRecord],
    blocked: &crate::timeline::blocked::Blocked,
) -> Option<f64> {
    let first = records.first()?.arrived;
    let fell_behind = blocked
        .intervals()
        .iter()
        .find(|b| b.1 > first)
        .map_or(f64::INFINITY, |b| b.0);
    let n: u64 = records.iter().map(|r| u64::from(r.count)).sum();
    let steps: Vec<f64> = records
        .windows(2)
        .take_while(|w| w[1].arrived < fell_behind)
        .map(|w| (w[1].arrived - w[0].arrived) / f64::from(w[1].count.max(1)))
        .filter(|g| g.is_finite() && *g >= 0.0)
        .collect();
    if steps.len() < 3 || n < 2 {
        return None;
    }
    crate::stats::quantile_of(&steps, 0.5).map(|step| step * (n - 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::blocked::Blocked;
    use crate::timeline::session::DeltaRecord;

    #[test]
    fn the_stream_pace_is_the_pace_read_on_time_before_the_page_fell_behind() {
        // 100 deltas 10 ms apart from 200 ms; the page blocked from 400 ms on, reading the rest
        // bunched and late.
        let recs: Vec<DeltaRecord> = (0..100)
            .map(|i| {
                let t = 200.0 + 10.0 * f64::from(i);
                let read = if t < 400.0 {
                    t
                } else {
                    t + 600.0 + f64::from(i) * 5.0
                };
                DeltaRecord::arrived(read, 1, 1, 0)
            })
            .collect();
        let mut b = Blocked::default();
        b.push(400.0, 1000.0);
        let pace = stream_pace(&recs, &b).unwrap();
        assert!((pace - 990.0).abs() < 1e-9, "{pace}");
        // Blocked from the first delta on: too few read on time.
        let mut early = Blocked::default();
        early.push(0.0, 100.0);
        early.push(220.0, 1000.0);
        assert_eq!(stream_pace(&recs, &early), None);
    }
}
