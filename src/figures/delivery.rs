//! How the page delivered the answer: stalls, the delivery pattern, hidden intervals.
//!
//! From the per-token timeline (arrived, committed, painted, characters):
//! - a *stall* is a time when text had arrived but nothing was painted for longer than a
//!   threshold (100 ms by default);
//! - the *pattern* says how the page puts text on screen: `per-token` (each delta as it comes),
//!   `throttled` (batches at a regular interval, which is measured), `smoothed` (a typewriter
//!   revealing text at a steady rate slower than arrival, which is measured),
//!   `buffered-until-end` (nothing shown before the answer was complete), or `partial` (part of
//!   the arrived text never appeared);
//! - samples whose time on the way to the screen overlaps a *hidden* interval of the page are
//!   left out of lag statistics: while a page is hidden, rAF does not run and nothing paints.

use crate::prelude::*;

use crate::stats::quantile_sorted;
use crate::timeline::session::DeltaRecord;

/// A time when text waited without a paint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    /// When the wait began (absolute ms).
    pub start: f64,
    /// The paint that ended it (absolute ms).
    pub end: f64,
}

/// The stalls of a timeline: text arrived (and later painted) with no paint for more than
/// `threshold` ms. Tokens never painted are not counted (they are not a wait, they are missing).
pub fn stalls(tokens: &[DeltaRecord], threshold: f64) -> Vec<Stall> {
    // Paint times are in token order, and so are arrivals: merge the two sequences.
    let painted: Vec<&DeltaRecord> = tokens.iter().filter(|t| t.painted.is_finite()).collect();
    let mut out = Vec::new();
    let (mut backlog, mut a, mut p) = (0usize, 0usize, 0usize);
    let mut last_paint = f64::NEG_INFINITY;
    let mut waiting_since = None;
    while p < painted.len() {
        let next_arrival = painted.get(a).map_or(f64::INFINITY, |t| t.arrived);
        let next_paint = painted[p].painted;
        if next_arrival <= next_paint {
            if backlog == 0 {
                waiting_since = Some(next_arrival.max(last_paint));
            }
            backlog += 1;
            a += 1;
        } else {
            // All tokens painted by this frame share its time.
            let t = next_paint;
            while p < painted.len() && painted[p].painted == t {
                backlog = backlog.saturating_sub(1);
                p += 1;
            }
            if let Some(since) = waiting_since {
                if t - since > threshold {
                    out.push(Stall {
                        start: since,
                        end: t,
                    });
                }
            }
            last_paint = t;
            waiting_since = (backlog > 0).then_some(t);
        }
    }
    out
}

/// How the page delivered the answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pattern {
    /// Each delta shown as it came (after a constant delay, if any).
    PerToken,
    /// Shown in batches at a regular interval (ms).
    Throttled {
        /// The median interval between batches.
        interval: f64,
    },
    /// Revealed at a steady rate slower than arrival (characters per second).
    Smoothed {
        /// The reveal rate.
        rate: f64,
    },
    /// Nothing shown before the answer was complete.
    BufferedUntilEnd,
    /// Part of the arrived text never appeared.
    Partial,
}

impl Pattern {
    /// The name a report uses.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::PerToken => "per-token",
            Pattern::Throttled { .. } => "throttled",
            Pattern::Smoothed { .. } => "smoothed",
            Pattern::BufferedUntilEnd => "buffered-until-end",
            Pattern::Partial => "partial",
        }
    }
}

/// Classifies delivery, or `None` when there is too little to tell (fewer than 5 deltas, or
/// nothing committed). `matched` is the share of arrived visible text found on screen (0–100).
pub fn pattern(tokens: &[DeltaRecord], matched: f64) -> Option<Pattern> {
    let committed: Vec<&DeltaRecord> = tokens.iter().filter(|t| t.committed.is_finite()).collect();
    if tokens.len() < 5 || committed.is_empty() {
        return None;
    }
    if matched < 95.0 {
        return Some(Pattern::Partial);
    }
    let last_arrival = tokens
        .iter()
        .map(|t| t.arrived)
        .fold(f64::NEG_INFINITY, f64::max);
    let first_arrival = tokens[0].arrived;
    let first_commit = committed
        .iter()
        .find(|t| t.visible > 0)
        .map(|t| t.committed)?;
    if first_commit >= last_arrival && last_arrival - first_arrival > 0.0 {
        return Some(Pattern::BufferedUntilEnd);
    }
    // Commit batches: tokens committed by one DOM change share its time.
    let mut batches: Vec<(f64, u64)> = Vec::new(); // (time, characters)
    for t in &committed {
        match batches.last_mut() {
            Some((time, chars)) if *time == t.committed => *chars += u64::from(t.chars),
            _ => batches.push((t.committed, u64::from(t.chars))),
        }
    }
    let mut arrival_groups = 1;
    for w in tokens.windows(2) {
        if w[1].arrived != w[0].arrived {
            arrival_groups += 1;
        }
    }
    let chars: u64 = tokens.iter().map(|t| u64::from(t.chars)).sum();
    // A typewriter: commits spread at a steady character rate, slower than arrival, so the lag
    // grows along the answer.
    if let Some(rate) = steady_rate(&batches) {
        let span = last_arrival - first_arrival;
        let arrival_rate = if span > 0.0 {
            chars as f64 * 1000.0 / span
        } else {
            f64::INFINITY
        };
        let lags: Vec<f64> = committed.iter().map(|t| t.committed - t.arrived).collect();
        let quarter = lags.len() / 4;
        let early = median(&lags[..quarter.max(1)]);
        let late = median(&lags[lags.len() - quarter.max(1)..]);
        if rate < 0.8 * arrival_rate && late > early + 50.0 && batches.len() * 2 >= arrival_groups {
            return Some(Pattern::Smoothed { rate });
        }
    }
    // Throttled: fewer batches than arrivals, at a regular interval.
    if batches.len() >= 3 && (batches.len() as f64) < 0.7 * arrival_groups as f64 {
        let gaps: Vec<f64> = batches.windows(2).map(|w| w[1].0 - w[0].0).collect();
        // The last batch is often a flush at the end: judge regularity without it.
        let body = &gaps[..gaps.len().saturating_sub(1).max(1)];
        let m = median(body);
        let spread = median(&body.iter().map(|g| (g - m).abs()).collect::<Vec<_>>());
        if m > 0.0 && spread <= 0.25 * m {
            return Some(Pattern::Throttled { interval: m });
        }
    }
    Some(Pattern::PerToken)
}

/// The slope of cumulative characters over commit time (characters per second) when the points
/// lie close to a line (R² ≥ 0.97), else `None`.
fn steady_rate(batches: &[(f64, u64)]) -> Option<f64> {
    if batches.len() < 5 {
        return None;
    }
    let mut cum = 0.0;
    let pts: Vec<(f64, f64)> = batches
        .iter()
        .map(|&(t, c)| {
            cum += c as f64;
            (t, cum)
        })
        .collect();
    let n = pts.len() as f64;
    let (mx, my) = pts
        .iter()
        .fold((0.0, 0.0), |(a, b), p| (a + p.0 / n, b + p.1 / n));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in &pts {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    let r2 = sxy * sxy / (sxx * syy);
    (r2 >= 0.97).then_some(sxy / sxx * 1000.0)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    crate::stats::sort(&mut s);
    quantile_sorted(&s, 0.5).unwrap_or(f64::NAN)
}

/// Whether the record's way to the screen overlaps a hidden interval (see
/// [`DeltaRecord::overlaps_hidden`]: it lives with the record, which the session needs too).
pub fn overlaps_hidden(t: &DeltaRecord, hidden: &[(f64, f64)], now: f64) -> bool {
    t.overlaps_hidden(hidden, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tok(arrived: f64, committed: f64, painted: f64, chars: u32) -> DeltaRecord {
        DeltaRecord {
            committed,
            frame: painted,
            painted,
            ..DeltaRecord::arrived(arrived, chars, chars, 0)
        }
    }

    /// 40 tokens of 5 characters arriving every 20 ms from 100 ms.
    fn stream(commit: impl Fn(usize, f64) -> f64) -> Vec<DeltaRecord> {
        (0..40)
            .map(|i| {
                let a = 100.0 + 20.0 * i as f64;
                let c = commit(i, a);
                tok(a, c, c + 10.0, 5)
            })
            .collect()
    }

    #[test]
    fn per_token_delivery() {
        assert_eq!(
            pattern(&stream(|_, a| a + 60.0), 100.0),
            Some(Pattern::PerToken)
        );
    }

    #[test]
    fn throttled_delivery_and_its_interval() {
        // Flushed every 50 ms.
        let p = pattern(&stream(|_, a| ((a / 50.0).floor() + 1.0) * 50.0), 100.0);
        match p {
            Some(Pattern::Throttled { interval }) => {
                assert!((interval - 50.0).abs() < 1.0, "{interval}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn smoothed_delivery_and_its_rate() {
        // A typewriter at 100 characters per second (arrival: 250 per second).
        let p = pattern(&stream(|i, _| 110.0 + 10.0 * 5.0 * (i + 1) as f64), 100.0);
        match p {
            Some(Pattern::Smoothed { rate }) => assert!((rate - 100.0).abs() < 5.0, "{rate}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_typewriter_revealing_once_per_frame_is_smoothed() {
        // 194 tokens of 1–6 characters every 15 ms; revealed at 150 characters per second in
        // frames of 16.7 ms (commits batched per frame, like a rAF typewriter).
        let mut t = Vec::new();
        let mut end = 0.0;
        for i in 0..194 {
            let chars = 1 + (i * 7 % 6) as u32;
            end += f64::from(chars);
            let reveal = 50.0 + end / 150.0 * 1000.0;
            let frame = (reveal / 16.7).ceil() * 16.7;
            t.push(tok(30.0 + 15.0 * i as f64, frame, frame + 2.0, chars));
        }
        match pattern(&t, 100.0) {
            Some(Pattern::Smoothed { rate }) => assert!((rate - 150.0).abs() < 15.0, "{rate}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn buffered_and_partial_delivery() {
        assert_eq!(
            pattern(&stream(|_, _| 1000.0), 100.0),
            Some(Pattern::BufferedUntilEnd)
        );
        assert_eq!(
            pattern(&stream(|_, a| a + 5.0), 80.0),
            Some(Pattern::Partial)
        );
        assert_eq!(pattern(&stream(|_, _| f64::NAN), 0.0), None);
        assert_eq!(pattern(&stream(|_, a| a)[..3], 100.0), None);
    }

    #[test]
    fn stalls_are_waits_without_paint() {
        // Tokens every 20 ms painted 10 ms later, except a 200 ms freeze after the 10th.
        let mut t = stream(|_, a| a);
        for (i, k) in t.iter_mut().enumerate() {
            if (10..20).contains(&i) {
                k.painted = 100.0 + 20.0 * 20.0 + 5.0;
            }
        }
        let s = stalls(&t, 100.0);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!((s[0].start, s[0].end), (300.0, 505.0));
        assert!(stalls(&stream(|_, a| a), 100.0).is_empty());
    }

    #[test]
    fn hidden_intervals_overlap_the_way_to_the_screen() {
        let t = tok(100.0, 105.0, 110.0, 3);
        assert!(overlaps_hidden(&t, &[(105.0, 500.0)], 1000.0));
        assert!(!overlaps_hidden(&t, &[(110.0, 500.0)], 1000.0));
        assert!(overlaps_hidden(
            &tok(100.0, f64::NAN, f64::NAN, 3),
            &[(300.0, 400.0)],
            1000.0
        ));
    }
}
