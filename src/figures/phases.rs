//! Where the time went: the phases of one request, in order, each with its source, adding up to
//! the perceived E2E (or the measured one when nothing was painted).
//!
//! queue → prefill → network (to first token) → decode → intermediary hold → client delivery
//!
//! - `queue` and `prefill` come from the server (vLLM `metrics`, llama.cpp `timings`, Ollama
//!   durations, a `Server-Timing` header or event, TGI headers). Model loading counts as queue.
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

/// What the arrivals say about intermediaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intermediary {
    /// The arrival pattern.
    pub pattern: ArrivalPattern,
    /// Mean hold per token (ms).
    pub held_mean: f64,
    /// Hold of the first token (ms): what it added to TTFT.
    pub held_first: f64,
    /// Hold of the last token (ms): what it added to E2E.
    pub held_last: f64,
    /// The time per token assumed for steady decoding (ms).
    pub step: f64,
    /// Whether `step` came from the server (else from the arrivals).
    pub step_from_server: bool,
    /// Content deltas per arrival group, on average.
    pub tokens_per_burst: f64,
}

/// The phases of one stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakdown {
    /// In order: queue, prefill, network, decode, intermediary, client.
    pub phases: [Phase; 6],
    /// What the phases add up to: perceived E2E if known, else measured E2E (ms).
    pub total: f64,
    /// Whether `total` is the perceived E2E.
    pub perceived: bool,
    /// The part of `total` no known phase accounts for (ms).
    pub unattributed: f64,
    /// The intermediary analysis, when there are enough deltas (3 or more).
    pub intermediary: Option<Intermediary>,
}

/// The breakdown of a stream, or `None` without content. Times in `tokens` and
/// `reasoning_first` (the first reasoning delta, which is decoding, not network) are absolute;
/// `start` is the request start.
///
/// A server's decode time covers every generated token, reasoning included: with
/// `reasoning_deltas` reasoning deltas before the answer, the server's time per token is its
/// decode span over all of them, never over the answer deltas alone.
pub fn breakdown(
    tokens: &[DeltaRecord],
    start: f64,
    server: &ServerTimings,
    reasoning_first: Option<f64>,
    reasoning_deltas: u32,
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
    // The server's decode span and time per token.
    // Generated deltas the server's figures cover: the reasoning ones as well.
    let generated = n + reasoning_deltas as usize;
    let decode_server = server.decode_ms.or_else(|| {
        server
            .itl_ms
            .map(|itl| itl * generated.saturating_sub(1) as f64)
    });
    // The server's time per delta, over everything it generated.
    let step_server = decode_server
        .filter(|&d| d > 0.0 && generated >= 2)
        .map(|d| d / (generated - 1) as f64);
    let inter = (n >= 3)
        .then(|| intermediary(tokens, step_server))
        .flatten();
    let (held_first, held_last) = inter.map_or((0.0, 0.0), |i| (i.held_first, i.held_last));
    let queue = match (server.queue_ms, server.load_ms) {
        (None, None) => None,
        (q, l) => Some(q.unwrap_or(0.0) + l.unwrap_or(0.0)),
    };
    let prefill = server.prefill_ms.or(server.ttft_ms);
    // A negative remainder means the server's figures and the arrivals disagree (clocks, a
    // server that counts differently): unknown, left unattributed, never a negative phase.
    let network = (queue.is_some() || prefill.is_some())
        .then(|| first - reasoning - queue.unwrap_or(0.0) - prefill.unwrap_or(0.0) - held_first)
        .filter(|&net| queue.is_some() && prefill.is_some() && net >= 0.0);
    let (decode, decode_source) = match decode_server {
        Some(d) => (Some(d), Source::Server),
        None => (
            Some((last - first) - (held_last - held_first) + reasoning).filter(|_| n >= 2),
            Source::Derived,
        ),
    };
    let client = painted.map(|p| p - last);
    let phase = |name, ms: Option<f64>, source| Phase {
        name,
        ms,
        source: ms.map(|_| source),
    };
    let phases = [
        phase("queue", queue, Source::Server),
        phase("prefill", prefill, Source::Server),
        phase("network", network, Source::Derived),
        phase("decode", decode, decode_source),
        phase("intermediary", inter.map(|i| i.held_last), Source::Derived),
        phase("client", client, Source::Client),
    ];
    let total = painted.unwrap_or(last);
    let known: f64 = phases.iter().filter_map(|p| p.ms).sum();
    Some(Breakdown {
        phases,
        total,
        perceived: painted.is_some(),
        unattributed: total - known,
        intermediary: inter,
    })
}

/// Holds relative to steady decoding.
fn intermediary(tokens: &[DeltaRecord], step_server: Option<f64>) -> Option<Intermediary> {
    // The position of each record's (last) delta among all deltas.
    let mut seen = 0usize;
    let pos: Vec<usize> = tokens
        .iter()
        .map(|t| {
            seen += t.count as usize;
            seen - 1
        })
        .collect();
    let n = seen;
    let r = tokens.len();
    let span = tokens[r - 1].arrived - tokens[0].arrived;
    // The last token of an arrival group was released as soon as it was decoded: without
    // server timings, the steady step is measured between the ends of the first and last
    // groups (the first tokens may have been held, so the whole span would be too short).
    let first_group_end = tokens
        .windows(2)
        .position(|w| w[1].arrived - w[0].arrived > 1.0);
    let (step, from_server) = match (step_server, first_group_end) {
        (Some(d), _) => (d, true),
        (_, Some(k)) if k < r - 1 => (
            (tokens[r - 1].arrived - tokens[k].arrived) / (n - 1 - pos[k]) as f64,
            false,
        ),
        _ => (span / (n - 1) as f64, false),
    };
    let base = tokens
        .iter()
        .zip(&pos)
        .map(|(t, &i)| t.arrived - i as f64 * step)
        .fold(f64::INFINITY, f64::min);
    let held: Vec<f64> = tokens
        .iter()
        .zip(&pos)
        .map(|(t, &i)| (t.arrived - i as f64 * step - base).max(0.0))
        .collect();
    let mut groups = 1;
    for w in tokens.windows(2) {
        if w[1].arrived - w[0].arrived > 1.0 {
            groups += 1;
        }
    }
    let tokens_per_burst = n as f64 / groups as f64;
    let held_mean = held
        .iter()
        .zip(tokens)
        .map(|(h, t)| h * f64::from(t.count))
        .sum::<f64>()
        / n as f64;
    let expected_span = step * (n - 1) as f64;
    // No model decodes ten tokens in the same instant: arriving in one or two groups is
    // all-at-once even when the server says nothing.
    let pattern = if (groups <= 2 && n >= 10)
        || (from_server && expected_span > 0.0 && (groups <= 2 || span < 0.1 * expected_span))
    {
        ArrivalPattern::AllAtOnce
    } else if tokens_per_burst >= 4.0 && held_mean > 2.0 * step {
        ArrivalPattern::Bursty
    } else {
        ArrivalPattern::Steady
    };
    Some(Intermediary {
        pattern,
        held_mean,
        held_first: held[0],
        held_last: held[r - 1],
        step,
        step_from_server: from_server,
        tokens_per_burst,
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
        let b = breakdown(&t, 0.0, &server(100.0, 300.0, 980.0), None, 0).unwrap();
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
        let b = breakdown(&t, 0.0, &server(0.0, 200.0, 980.0), None, 0).unwrap();
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
        let b = breakdown(&t, 0.0, &ServerTimings::default(), None, 0).unwrap();
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
        let b = breakdown(&t, 0.0, &server(0.0, 100.0, 980.0), None, 0).unwrap();
        let i = b.intermediary.unwrap();
        assert_eq!(i.pattern, ArrivalPattern::AllAtOnce);
        assert!((i.held_first - 980.0).abs() < 1e-9);
        assert!((ms(&b, "network").unwrap() - 10.0).abs() < 1e-9);
        assert!(b.unattributed.abs() < 1e-9);
    }

    #[test]
    fn unknowns_stay_unknown() {
        let t = stream(0.0, 300.0, 40.0, |_, e| e);
        let b = breakdown(&t, 0.0, &ServerTimings::default(), None, 0).unwrap();
        for name in ["queue", "prefill", "network"] {
            assert_eq!(ms(&b, name), None, "{name}");
        }
        assert_eq!(b.phases[0].source, None);
        assert_eq!(b.phases[3].source, Some(Source::Derived));
        // The time to first token is unattributed: server and network cannot be told apart.
        assert!((b.unattributed - 340.0).abs() < 1e-6, "{}", b.unattributed);
        let unpainted: Vec<DeltaRecord> = t.iter().map(|k| tok(k.arrived, f64::NAN)).collect();
        let b = breakdown(&unpainted, 0.0, &ServerTimings::default(), None, 0).unwrap();
        assert!(!b.perceived);
        assert_eq!(ms(&b, "client"), None);
        assert!(breakdown(&[], 0.0, &ServerTimings::default(), None, 0).is_none());
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
        )
        .unwrap();
        for p in &b.phases {
            assert!(p.ms.is_none_or(|ms| ms >= 0.0), "{p:?}");
        }
        assert!((ms(&b, "network").unwrap() - 40.0).abs() < 1e-6, "{b:?}");
        assert!(ms(&b, "intermediary").unwrap().abs() < 1e-6, "{b:?}");
        assert_eq!(b.intermediary.unwrap().pattern, ArrivalPattern::Steady);
        assert!(b.unattributed.abs() < 1e-6, "{}", b.unattributed);
        // The same stream read the old way (answer deltas only) invented a hold.
        let old = breakdown(&t, 0.0, &server(100.0, 300.0, 20.0 * 149.0), Some(440.0), 0).unwrap();
        assert!(ms(&old, "intermediary").unwrap() > 1000.0 || ms(&old, "network").is_none());
    }
}
