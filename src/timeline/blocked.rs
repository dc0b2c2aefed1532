//! When the page's main thread was blocked while a stream was open.
//!
//! `reader.read()` resolves on the main thread: while the page runs a long task (a re-render, a
//! syntax highlighter), bytes the browser already has wait, and the next read returns them all
//! at once. Such bunched reads look like a proxy's holds. The paint clock sees the blocking: a
//! frame requested at one after-paint mark whose own after-paint mark came much later than a
//! frame's time means the thread was busy in between. Long animation frames (Chromium) say the
//! same where the browser gives them.

use crate::prelude::*;

/// Intervals (absolute ms) when the main thread was blocked, sorted and disjoint, each with the
/// blocked time it holds: all of it, unless the cap merged it with a neighbour (then the two's
/// blocked time, not the free time between them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocked {
    intervals: Vec<(f64, f64, f64)>,
}

impl Blocked {
    /// Intervals kept at most: past this the two closest are merged into one (a busy page's
    /// blocked frames are near each other, so little is lost: the blocked time in all is kept,
    /// only where it lay inside the merged interval is not).
    pub const KEEP: usize = 256;

    /// Intervals as [`Blocked::intervals`] gave them (a saved timeline read back): each kept
    /// only if it is well formed and after the one before, its blocked time within its span.
    pub fn from_intervals(intervals: impl IntoIterator<Item = (f64, f64, f64)>) -> Self {
        let mut b = Blocked::default();
        for (start, end, ms) in intervals {
            let after = b.intervals.last().is_none_or(|&(_, e, _)| start > e);
            let room = b.intervals.len() < Self::KEEP;
            if start.is_finite() && end.is_finite() && end > start && after && room {
                b.intervals
                    .push((start, end, crate::float::clamp(ms, 0.0, end - start)));
            }
        }
        b
    }

    /// The main thread was blocked from `start` to `end`.
    pub fn push(&mut self, start: f64, end: f64) {
        if !(start.is_finite() && end.is_finite() && end > start) {
            return;
        }
        let v = &mut self.intervals;
        // Where it goes: after every interval that starts before it.
        let at = v.partition_point(|&(s, _, _)| s < start);
        v.insert(at, (start, end, end - start));
        // Merge with its neighbours while they overlap or touch.
        let mut i = at.saturating_sub(1);
        while i + 1 < v.len() {
            let ((s, e, ms), (s2, e2, ms2)) = (v[i], v[i + 1]);
            if s2 <= e {
                // Time in both is counted once (all of it, for intervals not merged by the cap).
                let overlap = (e.min(e2) - s2).max(0.0);
                let span = e.max(e2) - s;
                v[i] = (
                    s,
                    e.max(e2),
                    (ms + ms2 - overlap).max(ms.max(ms2)).min(span),
                );
                v.remove(i + 1);
            } else if i + 1 > at {
                break;
            } else {
                i += 1;
            }
        }
        if v.len() > Self::KEEP {
            let mut closest = 0;
            for i in 1..v.len() - 1 {
                if v[i + 1].0 - v[i].1 < v[closest + 1].0 - v[closest].1 {
                    closest = i;
                }
            }
            let (s, _, ms) = v[closest];
            let (_, e2, ms2) = v[closest + 1];
            v[closest] = (s, e2, ms + ms2);
            v.remove(closest + 1);
        }
    }

    /// How many ms of [`start`, `end`] the main thread was blocked (of an interval the cap
    /// merged, its blocked time's share in the part overlapped).
    pub fn covered(&self, start: f64, end: f64) -> f64 {
        // NaN bounds cover nothing.
        if end.partial_cmp(&start) != Some(core::cmp::Ordering::Greater) {
            return 0.0;
        }
        self.intervals
            .iter()
            .map(|&(s, e, ms)| (e.min(end) - s.max(start)).max(0.0) / (e - s) * ms)
            .sum()
    }

    /// Blocked time in all (ms).
    pub fn total(&self) -> f64 {
        self.intervals.iter().map(|&(_, _, ms)| ms).sum()
    }

    /// Whether nothing was seen blocked.
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// The intervals, in time order: start, end, and the blocked time in it (ms; its length
    /// unless the cap merged it).
    pub fn intervals(&self) -> &[(f64, f64, f64)] {
        &self.intervals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_and_touching_intervals_merge() {
        let mut b = Blocked::default();
        b.push(10.0, 20.0);
        b.push(30.0, 40.0);
        b.push(18.0, 30.0);
        b.push(50.0, 60.0);
        b.push(5.0, 6.0);
        assert_eq!(
            b.intervals(),
            &[(5.0, 6.0, 1.0), (10.0, 40.0, 30.0), (50.0, 60.0, 10.0)]
        );
        assert_eq!(b.covered(0.0, 100.0), 41.0);
        assert_eq!(b.covered(35.0, 55.0), 10.0);
        assert_eq!(b.covered(41.0, 49.0), 0.0);
        b.push(f64::NAN, 3.0);
        b.push(70.0, 70.0);
        assert_eq!(b.intervals().len(), 3);
    }

    #[test]
    fn past_the_cap_the_closest_merge() {
        let mut b = Blocked::default();
        for i in 0..(Blocked::KEEP + 10) {
            let s = i as f64 * 100.0 + if i % 2 == 0 { 0.0 } else { 50.0 };
            b.push(s, s + 10.0);
        }
        assert!(b.intervals().len() <= Blocked::KEEP);
        let w = b.intervals();
        assert!(w.windows(2).all(|w| w[0].1 < w[1].0));
    }

    #[test]
    fn past_the_cap_no_free_time_is_counted_as_blocked() {
        // A page under a 4× throttle: 1,000 long frames of 30 ms, one every 50 ms (issue 49's
        // Streamdown page while the user types). The merged intervals keep the blocked time
        // they hold, not the free time between them.
        let mut b = Blocked::default();
        for i in 0..1000 {
            let s = 1000.0 + i as f64 * 50.0;
            b.push(s, s + 30.0);
        }
        assert!(b.intervals().len() <= Blocked::KEEP);
        assert!((b.total() - 30_000.0).abs() < 1e-6, "{}", b.total());
        let all = b.covered(0.0, 100_000.0);
        assert!((all - 30_000.0).abs() < 1e-6, "{all}");
        // A window: within one merged interval's share.
        let part = b.covered(11_000.0, 31_000.0);
        assert!(
            (part - 12_000.0).abs() <= 30_000.0 / Blocked::KEEP as f64 * 2.0,
            "{part}"
        );
    }
}
