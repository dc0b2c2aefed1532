//! The float functions the core uses that `core` does not have (they are `std`'s): in the npm
//! package's `no_std` module (feature `module`) from `libm`, the pure-Rust math library `std`
//! itself calls on wasm32; everywhere else `std`'s own.

#[cfg(feature = "module")]
pub use libm::{ceil, exp, floor, log as ln, round};

#[cfg(not(feature = "module"))]
mod with_std {
    /// The smallest integer not below `x`.
    pub fn ceil(x: f64) -> f64 {
        x.ceil()
    }
    /// eˣ.
    pub fn exp(x: f64) -> f64 {
        x.exp()
    }
    /// The largest integer not above `x`.
    pub fn floor(x: f64) -> f64 {
        x.floor()
    }
    /// The natural logarithm.
    pub fn ln(x: f64) -> f64 {
        x.ln()
    }
    /// The nearest integer, halves away from zero.
    pub fn round(x: f64) -> f64 {
        x.round()
    }
}
#[cfg(not(feature = "module"))]
pub use with_std::*;

/// `x` within `[lo, hi]` (NaN stays NaN). `f64::clamp` panics when `lo > hi`, and its panic
/// message formats floats, which links `core::fmt`'s float printing into the wasm module (about
/// 2 KB gzip); this never panics.
#[inline]
pub fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}
