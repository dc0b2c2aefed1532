//! Many streams: percentiles from mergeable sketches, SLOs, goodput, verdict counts.

pub mod sketch;
pub mod stats;
pub mod summary;
