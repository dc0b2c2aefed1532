//! Which part is slow, with its evidence and the fix it points to (the README's diagnosis rules, made
//! testable). Every verdict carries the numbers it was decided on; when the data cannot decide,
//! the verdict is `insufficient-evidence`, never a confident guess.

use crate::prelude::*;

use crate::figures::phases::{ArrivalPattern, Breakdown, HeldBy, STALL_MIN_MS};

/// One verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// `queue-bound`, `prefill-bound`, `decode-bound`, `network-bound`,
    /// `intermediary-buffered`, `client-render-bound`, `client-updates-deferred`,
    /// `client-input-delayed`,
    /// `client-buffers-whole-answer`,
    /// `reasoning-delay`, `decode-stall`, `page-stall`, `client-render-growing`,
    /// `conversation-weight`, `provider-bursts`, `insufficient-evidence` or `healthy`.
    pub verdict: &'static str,
    /// The figures it rests on: (name, value).
    pub evidence: Vec<(&'static str, f64)>,
    /// What to do about it: its fix's id in the verdict catalog (src/verdicts.json), the
    /// verdict's name or `name/variant` ([`super::catalog::FIX_IDS`]).
    pub fix_id: &'static str,
    /// For `insufficient-evidence`: what is missing (`dom`, `paint`, `matched`, `deltas`,
    /// `server-timings`).
    pub missing: Vec<&'static str>,
    /// For buffering verdicts: where it most likely is (`server`, `proxy`, `cdn`,
    /// `compression`, `unknown`) and the header that says so; for stalls, `server` or `page`.
    pub place: Option<(&'static str, Option<&'static str>)>,
    /// What fixing it would gain the user, estimated (`None` for `healthy`,
    /// `insufficient-evidence`, or when what the estimate needs is unknown).
    pub gain: Option<Gain>,
}

/// An estimate of what the user would see sooner if a verdict's cause were fixed: the perceived
/// TTFT and E2E gained (ms, never negative), and how the estimate is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gain {
    /// Perceived TTFT gained (ms).
    pub ttft: f64,
    /// Perceived E2E gained (ms).
    pub e2e: f64,
    /// How: `paint-on-arrival` (the page paints each delta in the frame after it arrives),
    /// `paint-on-arrival-server-pace` (and the page reads at the server's pace, where it read
    /// late), `paint-on-arrival-stream-pace` (or, without the server's decode, at the pace the
    /// arrivals kept before the page fell behind), `no-hold` (nothing between server and page holds tokens), `stall-at-pace` (the
    /// stalled step takes the stream's usual step), `no-queue` (no wait for a slot),
    /// `sent-at-once` (no wait in the browser), `without-earlier-text` (the page does not
    /// re-render the earlier conversation with each delta), or `at-threshold` (the phase at the
    /// level below which the verdict is not given).
    pub basis: &'static str,
}

impl Verdict {
    /// With an estimated gain (none when either figure is unknown).
    fn gained(mut self, ttft: f64, e2e: f64, basis: &'static str) -> Self {
        self.gain = (ttft.is_finite() && e2e.is_finite()).then_some(Gain {
            ttft: ttft.max(0.0),
            e2e: e2e.max(0.0),
            basis,
        });
        self
    }

    /// A verdict whose fix is its own (its fix id is its name).
    fn of(verdict: &'static str, evidence: Vec<(&'static str, f64)>) -> Self {
        Self::new(verdict, evidence, verdict)
    }

    fn new(verdict: &'static str, evidence: Vec<(&'static str, f64)>, fix: &'static str) -> Self {
        Verdict {
            verdict,
            evidence,
            fix_id: fix,
            missing: Vec::new(),
            place: None,
            gain: None,
        }
    }
}

/// What diagnosis looks at, from one report.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Measured TTFT (ms).
    pub ttft: Option<f64>,
    /// Time per output token (ms).
    pub tpot: Option<f64>,
    /// ITL median and p95 (ms).
    pub itl_p50: Option<f64>,
    /// ITL 95th percentile (ms).
    pub itl_p95: Option<f64>,
    /// Delivery lag median (ms).
    pub lag_p50: Option<f64>,
    /// Delivery lag 95th percentile (ms).
    pub lag_p95: Option<f64>,
    /// Total stall time (ms).
    pub stall_ms: Option<f64>,
    /// The delivery pattern's name, if known.
    pub delivery: Option<&'static str>,
    /// The throttle interval, if throttled (ms).
    pub throttle: Option<f64>,
    /// First reasoning delta (ms from start).
    pub reasoning_first: Option<f64>,
    /// Content deltas.
    pub deltas: usize,
    /// The page's element showing the answer was read at least once.
    pub observed: bool,
    /// At least one commit got a paint bracket.
    pub painted: bool,
    /// The share of arrived visible text found on screen (%).
    pub matched: Option<f64>,
    /// The answer was read by a reading learned from the page, and the page showed less than
    /// [`limits::READING_MATCHED`] of it: the page contradicts the reading.
    pub disproved: bool,
    /// Why the element could not be read, as the shell found it.
    pub dom_reason: Option<&'static str>,
    /// The reveal rate of a `smoothed` page (characters per second).
    pub reveal_rate: Option<f64>,
    /// The rate at which answer text arrived (characters per second).
    pub arrival_rate: Option<f64>,
    /// Perceived E2E minus measured E2E (ms).
    pub perceived_extra: Option<f64>,
    /// Where the response headers say buffering may be.
    pub buffer_hint: Option<crate::read::wire::BufferHint>,
    /// The share of frames that came late while the stream was shown (a busy main thread).
    pub busy_share: Option<f64>,
    /// The share of the stream's time on the page (first arrival to last paint) that the main
    /// thread was seen blocked.
    pub blocked_share: Option<f64>,
    /// How long the request waited in the browser before it was sent (Resource Timing).
    pub browser_queue: Option<f64>,
    /// The longest mid-stream stall of the arrivals (start from the request start).
    pub arrival_stall: Option<crate::figures::phases::ArrivalStall>,
    /// The longest wait of arrived text for a paint: (start from the request start, ms).
    pub paint_stall: Option<(f64, f64)>,
    /// The same wait (the longest freeze), with what the page did meanwhile.
    pub freeze: Option<crate::figures::smooth::Freeze>,
    /// How the page answered the user's interactions while the answer streamed.
    pub input: Option<crate::figures::smooth::Input>,
    /// The longest time the main thread was seen blocked while the answer streamed: (start
    /// from the request start, ms).
    pub blocked_longest: Option<(f64, f64)>,
    /// How the page's render cost per delta grew with the text shown.
    pub growth: Option<crate::figures::growth::Growth>,
    /// Characters the observed container held before the answer (the conversation so far).
    pub prior_chars: Option<f64>,
    /// An earlier answer in a shorter conversation: its container's characters before it, and
    /// its cost per delta early in the answer (ms).
    pub baseline: Option<(f64, f64)>,
    /// Measured E2E (ms).
    pub e2e: Option<f64>,
    /// Perceived TTFT and E2E: the first and last answer text painted (ms).
    pub shown: (Option<f64>, Option<f64>),
    /// The server's decode time (ms), when it said it.
    pub server_decode: Option<f64>,
    /// The page read the stream late: its own clock stamped the arrivals and its main thread
    /// was seen blocked.
    pub read_late: bool,
    /// The span from the first delta to the last at the pace the arrivals kept before the page
    /// was first blocked (ms), when enough were read on time.
    pub stream_pace: Option<f64>,
}

impl Facts {
    /// The page read the stream itself while its main thread was blocked a quarter of the
    /// stream or more: its reads may have waited behind its own tasks.
    fn read_while_busy(&self) -> bool {
        self.read_late && self.blocked_share.is_some_and(|b| b >= limits::BUSY)
    }
}

/// Thresholds (ms unless said otherwise).
pub mod limits {
    /// A TTFT above this is slow.
    pub const SLOW_TTFT: f64 = 800.0;
    /// A share of TTFT above this makes a phase the cause.
    pub const SHARE: f64 = 0.5;
    /// Queue time above this matters.
    pub const QUEUE: f64 = 200.0;
    /// TPOT above this is slow decoding.
    pub const SLOW_TPOT: f64 = 60.0;
    /// ITL p95 over p50 above this (with p95 above 100 ms) is jittery decoding.
    pub const JITTER: f64 = 4.0;
    /// Network time to first token above this is slow.
    pub const NETWORK: f64 = 300.0;
    /// Mean intermediary hold above this (and above two decode steps) is buffering.
    pub const HOLD: f64 = 50.0;
    /// Median delivery lag above this is slow client rendering.
    pub const LAG: f64 = 100.0;
    /// A 95th percentile of delivery lag above this, on a page whose main thread was blocked
    /// for [`BUSY`] of the stream or more, is slow client rendering too.
    pub const TAIL_LAG: f64 = 500.0;
    /// The share of the stream's time the main thread was blocked that makes a page busy.
    pub const BUSY: f64 = 0.25;
    /// The share that makes it blocked for most of the stream: with text waiting more than two
    /// frames, slow client rendering.
    pub const MOSTLY: f64 = 0.5;
    /// A render cost per delta at the end of the answer above this, grown from under half of
    /// it, is a render that grows with the answer (half a frame).
    pub const GROWN: f64 = 8.0;
    /// A conversation this many characters longer than an earlier answer's is a longer one.
    pub const CONVERSATION: f64 = 5000.0;
    /// A cost per delta this much higher (a quarter of a frame) than in the shorter
    /// conversation weighs on the answer.
    pub const WEIGHT: f64 = 4.0;
    /// Below this share of the answer found on screen (%), the page's figures are not
    /// evidence.
    pub const MATCHED: f64 = 90.0;
    /// The share of an answer read by a learned reading (%) the page must show for the reading
    /// to stand: below it the page contradicts the reading, and no figure is given from it.
    pub const READING_MATCHED: f64 = 99.0;
}

/// Diagnoses one stream: verdicts most important first; `healthy` when nothing stands out.
pub fn diagnose(f: &Facts, b: Option<&Breakdown>) -> Vec<Verdict> {
    use limits::*;
    let mut out = Vec::new();
    let phase = |name: &str| {
        b.and_then(|b| b.phases.iter().find(|p| p.name == name))
            .and_then(|p| p.ms)
    };
    let ttft = f.ttft.unwrap_or(f64::NAN);

    let (gt, ge, basis) = paint_gain(f);
    // The conversation first: where it weighs, it is why the page renders slowly. Then a cost
    // per delta that grows with the answer, for the same reason: a page that renders slowly
    // because each delta re-renders the whole answer is named by the growth, its cause (a
    // heavy growing page, or any growing page on a loaded machine, is render-bound as well).
    out.extend(conversation(f, gt, ge));
    out.extend(growing(f).map(|v| v.gained(gt, ge, basis)));
    out.extend(page(f).map(|v| v.gained(gt, ge, basis)));
    // A page verdict already explains its waits for paint (render cost, a typewriter, an
    // answer shown only at its end).
    let client = !out.is_empty();
    let mut needs_arrival_clock = false;
    if let Some(i) = b.and_then(|b| b.intermediary) {
        // A busy page also bunches arrivals (reader.read() resolves on its main thread). Reads
        // that bunched after the main thread was blocked are the page's (`held_by`); and where
        // the page's blocking was not seen, a lag larger than the holds explains them too.
        let page_explains = f.lag_p50.is_some_and(|l| l > LAG && l >= i.held_mean);
        // A page that read the stream itself while its main thread was blocked a quarter of
        // the time or more may have read these bursts late: without the arrival clock they
        // cannot be told from a hold, and a busy page is never called a proxy.
        // A page holds a read only while its main thread is blocked: holds of twice its longest
        // block and more on average are not its own (a gzip or a proxy on a loaded machine, where
        // short blocks add up to a busy share: issue 59).
        let longer = f
            .blocked_longest
            .is_some_and(|(_, ms)| i.held_mean > 2.0 * ms);
        let busy = f.read_while_busy() && !longer;
        let held = i.held_by == HeldBy::Intermediary
            && i.pattern != ArrivalPattern::Steady
            && i.held_mean > HOLD.max(2.0 * i.step)
            && !page_explains;
        needs_arrival_clock = held && busy;
        if held && !busy {
            out.push(match f.buffer_hint.map(|h| h.place) {
                // Bursts on a timer from the server itself (no hop named by the headers): the
                // provider streams so, and no proxy setting changes it.
                None | Some("server") if i.periodic && i.pattern == ArrivalPattern::Bursty => {
                    provider_bursts(i, f.buffer_hint)
                }
                _ => buffered(i, f.buffer_hint),
            });
        }
    }
    out.extend(first_token(f, &phase));
    let steady = b
        .and_then(|b| b.intermediary)
        .is_none_or(|i| i.pattern == ArrivalPattern::Steady);
    let slow = f.tpot.is_some_and(|t| t > SLOW_TPOT);
    let jittery = matches!((f.itl_p50, f.itl_p95), (Some(p50), Some(p95)) if p95 > 100.0 && p95 > JITTER * p50.max(1.0));
    if steady && (slow || jittery) {
        out.push(
            Verdict::of(
                "decode-bound",
                vec![
                    ("tpot", f.tpot.unwrap_or(f64::NAN)),
                    ("itlP50", f.itl_p50.unwrap_or(f64::NAN)),
                    ("itlP95", f.itl_p95.unwrap_or(f64::NAN)),
                ],
            )
            .gained(
                0.0,
                (f.tpot.unwrap_or(f64::NAN) - SLOW_TPOT) * f.deltas.saturating_sub(1) as f64,
                "at-threshold",
            ),
        );
    }
    let jittery_decode = out.iter().any(|v| v.verdict == "decode-bound");
    match stall(f, jittery_decode, client) {
        Ok(v) => out.extend(v),
        Err(()) => needs_arrival_clock = true,
    }
    if let Some(r) = f
        .reasoning_first
        .filter(|&r| ttft > SLOW_TTFT && ttft - r > SHARE * ttft)
    {
        let g = (ttft - r).min(ttft - SLOW_TTFT);
        out.push(
            Verdict::of(
                "reasoning-delay",
                vec![("firstReasoning", r), ("ttft", ttft)],
            )
            .gained(g, g, "at-threshold"),
        );
    }
    out.extend(input_delayed(f));
    // The time before the first token is explained only when queue and prefill are both known
    // (reported, or the queue derived): then the network is what is left. A prefill alone leaves
    // a wait nobody measured, which a slow first token must not hide behind `healthy`.
    let server_known = phase("network").is_some();
    let server_wait = b.and_then(|b| b.server_wait);
    close(f, out, needs_arrival_clock, server_known, server_wait)
}

/// The verdicts of the time before the first token: a wait for a server slot, the prompt's
/// prefill, the network (or the browser's own queue for a connection). `phase`: a phase's time.
fn first_token(f: &Facts, phase: &dyn Fn(&str) -> Option<f64>) -> Vec<Verdict> {
    use limits::*;
    let mut out = Vec::new();
    let ttft = f.ttft.unwrap_or(f64::NAN);
    let queue = phase("queue");
    let prefill = phase("prefill");
    if let Some(q) = queue.filter(|&q| q > QUEUE && q >= SHARE * ttft) {
        out.push(
            Verdict::of("queue-bound", vec![("queueMs", q), ("ttft", ttft)])
                .gained(q, q, "no-queue"),
        );
    }
    if let Some(p) = prefill.filter(|&p| ttft > SLOW_TTFT && p >= SHARE * ttft) {
        let g = p.min(ttft - SLOW_TTFT);
        out.push(
            Verdict::of("prefill-bound", vec![("prefillMs", p), ("ttft", ttft)]).gained(
                g,
                g,
                "at-threshold",
            ),
        );
    }
    if let Some(n) = phase("network").filter(|&n| n > NETWORK) {
        // A request that waited in the browser for a connection (6 per host over HTTP/1.1)
        // looks like network time: Resource Timing's queueing part tells them apart.
        match f.browser_queue.filter(|&q| q > 100.0 && q >= SHARE * n) {
            Some(q) => out.push(
                Verdict::of(
                    "browser-queued",
                    vec![("browserQueueMs", q), ("networkMs", n)],
                )
                .gained(q, q, "sent-at-once"),
            ),
            None => out.push(
                Verdict::of("network-bound", vec![("networkMs", n), ("ttft", ttft)]).gained(
                    n - NETWORK,
                    n - NETWORK,
                    "at-threshold",
                ),
            ),
        }
    }
    out
}

/// The verdicts `out` closed: `insufficient-evidence` when what decides is missing (the arrival
/// clock, deltas, server timings for a slow first token, or the last mile), else `healthy`
/// when nothing stands out. `server_wait`: the time before the first token the measured
/// network leaves to a server that did not split it, its evidence when its timings are missing.
fn close(
    f: &Facts,
    mut out: Vec<Verdict>,
    needs_arrival_clock: bool,
    server_known: bool,
    server_wait: Option<f64>,
) -> Vec<Verdict> {
    use limits::*;
    let ttft = f.ttft.unwrap_or(f64::NAN);
    let slow_ttft = ttft > SLOW_TTFT;
    let mut missing = Vec::new();
    if f.disproved {
        // A reading the page contradicts: nothing is said of the answer but that.
        out.clear();
        missing.push("reading");
    } else if out.is_empty() && needs_arrival_clock {
        missing.push("arrival-clock");
    } else if out.is_empty() && f.deltas < 2 {
        missing.push("deltas");
    } else if out.is_empty() && slow_ttft && !server_known {
        missing.push("server-timings");
    }
    // The last mile: without the page's text on screen and its paints, nothing can be said of
    // the client, so the stream is never called healthy.
    let client = if f.deltas == 0 || f.disproved {
        None
    } else if !f.observed {
        Some("dom")
    } else if !f.painted {
        Some("paint")
    } else if f.matched.is_some_and(|m| m < MATCHED) {
        Some("matched")
    } else {
        None
    };
    missing.extend(client);
    if !missing.is_empty() {
        let mut evidence = vec![
            ("ttft", ttft),
            ("deltas", f.deltas as f64),
            ("matchedPct", f.matched.unwrap_or(f64::NAN)),
        ];
        if missing.contains(&"server-timings") {
            evidence.push(("serverWaitMs", server_wait.unwrap_or(f64::NAN)));
        }
        let mut v = Verdict::new(
            "insufficient-evidence",
            evidence,
            insufficient_fix(missing[0], f.dom_reason),
        );
        v.missing = missing;
        out.push(v);
    } else if out.is_empty() {
        out.push(Verdict::of(
            "healthy",
            vec![("ttft", ttft), ("tpot", f.tpot.unwrap_or(f64::NAN))],
        ));
    }
    out
}

/// A frame at 60 Hz (ms): the page that keeps up paints a delta in the frame after it arrives.
const FRAME: f64 = 1000.0 / 60.0;

/// The page painting each delta in the frame after it arrived: perceived TTFT and E2E gained,
/// and the basis (NaN when the page's paints are unknown). Where the busy page read late, the
/// last delta arrives at the server's pace.
fn paint_gain(f: &Facts) -> (f64, f64, &'static str) {
    let ttft = f.ttft.unwrap_or(f64::NAN);
    let e2e = f.e2e.unwrap_or(f64::NAN);
    // The server's decode, else the stream's own pace before the page fell behind (issue 59:
    // a busy page read the end 1.2 s late, and the estimate took that late read as the end).
    let pace = match (f.server_decode, f.stream_pace) {
        (Some(d), _) => Some((d, "paint-on-arrival-server-pace")),
        (None, Some(d)) => Some((d, "paint-on-arrival-stream-pace")),
        _ => None,
    };
    let (last, basis) = match pace.filter(|_| f.read_late) {
        Some((d, basis)) if ttft + d < e2e => (ttft + d, basis),
        _ => (e2e, "paint-on-arrival"),
    };
    let shown = |t: Option<f64>| t.unwrap_or(f64::NAN) - FRAME;
    (shown(f.shown.0) - ttft, shown(f.shown.1) - last, basis)
}

/// A render cost per delta that grew with the answer to at least half a frame at its end, and
/// to twice what it was at its start: the page re-renders the whole message on each delta.
fn growing(f: &Facts) -> Option<Verdict> {
    let g = f.growth.filter(|g| {
        g.slope > 0.0
            && g.end >= limits::GROWN
            && g.end >= 2.0 * g.start.max(0.5)
            && g.chars >= 2000.0
    })?;
    let mut v = Verdict::of(
        "client-render-growing",
        vec![
            ("slopeMsPer1kChars", g.slope),
            ("startMs", g.start),
            ("endMs", g.end),
            ("chars", g.chars),
        ],
    );
    v.place = Some(("page", None));
    Some(v)
}

/// A page whose answers cost more per delta the longer the conversation before them: this
/// answer's early deltas cost at least 4 ms more (and twice as much) as those of an earlier
/// answer of the page in a conversation 5,000 characters shorter. It re-renders the earlier
/// messages with every delta. `gt`, `ge`: the page's paint gains, which bound what dropping
/// that cost can gain.
fn conversation(f: &Facts, gt: f64, ge: f64) -> Option<Verdict> {
    use limits::*;
    let ((g, prior), (before, base)) = f.growth.zip(f.prior_chars).zip(f.baseline)?;
    // What each delta costs more than the shorter conversation's did.
    let weight = g.early - base;
    // At most what painting on arrival gains; unknown where that is (f64::min would not say).
    let cap = |gain: f64, most: f64| if gain.is_nan() { gain } else { gain.min(most) };
    (prior - before >= CONVERSATION && weight >= WEIGHT && weight >= base).then(|| {
        let mut v = Verdict::of(
            "conversation-weight",
            vec![
                ("priorChars", prior),
                ("weightMsPerDelta", weight),
                ("earlyMs", g.early),
                ("baselinePriorChars", before),
                ("baselineEarlyMs", base),
            ],
        )
        .gained(
            cap(gt, weight),
            cap(ge, weight * f64::from(g.commits)),
            "without-earlier-text",
        );
        v.place = Some(("page", None));
        v
    })
}

/// The page's own verdict, if any: it shows the answer only at its end, reveals it slower than it
/// arrives, or renders it late.
fn page(f: &Facts) -> Option<Verdict> {
    use limits::*;
    let ttft = f.ttft.unwrap_or(f64::NAN);
    // Revealed slower than it arrived, by a page that kept painting every frame: the page held
    // text back on purpose. A page whose frames came late was too busy to keep up: that is
    // render cost, whatever the reveal looks like.
    // Frames more than a pause apart are not counted as late (the clock may have rested), so a
    // page seconds behind can look idle by its frames alone: its blocked time says otherwise.
    let idle = f.busy_share.is_some_and(|b| b < 0.5) && f.blocked_share.is_none_or(|b| b < BUSY);
    let smoothing = f.reveal_rate.filter(|&r| {
        f.delivery == Some("smoothed") && idle && f.arrival_rate.is_some_and(|a| r < a)
    });
    if f.delivery == Some("buffered-until-end") {
        return Some(Verdict::of(
            "client-buffers-whole-answer",
            vec![("ttft", ttft)],
        ));
    } else if let Some(v) = deferred(f) {
        return Some(v);
    } else if let Some(rate) = smoothing {
        // A typing animation slower than the stream: the page is not slow, it holds text back.
        return Some(Verdict::of(
            "client-smoothing",
            vec![
                ("revealRate", rate),
                ("arrivalRate", f.arrival_rate.unwrap_or(f64::NAN)),
                ("addedMs", f.perceived_extra.unwrap_or(f64::NAN)),
                // What the smoothing adds per token: its lag beyond the frame that paints it.
                (
                    "addedP50Ms",
                    f.lag_p50.map_or(f64::NAN, |l| (l - FRAME).max(0.0)),
                ),
                (
                    "addedP95Ms",
                    f.lag_p95.map_or(f64::NAN, |l| (l - FRAME).max(0.0)),
                ),
                ("lagP50", f.lag_p50.unwrap_or(f64::NAN)),
                ("lateFrameShare", f.busy_share.unwrap_or(f64::NAN)),
            ],
        ));
    } else if f.lag_p50.is_some_and(|l| l > LAG)
        || f.throttle.is_some_and(|t| t > LAG)
        // A page that falls further behind as the answer grows: a median that still looks
        // fine, a tail of seconds, and a main thread blocked for a good part of the stream.
        || (f.lag_p95.is_some_and(|l| l > TAIL_LAG) && f.blocked_share.is_some_and(|b| b >= BUSY))
        // A main thread blocked for most of the stream, its text waiting frames for the screen:
        // each delta's render is the page's work (a whole-message render under a slow CPU).
        || (f.blocked_share.is_some_and(|b| b >= MOSTLY) && f.lag_p50.is_some_and(|l| l > 2.0 * FRAME))
    {
        return Some(Verdict::of(
            "client-render-bound",
            vec![
                ("lagP50", f.lag_p50.unwrap_or(f64::NAN)),
                ("lagP95", f.lag_p95.unwrap_or(f64::NAN)),
                ("blockedShare", f.blocked_share.unwrap_or(f64::NAN)),
                ("stallMs", f.stall_ms.unwrap_or(f64::NAN)),
                ("throttleInterval", f.throttle.unwrap_or(f64::NAN)),
            ],
        ));
    }
    None
}

/// Updates deferred: arrived text waited at least [`STALL_MIN_MS`] for the screen while the page
/// kept painting frames (half of them or more) and its main thread was mostly free (blocked at
/// most half the wait), then appeared in one step of [`DEFERRED_STEP`] characters or more. The
/// page put its updates off (a low-priority transition or deferred value that each new delta
/// interrupts, a debounce that never settles): not render cost. A page that updates on a
/// regular interval is throttled, not this, unless the freeze lasts more than
/// [`THROTTLE_SPANS`] of its intervals (commits every 40 ms look regular, seconds of nothing are
/// not a throttle).
fn deferred(f: &Facts) -> Option<Verdict> {
    let fz = f.freeze?;
    let frames = f64::from(fz.frames?);
    let interval = if fz.interval.is_finite() {
        fz.interval
    } else {
        FRAME
    };
    let held = fz.ms >= STALL_MIN_MS
        && frames >= 0.5 * fz.ms / interval
        && fz.blocked <= 0.5 * fz.ms
        && fz.step >= DEFERRED_STEP
        // A throttle's freezes last about its interval; one of many intervals is not its.
        && f.throttle.is_none_or(|t| fz.ms > THROTTLE_SPANS * t);
    held.then(|| {
        let mut v = Verdict::of(
            "client-updates-deferred",
            vec![
                ("freezeMs", fz.ms),
                ("atMs", fz.at),
                ("framesDuringFreeze", frames),
                ("blockedShareDuringFreeze", fz.blocked / fz.ms),
                ("stepChars", f64::from(fz.step)),
            ],
        );
        v.place = Some(("page", None));
        v
    })
}

/// An interaction while the answer streamed that took longer than this to paint (ms; Interaction
/// to Next Paint's "needs improvement") is slow.
pub const SLOW_INPUT: f64 = 200.0;

/// The user's interactions while the answer streamed were slow ([`SLOW_INPUT`]) on a page whose
/// main thread its rendering kept blocked (a quarter of the stream or more): typing in the
/// prompt, scrolling or pressing Stop waited for the answer's rendering.
fn input_delayed(f: &Facts) -> Option<Verdict> {
    let i = f.input.filter(|i| i.duration_max > SLOW_INPUT)?;
    let blocked = f.blocked_share.filter(|&b| b >= limits::BUSY)?;
    let mut v = Verdict::of(
        "client-input-delayed",
        vec![
            ("inputDurationMaxMs", i.duration_max),
            ("inputDelayMaxMs", i.delay_max),
            ("interactions", f64::from(i.count)),
            ("atMs", i.worst_at),
            ("blockedShare", blocked),
        ],
    );
    v.place = Some(("page", None));
    Some(v)
}

/// Throttle intervals a throttled page's freeze can last, at most, and still be its throttle.
const THROTTLE_SPANS: f64 = 3.0;

/// The characters a deferred update shows at once, at least: several tokens.
const DEFERRED_STEP: u32 = 20;

/// A stall: one wait far above the stream's own pace, then the normal pace again. Upstream (the
/// server's decode step, as on a shared server prefilling another prompt) unless the page's
/// main thread was blocked through it. `client`: a page verdict already explains the page's
/// waits for paint.
/// `Err(())`: a read gap on a busy page that read its own stream, with no stall of the page to
/// name instead (the reads may have waited behind its tasks: only the arrival clock can tell).
fn stall(f: &Facts, jittery_decode: bool, client: bool) -> Result<Option<Verdict>, ()> {
    // A page that read the stream itself while blocked a quarter of the time or more: its
    // reads can wait behind a queue of short tasks the paint clock does not count as blocked,
    // so a read gap is the server's only where the page was seen free.
    let busy = f.read_while_busy();
    let arrival = f
        .arrival_stall
        .filter(|st| !jittery_decode && (st.page || !busy));
    let undecided = arrival.is_none() && busy && f.arrival_stall.is_some() && !jittery_decode;
    let (page, at, ms, step) = match arrival {
        Some(st) => (st.page, st.start, st.ms, st.step),
        // Text waited for a paint far longer than a frame, on a page that otherwise kept up.
        // Or the main thread was blocked that long: the reads after it bunched and were
        // painted at once, so no wait shows in the arrivals or the paints.
        None => match f
            .paint_stall
            .filter(|&(_, ms)| ms >= STALL_MIN_MS)
            .or(f.blocked_longest.filter(|&(_, ms)| ms >= STALL_MIN_MS))
            .filter(|_| !client)
            .map(|(at, ms)| (true, at, ms, f64::NAN))
        {
            Some(s) => s,
            None if undecided && !client => return Err(()),
            None => return Ok(None),
        },
    };
    let (verdict, place, fix) = if page {
        ("page-stall", "page", "page-stall")
    } else {
        ("decode-stall", "server", "decode-stall")
    };
    // The stalled step at the stream's own pace (a frame where the pace is unknown).
    let extra = ms - if step.is_finite() { step } else { FRAME };
    let first = if at < f.ttft.unwrap_or(f64::NAN) {
        extra
    } else {
        0.0
    };
    let mut v = Verdict::new(
        verdict,
        vec![("atMs", at), ("stallMs", ms), ("stepMs", step)],
        fix,
    )
    .gained(first, extra, "stall-at-pace");
    v.place = Some((place, None));
    Ok(Some(v))
}

/// Bursts at a steady period, from the server itself: the provider's own streaming.
fn provider_bursts(
    i: crate::figures::phases::Intermediary,
    hint: Option<crate::read::wire::BufferHint>,
) -> Verdict {
    let mut v = Verdict::of(
        "provider-bursts",
        vec![
            ("burstPeriodMs", i.period),
            ("tokensPerBurst", i.tokens_per_burst),
            ("heldMeanMs", i.held_mean),
            ("heldFirstMs", i.held_first),
            ("decodeStepMs", i.step),
        ],
    )
    .gained(i.held_first, i.held_last, "no-hold");
    v.place = Some(("provider", hint.map(|h| h.header)));
    v
}

/// The buffering verdict, named after where the headers say the buffering most likely is.
fn buffered(
    i: crate::figures::phases::Intermediary,
    hint: Option<crate::read::wire::BufferHint>,
) -> Verdict {
    let evidence = vec![
        ("heldMeanMs", i.held_mean),
        ("heldFirstMs", i.held_first),
        ("tokensPerBurst", i.tokens_per_burst),
        ("decodeStepMs", i.step),
    ];
    let compressed = hint.is_some_and(|h| h.compressed);
    let (verdict, fix) = match hint.map(|h| h.place) {
        Some("proxy") | Some("cdn") if compressed => (
            "intermediary-buffered",
            "intermediary-buffered/compressing-proxy",
        ),
        Some("server") => ("server-buffered", "server-buffered"),
        Some("compression") => ("intermediary-buffered", "intermediary-buffered/compression"),
        Some("proxy") | Some("cdn") => ("intermediary-buffered", "intermediary-buffered/proxy"),
        _ => ("intermediary-buffered", "intermediary-buffered"),
    };
    let mut v = Verdict::new(verdict, evidence, fix).gained(i.held_first, i.held_last, "no-hold");
    v.place = Some(match hint {
        Some(h) => (h.place, Some(h.header)),
        None => ("unknown", None),
    });
    v
}

/// The fix (its id) when `missing` is what the diagnosis lacks most.
fn insufficient_fix(missing: &str, dom_reason: Option<&str>) -> &'static str {
    match (missing, dom_reason) {
        ("dom", Some("closed-shadow-root")) => "insufficient-evidence/dom/closed-shadow-root",
        ("dom", Some("cross-origin-iframe")) => "insufficient-evidence/dom/cross-origin-iframe",
        ("dom", _) => "insufficient-evidence/dom",
        ("paint", _) => "insufficient-evidence/paint",
        ("matched", _) => "insufficient-evidence/matched",
        ("reading", _) => "insufficient-evidence/reading",
        ("arrival-clock", _) => "insufficient-evidence/arrival-clock",
        ("server-timings", _) => "insufficient-evidence/server-timings",
        _ => "insufficient-evidence/deltas",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::phases::{arrival_stall, breakdown, Breakdown, Wire};
    use crate::read::wire::ServerTimings;
    use crate::timeline::blocked::Blocked;
    use crate::timeline::session::DeltaRecord;

    /// A synthetic stream: `n` tokens from `first` every `step` ms, released by `hold`,
    /// painted `lag` ms after arrival.
    fn timeline(
        n: usize,
        first: f64,
        step: f64,
        lag: f64,
        hold: impl Fn(usize, f64) -> f64,
    ) -> Vec<DeltaRecord> {
        (0..n)
            .map(|i| {
                let arrived = hold(i, first + step * i as f64);
                DeltaRecord {
                    committed: arrived + lag,
                    frame: arrived + lag,
                    painted: arrived + lag,
                    ..DeltaRecord::arrived(arrived, 4, 4, 0)
                }
            })
            .collect()
    }

    fn facts(t: &[DeltaRecord], itl_p95: Option<f64>) -> Facts {
        let n = t.len();
        let ttft = t[0].arrived;
        let e2e = t[n - 1].arrived;
        let mut gaps: Vec<f64> = t.windows(2).map(|w| w[1].arrived - w[0].arrived).collect();
        crate::stats::sort(&mut gaps);
        Facts {
            ttft: Some(ttft),
            tpot: Some((e2e - ttft) / (n - 1) as f64),
            itl_p50: crate::stats::quantile_sorted(&gaps, 0.5),
            itl_p95: itl_p95.or(crate::stats::quantile_sorted(&gaps, 0.95)),
            lag_p50: Some(t[0].painted - t[0].arrived),
            deltas: n,
            observed: true,
            painted: true,
            matched: Some(100.0),
            ..Facts::default()
        }
    }

    /// 60 tokens every 20 ms from 300 ms, painted 8 ms later, with one decode step of 600 ms
    /// at the 30th (a shared server prefilling another prompt).
    fn one_slow_step() -> Vec<DeltaRecord> {
        timeline(60, 300.0, 20.0, 8.0, |i, e| {
            e + if i >= 30 { 600.0 } else { 0.0 }
        })
    }

    fn verdicts(f: &Facts, b: Option<&Breakdown>) -> Vec<&'static str> {
        diagnose(f, b).into_iter().map(|v| v.verdict).collect()
    }

    fn srv(q: Option<f64>, p: Option<f64>, d: Option<f64>) -> ServerTimings {
        ServerTimings {
            queue_ms: q,
            prefill_ms: p,
            decode_ms: d,
            ..ServerTimings::default()
        }
    }

    /// One diagnosis case: a synthetic stream, the server's timings, an adjustment of the
    /// facts, and the verdicts expected.
    struct Case {
        name: &'static str,
        tokens: Vec<DeltaRecord>,
        server: ServerTimings,
        adjust: fn(&mut Facts),
        want: &'static [&'static str],
    }

    fn check(cases: Vec<Case>) {
        for c in cases {
            let mut f = facts(&c.tokens, None);
            f.arrival_stall = arrival_stall(&c.tokens, &Blocked::default());
            (c.adjust)(&mut f);
            let b = breakdown(
                &c.tokens,
                0.0,
                &c.server,
                f.reasoning_first,
                0,
                &Blocked::default(),
                &Wire::default(),
            );
            assert_eq!(verdicts(&f, b.as_ref()), c.want, "{}", c.name);
        }
    }

    #[test]
    fn a_wait_for_a_slot_the_server_did_not_report_is_queue_bound_never_healthy() {
        // A llama-server with one slot: 4,000 ms behind two other requests, its headers sent
        // when the slot took the request, then 300 ms of prefill (its only figure) and 50
        // tokens every 20 ms. The page itself kept up.
        let t = timeline(50, 4302.0, 20.0, 8.0, |_, e| e);
        let f = facts(&t, None);
        let llama = srv(None, Some(300.0), Some(980.0));
        let wire = |headers| Wire {
            headers: Some(headers),
            network: Some(0.5),
        };
        let b = breakdown(&t, 0.0, &llama, None, 0, &Blocked::default(), &wire(4002.0));
        let v = diagnose(&f, b.as_ref());
        assert_eq!(v[0].verdict, "queue-bound", "{v:?}");
        assert!(v.iter().all(|v| v.verdict != "healthy"));
        let q = v[0].evidence[0].1;
        assert!((q - 4001.5).abs() < 1.0, "queue {q}");
        let g = v[0].gain.unwrap();
        assert_eq!((g.ttft, g.e2e, g.basis), (q, q, "no-queue"));
        // The same request alone: its headers at once, no queue verdict.
        let t = timeline(50, 302.0, 20.0, 8.0, |_, e| e);
        let f = facts(&t, None);
        let b = breakdown(&t, 0.0, &llama, None, 0, &Blocked::default(), &wire(2.0));
        assert_eq!(verdicts(&f, b.as_ref()), ["healthy"]);
    }

    #[test]
    fn a_slow_first_token_with_a_prefill_but_no_queue_to_be_had_is_never_healthy() {
        // llama.cpp's timings (prefill 300 ms) and no headers stamp to derive the queue from:
        // 2,000 ms of the 2,302 ms wait is unexplained. Not healthy: the server's split is missing.
        let t = timeline(50, 2302.0, 20.0, 8.0, |_, e| e);
        let f = facts(&t, None);
        let llama = srv(None, Some(300.0), Some(980.0));
        let b = breakdown(
            &t,
            0.0,
            &llama,
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        let v = diagnose(&f, b.as_ref());
        assert_eq!(
            v.iter().map(|v| v.verdict).collect::<Vec<_>>(),
            ["insufficient-evidence"]
        );
        assert_eq!(v[0].missing, ["server-timings"]);
        // With the queue known the same wait is explained: queue-bound.
        let full = srv(Some(2000.0), Some(300.0), Some(980.0));
        let b = breakdown(
            &t,
            0.0,
            &full,
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        assert_eq!(diagnose(&f, b.as_ref())[0].verdict, "queue-bound");
    }

    #[test]
    fn a_slow_first_token_no_server_figure_explains_names_the_servers_wait() {
        let t = timeline(50, 2302.0, 20.0, 8.0, |_, e| e);
        let f = facts(&t, None);
        let wire = Wire {
            headers: Some(2.0),
            network: Some(1.5),
        };
        let b = breakdown(
            &t,
            0.0,
            &srv(None, None, None),
            None,
            0,
            &Blocked::default(),
            &wire,
        );
        let v = diagnose(&f, b.as_ref());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].verdict, "insufficient-evidence");
        assert_eq!(v[0].missing, ["server-timings"]);
        let wait = v[0]
            .evidence
            .iter()
            .find(|e| e.0 == "serverWaitMs")
            .unwrap()
            .1;
        assert!((wait - 2300.5).abs() < 1e-6, "server wait {wait}");
    }

    #[test]
    fn table_of_server_and_network_verdicts() {
        let none = |_: &mut Facts| {};
        check(vec![
            Case {
                name: "healthy",
                tokens: timeline(50, 300.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(10.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["healthy"],
            },
            Case {
                name: "queueing",
                tokens: timeline(50, 2300.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(2000.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["queue-bound"],
            },
            Case {
                name: "long prompt",
                tokens: timeline(50, 1800.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(1750.0), Some(980.0)),
                adjust: none,
                want: &["prefill-bound"],
            },
            Case {
                name: "slow decode",
                tokens: timeline(50, 300.0, 120.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(5880.0)),
                adjust: none,
                want: &["decode-bound"],
            },
            Case {
                name: "jittery decode",
                tokens: timeline(50, 300.0, 20.0, 8.0, |i, e| {
                    e + if i % 10 == 9 { 400.0 } else { 0.0 }
                }),
                server: srv(Some(5.0), Some(250.0), None),
                adjust: |f| f.itl_p95 = Some(420.0),
                want: &["decode-bound"],
            },
            Case {
                name: "far away",
                tokens: timeline(50, 900.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["network-bound"],
            },
            Case {
                name: "proxy buffering",
                tokens: timeline(50, 300.0, 20.0, 8.0, |i, e| e + 20.0 * (9 - i % 10) as f64),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["intermediary-buffered"],
            },
            Case {
                name: "all at the end",
                tokens: timeline(50, 300.0, 20.0, 8.0, |_, _| 1280.0),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["intermediary-buffered"],
            },
            // A shared server: one decode step of 600 ms while it prefilled another prompt,
            // then the normal pace. A stall on the server, not a hold and not healthy.
            Case {
                name: "a slow decode step",
                tokens: one_slow_step(),
                server: srv(None, Some(290.0), Some(59.0 * 20.0 + 600.0)),
                adjust: none,
                want: &["decode-stall"],
            },
            Case {
                name: "a slow decode step, no server timings",
                tokens: one_slow_step(),
                server: ServerTimings::default(),
                adjust: none,
                want: &["decode-stall"],
            },
            // Bursty arrivals are not blamed on decoding.
            Case {
                name: "bursts are not jitter",
                tokens: timeline(50, 300.0, 20.0, 8.0, |i, e| e + 20.0 * (9 - i % 10) as f64),
                server: srv(Some(5.0), Some(250.0), None),
                adjust: |f| f.itl_p95 = Some(200.0),
                want: &["intermediary-buffered"],
            },
        ]);
    }

    #[test]
    fn text_held_back_for_many_commit_intervals_is_deferred_even_if_the_commits_look_regular() {
        use crate::figures::smooth::Freeze;
        let t = timeline(50, 300.0, 20.0, 8.0, |_, e| e);
        // React's useDeferredValue on Streamdown, the user typing (issue 49): commits about
        // every 40 ms (a `throttled` pattern by their regularity), then 6 s of frames with
        // nothing new shown while the deferred render starts over with each key press.
        let held = |delivery, throttle, ms| {
            let mut f = facts(&t, None);
            f.lag_p50 = Some(1900.0);
            f.blocked_share = Some(0.27);
            f.delivery = Some(delivery);
            f.throttle = (delivery == "throttled").then_some(throttle);
            f.freeze = Some(Freeze {
                at: 1500.0,
                ms,
                frames: Some((ms / 20.0) as u32),
                interval: 1000.0 / 60.0,
                blocked: 0.05 * ms,
                step: 1100,
            });
            verdicts(&f, None)
        };
        assert!(held("throttled", 40.0, 6000.0).contains(&"client-updates-deferred"));
        assert!(held("per-token", 40.0, 6000.0).contains(&"client-updates-deferred"));
        // A page that shows text every 500 ms: its freezes last an interval, the throttle's.
        let throttled = held("throttled", 500.0, 520.0);
        assert!(
            !throttled.contains(&"client-updates-deferred"),
            "{throttled:?}"
        );
        assert!(throttled.contains(&"client-render-bound"), "{throttled:?}");
    }

    #[test]
    fn a_page_blocked_most_of_the_stream_is_render_bound() {
        check(vec![
            // A page blocked through nearly all of the stream (a 4× slower CPU re-rendering
            // the whole message), its median wait just under the lag limit: its render, not a
            // stall of the length of its merged long frames (Streamdown's direct mode, issue 49).
            Case {
                name: "a page blocked through the stream, lag just under the limit",
                tokens: timeline(50, 300.0, 20.0, 95.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: |f| {
                    f.blocked_share = Some(0.96);
                    f.blocked_longest = Some((300.0, 1000.0));
                },
                want: &["client-render-bound"],
            },
        ]);
    }

    #[test]
    fn holds_longer_than_a_busy_pages_blocks_are_not_its_own() {
        check(vec![
            // A proxy on a loaded machine: the page was blocked a third of the time, in short
            // blocks (40 ms at most); the holds (90 ms on average) are longer than any of them
            // could make: not the page's. (Without the blocks' length: insufficient evidence.)
            Case {
                name: "proxy buffering on a busy page of short blocks",
                tokens: timeline(50, 300.0, 20.0, 8.0, |i, e| e + 20.0 * (9 - i % 10) as f64),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: |f| {
                    f.read_late = true;
                    f.blocked_share = Some(0.35);
                    f.blocked_longest = Some((600.0, 40.0));
                },
                want: &["intermediary-buffered"],
            },
            Case {
                name: "proxy buffering on a busy page of long blocks",
                tokens: timeline(50, 300.0, 20.0, 8.0, |i, e| e + 20.0 * (9 - i % 10) as f64),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: |f| {
                    f.read_late = true;
                    f.blocked_share = Some(0.35);
                    f.blocked_longest = Some((600.0, 200.0));
                },
                want: &["insufficient-evidence"],
            },
        ]);
    }

    #[test]
    fn table_of_page_and_undecidable_verdicts() {
        let none = |_: &mut Facts| {};
        check(vec![
            Case {
                name: "slow rendering",
                tokens: timeline(50, 300.0, 20.0, 250.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["client-render-bound"],
            },
            // A page so busy that its arrivals bunch up: the page is the cause, not a proxy.
            Case {
                name: "busy page bunches arrivals",
                tokens: timeline(50, 300.0, 20.0, 600.0, |i, e| {
                    e + 20.0 * (9 - i % 10) as f64
                }),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: none,
                want: &["client-render-bound"],
            },
            Case {
                name: "buffered page",
                tokens: timeline(50, 300.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: |f| f.delivery = Some("buffered-until-end"),
                want: &["client-buffers-whole-answer"],
            },
            Case {
                name: "reasoning first",
                tokens: timeline(50, 3000.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(200.0), Some(980.0)),
                adjust: |f| f.reasoning_first = Some(250.0),
                want: &["reasoning-delay"],
            },
            // A page that froze once for 400 ms, otherwise keeping up: a stall of the page.
            Case {
                name: "a page that froze once",
                tokens: timeline(60, 300.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(59.0 * 20.0)),
                adjust: |f| f.paint_stall = Some((700.0, 400.0)),
                want: &["page-stall"],
            },
            // The same slow step as a shared server's, but the main thread was blocked through
            // it: nothing was read, the page's stall.
            Case {
                name: "a read gap while the page was blocked",
                tokens: one_slow_step(),
                server: ServerTimings::default(),
                adjust: |f| {
                    if let Some(st) = &mut f.arrival_stall {
                        st.page = true;
                    }
                },
                want: &["page-stall"],
            },
            // A read gap on a page that read its own stream while blocked a third of the time,
            // the gap itself not covered: its reads may have waited behind the page's tasks (a
            // queue of short ones the paint clock does not see as blocked). Not the server's
            // stall: the page's longest block is its own stall.
            Case {
                name: "a read gap on a busy page",
                tokens: one_slow_step(),
                server: ServerTimings::default(),
                adjust: |f| {
                    f.read_late = true;
                    f.blocked_share = Some(0.35);
                    f.blocked_longest = Some((400.0, 300.0));
                },
                want: &["page-stall"],
            },
            // The same without a long block: neither the server's nor the page's, by these
            // clocks.
            Case {
                name: "a read gap on a busy page, no long block",
                tokens: one_slow_step(),
                server: ServerTimings::default(),
                adjust: |f| {
                    f.read_late = true;
                    f.blocked_share = Some(0.35);
                },
                want: &["insufficient-evidence"],
            },
            // A page that shows the answer only at its end waits for paint too: that verdict
            // says it, not a stall.
            Case {
                name: "buffered page, no stall verdict",
                tokens: timeline(50, 300.0, 20.0, 8.0, |_, e| e),
                server: srv(Some(5.0), Some(250.0), Some(980.0)),
                adjust: |f| {
                    f.delivery = Some("buffered-until-end");
                    f.paint_stall = Some((300.0, 980.0));
                },
                want: &["client-buffers-whole-answer"],
            },
            // Ambiguous or missing data: say so rather than guess.
            Case {
                name: "slow first token, no server timings",
                tokens: timeline(50, 2500.0, 20.0, 8.0, |_, e| e),
                server: ServerTimings::default(),
                adjust: none,
                want: &["insufficient-evidence"],
            },
            Case {
                name: "a single delta",
                tokens: timeline(1, 300.0, 20.0, 8.0, |_, e| e),
                server: ServerTimings::default(),
                adjust: none,
                want: &["insufficient-evidence"],
            },
        ]);
    }

    #[test]
    fn every_verdict_carries_evidence_and_a_fix() {
        let t = timeline(50, 2300.0, 20.0, 8.0, |_, e| e);
        let b = breakdown(
            &t,
            0.0,
            &srv(Some(2000.0), Some(250.0), Some(980.0)),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        for v in diagnose(&facts(&t, None), b.as_ref()) {
            assert!(!v.evidence.is_empty() && !v.fix_id.is_empty(), "{v:?}");
            assert!(v.evidence.iter().any(|(_, x)| x.is_finite()));
        }
    }

    /// The first verdict's gain: (perceived TTFT, perceived E2E, basis).
    fn first_gain(f: &Facts, b: Option<&Breakdown>) -> Option<(f64, f64, &'static str)> {
        diagnose(f, b)[0].gain.map(|g| (g.ttft, g.e2e, g.basis))
    }

    #[test]
    fn a_page_verdict_gains_what_painting_on_arrival_would_show_sooner() {
        // 40 tokens every 20 ms from 250 ms, painted 150 ms late: fixed, each paints in the
        // next frame.
        let t = timeline(40, 250.0, 20.0, 150.0, |_, a| a);
        let mut f = facts(&t, None);
        f.e2e = Some(1030.0);
        f.shown = (Some(400.0), Some(1180.0));
        let (ttft, e2e, basis) = first_gain(&f, None).expect("a gain");
        assert_eq!(basis, "paint-on-arrival");
        assert!((ttft - (150.0 - FRAME)).abs() < 1e-9 && (e2e - (150.0 - FRAME)).abs() < 1e-9);
        // A busy page that read the last token late: the server's pace says when it came.
        f.read_late = true;
        f.server_decode = Some(700.0);
        let (_, e2e, basis) = first_gain(&f, None).expect("a gain");
        assert_eq!(basis, "paint-on-arrival-server-pace");
        assert!((e2e - (1180.0 - 950.0 - FRAME)).abs() < 1e-9, "{e2e}");
        // No server decode: the arrivals' own pace before the page fell behind (issue 59).
        f.server_decode = None;
        f.stream_pace = Some(700.0);
        let (_, e2e, basis) = first_gain(&f, None).expect("a gain");
        assert_eq!(basis, "paint-on-arrival-stream-pace");
        assert!((e2e - (1180.0 - 950.0 - FRAME)).abs() < 1e-9, "{e2e}");
        f.stream_pace = None;
        assert_eq!(first_gain(&f, None).unwrap().2, "paint-on-arrival");
        f.server_decode = Some(700.0);
        // Nothing painted: no estimate.
        f.shown = (None, None);
        assert_eq!(diagnose(&f, None)[0].gain, None);
    }

    #[test]
    fn stalls_queues_and_thresholds_gain_the_time_above_their_healthy_value() {
        let t = timeline(20, 100.0, 20.0, 5.0, |_, a| a);
        let mut f = facts(&t, None);
        f.shown = (Some(105.0), Some(485.0));
        f.arrival_stall = Some(crate::figures::phases::ArrivalStall {
            start: 200.0,
            ms: 620.0,
            step: 20.0,
            page: false,
        });
        assert_eq!(first_gain(&f, None), Some((0.0, 600.0, "stall-at-pace")));
        let late = timeline(20, 1500.0, 20.0, 5.0, |_, a| a);
        let queued = facts(&late, None);
        let b = breakdown(
            &late,
            0.0,
            &srv(Some(900.0), Some(100.0), None),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        let v = diagnose(&queued, b.as_ref());
        let q = v
            .iter()
            .find(|v| v.verdict == "queue-bound")
            .expect("queue-bound");
        assert_eq!(
            q.gain.map(|g| (g.ttft, g.e2e, g.basis)),
            Some((900.0, 900.0, "no-queue"))
        );
        // healthy and insufficient-evidence gain nothing.
        let healthy = facts(&t, None);
        assert_eq!(verdicts(&healthy, None), ["healthy"]);
        assert_eq!(diagnose(&healthy, None)[0].gain, None);
    }

    #[test]
    fn earlier_messages_re_rendered_with_each_delta_weigh_on_the_answer() {
        use crate::figures::growth::Growth;
        let t = timeline(100, 300.0, 20.0, 60.0, |_, a| a);
        let mut f = facts(&t, None);
        f.shown = (Some(400.0), Some(2350.0));
        f.e2e = Some(2280.0);
        // Each early delta costs 31 ms, with 20,000 characters of conversation before the
        // answer; an earlier answer of the page, with 300 before it, cost 1 ms.
        let grown = |early: f64| Growth {
            slope: 1.5,
            start: early,
            end: early + 9.0,
            chars: 6000.0,
            commits: 90,
            early,
        };
        f.growth = Some(grown(31.0));
        f.prior_chars = Some(20000.0);
        f.baseline = Some((300.0, 1.0));
        let v = diagnose(&f, None);
        let c = v
            .iter()
            .find(|v| v.verdict == "conversation-weight")
            .expect("conversation-weight");
        assert_eq!(c.place, Some(("page", None)));
        let ev = |name| c.evidence.iter().find(|e| e.0 == name).map(|e| e.1);
        assert_eq!(ev("weightMsPerDelta"), Some(30.0));
        assert_eq!(ev("baselinePriorChars"), Some(300.0));
        // The gain: 30 ms on the first delta, and on each commit, bounded by painting on
        // arrival (70 ms late at both ends, less a frame).
        let g = c.gain.expect("a gain");
        assert_eq!(g.basis, "without-earlier-text");
        assert!((g.ttft - 30.0).abs() < 1e-9, "{g:?}");
        assert!((g.e2e - (70.0 - FRAME)).abs() < 1e-9, "{g:?}");
        let has = |f: &Facts| verdicts(f, None).contains(&"conversation-weight");
        // Early deltas that cost what they did in the shorter conversation: only the answer is
        // re-rendered.
        f.growth = Some(grown(2.0));
        assert!(!has(&f));
        // Conversations of nearly the same length; no earlier answer; no conversation known
        // (a stream with a target of its own).
        f.growth = Some(grown(31.0));
        f.baseline = Some((17000.0, 1.0));
        assert!(!has(&f));
        f.baseline = None;
        assert!(!has(&f));
        f.baseline = Some((300.0, 1.0));
        f.prior_chars = None;
        assert!(!has(&f));
        // A page that costs 20 ms a delta whatever the conversation: 26 is not twice that.
        f.prior_chars = Some(20000.0);
        f.baseline = Some((300.0, 20.0));
        f.growth = Some(grown(26.0));
        assert!(!has(&f));
        // Nothing painted: no gain, the verdict still.
        f.baseline = Some((300.0, 1.0));
        f.growth = Some(grown(31.0));
        f.shown = (None, None);
        let v = diagnose(&f, None);
        let c = v.iter().find(|v| v.verdict == "conversation-weight");
        assert_eq!(c.map(|c| c.gain), Some(None));
    }

    #[test]
    fn a_page_slowed_by_its_growing_render_is_named_by_the_growth_first() {
        use crate::figures::growth::Growth;
        // Each delta painted 150 ms late (render-bound), and the cost per delta grew from 5 to
        // 20 ms over 6,000 characters: the growth is why it is slow, and comes first (a loaded
        // fresh run of the lab's `growing` scenario gave both, render-bound first).
        let t = timeline(100, 300.0, 20.0, 150.0, |_, a| a);
        let mut f = facts(&t, None);
        let alone = verdicts(&f, None);
        assert_eq!(alone[0], "client-render-bound", "{alone:?}");
        f.growth = Some(Growth {
            slope: 2.5,
            start: 5.0,
            end: 20.0,
            chars: 6000.0,
            commits: 90,
            early: 5.0,
        });
        let both = verdicts(&f, None);
        assert_eq!(
            both[..2],
            ["client-render-growing", "client-render-bound"],
            "{both:?}"
        );
    }

    #[test]
    fn bursts_on_a_timer_from_the_server_are_the_providers_and_a_named_proxy_is_the_proxys() {
        // 400 tokens decoded every 8 ms from 200 ms, released every 450 ms (and at the end).
        let release = |_: usize, a: f64| ((a / 450.0).ceil() * 450.0).min(200.0 + 8.0 * 399.0);
        let t = timeline(400, 200.0, 8.0, 5.0, release);
        let b = breakdown(
            &t,
            0.0,
            &srv(Some(0.0), Some(190.0), Some(8.0 * 399.0)),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        let i = b
            .as_ref()
            .and_then(|b| b.intermediary)
            .expect("an analysis");
        assert!(i.periodic && (i.period - 450.0).abs() < 1.0, "{i:?}");
        let mut f = facts(&t, None);
        let hint = |place| crate::read::wire::BufferHint {
            place,
            header: "server",
            compressed: false,
        };
        f.buffer_hint = Some(hint("server"));
        let v = diagnose(&f, b.as_ref());
        assert_eq!(v[0].verdict, "provider-bursts", "{:?}", v);
        assert_eq!(v[0].place, Some(("provider", Some("server"))));
        f.buffer_hint = None;
        assert_eq!(diagnose(&f, b.as_ref())[0].verdict, "provider-bursts");
        // The same bursts through a proxy the headers name: the proxy's.
        f.buffer_hint = Some(hint("proxy"));
        let v = diagnose(&f, b.as_ref());
        assert_eq!(
            (v[0].verdict, v[0].place.map(|p| p.0)),
            ("intermediary-buffered", Some("proxy"))
        );
        // Read by the page itself while its main thread was blocked half the time: the bursts
        // may be its own late reads, and nothing is blamed without the arrival clock.
        f.read_late = true;
        f.blocked_share = Some(0.5);
        let v = diagnose(&f, b.as_ref());
        assert_eq!(v[0].verdict, "insufficient-evidence", "{v:?}");
        assert_eq!(v[0].missing, ["arrival-clock"]);
        // One hold to the end is not a period: the server's own streaming layer held it.
        let all = timeline(60, 200.0, 20.0, 5.0, |i, a| if i == 0 { a } else { 1400.0 });
        let b = breakdown(
            &all,
            0.0,
            &srv(Some(0.0), Some(190.0), Some(20.0 * 59.0)),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        );
        let mut f = facts(&all, None);
        f.buffer_hint = Some(hint("server"));
        assert_eq!(diagnose(&f, b.as_ref())[0].verdict, "server-buffered");
    }
}
