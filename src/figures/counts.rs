//! Counting a stream: its tokens ([`TokenCount`]), ITL and lag samples, the backlog's peak, and
//! what could not be measured.

use super::*;

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

/// Output tokens: the server's count when it covers exactly the timed answer deltas, else
/// counted deltas. Usage counts tool-call arguments, every choice, and (unless split out)
/// reasoning: then it is not the count of what was timed.
pub(super) fn deltas(tl: &Timeline) -> TokenCount {
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
pub(super) fn samples(tl: &Timeline) -> (Samples, Samples, u64) {
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

/// What could not be measured.
pub(super) fn unavailable(tl: &Timeline) -> Vec<&'static str> {
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
pub(super) fn backlog_peak(records: &[DeltaRecord]) -> u64 {
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
