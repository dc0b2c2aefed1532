//! What the engine could give and the rating thresholds (the shell's part of the figures), and
//! the rating rule. The browser's entries themselves (Resource Timing, long animation frames)
//! are timeline inputs ([`crate::timeline::entries`]).

/// What the engine could give, and the thresholds ratings use.
#[derive(Debug, Clone)]
pub struct Shell {
    /// A token painted more than this after it arrived is late (ms).
    pub late_ms: f64,
    /// The engine reports long animation frames.
    pub long_frames: bool,
    /// The engine reports Event Timing entries (the user's interactions).
    pub event_timing: bool,
    /// Paint brackets could be taken (requestAnimationFrame and a task queue).
    pub paint: bool,
    /// `[good up to, poor above]` (ms) for ttft, ttftPerceived, e2ePerceived, tpot, lag.
    pub thresholds: [(f64, f64); 5],
    /// Whether the shell joins Resource Timing at all (false in native use).
    pub resource_timing: bool,
    /// The resolution of the page's timer, measured when the shell started (ms; `None` when
    /// not measured, as in native use).
    pub timer_ms: Option<f64>,
    /// The DevTools track was asked for, but this engine's DevTools do not show custom tracks.
    pub no_devtools_track: bool,
}

/// A timer this coarse or coarser gives no sub-millisecond figures (WebKit's is 1 ms).
pub const COARSE_TIMER_MS: f64 = 1.0;

/// The default rating thresholds: each rated metric, good up to, poor above (ms). Perceived
/// figures are what users feel. The shell's defaults (`js/schema.js`) are generated from this
/// table by `scripts/schema.mjs`.
pub const THRESHOLDS: [(&str, f64, f64); 5] = [
    ("ttft", 1000.0, 3000.0),
    ("ttftPerceived", 1000.0, 3000.0),
    ("e2ePerceived", 10000.0, 30000.0),
    ("tpot", 50.0, 100.0),
    ("lag", 50.0, 200.0),
];

/// The metrics ratings are given for, in the order of [`Shell::thresholds`].
pub const RATED: [&str; 5] = [
    THRESHOLDS[0].0,
    THRESHOLDS[1].0,
    THRESHOLDS[2].0,
    THRESHOLDS[3].0,
    THRESHOLDS[4].0,
];

impl Default for Shell {
    fn default() -> Self {
        Shell {
            late_ms: 50.0,
            long_frames: false,
            event_timing: false,
            paint: true,
            thresholds: THRESHOLDS.map(|(_, good, poor)| (good, poor)),
            resource_timing: false,
            timer_ms: None,
            no_devtools_track: false,
        }
    }
}

impl Shell {
    /// Reads thresholds written `metric good poor; …` (unknown metrics and malformed entries
    /// are skipped; the others keep their defaults).
    pub fn set_thresholds(&mut self, spec: &str) {
        for entry in spec.split(';') {
            let mut it = entry.split_whitespace();
            let (Some(name), Some(good), Some(poor)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let (Some(i), Some(good), Some(poor)) = (
                RATED.iter().position(|m| *m == name),
                crate::read::jsonscan::number_in(good),
                crate::read::jsonscan::number_in(poor),
            ) else {
                continue;
            };
            if good.is_finite() && poor.is_finite() {
                self.thresholds[i] = (good, poor);
            }
        }
    }
}

/// A rating, web-vitals style.
pub fn rate(value: f64, (good, poor): (f64, f64)) -> &'static str {
    if value <= good {
        "good"
    } else if value <= poor {
        "needs-improvement"
    } else {
        "poor"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_ratings() {
        let mut s = Shell::default();
        s.set_thresholds("ttft 500 900; nonsense 1 2; lag x 3");
        assert_eq!(s.thresholds[0], (500.0, 900.0));
        assert_eq!(s.thresholds[4], (50.0, 200.0));
        assert_eq!(rate(500.0, s.thresholds[0]), "good");
        assert_eq!(rate(800.0, s.thresholds[0]), "needs-improvement");
        assert_eq!(rate(901.0, s.thresholds[0]), "poor");
    }
}
