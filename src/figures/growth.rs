//! Render cost that grows with the answer: a page that re-renders the whole message on each
//! delta pays more for each delta than for the last, and the answer slows down towards its end.

use crate::prelude::*;
use crate::timeline::record::DeltaRecord;

/// How the page's cost per delta grew with the text shown: the cost of each commit per delta
/// it showed, over the answer's characters on screen when it committed; the least-squares line
/// through the medians of ten runs of commits, so that a few commits a long task delayed do not
/// make a trend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Growth {
    /// ms per delta per 1,000 characters shown.
    pub slope: f64,
    /// The cost per delta at the first and at the last commit, on that line (ms).
    pub start: f64,
    /// See `start`.
    pub end: f64,
    /// The answer's characters shown at the last commit.
    pub chars: f64,
    /// Commits fitted.
    pub commits: u32,
    /// The median cost per delta of the first fifth of the commits (ms): what each delta
    /// costs before the answer's own text weighs.
    pub early: f64,
}

/// Fewer commits than this say nothing of a trend.
const MIN_COMMITS: usize = 20;
/// Runs of commits whose medians the line is fitted through.
const BINS: usize = 10;

/// The growth of the page's render cost, from each commit's cost: from when the page could
/// start on its deltas (the first one's arrival, or the commit before, whichever came later) to
/// the commit that showed them, per delta. `None` with fewer than 20 commits, or
/// when the records are runs of deltas (decimated detail: their own commits are not kept).
pub fn render_growth(records: &[DeltaRecord], decimated: bool) -> Option<Growth> {
    if decimated {
        return None;
    }
    // (characters shown / 1000, ms per delta) per commit.
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let mut prev = f64::NAN;
    let mut shown = 0.0;
    let mut i = 0;
    while i < records.len() {
        let c = records[i].committed;
        let mut j = i + 1;
        while j < records.len() && records[j].committed == c {
            j += 1;
        }
        shown += records[i..j]
            .iter()
            .map(|t| f64::from(t.chars))
            .sum::<f64>()
            / 1000.0;
        if c.is_finite() && prev.is_finite() {
            xs.push(shown);
            ys.push((c - records[i].arrived.max(prev)) / (j - i) as f64);
        }
        if c.is_finite() {
            prev = c;
        }
        i = j;
    }
    let n = xs.len();
    if n < MIN_COMMITS {
        return None;
    }
    let median = |v: &[f64]| crate::stats::quantile_of(v, 0.5).unwrap_or(f64::NAN);
    // The least-squares line through the medians of BINS runs of commits, in order.
    let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
    for b in 0..BINS {
        let run = n * b / BINS..n * (b + 1) / BINS;
        let (x, y) = (median(&xs[run.clone()]), median(&ys[run]));
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    let k = BINS as f64;
    let var = sxx - sx * sx / k;
    if var <= 0.0 {
        return None;
    }
    let slope = (sxy - sx * sy / k) / var;
    let at = |x: f64| (sy - slope * sx) / k + slope * x;
    Some(Growth {
        slope,
        start: at(xs[0]),
        end: at(xs[n - 1]),
        chars: xs[n - 1] * 1000.0,
        commits: n as u32,
        early: median(&ys[..n / 5]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` deltas of 20 characters every 10 ms, each committed `cost(shown)` ms after it could
    /// be worked on.
    fn stream(n: usize, cost: impl Fn(f64) -> f64) -> Vec<DeltaRecord> {
        let mut out: Vec<DeltaRecord> = Vec::new();
        let mut busy_until = 0.0f64;
        for i in 0..n {
            let arrived = (10.0 * i as f64).max(busy_until);
            let shown = 20 * (i as u32 + 1);
            let committed = arrived + cost(f64::from(shown));
            busy_until = committed;
            out.push(DeltaRecord {
                committed,
                visible_end: shown,
                ..DeltaRecord::arrived(arrived, 20, 20, 0)
            });
        }
        out
    }

    #[test]
    fn a_whole_message_re_render_grows_with_the_text_and_an_append_does_not() {
        // 1.5 ms per 1,000 characters shown, on top of 0.4 ms.
        let g = render_growth(&stream(500, |c| 0.4 + 1.5 * c / 1000.0), false).expect("a fit");
        assert!((g.slope - 1.5).abs() < 1e-6, "{g:?}");
        // A long task that delayed a few late commits makes no trend of its own.
        let mut busy = stream(500, |_| 0.4);
        for t in &mut busy[440..446] {
            t.committed += 200.0;
        }
        let g2 = render_growth(&busy, false).expect("a fit");
        assert!(g2.slope.abs() < 1e-6, "{g2:?}");
        assert!((g.end - (0.4 + 15.0)).abs() < 1e-6 && (g.start - (0.4 + 0.06)).abs() < 1e-6);
        assert_eq!(g.commits, 499);
        let flat = render_growth(&stream(500, |_| 0.4), false).expect("a fit");
        assert!(
            flat.slope.abs() < 1e-9 && (flat.end - 0.4).abs() < 1e-9,
            "{flat:?}"
        );
    }

    #[test]
    fn deltas_committed_together_share_their_commit_and_few_commits_say_nothing() {
        // Two deltas per read, one commit for both, costing 2 ms each at 1,000 characters.
        let mut t = stream(400, |c| 2.0 * c / 1000.0);
        for i in (1..t.len()).step_by(2) {
            t[i - 1].committed = t[i].committed;
        }
        let g = render_growth(&t, false).expect("a fit");
        assert!(g.slope > 0.5 && g.commits == 199, "{g:?}");
        assert_eq!(render_growth(&stream(15, |c| c), false), None);
        assert_eq!(render_growth(&stream(400, |c| c), true), None);
    }
}
