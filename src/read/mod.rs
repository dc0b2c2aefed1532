//! Reading bytes: decoding and framing the body, and reading each provider's events.

// The byte-level readers live in the crate tokenpaint-scan (crates/scan), compiled for speed.
pub use tokenpaint_scan::{jsonscan, lines, sse, utf8};
pub mod servertiming;
pub mod wire;
