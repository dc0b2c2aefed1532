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
    /// The entry from its fields in the declared order (src/options.json `resource`:
    /// `startTime, domainLookupStart, domainLookupEnd, connectStart, connectEnd, requestStart,
    /// responseStart, responseEnd`), as they cross from the shell and are saved. A field other
    /// than `startTime` that is not a positive number is one the browser withheld (it gives 0
    /// for a cross-origin entry; a saved one is `null`). `None` for fewer than eight.
    pub fn from_fields(v: &[f64]) -> Option<ResourceEntry> {
        let v: &[f64; 8] = v.get(..8)?.try_into().ok()?;
        let known = |v: f64| (v > 0.0 && v.is_finite()).then_some(v);
        Some(ResourceEntry {
            start: v[0],
            dns: (known(v[1]), known(v[2])),
            connect: (known(v[3]), known(v[4])),
            request_start: known(v[5]),
            response_start: known(v[6]),
            response_end: known(v[7]),
        })
    }

    /// Its fields in the declared order (see [`ResourceEntry::from_fields`]), NaN for unknown.
    pub fn fields(&self) -> [f64; 8] {
        let t = |v: Option<f64>| v.unwrap_or(f64::NAN);
        [
            self.start,
            t(self.dns.0),
            t(self.dns.1),
            t(self.connect.0),
            t(self.connect.1),
            t(self.request_start),
            t(self.response_start),
            t(self.response_end),
        ]
    }

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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod declared {
    use super::ResourceEntry;

    /// The entry's fields cross and are saved in the declared order (src/options.json
    /// `resource`, the shell's `RESOURCE_FIELDS`): each declared name lands in its own field.
    #[test]
    fn the_resource_entry_reads_its_fields_in_the_declared_order() {
        let decl: serde_json::Value =
            serde_json::from_str(include_str!("../options.json")).expect("src/options.json");
        let names: Vec<&str> = decl["resource"]
            .as_array()
            .expect("resource")
            .iter()
            .map(|n| n.as_str().expect("a name"))
            .collect();
        // Each field of the entry, by the browser's name for it.
        let field = |e: &ResourceEntry, name: &str| match name {
            "startTime" => Some(e.start),
            "domainLookupStart" => e.dns.0,
            "domainLookupEnd" => e.dns.1,
            "connectStart" => e.connect.0,
            "connectEnd" => e.connect.1,
            "requestStart" => e.request_start,
            "responseStart" => e.response_start,
            "responseEnd" => e.response_end,
            other => panic!("src/options.json: no field `{other}` in ResourceEntry"),
        };
        assert_eq!(names.len(), 8);
        let v: Vec<f64> = (0..8).map(|i| 1000.0 + i as f64).collect();
        let e = ResourceEntry::from_fields(&v).expect("eight fields");
        for (i, name) in names.iter().enumerate() {
            assert_eq!(field(&e, name), Some(v[i]), "{name} is field {i}");
        }
        assert_eq!(e.fields().to_vec(), v);
        // A field the browser withheld (0) is unknown; fewer than eight is no entry.
        let e = ResourceEntry::from_fields(&[5.0, 0.0, 0.0, 0.0, 0.0, 6.0, 7.0, 8.0]).unwrap();
        assert_eq!((e.dns, e.request_start), ((None, None), Some(6.0)));
        assert!(ResourceEntry::from_fields(&v[..7]).is_none());
    }
}
