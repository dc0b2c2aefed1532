//! Reading bytes: decoding and framing the body, and reading each provider's events.

pub mod jsonscan;
pub mod lines;
pub mod servertiming;
pub mod sse;
pub mod utf8;
pub mod wire;
