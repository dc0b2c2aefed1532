//! The figures of one finished stream, computed once from its [`Timeline`] and typed: the
//! report ([`crate::figures::report`]) only writes them out, and the summary ([`crate::summary`])
//! aggregates the same values by field. Every time is in ms from the request start; what
//! tokenpaint could not know is `None`, never zero.

use crate::float;
use crate::prelude::*;

pub mod browser;
pub mod delivery;
pub mod diagnosis;
pub mod phases;
pub mod report;

use crate::figures::browser::Shell;
use crate::figures::delivery::{Pattern, Stall};
use crate::figures::diagnosis::{Facts, Verdict};
use crate::figures::phases::Breakdown;
use crate::stats::{Samples, Spread};
use crate::timeline::entries::LongFrames;
use crate::timeline::session::{DeltaRecord, EndKind, Timeline};

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
}

impl Metric {
    /// Every metric, in the order summaries write them.
    pub const ALL: [Metric; 13] = [
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
        }
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

/// Output tokens of the timed answer, and where the count comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TokenCount {
    /// The count.
    pub n: u64,
    /// Whether it is the server's usage (else counted deltas).
    pub from_usage: bool,
    /// Why usage was not taken: `no-usage`, `tool-calls`, `several-choices`,
    /// `reasoning-not-split`.
    pub counted_because: Option<&'static str>,
}

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
    /// What could not be measured.
    pub unavailable: Vec<&'static str>,
    /// Text read late because the module loaded after the stream began: (when, deltas).
    pub caught_up: Option<(f64, u64)>,
    /// What only the browser could tell, when a shell told it.
    pub browser: Option<BrowserFigures>,
}

/// Which clock stamped the arrivals, and how much of what they show was the page's late read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arrivals {
    /// `page-read`: each chunk is stamped when the page's JavaScript read it, on the main
    /// thread, so a blocked page delays "arrival" too. `service-worker`: stamped when the
    /// opt-in arrival clock (a service worker) passed it on, off the page's main thread.
    pub clock: &'static str,
    /// The main thread's blocked time seen while the stream was open (ms; `None`: the paint
    /// clock never ran, so it is not known).
    pub blocked_ms: Option<f64>,
    /// Mean delay per delta of reads that bunched up after the main thread was blocked (ms;
    /// `None` with fewer than 3 deltas).
    pub late_read_ms: Option<f64>,
    /// Arrival groups read late by the page.
    pub late_read_groups: u32,
    /// How long after the network's last byte (Resource Timing `responseEnd`) the page read
    /// the end of the body (ms; `None` without an entry).
    pub end_read_late_ms: Option<f64>,
}

/// Whose pace the headline TPOT and ITL are: the decoder's, or, when the arrivals were held
/// together, the buffer's (then the server's own step is beside them, when it said it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pace {
    /// `arrivals` (as decoded, as far as the page can tell), `buffer` (an intermediary
    /// released them together), `page-reads` (a blocked page read them together).
    pub of: &'static str,
    /// The server's time per token, when it reported its decode time (ms).
    pub server_step: Option<f64>,
}

/// When the main thread was blocked: the paint clock's late frames and the browser's long
/// animation frames.
fn blocked(tl: &Timeline, frames: Option<&LongFrames>) -> crate::timeline::blocked::Blocked {
    let mut b = tl.blocked.clone();
    let end = tl.end.map_or(f64::INFINITY, |e| e.1);
    for f in frames
        .into_iter()
        .flat_map(|f| f.overlapping(tl.start, end))
    {
        b.push(f.1.start, f.1.start + f.1.duration);
    }
    b
}

fn arrivals(
    tl: &Timeline,
    f: &StreamFigures,
    blocked: &crate::timeline::blocked::Blocked,
) -> Arrivals {
    let inter = f.breakdown.as_ref().and_then(|b| b.intermediary);
    let clock_ran = tl.frame_pace.on_time + tl.frame_pace.late > 0 || !blocked.is_empty();
    let end_read = tl.end.filter(|e| e.0 == EndKind::Complete).map(|e| e.1);
    let end_read_late_ms = tl
        .resource
        .as_ref()
        .and_then(|e| e.response_end)
        .zip(end_read)
        .map(|(net, read)| round((read - net).max(0.0)));
    let r = &tl.reads;
    // Stamped off the main thread: the late read is measured (over every delta, those read at
    // once count 0); else inferred from reads that bunched while the thread was blocked.
    let seen = r.seen > 0;
    let measured = (seen && tl.deltas > 0).then(|| round(r.late_sum / tl.deltas as f64));
    Arrivals {
        clock: if seen { "service-worker" } else { "page-read" },
        blocked_ms: clock_ran.then(|| round(blocked.total())),
        // Inferred only where the blocking could be seen: else unknown, not 0.
        late_read_ms: measured.or(inter.filter(|_| clock_ran).map(|i| round(i.late_read_mean))),
        late_read_groups: inter.map_or(0, |i| i.late_read_groups),
        end_read_late_ms,
    }
}

fn pace(f: &StreamFigures) -> Pace {
    use crate::figures::phases::HeldBy;
    let inter = f.breakdown.as_ref().and_then(|b| b.intermediary);
    Pace {
        of: match inter.map(|i| i.held_by) {
            Some(HeldBy::Intermediary) => "buffer",
            Some(HeldBy::Page) => "page-reads",
            _ => "arrivals",
        },
        server_step: inter.filter(|i| i.step_from_server).map(|i| round(i.step)),
    }
}

/// The figures that rest on what the browser told: Resource Timing, long animation frames,
/// ratings and the paint source.
#[derive(Debug, Clone, Default)]
pub struct BrowserFigures {
    /// The request's Resource Timing, from the request start (`None`: no entry).
    pub resource: Option<ResourceFigure>,
    /// Tokens painted late and the long frames that overlapped them (`None`: nothing was
    /// painted, so lateness is not known).
    pub late: Option<LatePaints>,
    /// The rating of each headline metric that has a value: (metric, rating).
    pub ratings: Vec<(&'static str, &'static str)>,
    /// `raf` when paint brackets could be taken.
    pub paint_source: Option<&'static str>,
    /// The resolution of the page's timer (ms), as measured when the shell started.
    pub timer_ms: Option<f64>,
}

/// The figures of a Resource Timing entry, named as a report names them (the values of
/// [`ResourceFigure`], in this order).
pub const RESOURCE_FIGURES: [&str; 7] = [
    "startTime",
    "dns",
    "connect",
    "requestStart",
    "responseStart",
    "responseEnd",
    "browserQueue",
];

/// A Resource Timing entry's [`RESOURCE_FIGURES`], in ms from the request start (rounded to
/// 0.01 ms): its start, DNS lookup, connection set-up, the request leaving, the network's first
/// byte, the body's end, and the wait in the browser less DNS and connection set-up.
pub type ResourceFigure = [Option<f64>; 7];

/// Tokens painted more than `threshold` ms after they arrived, and the long animation frames
/// on their way to the screen, the frames that delayed the most tokens first.
#[derive(Debug, Clone, Default)]
pub struct LatePaints {
    /// The threshold (ms).
    pub threshold: f64,
    /// Late records.
    pub tokens: u64,
    /// Late records that overlap a long frame (`None`: the engine has no long frames).
    pub attributed: Option<u64>,
    /// At most 10 frames.
    pub frames: Vec<LateFrame>,
}

/// A long animation frame that delayed late tokens (the shell adds the scripts that ran in it,
/// which it knows by `seq`).
#[derive(Debug, Clone, Default)]
pub struct LateFrame {
    /// The shell's number for the frame.
    pub seq: u32,
    /// Its start, from the request start (ms).
    pub start: f64,
    /// Its duration (ms).
    pub duration: f64,
    /// Its blocking duration (ms).
    pub blocking: f64,
    /// Late tokens it overlapped.
    pub tokens: u64,
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
        ),
        arrival_stall(&tl.records, evidence).map(|s| ArrivalStall {
            start: s.start - tl.start,
            ..s
        }),
    )
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
        stalls: tl.observed.then(|| {
            let stalls = crate::figures::delivery::stalls(records, tl.stall_ms);
            let rel = |s: Stall| Stall {
                start: rel(s.start),
                end: rel(s.end),
            };
            stalls.into_iter().map(rel).collect()
        }),
        stall_threshold: tl.stall_ms,
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
    f.verdicts =
        crate::figures::diagnosis::diagnose(&facts(tl, &f, &blocked), f.breakdown.as_ref());
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
        if coarse_timer {
            f.unavailable.push("fine-timer");
        }
        if shell.no_devtools_track {
            f.unavailable.push("devtools-track");
        }
    }
    f
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

/// The figures that rest on what the browser told.
fn browser(
    tl: &Timeline,
    f: &StreamFigures,
    shell: &Shell,
    frames: Option<&LongFrames>,
) -> BrowserFigures {
    let rel = |v: Option<f64>| v.map(|v| round(v - tl.start));
    let span = |(a, b): (Option<f64>, Option<f64>)| a.zip(b).map(|(a, b)| round(b - a));
    let resource = tl.resource.as_ref().map(|e| -> ResourceFigure {
        [
            rel(Some(e.start)),
            span(e.dns),
            span(e.connect),
            rel(e.request_start),
            rel(e.response_start),
            rel(e.response_end),
            e.browser_queue().map(round),
        ]
    });
    let values = [
        f.ttft,
        f.ttft_perceived.map(|b| b.1),
        f.e2e_perceived.map(|b| b.1),
        f.tpot,
        f.lag_spread.map(|s| s.p50),
    ];
    let ratings = crate::figures::browser::RATED
        .iter()
        .zip(values)
        .zip(shell.thresholds)
        .filter_map(|((name, v), t)| v.map(|v| (*name, crate::figures::browser::rate(v, t))))
        .collect();
    BrowserFigures {
        resource,
        late: tl
            .records
            .iter()
            .any(|t| t.painted.is_finite())
            .then(|| late_paints(tl, shell, frames)),
        ratings,
        paint_source: shell.paint.then_some("raf"),
        timer_ms: shell.timer_ms,
    }
}

/// The records painted more than `late_ms` after they arrived (not while the page was
/// hidden), and the long frames that overlapped their way to the screen.
fn late_paints(tl: &Timeline, shell: &Shell, frames: Option<&LongFrames>) -> LatePaints {
    let mut by_frame: Vec<(usize, u64)> = Vec::new();
    let (mut late, mut attributed) = (0u64, 0u64);
    for t in &tl.records {
        let (start, end) = (t.arrived, t.painted);
        if !end.is_finite() || end - start <= shell.late_ms {
            continue;
        }
        if tl.hidden.iter().any(|&(hs, he)| hs < end && start < he) {
            continue;
        }
        late += 1;
        let mut any = false;
        for (i, _) in frames.into_iter().flat_map(|f| f.overlapping(start, end)) {
            any = true;
            match by_frame.iter_mut().find(|(j, _)| *j == i) {
                Some((_, n)) => *n += 1,
                None => by_frame.push((i, 1)),
            }
        }
        attributed += u64::from(any);
    }
    let all = frames.map(|f| &f.frames);
    let frame = |i: usize| all.and_then(|f| f.get(i));
    // The frames that delayed the most tokens first, then the longest. An insertion sort: the
    // list is short, and the standard sort would add 3 KB of wasm.
    let d = |i| frame(i).map_or(0.0, |f| f.duration);
    let before = |a: (usize, u64), b: (usize, u64)| a.1 > b.1 || (a.1 == b.1 && d(a.0) > d(b.0));
    for i in 1..by_frame.len() {
        let mut j = i;
        while j > 0 && before(by_frame[j], by_frame[j - 1]) {
            by_frame.swap(j, j - 1);
            j -= 1;
        }
    }
    LatePaints {
        threshold: shell.late_ms,
        tokens: late,
        attributed: shell.long_frames.then_some(attributed),
        frames: by_frame
            .iter()
            .take(10)
            .filter_map(|&(i, tokens)| {
                frame(i).map(|f| LateFrame {
                    seq: f.seq,
                    start: round(f.start - tl.start),
                    duration: round(f.duration),
                    blocking: round(f.blocking),
                    tokens,
                })
            })
            .collect(),
    }
}

/// Output tokens: the server's count when it covers exactly the timed answer deltas, else
/// counted deltas. Usage counts tool-call arguments, every choice, and (unless split out)
/// reasoning: then it is not the count of what was timed.
fn deltas(tl: &Timeline) -> TokenCount {
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
    TokenCount {
        n: from_usage.unwrap_or(tl.deltas),
        from_usage: from_usage.is_some(),
        counted_because,
    }
}

/// ITL and lag samples, and how many lag samples the hidden page left out. While the page was
/// hidden nothing painted: such samples are not lag.
fn samples(tl: &Timeline) -> (Samples, Samples, u64) {
    let records = &tl.records;
    let now = tl.end.map_or(f64::INFINITY, |e| e.1);
    let hidden = |t: &DeltaRecord| !tl.hidden.is_empty() && t.overlaps_hidden(&tl.hidden, now);
    match &tl.decimated {
        None => {
            let mut excluded = 0u64;
            let itl = records
                .windows(2)
                .map(|w| w[1].arrived - w[0].arrived)
                .collect();
            let lag = records
                .iter()
                .filter(|t| {
                    let h = hidden(t);
                    excluded += u64::from(h);
                    !h
                })
                .filter_map(|t| known(t.painted).map(|p| p - t.arrived))
                .collect();
            (Samples::Exact(itl), Samples::Exact(lag), excluded)
        }
        // Painted deltas were sampled as they painted; the others only count if hidden.
        Some(d) => {
            let unpainted: u64 = records
                .iter()
                .filter(|t| !t.painted.is_finite() && hidden(t))
                .map(|t| u64::from(t.count))
                .sum();
            (
                Samples::Sketched(d.itl.clone()),
                Samples::Sketched(d.lag.clone()),
                d.hidden_excluded + unpainted,
            )
        }
    }
}

/// The stream's status and, when it is not `ok`, why.
fn status(tl: &Timeline, end_message: &str) -> (Status, Option<ErrorFigure>) {
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

/// What diagnosis looks at.
fn facts(tl: &Timeline, f: &StreamFigures, blocked: &crate::timeline::blocked::Blocked) -> Facts {
    let itl = f.itl_spread;
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
                    .map(|&(s, e)| (s.max(tl.start + a), e.min(tl.start + b)))
                    .filter(|(s, e)| e > s)
                    .map(|(s, e)| (s - tl.start, e - s))
                    .reduce(|x, y| if y.1 > x.1 { y } else { x })
            }),
        blocked_share: f
            .arrivals
            .blocked_ms
            .zip(f.ttft)
            .zip(f.e2e_perceived.map(|p| p.1).or(f.e2e))
            .map(|((b, first), last)| b / (last - first).max(1.0)),
        paint_stall: f.stalls.as_ref().and_then(|s| {
            s.iter()
                .map(|s| (s.start, s.end - s.start))
                .reduce(|a, b| if b.1 > a.1 { b } else { a })
        }),
    }
}

/// What could not be measured.
fn unavailable(tl: &Timeline) -> Vec<&'static str> {
    let mut out = Vec::new();
    if matches!(tl.format, None | Some(crate::read::wire::Format::Unknown)) && tl.bytes > 0 {
        out.push("format");
    }
    if !tl.observed {
        out.push("dom");
    }
    let unpainted = tl
        .records
        .iter()
        .any(|t| t.committed.is_finite() && !t.painted.is_finite());
    if tl.paint_missing || unpainted {
        out.push("paint");
    }
    if tl.usage.is_none_or(|u| u.completion_tokens.is_none()) {
        out.push("usage");
    }
    out
}

/// The most characters that had arrived but were not yet painted at any moment.
fn backlog_peak(records: &[DeltaRecord]) -> u64 {
    // Arrivals and paints are each in time order (paints are assigned in record order, from
    // frames in time order): merge the two sequences.
    let paints: Vec<(f64, u32)> = records
        .iter()
        .filter(|t| t.painted.is_finite())
        .map(|t| (t.painted, t.chars))
        .collect();
    let (mut backlog, mut peak, mut p) = (0i64, 0i64, 0);
    for t in records {
        while p < paints.len() && paints[p].0 <= t.arrived {
            backlog -= i64::from(paints[p].1);
            p += 1;
        }
        backlog += i64::from(t.chars);
        peak = peak.max(backlog);
    }
    peak.max(0) as u64
}
