//! Smoothness as chat engineers measure it: the frames the page painted while the answer
//! streamed (its frame rate, and the frames it dropped), and its longest freeze: the longest
//! time arrived text waited for the screen (a stall), with what the page did meanwhile.

use crate::prelude::*;

use crate::timeline::session::DeltaRecord;

/// The frames painted while the answer streamed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frames {
    /// Frames painted from the first arrival to the last paint.
    pub painted: u32,
    /// Frames the display would have shown at its own pace that the page did not paint.
    pub dropped: u32,
    /// Frames painted per second.
    pub fps: f64,
    /// The display's frame interval: the median gap between frames (ms).
    pub interval: f64,
    /// The longest gap between two frames (ms).
    pub longest_gap: f64,
}

/// A gap this many intervals long or more is frames dropped.
const DROPPED_AT: f64 = 1.5;

/// The frames of `starts` (frame starts, in order) from `from` to `to` (absolute ms), gaps that
/// overlap a `hidden` interval left out (a hidden page paints nothing, and drops nothing).
/// `None` with fewer than two frames.
pub fn frames(starts: &[f64], from: f64, to: f64, hidden: &[(f64, f64)]) -> Option<Frames> {
    let lo = starts.partition_point(|&t| t < from);
    let hi = starts.partition_point(|&t| t <= to);
    let inside = starts.get(lo..hi).filter(|s| s.len() >= 2)?;
    let seen = |a: f64, b: f64| !hidden.iter().any(|&(s, e)| s < b && e > a);
    let mut gaps: Vec<f64> = inside
        .windows(2)
        .filter(|w| seen(w[0], w[1]))
        .map(|w| w[1] - w[0])
        .collect();
    if gaps.is_empty() {
        return None;
    }
    let longest_gap = gaps.iter().copied().fold(0.0, f64::max);
    crate::stats::sort(&mut gaps);
    let interval = crate::stats::quantile_sorted(&gaps, 0.5)?.max(1.0);
    let dropped: f64 = gaps
        .iter()
        .filter(|&&g| g >= DROPPED_AT * interval)
        .map(|&g| crate::float::round(g / interval) - 1.0)
        .sum();
    let span = (to - from).max(1.0);
    Some(Frames {
        painted: inside.len() as u32,
        dropped: dropped as u32,
        fps: inside.len() as f64 * 1000.0 / span,
        interval,
        longest_gap,
    })
}

/// The longest freeze, and what the page did meanwhile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Freeze {
    /// When it began, from the request start (ms).
    pub at: f64,
    /// How long arrived text waited for the screen (ms).
    pub ms: f64,
    /// Frames the page painted meanwhile (`None` when the shell counted none).
    pub frames: Option<u32>,
    /// The display's frame interval (ms; NaN when unknown).
    pub interval: f64,
    /// How long the main thread was seen blocked meanwhile (ms).
    pub blocked: f64,
    /// Visible characters the paint that ended it put on screen at once.
    pub step: u32,
}

/// The freeze of `stall` (absolute start and end), from the frames, the blocked intervals and
/// the records; `start` is the request start.
pub fn freeze(
    stall: (f64, f64),
    start: f64,
    starts: &[f64],
    blocked: &crate::timeline::blocked::Blocked,
    records: &[DeltaRecord],
    interval: f64,
) -> Freeze {
    let (a, b) = stall;
    let frames = (!starts.is_empty()).then(|| {
        let lo = starts.partition_point(|&t| t <= a);
        let hi = starts.partition_point(|&t| t < b);
        hi.saturating_sub(lo) as u32
    });
    let blocked = blocked.covered(a, b);
    let step = records
        .iter()
        .filter(|r| r.painted == b)
        .map(|r| r.visible)
        .sum();
    Freeze {
        at: a - start,
        ms: b - a,
        frames,
        interval,
        blocked,
        step,
    }
}

/// How the page answered the user while the answer streamed (Event Timing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Input {
    /// Interactions (key presses, clicks, taps) from the request start to the last paint.
    pub count: u32,
    /// The longest input delay: from an interaction to its handlers' start (ms).
    pub delay_max: f64,
    /// The median interaction's duration: to the next paint after its handlers (ms).
    pub duration_p50: f64,
    /// The longest interaction's duration (ms).
    pub duration_max: f64,
    /// When the longest began, from the request start (ms).
    pub worst_at: f64,
}

/// The interactions of `inputs` (start, delay, duration) from `from` to `to` (absolute ms);
/// `start` is the request start. `None` without any.
pub fn input(inputs: &[(f64, f64, f64)], start: f64, from: f64, to: f64) -> Option<Input> {
    let inside: Vec<&(f64, f64, f64)> =
        inputs.iter().filter(|i| i.0 >= from && i.0 <= to).collect();
    let worst = inside
        .iter()
        .copied()
        .reduce(|a, b| if b.2 > a.2 { b } else { a })?;
    let mut durations: Vec<f64> = inside.iter().map(|i| i.2).collect();
    crate::stats::sort(&mut durations);
    Some(Input {
        count: inside.len() as u32,
        delay_max: inside.iter().map(|i| i.1).fold(0.0, f64::max),
        duration_p50: crate::stats::quantile_sorted(&durations, 0.5).unwrap_or(worst.2),
        duration_max: worst.2,
        worst_at: worst.0 - start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_page_drops_nothing_and_a_frozen_one_drops_its_gap() {
        let steady: Vec<f64> = (0..61).map(|i| 1000.0 + i as f64 * 16.667).collect();
        let f = frames(&steady, 1000.0, 2001.0, &[]).unwrap();
        assert_eq!((f.painted, f.dropped), (61, 0));
        assert!((f.interval - 16.667).abs() < 0.01 && (f.fps - 61.0).abs() < 0.5);
        // A 500 ms gap in the middle: 29 frames dropped, the longest gap 500 ms.
        let mut gap = steady[..30].to_vec();
        gap.extend((0..31).map(|i| steady[29] + 500.0 + i as f64 * 16.667));
        let f = frames(&gap, 1000.0, 3000.0, &[]).unwrap();
        assert_eq!(f.dropped, 29);
        assert!((f.longest_gap - 500.0).abs() < 1e-9);
        // Hidden meanwhile: nothing dropped.
        let f = frames(
            &gap,
            1000.0,
            3000.0,
            &[(steady[29] + 10.0, steady[29] + 400.0)],
        )
        .unwrap();
        assert_eq!(f.dropped, 0);
        assert!(frames(&[1.0], 0.0, 10.0, &[]).is_none());
    }
}
