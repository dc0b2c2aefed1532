//! What only the browser knows, handed to the core by the shell before a report is made: the
//! request's Resource Timing entry and the page's long animation frames. The figures
//! ([`crate::figures`]) use them like any other input, so the report and the summary agree on
//! everything.

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
}
