//! tokenpaint: where the latency of a streamed LLM answer goes, from the server's queue to the
//! pixels on screen.
//!
//! The crate is a pure core, in data-flow order:
//! [`utf8`], [`sse`] and [`lines`] frame the body, [`jsonscan`] and [`wire`] read provider events,
//! [`session`] keeps one stream's timeline (arrival, DOM commit, paint) using [`align`] and
//! [`visible`], [`delivery`] and [`report`] turn it into figures, and [`summary`] aggregates streams with
//! [`sketch`]. None of it knows about JavaScript; it is tested natively with `cargo test`.
//! On wasm32, `wasm` exposes it to the JavaScript shell (`js/`), which stamps times, watches the
//! DOM and paints, and hands everything over here.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod align;
pub mod browser;
pub mod delivery;
pub mod diagnosis;
pub mod figures;
pub mod find;
pub mod jsonscan;
pub mod jsonwrite;
pub mod lines;
pub mod phases;
pub mod report;
pub mod servertiming;
pub mod session;
pub mod sketch;
pub mod sse;
pub mod stats;
pub mod summary;
pub mod utf8;
pub mod visible;
pub mod wire;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
