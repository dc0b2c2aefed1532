//! tokenpaint: where the latency of a streamed LLM answer goes, from the server's queue to the
//! pixels on screen.
//!
//! The crate is a pure core, in data-flow order, one folder a stage:
//! - [`read`]: bytes to events to deltas. [`read::utf8`], [`read::sse`] and [`read::lines`]
//!   frame the body; [`read::jsonscan`] and [`read::wire`] read provider events;
//!   [`read::servertiming`] reads server timings. The byte-level readers (UTF-8, framing, the
//!   JSON scanner, [`find`]) are the crate `tokenpaint-scan` (`crates/scan`), re-exported here:
//!   every chunk goes through them, so the wasm module compiles them for speed and the rest for
//!   size.
//! - [`stats`]: samples, quantiles and the mergeable [`stats::sketch`], which everything above
//!   uses.
//! - [`timeline`]: one stream's arrivals, DOM commits and paints. [`timeline::session`] keeps
//!   them, [`timeline::align`] and [`timeline::visible`] match rendered text to arrived text,
//!   [`timeline::entries`] holds what the browser told (Resource Timing, long frames).
//! - [`figures`]: every figure of a stream, computed once ([`figures::StreamFigures`]), from
//!   [`figures::delivery`], [`figures::phases`], [`figures::diagnosis`] and the engine's
//!   thresholds ([`figures::browser`]); [`figures::report`] writes them out.
//! - [`summary`]: many streams, on top of the figures; [`streams`]: a profiler's registry of
//!   open streams and its summary, which the JavaScript binding only converts to and from.
//!
//! Each layer uses only the layers listed before it.
//!
//! For Rust apps: [`types`] (feature `serde`) reads reports and summaries into Rust types, and
//! `web` (feature `web`, wasm32) is a typed API over the npm package's browser shell, with guards
//! that undo on `Drop`.
//!
//! [`jsonwrite`] is a shared helper; `alloc` is the wasm module's allocator, the
//! only module allowed `unsafe` (it says why). None of it knows about JavaScript; it is tested
//! natively with `cargo test`. On wasm32, `wasm` exposes it to the JavaScript shell (`js/`),
//! which stamps times, watches the DOM and paints, and hands everything over here.
#![deny(missing_docs)]
#![deny(unsafe_code)]
// The npm package's module is `no_std` (feature `module`): see the panic handler below.
#![cfg_attr(feature = "module", no_std)]

#[cfg(all(feature = "module", any(feature = "web", feature = "serde")))]
compile_error!(
    "feature `module` builds the npm package's own wasm module; `web` and `serde` are for apps"
);

// `alloc` is this crate's allocator module; the standard crate is `liballoc` here.
extern crate alloc as liballoc;

/// What `std`'s prelude gives and `core`'s does not, for every module (the `module` build is
/// `no_std`).
mod prelude {
    pub use liballoc::boxed::Box;
    pub use liballoc::collections::VecDeque;
    pub use liballoc::string::{String, ToString};
    pub use liballoc::vec;
    pub use liballoc::vec::Vec;
}

mod float;

pub mod figures;
pub use tokenpaint_scan::find;
pub mod jsonwrite;
pub mod read;
pub mod saved;
pub mod stats;
pub mod streams;
pub mod summary;
pub mod timeline;
// The word lists' declaration (src/words.json), held to the core's lists; serde_json is a
// dev-dependency on the host only.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod words;

#[cfg(all(test, feature = "schema"))]
mod declared;
#[cfg(feature = "serde")]
pub mod types;
#[cfg(all(feature = "web", target_arch = "wasm32"))]
pub mod web;

pub mod alloc;
// The core's own wasm module (the npm package's). An app that uses the `web` feature links the
// crate into its own module: it gets neither these exports nor this allocator, and the core runs
// in a wasm instance of its own, loaded by the shell.
#[cfg(all(target_arch = "wasm32", not(feature = "web")))]
pub mod wasm;

/// The npm module's panic handler: a panic traps, and the shell starts a fresh instance (a
/// trapped one cannot be trusted). Nothing is formatted: the shell reports the trap as an
/// internal error, and no message would reach a page anyway. Without it `std`'s handler links
/// the formatting machinery and every panic's message and source path: 4.5 KB of the module.
#[cfg(all(feature = "module", target_arch = "wasm32", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

/// The wasm module's allocator ([`alloc`]), the crate's one `unsafe` module.
#[cfg(all(target_arch = "wasm32", not(feature = "web")))]
#[global_allocator]
static ALLOCATOR: alloc::Classes = alloc::Classes::new();
