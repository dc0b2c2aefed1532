//! One stream's records: a record per answer delta ([`DeltaRecord`], with its arrival, commit
//! and paint), the reasoning kept apart ([`Reasoning`]), and the runs that stand for many records
//! once the detail cap is passed ([`Decimated`]).

use crate::prelude::*;
use crate::stats::sketch::Sketch;

/// The answer and reasoning text, kept only when the user opted in (`includeText`).
#[derive(Debug, Clone, Default)]
pub struct Text {
    /// The answer text as it arrived.
    pub answer: String,
    /// The reasoning text as it arrived.
    pub reasoning: String,
}

/// The record of one answer delta (a content-bearing event), or, once a stream passes its
/// detail cap ([`DEFAULT_DETAIL_CAP`](super::session::DEFAULT_DETAIL_CAP)), of a run of
/// `count` consecutive deltas: times are the last delta's, characters are summed (see
/// `Timeline::decimate`). Not a model token: a delta may carry several tokens, and `tokens` in
/// a report is the server's count when known.
#[derive(Debug, Clone, Copy)]
pub struct DeltaRecord {
    /// When the chunk completing it was read.
    pub arrived: f64,
    /// Deltas this record stands for (1 until detail is decimated).
    pub count: u32,
    /// `arrived` minus the mean arrival of the deltas of the record (0 for one delta).
    pub gap: f32,
    /// Characters (Unicode scalar values) of answer text.
    pub chars: u32,
    /// Visible characters of answer text.
    pub visible: u32,
    /// Visible answer characters up to and including this token.
    pub visible_end: u32,
    /// When the page committed it to the DOM (NaN: not seen).
    pub committed: f64,
    /// The start of the frame that painted it (NaN: not painted).
    pub frame: f64,
    /// The after-paint time of that frame (NaN: not painted).
    pub painted: f64,
    /// When the server sampled it, from its first sampled token (llama.cpp
    /// `timings_per_token`: `predicted_ms` in the delta's own event; NaN: not told).
    pub server: f32,
}

/// What a stream keeps once its per-token detail was decimated: the per-token samples as
/// sketches, fed as deltas arrive and paint, so the statistics stay within the sketch's
/// accuracy however long the stream runs.
#[derive(Debug, Clone, Default)]
pub struct Decimated {
    /// Gaps between deltas.
    pub itl: Sketch,
    /// Arrival-to-paint lag, per delta.
    pub lag: Sketch,
    /// Deltas left out of lag because the page was hidden on their way to the screen.
    pub hidden_excluded: u64,
    /// How many times the records were merged.
    pub rounds: u32,
}

impl DeltaRecord {
    /// Whether the record's way to the screen (arrival to paint, or to `now` when not painted)
    /// overlaps a hidden interval of the page.
    pub fn overlaps_hidden(&self, hidden: &[(f64, f64)], now: f64) -> bool {
        let end = if self.painted.is_finite() {
            self.painted
        } else {
            now
        };
        hidden.iter().any(|&(a, b)| a < end && self.arrived < b)
    }

    /// One delta that arrived at `arrived`, not yet committed or painted.
    pub fn arrived(arrived: f64, chars: u32, visible: u32, visible_end: u32) -> DeltaRecord {
        DeltaRecord {
            arrived,
            count: 1,
            gap: 0.0,
            chars,
            visible,
            visible_end,
            committed: f64::NAN,
            frame: f64::NAN,
            painted: f64::NAN,
            server: f32::NAN,
        }
    }
}

/// Reasoning ("thinking") deltas, kept apart from the answer; the same counts for refusals.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reasoning {
    /// Number of reasoning deltas.
    pub deltas: u32,
    /// Characters of reasoning text.
    pub chars: u64,
    /// Arrival of the first reasoning delta.
    pub first: Option<f64>,
    /// Arrival of the last one.
    pub last: Option<f64>,
}

/// Records kept at least, whatever the configured cap.
pub const MIN_DETAIL_CAP: usize = 64;

/// One record for the runs of `a` and the `b` after it.
pub(crate) fn merge(a: DeltaRecord, b: DeltaRecord) -> DeltaRecord {
    let count = a.count.saturating_add(b.count);
    let mean = |t: &DeltaRecord| t.arrived - f64::from(t.gap);
    let mean = (mean(&a) * f64::from(a.count) + mean(&b) * f64::from(b.count)) / f64::from(count);
    DeltaRecord {
        count,
        gap: (b.arrived - mean) as f32,
        chars: a.chars.saturating_add(b.chars),
        visible: a.visible.saturating_add(b.visible),
        ..b
    }
}

impl Decimated {
    /// The lag of a painted record: each of its deltas waited from its arrival to the paint
    /// (the run's mean arrival stands for them).
    pub(crate) fn lag_sample(&mut self, t: &DeltaRecord, hidden: &[(f64, f64)]) {
        if !hidden.is_empty() && t.overlaps_hidden(hidden, t.painted) {
            self.hidden_excluded += u64::from(t.count);
        } else {
            let lag = t.painted - (t.arrived - f64::from(t.gap));
            self.lag.add_n(lag, u64::from(t.count));
        }
    }
}
