//! What only the browser knows, handed to the core by the shell before a report is made: the
//! request's Resource Timing entry, the page's long animation frames, what the engine could not
//! give, and the rating thresholds. The figures ([`crate::figures`]) use them like any other
//! input, so the report and the summary agree on everything.

use crate::prelude::*;

/// A request's Resource Timing entry (absolute `performance.now()` ms; `None` when the browser
/// zeroed a field, as it does cross-origin without `Timing-Allow-Origin`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourceEntry {
    /// When the request started.
    pub start: f64,
    /// DNS lookup start and end.
    pub dns: (Option<f64>, Option<f64>),
    /// Connection (TCP and TLS) start and end.
    pub connect: (Option<f64>, Option<f64>),
    /// When the request left.
    pub request_start: Option<f64>,
    /// The server's first byte, as the network saw it.
    pub response_start: Option<f64>,
    /// The body's end.
    pub response_end: Option<f64>,
}

impl ResourceEntry {
    /// How long the request waited in the browser before it was sent: from its start to the
    /// request leaving, less the connection's own set-up (DNS, TCP, TLS), which is network
    /// time. A cold connection to a distant API is slow to set up, not queued.
    pub fn browser_queue(&self) -> Option<f64> {
        let request = self.request_start?;
        let setup = |(a, b): (Option<f64>, Option<f64>)| match (a, b) {
            (Some(a), Some(b)) if b >= a => b - a,
            _ => 0.0,
        };
        Some((request - self.start - setup(self.dns) - setup(self.connect)).max(0.0))
    }
}

/// A long animation frame (over 50 ms). The scripts that ran in it stay in the shell, which
/// knows the frame by its number.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LongFrame {
    /// The shell's number for it.
    pub seq: u32,
    /// Its start (absolute ms).
    pub start: f64,
    /// Its duration (ms).
    pub duration: f64,
    /// Its blocking duration (ms).
    pub blocking: f64,
}

/// The page's recent long animation frames, oldest dropped first.
#[derive(Debug, Clone, Default)]
pub struct LongFrames {
    /// The frames, in the order the browser reported them.
    pub frames: VecDeque<LongFrame>,
}

impl LongFrames {
    /// Frames kept.
    pub const KEEP: usize = 200;

    /// A new frame.
    pub fn push(&mut self, frame: LongFrame) {
        if self.frames.len() >= Self::KEEP {
            self.frames.pop_front();
        }
        self.frames.push_back(frame);
    }

    /// Frames overlapping [start, end] (absolute ms).
    pub fn overlapping(&self, start: f64, end: f64) -> impl Iterator<Item = (usize, &LongFrame)> {
        self.frames
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.start < end && f.start + f.duration > start)
    }
}

/// What the engine could give, and the thresholds ratings use.
#[derive(Debug, Clone)]
pub struct Shell {
    /// A token painted more than this after it arrived is late (ms).
    pub late_ms: f64,
    /// The engine reports long animation frames.
    pub long_frames: bool,
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
    fn browser_queue_is_the_wait_less_connection_set_up() {
        let cold = ResourceEntry {
            start: 1000.0,
            dns: (Some(1000.0), Some(1060.0)),
            connect: (Some(1060.0), Some(1380.0)),
            request_start: Some(1380.0),
            ..ResourceEntry::default()
        };
        assert_eq!(cold.browser_queue(), Some(0.0));
        let queued = ResourceEntry {
            start: 1000.0,
            dns: (Some(1700.0), Some(1700.0)),
            connect: (Some(1700.0), Some(1700.0)),
            request_start: Some(1700.0),
            ..ResourceEntry::default()
        };
        assert_eq!(queued.browser_queue(), Some(700.0));
        assert_eq!(ResourceEntry::default().browser_queue(), None);
    }

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
