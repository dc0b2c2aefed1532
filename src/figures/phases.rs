//! Where the time went: the phases of one request, in order, each with its source, adding up to
//! the perceived E2E (or the measured one when nothing was painted).
//!
//! queue → prefill → network (to first token) → decode → intermediary hold → client delivery
//!
//! - `queue` and `prefill` come from the server (vLLM `metrics`, llama.cpp `timings`, Ollama
//!   durations, a `Server-Timing` header or event, TGI headers). Model loading counts as queue.
//!   A server that reports its prefill but no queue (llama.cpp) still queues: the queue is then
//!   derived from when its headers came (see [`derived_queue`]), never given to the network.
//! - `decode` is the server's generation time, or, when the server says nothing, what the
//!   arrivals show once intermediary holding is taken out.
//! - Intermediary hold: with steady decoding, token i leaves the server i·δ after the first (δ
//!   is the server's time per token, or the arrivals' mean gap when it says nothing). Its hold
//!   is how much later than that it arrived, relative to the least-delayed token. A proxy that
//!   buffers holds early tokens until a burst is released; compression does the same.
//! - `network` is the time to first token left once queue, prefill and the first token's hold
//!   are taken out.
//! - `client` is from the last content's arrival to its paint.
//!
//! What cannot be known is `None` (unknown), never zero; what the known phases leave of the
//! total is `unattributed`.

use crate::prelude::*;

use crate::read::wire::ServerTimings;
use crate::timeline::blocked::Blocked;
use crate::timeline::session::DeltaRecord;

/// Where a phase's figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Reported by the server.
    Server,
    /// Measured in the browser.
    Client,
    /// Computed from other figures.
    Derived,
}

impl Source {
    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            Source::Server => "server",
            Source::Client => "client",
            Source::Derived => "derived",
        }
    }
}

/// One phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// `queue`, `prefill`, `network`, `decode`, `intermediary` or `client`.
    pub name: &'static str,
    /// Its duration (ms), `None` when unknown.
    pub ms: Option<f64>,
    /// Where it comes from, `None` when unknown.
    pub source: Option<Source>,
}

/// How bytes arrived compared with steady decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrivalPattern {
    /// As decoded.
    Steady,
    /// In bursts of several tokens.
    Bursty,
    /// All (or nearly all) at once.
    AllAtOnce,
}

impl ArrivalPattern {
    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            ArrivalPattern::Steady => "steady",
            ArrivalPattern::Bursty => "bursty",
            ArrivalPattern::AllAtOnce => "all-at-once",
        }
    }
}

/// Who held the tokens that arrived together after a gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldBy {
    /// Nothing was held: the arrivals kept the pace of decoding.
    Nothing,
    /// Something between the model and the page (a proxy, compression, the server's own
    /// streaming layer).
    Intermediary,
    /// The page read late: its main thread was blocked while the bytes waited in the browser.
    Page,
}

impl HeldBy {
    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            HeldBy::Nothing => "nothing",
            HeldBy::Intermediary => "intermediary",
            HeldBy::Page => "page",
        }
    }
}

/// What the arrivals say about intermediaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intermediary {
    /// The arrival pattern.
    pub pattern: ArrivalPattern,
    /// The median time between releases but the last (the end's; ms), and whether the releases
    /// keep it: four gaps or more, the middle 80% of them within 35% of it (a buffer let go on a
    /// timer, as by a provider that streams in bursts). NaN with fewer than four releases.
    pub period: f64,
    /// See `period`.
    pub periodic: bool,
    /// Mean hold per token by an intermediary (ms): the page's late reads are not in it.
    pub held_mean: f64,
    /// An intermediary's hold of the first token (ms): what it added to TTFT.
    pub held_first: f64,
    /// An intermediary's hold of the last token (ms): what it added to E2E.
    pub held_last: f64,
    /// The time per token of decoding (ms; NaN when nothing tells it: every token in one read
    /// and no server timings).
    pub step: f64,
    /// Whether `step` came from the server (else from the arrivals).
    pub step_from_server: bool,
    /// Content deltas per arrival group, on average.
    pub tokens_per_burst: f64,
    /// Who held what arrived together.
    pub held_by: HeldBy,
    /// Mean delay per token of the page's late reads (ms): bunched reads while the main
    /// thread was blocked.
    pub late_read_mean: f64,
    /// Arrival groups read late by the page.
    pub late_read_groups: u32,
    /// The server's decode span equals the page's within [`SAME_SPAN_MS`]: the first and the
    /// last token were not held apart (tokens between them still may have been, as a server
    /// that releases its first token, then the rest at the end).
    pub matches_server: bool,
}

/// Records read within this of each other (ms) arrived together: one read, or one turn of the
/// event loop.
pub const TOGETHER_MS: f64 = 1.0;
/// A page decode span this close to the server's own (ms): the first and last tokens were not
/// held apart.
pub const SAME_SPAN_MS: f64 = 5.0;
/// A server figure may exceed what the arrivals leave for it by this much (ms, the rounding of
/// servers' own figures) before it is taken as disagreeing with them.
pub const FIT_MS: f64 = 1.0;
/// The share of an arrival gap the main thread must have been blocked for the late read to
/// be the page's.
pub const BLOCKED_SHARE: f64 = 0.5;

/// What the browser saw of a request before its first token (ms from the request start).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Wire {
    /// When the response headers came: Resource Timing's `responseStart`, else the page's own
    /// stamp of them.
    pub headers: Option<f64>,
    /// The network's own part of the wait for the headers, when Resource Timing tells it: the
    /// time to the request leaving (the browser's wait and the connection's set-up), and one
    /// round trip more when the connection was opened for this request (its TCP set-up time).
    /// On a connection reused from an earlier request the round trip is not measured.
    pub network: Option<f64>,
}

/// How a queue the server did not report was derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueBasis {
    /// The server answered its headers when work on the request started (llama-server does):
    /// the headers came as late as the wait, and the time from them to the first token is the
    /// server's prefill. The queue is the wait for the headers less the network's part of it.
    HeadersAtWorkStart,
    /// The server answered its headers at once, then waited: the time from the headers to the
    /// first token that its prefill does not explain.
    WaitAfterHeaders,
}

impl QueueBasis {
    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            QueueBasis::HeadersAtWorkStart => "headers-at-work-start",
            QueueBasis::WaitAfterHeaders => "wait-after-headers",
        }
    }
}

/// A wait after the headers that the server's prefill leaves unexplained by more than this
/// (ms, or [`AFTER_HEADERS_SHARE`] of the prefill if more) means the headers were sent at once.
pub const AFTER_HEADERS_MS: f64 = 30.0;
/// See [`AFTER_HEADERS_MS`].
pub const AFTER_HEADERS_SHARE: f64 = 0.1;

/// The phases of one stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakdown {
    /// In order: queue, prefill, network, decode, intermediary, client.
    pub phases: [Phase; 6],
    /// Why each phase that is unknown is unknown (same order as `phases`).
    pub unknown: [Option<&'static str>; 6],
    /// What the phases add up to: perceived E2E if known, else measured E2E (ms).
    pub total: f64,
    /// Whether `total` is the perceived E2E.
    pub perceived: bool,
    /// The part of `total` no known phase accounts for (ms, never negative).
    pub unattributed: f64,
    /// The intermediary analysis, when there are enough deltas (3 or more).
    pub intermediary: Option<Intermediary>,
    /// The first answer token's path to the screen (ms): queue, prefill, network, reasoning
    /// (decoding before the answer), intermediary (its hold of the first token), client (first
    /// arrival to first paint), each `None` when unknown; then the part of perceived TTFT none
    /// of them explains (never negative; `None` when nothing was painted).
    pub first: [Option<f64>; 7],
    /// How the queue was derived, when the server did not report it.
    pub queue_basis: Option<QueueBasis>,
    /// The time before the first answer token that the measured network does not explain, when
    /// the server reported neither its queue nor its prefill (ms; `None` otherwise, or when the
    /// network's part is unknown): the server's wait, which it did not split.
    pub server_wait: Option<f64>,
}

/// The breakdown of a stream, or `None` without content. Times in `tokens` and
/// `reasoning_first` (the first reasoning delta, which is decoding, not network) are absolute;
/// `start` is the request start; `blocked` is when the page's main thread was blocked; `wire`
/// what the browser saw before the first token.
///
/// A server's decode time covers every generated token, reasoning included: with
/// `reasoning_deltas` reasoning deltas before the answer, the server's time per token is its
/// decode span over all of them, never over the answer deltas alone.
///
/// The phases are fitted along the timeline, so that none is negative and the known ones never
/// exceed the total: queue, prefill and network share the time to the first token (less the
/// reasoning before it and an intermediary's hold of it); decode and the intermediary's hold of
/// the last token share the time from the first token to the last; client is the rest. A
/// server figure that does not fit what the arrivals leave for it disagrees with them (clocks,
/// a server that counts differently): it is unknown, with the reason, never a negative
/// remainder elsewhere.
pub fn breakdown(
    tokens: &[DeltaRecord],
    start: f64,
    server: &ServerTimings,
    reasoning_first: Option<f64>,
    reasoning_deltas: u32,
    blocked: &Blocked,
    wire: &Wire,
) -> Option<Breakdown> {
    let first = tokens.first()?.arrived - start;
    // Reasoning before the answer is decoding: the network phase ends where it starts.
    let reasoning = reasoning_first
        .map(|r| first - (r - start))
        .filter(|&span| span > 0.0)
        .unwrap_or(0.0);
    let last = tokens.last()?.arrived - start;
    let painted = tokens
        .iter()
        .rev()
        .find(|t| t.visible > 0)
        .map(|t| t.painted - start)
        .filter(|p| p.is_finite());
    // Deltas in all (a record stands for several once detail was decimated).
    let n: usize = tokens.iter().map(|t| t.count as usize).sum();
    // Generated deltas the server's figures cover: the reasoning ones as well.
    let generated = n + reasoning_deltas as usize;
    let decode_server = server_decode(server, generated);
    // The server's time per delta, over everything it generated.
    let step_server = decode_server
        .filter(|&d| d > 0.0 && generated >= 2)
        .map(|d| d / (generated - 1) as f64);
    // The page's own decode span, from the first generated delta it read to the last.
    let page_span = last - first + reasoning;
    let same_span = decode_server.is_some_and(|d| (d - page_span).abs() <= SAME_SPAN_MS);
    let inter = (n >= 3)
        .then(|| intermediary(tokens, start, step_server, same_span, blocked))
        .flatten();
    let step_known = inter.is_some_and(|i| i.step.is_finite());
    // No hold of the first token is longer than the wait for it, and none is taken off it
    // unless the arrivals show a hold: a first read that bunched tokens at a steady pace (a
    // contended page, issue 48) held nothing, and the server's prefill must still fit.
    let (held_first, held_last) = inter.filter(|_| step_known).map_or((0.0, 0.0), |i| {
        let seen = i.held_by != HeldBy::Nothing;
        let first_held = if seen { i.held_first } else { 0.0 };
        (first_held.min((first - reasoning).max(0.0)), i.held_last)
    });
    let mut unknown: [Option<&'static str>; 6] = [None; 6];
    // Before the first answer token: queue, prefill, network.
    let before = (first - reasoning - held_first).max(0.0);
    let (fitted, derived, server_wait) = before_first(server, wire, before, &mut unknown);
    let [mut queue, prefill, mut network] = fitted;
    let queue_source = derived.map_or(Source::Server, |_| Source::Derived);
    let first_path = first_token(
        tokens,
        start,
        [queue, prefill, network],
        reasoning,
        step_known.then_some(held_first),
    );
    // From the first answer token to the last: decode, then what an intermediary added.
    let span = (last - first + reasoning + held_first).max(0.0);
    let fit = [queue, prefill, network];
    let decode_fit = DecodeFit::new(span, before, fit, derived.is_some(), step_server);
    let (decode, decode_source) = match decode_server.map(|d| decode_fit.server(d)) {
        Some(Some((d, [q, n]))) => {
            (queue, network) = (q, n);
            (Some(d), Source::Server)
        }
        Some(None) => {
            unknown[3] = Some(DISAGREES);
            (None, Source::Server)
        }
        None if n >= 2 => (Some((span - held_last).max(0.0)), Source::Derived),
        None => {
            unknown[3] = Some("too-few-deltas");
            (None, Source::Derived)
        }
    };
    let intermediary_ms = match inter {
        None => {
            unknown[4] = Some("too-few-deltas");
            None
        }
        Some(_) if !step_known => {
            unknown[4] = Some("step-unknown");
            None
        }
        Some(_) => Some(held_last.min((span - decode.unwrap_or(0.0)).max(0.0))),
    };
    let kept = decode.filter(|_| decode_source == Source::Server);
    let window = (start + first, start + last);
    let late = late_read(span, kept, intermediary_ms, blocked, window);
    let client = client_phase(painted, last, &mut unknown[5]).map(|c| c + late);
    let phase = |name, ms: Option<f64>, source| Phase {
        name,
        ms,
        source: ms.map(|_| source),
    };
    let phases = [
        phase("queue", queue, queue_source),
        phase("prefill", prefill, Source::Server),
        phase("network", network, Source::Derived),
        phase("decode", decode, decode_source),
        phase("intermediary", intermediary_ms, Source::Derived),
        phase("client", client, Source::Client),
    ];
    let total = painted.filter(|&p| p >= last).unwrap_or(last);
    let known: f64 = phases.iter().filter_map(|p| p.ms).sum();
    Some(Breakdown {
        first: first_path,
        phases,
        unknown,
        total,
        perceived: painted.is_some_and(|p| p >= last),
        unattributed: (total - known).max(0.0),
        intermediary: inter,
        queue_basis: derived.filter(|_| queue.is_some()),
        server_wait,
    })
}

/// The server's decode fitted to the arrivals: the span from the first answer token to the
/// last, the queue, prefill and network fitted before the first token (the queue `derived`
/// or the server's), and the server's own step.
struct DecodeFit {
    span: f64,
    /// The time before the first answer token, and its queue, prefill and network.
    wait: f64,
    before: [Option<f64>; 3],
    derived: bool,
    step: Option<f64>,
}

impl DecodeFit {
    fn new(
        span: f64,
        wait: f64,
        before: [Option<f64>; 3],
        derived: bool,
        step: Option<f64>,
    ) -> Self {
        DecodeFit {
            span,
            wait,
            before,
            derived,
            step,
        }
    }

    /// The server's decode `d` kept, with the queue and network it leaves; `None` when the
    /// arrivals cannot hold it.
    ///
    /// The server decodes while its first token travels: a decode longer than the arrivals'
    /// span (the first token read late) may take that overlap from the time before the first
    /// token: the network first, then a derived queue (a remainder itself). The server's clock
    /// also has edges of its own the arrivals cannot show: llama.cpp's starts when its prefill
    /// ends, before the first token is sampled and sent, and stops after its last step, so its
    /// decode is routinely a few ms (seen: 201.4 against 198.0, issue 59) over the page's span.
    /// Up to one of its own steps over is that edge; what nothing before the first token can
    /// give back of it is taken off the decode, so the phases still add up.
    fn server(&self, d: f64) -> Option<(f64, [Option<f64>; 2])> {
        let [queue, prefill, network] = self.before;
        let derived_queue = if self.derived {
            queue.unwrap_or(0.0)
        } else {
            0.0
        };
        let slack =
            (self.wait - queue.unwrap_or(0.0) - prefill.unwrap_or(0.0)).max(0.0) + derived_queue;
        if d > self.span + slack + self.step.unwrap_or(0.0) + FIT_MS {
            return None;
        }
        let mut over = (d - self.span).max(0.0);
        let network = network.map(|n| (n - over).max(0.0));
        over = (over - self.before[2].unwrap_or(0.0)).max(0.0);
        let mut queue = queue;
        if derived_queue > 0.0 {
            queue = queue.map(|q| (q - over).max(0.0));
            over = (over - derived_queue).max(0.0);
        }
        Some((d - over, [queue, network]))
    }
}

/// The last token's late read by a busy page (ms), the client's: what the server's decode and
/// an intermediary's hold leave of the arrivals' span (`span`), up to the time the page's main
/// thread was blocked between its first read and its last (`window`, absolute). Bytes that
/// had reached the browser waited for the page to read them: issue 59 found 96 to 4,937 ms of
/// busy lab pages left to no phase. 0 without the server's decode (the span is then the decode).
fn late_read(
    span: f64,
    decode: Option<f64>,
    held: Option<f64>,
    blocked: &Blocked,
    (from, to): (f64, f64),
) -> f64 {
    decode.map_or(0.0, |d| {
        (span - d - held.unwrap_or(0.0))
            .max(0.0)
            .min(blocked.covered(from, to))
    })
}

/// From the last content's arrival (`last`) to its paint, or why that is unknown.
fn client_phase(painted: Option<f64>, last: f64, why: &mut Option<&'static str>) -> Option<f64> {
    match painted {
        Some(p) if p >= last => Some(p - last),
        Some(_) => {
            // The last delta carried nothing visible and arrived after the last paint.
            *why = Some("last-delta-invisible");
            None
        }
        None => {
            *why = Some("not-painted");
            None
        }
    }
}

/// The first answer token's path (see [`Breakdown::first`]): `before` is queue, prefill and
/// network as fitted, `held` the hold of the first token when the step is known.
fn first_token(
    tokens: &[DeltaRecord],
    start: f64,
    before: [Option<f64>; 3],
    reasoning: f64,
    held: Option<f64>,
) -> [Option<f64>; 7] {
    let first = tokens[0].arrived - start;
    let painted = tokens
        .iter()
        .find(|t| t.visible > 0)
        .map(|t| t.painted - start)
        .filter(|p| p.is_finite() && *p >= first);
    let [queue, prefill, network] = before;
    let mut path = [
        queue,
        prefill,
        network,
        Some(reasoning),
        held,
        painted.map(|p| p - first),
        None,
    ];
    let known: f64 = path.iter().flatten().sum();
    path[6] = painted.map(|p| (p - known).max(0.0));
    path
}

/// A server figure the arrivals cannot hold.
const DISAGREES: &str = "server-exceeds-arrivals";
/// The server reported nothing of it.
const NO_SERVER: &str = "no-server-timings";

/// Queue, prefill and network fitted into `before` (see [`fit_before`]), with a queue the
/// server did not report derived from its headers (and how), and, when it reported neither
/// queue nor prefill, its wait that the measured network does not explain.
fn before_first(
    server: &ServerTimings,
    wire: &Wire,
    before: f64,
    unknown: &mut [Option<&'static str>; 6],
) -> ([Option<f64>; 3], Option<QueueBasis>, Option<f64>) {
    let (queue, prefill) = server_before(server);
    let derived = queue.map_or_else(|| derived_queue(wire, prefill, before), |_| None);
    let fitted = fit_before(queue.or(derived.map(|d| d.0)), prefill, before, unknown);
    let server_wait = match (fitted[0], fitted[1], wire.network) {
        (None, None, Some(n)) if unknown[0] == Some(NO_SERVER) => Some((before - n).max(0.0)),
        _ => None,
    };
    (fitted, derived.map(|d| d.1), server_wait)
}

/// The queue of a server that reported its prefill (`prefill`) but no queue, from when its
/// headers came (`wire`); `before` is the time to the first answer token less the reasoning
/// before it and an intermediary's hold of it. `None` without the prefill or the headers.
///
/// The time from the headers to the first token is the prefill, plus the wait of a server that
/// answered its headers at once: what exceeds the prefill by more than [`AFTER_HEADERS_MS`] is
/// that wait. Otherwise the headers came when work started, and the queue is the wait for them
/// less the network's part of it (unmeasured, on a reused connection, by one round trip), never
/// more than the prefill leaves of `before`; the rest of the time after the headers (under the
/// threshold) stays with the network.
pub fn derived_queue(wire: &Wire, prefill: Option<f64>, before: f64) -> Option<(f64, QueueBasis)> {
    let p = prefill?;
    let h = wire
        .headers
        .filter(|h| h.is_finite() && *h >= 0.0)?
        .min(before);
    let after = before - h - p;
    let network = wire.network.filter(|n| n.is_finite()).unwrap_or(0.0);
    let waited = (h - network).max(0.0);
    let late = after > AFTER_HEADERS_MS.max(AFTER_HEADERS_SHARE * p);
    // The headers at once and the wait after them: only where that wait is the longer one. A
    // server that took its headers as long (llama-server, its headers when a slot takes the
    // request) and then sent its first token late under load (issue 59: 62-65 ms after them,
    // its HTTP thread sharing the cores) waited before them.
    if late && after > waited {
        return Some((after, QueueBasis::WaitAfterHeaders));
    }
    // Never more than the prefill leaves: the headers' trip and the first token's differ. What
    // the prefill leaves of the time after the headers stays with the network when it is under
    // the threshold (the first token's own trip and read); over it, the server was late to send
    // its first token, and that is the server's wait too, not the network's.
    let queue = if late {
        (before - p - network).max(0.0)
    } else {
        waited.min((before - p).max(0.0))
    };
    Some((queue, QueueBasis::HeadersAtWorkStart))
}

/// A figure a server reported, if it is one (finite, not negative).
fn server_ms(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite() && *v >= 0.0)
}

/// The server's queue (model loading included) and prefill, as it reported them.
fn server_before(server: &ServerTimings) -> (Option<f64>, Option<f64>) {
    let queue = match (server_ms(server.queue_ms), server_ms(server.load_ms)) {
        (None, None) => None,
        (q, l) => Some(q.unwrap_or(0.0) + l.unwrap_or(0.0)),
    };
    (
        queue,
        server_ms(server.prefill_ms).or(server_ms(server.ttft_ms)),
    )
}

/// The server's decode time over the `generated` deltas: as it reported it, else its mean time
/// per token over them.
fn server_decode(server: &ServerTimings, generated: usize) -> Option<f64> {
    server_ms(server.decode_ms.or_else(|| {
        server
            .itl_ms
            .map(|itl| itl * generated.saturating_sub(1) as f64)
    }))
}

/// Queue, prefill and network fitted into `before`, the time to the first answer token less
/// the reasoning before it and an intermediary's hold of it; why each unknown one is unknown
/// goes into `unknown[0..3]`.
fn fit_before(
    queue: Option<f64>,
    prefill: Option<f64>,
    before: f64,
    unknown: &mut [Option<&'static str>; 6],
) -> [Option<f64>; 3] {
    let mut fit = |i: usize, v: Option<f64>, used: f64| match v {
        Some(v) if used + v > before + FIT_MS => {
            unknown[i] = Some(DISAGREES);
            None
        }
        None => {
            unknown[i] = Some(NO_SERVER);
            None
        }
        v => v,
    };
    let queue = fit(0, queue, 0.0);
    let prefill = fit(1, prefill, queue.unwrap_or(0.0));
    let network = match (queue, prefill) {
        (Some(q), Some(p)) => Some((before - q - p).max(0.0)),
        _ => {
            let disagrees = unknown[0] == Some(DISAGREES) || unknown[1] == Some(DISAGREES);
            unknown[2] = Some(if disagrees {
                DISAGREES
            } else {
                "needs-queue-and-prefill"
            });
            None
        }
    };
    [queue, prefill, network]
}

/// A mid-stream wait for the next delta far above the stream's own pace, after which deltas
/// came at the normal pace again (not released together: that is a hold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrivalStall {
    /// When the wait began (absolute ms: the read before it).
    pub start: f64,
    /// How long it lasted (ms).
    pub ms: f64,
    /// The stream's own pace: the median gap between reads (ms).
    pub step: f64,
    /// Whether the page's main thread was blocked for most of it (else the wait was upstream:
    /// the server's decode step, or the network).
    pub page: bool,
}

/// A wait is a stall when it is this many times the stream's median gap...
pub const STALL_STEPS: f64 = 6.0;
/// ...and at least this long (ms).
pub const STALL_MIN_MS: f64 = 250.0;

/// The longest mid-stream stall of the arrivals, if any: a gap between reads of at least
/// [`STALL_STEPS`] median gaps and [`STALL_MIN_MS`], followed by at most two deltas read
/// together (a slow token, then the normal pace).
pub fn arrival_stall(tokens: &[DeltaRecord], blocked: &Blocked) -> Option<ArrivalStall> {
    let gs = groups(tokens);
    if gs.len() < 5 {
        return None;
    }
    let mut gaps: Vec<f64> = gs.windows(2).map(|w| w[1].3 - w[0].3).collect();
    // The longest gap followed by at most two deltas read together.
    let mut longest: Option<usize> = None;
    for (i, w) in gs.windows(2).enumerate() {
        if w[1].2 <= 2 && longest.is_none_or(|l| gaps[i] > gaps[l]) {
            longest = Some(i);
        }
    }
    let (from, to) = (gs[longest?].3, gs[longest? + 1].3);
    crate::stats::sort(&mut gaps);
    let step = crate::stats::quantile_sorted(&gaps, 0.5)?;
    let ms = to - from;
    (ms >= STALL_MIN_MS && ms >= STALL_STEPS * step).then(|| ArrivalStall {
        start: from,
        ms,
        step,
        page: blocked.covered(from, to) >= BLOCKED_SHARE * ms,
    })
}

/// Records that arrived together: (first record, one past the last, deltas, release time).
fn groups(tokens: &[DeltaRecord]) -> Vec<(usize, usize, usize, f64)> {
    let mut out: Vec<(usize, usize, usize, f64)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match out.last_mut() {
            Some(g) if t.arrived - g.3 <= TOGETHER_MS => {
                g.1 = i + 1;
                g.2 += t.count as usize;
                g.3 = t.arrived;
            }
            _ => out.push((i, i + 1, t.count as usize, t.arrived)),
        }
    }
    out
}

/// How the deltas arrived: `groups` read-together groups of `n` deltas over `span` ms, decoded
/// `step` ms apart, holding `held` ms a delta on average (an intermediary's and the page's).
fn pattern_of(
    groups: usize,
    n: usize,
    span: f64,
    step: f64,
    from_server: bool,
    held: f64,
) -> ArrivalPattern {
    let expected_span = step * (n - 1) as f64;
    // No model decodes ten tokens in the same instant: arriving in one or two groups is
    // all-at-once even when the server says nothing.
    if (groups <= 2 && n >= 10)
        || (from_server && expected_span > 0.0 && (groups <= 2 || span < 0.1 * expected_span))
    {
        ArrivalPattern::AllAtOnce
    } else if n as f64 / groups as f64 >= 4.0 && held > 2.0 * step {
        ArrivalPattern::Bursty
    } else {
        ArrivalPattern::Steady
    }
}

/// llama.cpp's `timings_per_token`: with each delta's own sampling time for (nearly) all of
/// them, the least delay from sampling to arrival.
fn sampled_base(tokens: &[DeltaRecord]) -> Option<f64> {
    let told = tokens.iter().filter(|t| t.server.is_finite()).count();
    (told * 10 >= tokens.len() * 9).then(|| {
        tokens
            .iter()
            .filter(|t| t.server.is_finite())
            .map(|t| t.arrived - f64::from(t.server))
            .fold(f64::INFINITY, f64::min)
    })
}

/// The median gap between the releases of read-together groups, and whether they keep it (see
/// [`Intermediary::period`]).
fn period_of(gs: &[(usize, usize, usize, f64)]) -> (f64, bool) {
    // The last release is the end's, whatever the timer: its gap is left out.
    let timed = &gs[..gs.len().saturating_sub(1)];
    let mut gaps: Vec<f64> = timed.windows(2).map(|w| w[1].3 - w[0].3).collect();
    crate::stats::sort(&mut gaps);
    let q = |p: f64| crate::stats::quantile_sorted(&gaps, p).unwrap_or(f64::NAN);
    let median = if gaps.len() >= 2 { q(0.5) } else { f64::NAN };
    let keeps =
        gaps.len() >= 4 && median > 0.0 && q(0.1) >= 0.65 * median && q(0.9) <= 1.35 * median;
    (median, keeps)
}

/// Holds, from evidence of holding only: tokens released together after a gap.
///
/// A group of m deltas read together at R was decoded before R, one step δ apart, the last
/// one just before its release (a buffer lets go when it fills, on a timer, or at the end): the
/// k-th of the group waited (m − 1 − k)·δ, and never longer than the gap since the group
/// before (what was decoded earlier went out with that group). A slow token followed by the
/// normal pace is one delta per read: no hold, a stall. A group read after the page's main
/// thread was blocked for most of its gap was held by the page, not by an intermediary.
fn intermediary(
    tokens: &[DeltaRecord],
    start: f64,
    step_server: Option<f64>,
    same_span: bool,
    blocked: &Blocked,
) -> Option<Intermediary> {
    let n: usize = tokens.iter().map(|t| t.count as usize).sum();
    let r = tokens.len();
    let gs = groups(tokens);
    // Without server timings, the step is measured between the ends of the first and last
    // groups: the last delta of a group left as soon as it was decoded (the first ones may
    // have been held, so the whole span would be too short).
    let (step, from_server) = match step_server {
        Some(d) => (d, true),
        None if gs.len() >= 2 => {
            let after_first = n - gs[0].2;
            (
                (tokens[r - 1].arrived - gs[0].3) / after_first as f64,
                false,
            )
        }
        None => (f64::NAN, false),
    };
    let step_known = step.is_finite();
    let exact = sampled_base(tokens);
    let mut held_sum = 0.0;
    let mut late_sum = 0.0;
    let mut late_groups = 0u32;
    let (mut held_first, mut held_last) = (0.0, 0.0);
    let mut prev_release = start;
    for (gi, &(a, b, m, release)) in gs.iter().enumerate() {
        let gap = (release - prev_release).max(0.0);
        // The group's deltas waited from the first one's decoding (or the read before) to
        // the release: the page held them if its main thread was blocked for most of that.
        let waited = if step_known {
            gap.min((m - 1) as f64 * step)
        } else {
            gap
        };
        let page =
            waited > 0.0 && blocked.covered(release - waited, release) >= BLOCKED_SHARE * waited;
        // Deltas after each record of the group, within it.
        let mut after = m;
        let mut group_sum = 0.0;
        for (ri, t) in tokens[a..b].iter().enumerate() {
            after -= t.count as usize;
            let h = match exact {
                // One delta per read holds nothing: only what was released together was held.
                _ if m < 2 => 0.0,
                // The server said when it sampled each token: the hold is how much later than
                // that it arrived, against the least-delayed token.
                Some(base) => crate::float::clamp(t.arrived - f64::from(t.server) - base, 0.0, gap),
                None if !step_known => 0.0,
                None => (after as f64 * step).min(gap),
            };
            // A merged record stands for `count` deltas around its mean arrival: its hold
            // stands for theirs.
            group_sum += h * f64::from(t.count);
            if !page {
                if gi == 0 && ri == 0 {
                    held_first = h;
                }
                if a + ri == r - 1 {
                    held_last = h;
                }
            }
        }
        if page && group_sum > 0.0 {
            late_sum += group_sum;
            late_groups += 1;
        } else {
            held_sum += group_sum;
        }
        prev_release = release;
    }
    let tokens_per_burst = n as f64 / gs.len() as f64;
    let held_mean = held_sum / n as f64;
    let late_read_mean = late_sum / n as f64;
    let span = tokens[r - 1].arrived - tokens[0].arrived;
    let pattern = pattern_of(
        gs.len(),
        n,
        span,
        step,
        from_server,
        held_mean + late_read_mean,
    );
    // Most of what was held together was read late by a blocked page: the page's.
    let held_by = if pattern == ArrivalPattern::Steady {
        HeldBy::Nothing
    } else if late_sum > held_sum {
        HeldBy::Page
    } else {
        HeldBy::Intermediary
    };
    let (period, periodic) = period_of(&gs);
    Some(Intermediary {
        pattern,
        period,
        periodic,
        held_mean,
        held_first,
        held_last,
        step,
        step_from_server: from_server,
        tokens_per_burst,
        held_by,
        late_read_mean,
        late_read_groups: late_groups,
        matches_server: same_span,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(arrived: f64, painted: f64) -> DeltaRecord {
        DeltaRecord {
            committed: painted,
            frame: painted,
            painted,
            ..DeltaRecord::arrived(arrived, 4, 4, 0)
        }
    }

    /// 50 tokens decoded every 20 ms; the server took `q` queue and `p` prefill; `net` one-way;
    /// `hold(i, emitted)` is when an intermediary released token i; painted 5 ms later.
    fn stream(q: f64, p: f64, net: f64, hold: impl Fn(usize, f64) -> f64) -> Vec<DeltaRecord> {
        (0..50)
            .map(|i| {
                let emitted = q + p + 20.0 * i as f64;
                let arrived = hold(i, emitted) + net;
                tok(arrived, arrived + 5.0)
            })
            .collect()
    }

    fn server(q: f64, p: f64, d: f64) -> ServerTimings {
        ServerTimings {
            queue_ms: Some(q),
            prefill_ms: Some(p),
            decode_ms: Some(d),
            ..ServerTimings::default()
        }
    }

    fn ms(b: &Breakdown, name: &str) -> Option<f64> {
        b.phases.iter().find(|p| p.name == name).unwrap().ms
    }

    #[test]
    fn phases_add_up_with_full_server_timings() {
        let t = stream(100.0, 300.0, 40.0, |_, e| e);
        let b = breakdown(
            &t,
            0.0,
            &server(100.0, 300.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert_eq!(ms(&b, "queue"), Some(100.0));
        assert_eq!(ms(&b, "prefill"), Some(300.0));
        assert!((ms(&b, "network").unwrap() - 40.0).abs() < 1e-9);
        assert_eq!(ms(&b, "decode"), Some(980.0));
        assert!(ms(&b, "intermediary").unwrap().abs() < 1e-9);
        assert_eq!(ms(&b, "client"), Some(5.0));
        assert!(b.perceived && b.unattributed.abs() < 1e-9);
        assert_eq!(b.total, 100.0 + 300.0 + 980.0 + 40.0 + 5.0);
        assert_eq!(b.intermediary.unwrap().pattern, ArrivalPattern::Steady);
    }

    #[test]
    fn a_proxy_releasing_bursts_is_held_time() {
        // Released every 10 tokens (200 ms): token i waits for the end of its burst.
        let release = |i: usize, e: f64| e + 20.0 * (9 - i % 10) as f64;
        let t = stream(0.0, 200.0, 10.0, release);
        let truth: f64 = (0..50).map(|i| 20.0 * (9 - i % 10) as f64).sum::<f64>() / 50.0;
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 200.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(i.pattern, ArrivalPattern::Bursty);
        assert!(
            (i.held_mean - truth).abs() < 0.2 * truth,
            "{} vs {truth}",
            i.held_mean
        );
        assert!((i.held_first - 180.0).abs() < 1e-9 && i.held_last.abs() < 1e-9);
        assert!(b.unattributed.abs() < 1e-9, "{}", b.unattributed);
        // Without server timings the steady rate is inferred from the arrivals.
        let b = breakdown(
            &t,
            0.0,
            &ServerTimings::default(),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(i.pattern, ArrivalPattern::Bursty);
        assert!(
            (i.held_mean - truth).abs() < 0.2 * truth,
            "{} vs {truth}",
            i.held_mean
        );
    }

    #[test]
    fn everything_at_the_end_is_all_at_once() {
        let t = stream(0.0, 100.0, 10.0, |_, _| 100.0 + 980.0);
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 100.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(i.pattern, ArrivalPattern::AllAtOnce);
        assert!((i.held_first - 980.0).abs() < 1e-9);
        assert!((ms(&b, "network").unwrap() - 10.0).abs() < 1e-9);
        assert!(b.unattributed.abs() < 1e-9);
    }

    #[test]
    fn unknowns_stay_unknown() {
        let t = stream(0.0, 300.0, 40.0, |_, e| e);
        let b = breakdown(
            &t,
            0.0,
            &ServerTimings::default(),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        for name in ["queue", "prefill", "network"] {
            assert_eq!(ms(&b, name), None, "{name}");
        }
        assert_eq!(b.phases[0].source, None);
        assert_eq!(b.phases[3].source, Some(Source::Derived));
        // The time to first token is unattributed: server and network cannot be told apart.
        assert!((b.unattributed - 340.0).abs() < 1e-6, "{}", b.unattributed);
        let unpainted: Vec<DeltaRecord> = t.iter().map(|k| tok(k.arrived, f64::NAN)).collect();
        let b = breakdown(
            &unpainted,
            0.0,
            &ServerTimings::default(),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert!(!b.perceived);
        assert_eq!(ms(&b, "client"), None);
        assert!(breakdown(
            &[],
            0.0,
            &ServerTimings::default(),
            None,
            0,
            &Blocked::default(),
            &Wire::default()
        )
        .is_none());
    }

    #[test]
    fn a_server_decode_time_that_covers_reasoning_is_spread_over_reasoning_too() {
        // 100 reasoning deltas then 50 answer deltas, every 20 ms from 400 ms (queue 100,
        // prefill 300), 40 ms away; the server's decode span covers all 150 deltas.
        let t: Vec<DeltaRecord> = (0..50)
            .map(|i| {
                let a = 440.0 + 20.0 * (100 + i) as f64;
                tok(a, a + 5.0)
            })
            .collect();
        let b = breakdown(
            &t,
            0.0,
            &server(100.0, 300.0, 20.0 * 149.0),
            Some(440.0),
            100,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        for p in &b.phases {
            assert!(p.ms.is_none_or(|ms| ms >= 0.0), "{p:?}");
        }
        assert!((ms(&b, "network").unwrap() - 40.0).abs() < 1e-6, "{b:?}");
        assert!(ms(&b, "intermediary").unwrap().abs() < 1e-6, "{b:?}");
        assert_eq!(b.intermediary.unwrap().pattern, ArrivalPattern::Steady);
        assert!(b.unattributed.abs() < 1e-6, "{}", b.unattributed);
        // Read the old way (the server's step over the answer deltas alone, three times too
        // long), the arrivals invented a hold; holds now need deltas read together.
        let old = breakdown(
            &t,
            0.0,
            &server(100.0, 300.0, 20.0 * 149.0),
            Some(440.0),
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert!(ms(&old, "intermediary").unwrap().abs() < 1e-6, "{old:?}");
    }

    /// 60 tokens every 20 ms from 300 ms, one decode step of 600 ms after token 30 (a shared
    /// server prefilling another request's prompt), read one per chunk, painted 5 ms later.
    fn stalled() -> Vec<DeltaRecord> {
        (0..60)
            .map(|i| {
                let a = 300.0 + 20.0 * i as f64 + if i >= 30 { 600.0 } else { 0.0 };
                tok(a, a + 5.0)
            })
            .collect()
    }

    #[test]
    fn a_slow_decode_step_is_not_a_hold() {
        let t = stalled();
        // llama.cpp's timings: prefill, and a decode span equal to the page's.
        let llama = ServerTimings {
            prefill_ms: Some(290.0),
            decode_ms: Some(59.0 * 20.0 + 600.0),
            ..ServerTimings::default()
        };
        for server in [llama, ServerTimings::default()] {
            let b = breakdown(
                &t,
                0.0,
                &server,
                None,
                0,
                &Blocked::default(),
                &Wire::default(),
            )
            .unwrap();
            let i = b.intermediary.unwrap();
            assert_eq!(i.pattern, ArrivalPattern::Steady, "{server:?}");
            assert_eq!(i.held_by, HeldBy::Nothing);
            assert_eq!(ms(&b, "intermediary"), Some(0.0));
            assert!(b.phases.iter().all(|p| p.ms.is_none_or(|v| v >= 0.0)));
            assert!(b.unattributed >= 0.0);
            let known: f64 = b.phases.iter().filter_map(|p| p.ms).sum();
            assert!(known <= b.total + FIT_MS, "{b:?}");
        }
        let b = breakdown(
            &t,
            0.0,
            &llama,
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert!(b.intermediary.unwrap().matches_server);
        assert_eq!(b.unknown[0], Some("no-server-timings"));
        let st = arrival_stall(&t, &Blocked::default()).unwrap();
        assert_eq!(
            (st.start, st.ms, st.step, st.page),
            (880.0, 620.0, 20.0, false)
        );
    }

    #[test]
    fn reads_bunched_while_the_page_was_blocked_are_the_pages() {
        // Decoded every 20 ms; the page's main thread was blocked for 190 of every 200 ms, so
        // it read ten tokens at a time: the same arrivals as a proxy releasing bursts.
        let release = |i: usize, e: f64| e + 20.0 * (9 - i % 10) as f64;
        let t = stream(0.0, 200.0, 10.0, release);
        let mut blocked = Blocked::default();
        for k in 0..5 {
            let r = 210.0 + 200.0 * k as f64 + 180.0;
            blocked.push(r - 190.0, r - 2.0);
        }
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 200.0, 980.0),
            None,
            0,
            &blocked,
            &Wire::default(),
        )
        .unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(i.held_by, HeldBy::Page, "{i:?}");
        assert!(i.held_mean.abs() < 1e-9 && i.late_read_mean > 50.0, "{i:?}");
        assert_eq!(i.late_read_groups, 5);
        // The same arrivals on an idle page: an intermediary held them.
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 200.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert_eq!(b.intermediary.unwrap().held_by, HeldBy::Intermediary);
    }

    #[test]
    fn the_late_read_of_a_busy_page_is_the_clients_not_unattributed() {
        // 50 tokens every 20 ms after 300 ms; the page re-rendered slowly and fell behind: from
        // token 20 on it read each 8 ms later than the one before, its main thread blocked
        // throughout; painted 5 ms after each read. The server's decode: 980 ms.
        let mut t = stream(0.0, 300.0, 2.0, |_, e| e);
        for (i, tok) in t.iter_mut().enumerate().skip(20) {
            let late = 8.0 * (i - 19) as f64;
            tok.arrived += late;
            tok.painted = tok.arrived + 5.0;
        }
        let mut blocked = Blocked::default();
        blocked.push(700.0, 1600.0);
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 300.0, 980.0),
            None,
            0,
            &blocked,
            &Wire::default(),
        )
        .unwrap();
        let late = 8.0 * 30.0;
        assert_eq!(ms(&b, "decode"), Some(980.0));
        assert!(
            (ms(&b, "client").unwrap() - (5.0 + late)).abs() < 1e-6,
            "{b:?}"
        );
        assert!(b.unattributed <= 16.7, "{b:?}");
        let known: f64 = b.phases.iter().filter_map(|p| p.ms).sum();
        assert!(known <= b.total + FIT_MS, "{b:?}");
        // The same arrivals on a page never seen blocked: not the page's; left unattributed.
        let b = breakdown(
            &t,
            0.0,
            &server(0.0, 300.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert!((ms(&b, "client").unwrap() - 5.0).abs() < 1e-6, "{b:?}");
    }

    /// A llama.cpp-style server (prefill in `timings`, no queue) that waited `q` ms for a slot:
    /// 50 tokens every 20 ms after a 300 ms prefill, 2 ms each way; its headers came at
    /// `headers` (ms from the start).
    fn queued(q: f64, headers: f64, network: Option<f64>) -> Breakdown {
        let t = stream(q, 300.0, 2.0, |_, e| e);
        let timings = ServerTimings {
            prefill_ms: Some(300.0),
            decode_ms: Some(980.0),
            ..ServerTimings::default()
        };
        let wire = Wire {
            headers: Some(headers),
            network,
        };
        breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &wire).unwrap()
    }

    #[test]
    fn a_server_that_answers_its_headers_at_work_start_gives_its_queue_by_them() {
        // llama-server: the headers leave when a slot takes the request (after 2,000 ms).
        let b = queued(2000.0, 2002.0 + 2.0, Some(0.5));
        assert_eq!(b.queue_basis, Some(QueueBasis::HeadersAtWorkStart));
        let q = ms(&b, "queue").unwrap();
        assert!((q - 2000.0).abs() <= 5.0, "queue {q}");
        assert_eq!(b.phases[0].source, Some(Source::Derived));
        assert_eq!(ms(&b, "prefill"), Some(300.0));
        assert!(ms(&b, "network").unwrap() <= 10.0, "{:?}", b.phases);
        // Alone: no wait for the headers, no queue.
        let b = queued(0.0, 4.0, Some(0.5));
        assert!(ms(&b, "queue").unwrap() <= 5.0, "{:?}", b.phases);
        assert!((ms(&b, "network").unwrap() - 2.0).abs() <= 5.0);
    }

    #[test]
    fn a_slot_wait_stays_the_queue_when_the_first_token_comes_late_after_the_headers() {
        // llama-server under CPU load (issue 59): a slot took the request after 2,527 ms (its
        // headers then), and its first token left 60 ms after its 300 ms prefill ended (its HTTP
        // thread shares the cores with decoding). Not a wait after the headers; and not network
        // on localhost.
        let t = stream(2527.0 + 60.0, 300.0, 2.0, |_, e| e);
        let timings = ServerTimings {
            prefill_ms: Some(300.0),
            decode_ms: Some(980.0),
            ..ServerTimings::default()
        };
        let wire = Wire {
            headers: Some(2527.0 + 2.0),
            network: Some(0.5),
        };
        let b = breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &wire).unwrap();
        assert_eq!(b.queue_basis, Some(QueueBasis::HeadersAtWorkStart), "{b:?}");
        let q = ms(&b, "queue").unwrap();
        assert!((2527.0..=2527.0 * 1.05).contains(&q), "queue {q}: {b:?}");
        assert!(ms(&b, "network").unwrap() <= 30.0, "{b:?}");
        // Alone under the same load: the late first token is still the server's, not network.
        let t = stream(60.0, 300.0, 2.0, |_, e| e);
        let wire = Wire {
            headers: Some(2.0),
            network: Some(0.5),
        };
        let b = breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &wire).unwrap();
        assert!(ms(&b, "network").unwrap() <= 30.0, "{b:?}");
        assert!(ms(&b, "queue").unwrap() <= 65.0, "{b:?}");
    }

    #[test]
    fn a_server_that_answers_its_headers_at_once_gives_its_queue_by_the_wait_after_them() {
        // An ASGI server: headers at once, then 1,500 ms in a queue, then prefill.
        let b = queued(1500.0, 4.0, None);
        assert_eq!(b.queue_basis, Some(QueueBasis::WaitAfterHeaders));
        let q = ms(&b, "queue").unwrap();
        assert!((q - 1500.0).abs() <= 5.0, "queue {q}");
        assert!(ms(&b, "network").unwrap() <= 10.0, "{:?}", b.phases);
    }

    #[test]
    fn a_queue_is_derived_only_with_the_prefill_and_the_headers() {
        // No headers stamp: nothing to derive from; the queue stays unknown, and so does the
        // network (never given the wait).
        let t = stream(1500.0, 300.0, 2.0, |_, e| e);
        let timings = ServerTimings {
            prefill_ms: Some(300.0),
            ..ServerTimings::default()
        };
        let none = Wire::default();
        let b = breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &none).unwrap();
        assert_eq!((ms(&b, "queue"), ms(&b, "network")), (None, None));
        assert_eq!(b.server_wait, None);
        // No server figure at all: the wait the measured network leaves is the server's,
        // named, unsplit; the phases stay unknown.
        let wire = Wire {
            headers: Some(4.0),
            network: Some(1.0),
        };
        let silent = ServerTimings::default();
        let b = breakdown(&t, 0.0, &silent, None, 0, &Blocked::default(), &wire).unwrap();
        assert_eq!((ms(&b, "queue"), ms(&b, "prefill")), (None, None));
        let w = b.server_wait.unwrap();
        assert!((w - 1801.0).abs() < 1e-6, "server wait {w}");
        // A server queue reported is the server's, whatever the headers say.
        let b = breakdown(
            &t,
            0.0,
            &server(1500.0, 300.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &wire,
        )
        .unwrap();
        assert_eq!(
            (b.phases[0].source, b.queue_basis),
            (Some(Source::Server), None)
        );
    }

    #[test]
    fn a_bunched_first_read_with_no_hold_seen_keeps_the_servers_prefill() {
        // A contended machine (issue 48): the page's first read held 28 tokens, then one a read,
        // 8 ms apart, as the server decoded them; the server's prefill was 245 ms of a 342 ms
        // TTFT. The pattern is steady and nothing held: no hold may come off the time before
        // the first token, and the prefill fits.
        let t: Vec<DeltaRecord> = (0..60usize)
            .map(|i| {
                let arrived = 342.0 + 8.0 * i.saturating_sub(27) as f64;
                tok(arrived, arrived + 5.0)
            })
            .collect();
        let timings = ServerTimings {
            prefill_ms: Some(245.0),
            decode_ms: Some(8.0 * 59.0),
            ..ServerTimings::default()
        };
        let b = breakdown(
            &t,
            0.0,
            &timings,
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(
            (i.pattern, i.held_by),
            (ArrivalPattern::Steady, HeldBy::Nothing)
        );
        assert_eq!((ms(&b, "prefill"), b.unknown[1]), (Some(245.0), None));
        assert_eq!(
            b.first[4],
            Some(0.0),
            "no hold of the first token: {:?}",
            b.first
        );
        assert!(b.unattributed >= 0.0);
    }

    #[test]
    fn a_server_figure_the_arrivals_cannot_hold_is_unknown_not_a_negative_remainder() {
        let t = stream(100.0, 300.0, 40.0, |_, e| e);
        // A prefill longer than the whole time to first token, a decode longer than the span.
        let b = breakdown(
            &t,
            0.0,
            &server(100.0, 900.0, 5000.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert_eq!(ms(&b, "queue"), Some(100.0));
        assert_eq!(
            (ms(&b, "prefill"), b.unknown[1]),
            (None, Some("server-exceeds-arrivals"))
        );
        assert_eq!(
            (ms(&b, "network"), b.unknown[2]),
            (None, Some("server-exceeds-arrivals"))
        );
        assert_eq!(
            (ms(&b, "decode"), b.unknown[3]),
            (None, Some("server-exceeds-arrivals"))
        );
        assert!(b.unattributed >= 0.0);
    }

    #[test]
    fn a_first_token_read_late_leaves_the_servers_decode_and_shortens_network() {
        // Decoded 980 ms by the server's clock; the page read the first token 12 ms late (its
        // trip, or a busy page), so the arrivals span 968 ms. The decode overlapped the first
        // token's trip: it stays the server's, and network is the last token's trip.
        let mut t = stream(100.0, 300.0, 40.0, |_, e| e);
        t[0].arrived += 12.0;
        t[0].painted += 12.0;
        let b = breakdown(
            &t,
            0.0,
            &server(100.0, 300.0, 980.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert_eq!(ms(&b, "decode"), Some(980.0), "{b:?}");
        assert!((ms(&b, "network").unwrap() - 40.0).abs() < 1e-9, "{b:?}");
        let known: f64 = b.phases.iter().filter_map(|p| p.ms).sum();
        assert!((known + b.unattributed - b.total).abs() < 1e-9, "{b:?}");
        // Longer than all the time after prefill: the server's figure cannot be held.
        let b = breakdown(
            &t,
            0.0,
            &server(100.0, 300.0, 1100.0),
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert_eq!(
            (ms(&b, "decode"), b.unknown[3]),
            (None, Some("server-exceeds-arrivals"))
        );
    }

    #[test]
    fn a_server_decode_a_few_ms_over_the_span_is_kept_with_a_derived_queue() {
        // llama-server (issue 59): headers when a slot takes the request, prefill 300 ms, the
        // queue derived; its predicted_ms 983.4 against the page's span of 980 (its clock runs
        // from its prefill's end to after its last step). Kept, and the phases still add up.
        for (headers, net) in [(4.0, Some(0.5)), (2004.0, Some(0.5)), (4.0, None)] {
            let q = if headers > 1000.0 { 2000.0 } else { 0.0 };
            let t = stream(q, 300.0, 2.0, |_, e| e);
            let timings = ServerTimings {
                prefill_ms: Some(300.0),
                decode_ms: Some(983.4),
                ..ServerTimings::default()
            };
            let wire = Wire {
                headers: Some(headers),
                network: net,
            };
            let b = breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &wire).unwrap();
            assert_eq!(b.queue_basis, Some(QueueBasis::HeadersAtWorkStart), "{b:?}");
            let d = ms(&b, "decode").unwrap();
            assert!((d - 983.4).abs() <= 983.4 * 0.02, "decode {d}: {b:?}");
            assert_eq!(ms(&b, "prefill"), Some(300.0));
            let known: f64 = b.phases.iter().filter_map(|p| p.ms).sum();
            assert!(known <= b.total + FIT_MS, "{b:?}");
            assert!(b.unattributed <= 16.7_f64.max(b.total * 0.02), "{b:?}");
            assert!(b.phases.iter().all(|p| p.ms.is_none_or(|v| v >= 0.0)));
        }
        // Over by more than a step and all the time before the first token: not the stream's.
        let t = stream(0.0, 300.0, 2.0, |_, e| e);
        let timings = ServerTimings {
            prefill_ms: Some(300.0),
            decode_ms: Some(1100.0),
            ..ServerTimings::default()
        };
        let wire = Wire {
            headers: Some(4.0),
            network: Some(0.5),
        };
        let b = breakdown(&t, 0.0, &timings, None, 0, &Blocked::default(), &wire).unwrap();
        assert_eq!(
            (ms(&b, "decode"), b.unknown[3]),
            (None, Some("server-exceeds-arrivals"))
        );
    }

    #[test]
    fn the_servers_own_time_of_each_token_gives_its_exact_hold() {
        // Uneven decoding: in each group of ten, five tokens 5 ms apart, then five 35 ms apart;
        // a proxy releases each group with its last token. The server sampled token i at
        // `emit(i)` (llama.cpp's timings_per_token).
        let offsets = [0.0, 5.0, 10.0, 15.0, 20.0, 55.0, 90.0, 125.0, 160.0, 195.0];
        let emit = |i: usize| 200.0 * (i / 10) as f64 + offsets[i % 10];
        let t: Vec<DeltaRecord> = (0..50)
            .map(|i| {
                let arrived = 300.0 + emit(i / 10 * 10 + 9);
                DeltaRecord {
                    server: emit(i) as f32,
                    ..tok(arrived, arrived + 5.0)
                }
            })
            .collect();
        let truth: f64 = (0..50)
            .map(|i| emit(i / 10 * 10 + 9) - emit(i))
            .sum::<f64>()
            / 50.0;
        let s = server(0.0, 290.0, emit(49));
        let b = breakdown(&t, 0.0, &s, None, 0, &Blocked::default(), &Wire::default()).unwrap();
        let i = b.intermediary.unwrap();
        assert!(
            (i.held_mean - truth).abs() < 1e-6,
            "{} vs {truth}",
            i.held_mean
        );
        assert!((i.held_first - 195.0).abs() < 1e-6 && i.held_last.abs() < 1e-6);
        // Without them, the steady-step estimate is a fifth short here.
        let plain: Vec<DeltaRecord> = t
            .iter()
            .map(|r| DeltaRecord {
                server: f32::NAN,
                ..*r
            })
            .collect();
        let b = breakdown(
            &plain,
            0.0,
            &s,
            None,
            0,
            &Blocked::default(),
            &Wire::default(),
        )
        .unwrap();
        assert!(b.intermediary.unwrap().held_mean < 0.8 * truth);
    }
}
