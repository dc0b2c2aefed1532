//! The byte-level readers of a streamed body, in the order a chunk meets them:
//! - [`utf8`]: UTF-8 decoding across chunk boundaries, as `TextDecoder` does;
//! - [`sse`] and [`lines`]: Server-Sent Events and newline-delimited framing, fed chunk by chunk;
//! - [`jsonscan`]: a JSON scanner that walks an event without building a tree;
//! - [`find`]: the byte search under them, eight bytes at a time.
//!
//! Every chunk of every stream goes through this crate, so the npm package's wasm module compiles
//! it for speed and the rest of tokenpaint for size (`opt-level` per crate in the root
//! `Cargo.toml`). It is `no_std` (with `alloc`) and has no dependencies; `tokenpaint::read`
//! re-exports it. Each parser is fed at every split point of its input in its tests.
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]
#![deny(unsafe_code)]

extern crate alloc;

pub mod find;
pub mod jsonscan;
pub mod lines;
pub mod sse;
pub mod utf8;
