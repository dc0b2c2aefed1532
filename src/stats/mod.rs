//! Samples and their percentiles: exact over one stream's samples, and the mergeable [`sketch`]
//! past the detail cap and across streams.

pub mod sketch;

use crate::float;
use crate::prelude::*;

/// The `q` quantile (0..=1) of sorted samples, interpolating between the closest ranks (the
/// convention of NumPy's default and of vLLM's benchmark reports). `None` when empty.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = unit(q) * last as f64;
    let lo = float::floor(rank) as usize;
    let hi = (lo + 1).min(last);
    let frac = rank - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
}

pub use crate::stats::sketch::unit;

/// p50, p95 and max of a set of samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Number of samples.
    pub count: usize,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Largest sample.
    pub max: f64,
}

impl Spread {
    /// The spread of `samples` (reordered in place); `None` when there are none.
    pub fn of(samples: &mut [f64]) -> Option<Spread> {
        sort(samples);
        Some(Spread {
            count: samples.len(),
            p50: quantile_sorted(samples, 0.5)?,
            p95: quantile_sorted(samples, 0.95)?,
            max: *samples.last()?,
        })
    }
}

/// Per-token samples of one stream (gaps between deltas, delivery lag): exact while the
/// stream keeps per-token detail, sketched (within [`crate::stats::sketch::ALPHA`]) once it was
/// decimated.
#[derive(Debug, Clone)]
pub enum Samples {
    /// Every sample.
    Exact(Vec<f64>),
    /// A sketch of every sample.
    Sketched(crate::stats::sketch::Sketch),
}

impl Default for Samples {
    fn default() -> Self {
        Samples::Exact(Vec::new())
    }
}

impl Samples {
    /// p50, p95 and max; `None` without samples.
    pub fn spread(&self) -> Option<Spread> {
        match self {
            Samples::Exact(v) => Spread::of(&mut v.clone()),
            Samples::Sketched(s) => Some(Spread {
                count: s.count() as usize,
                p50: s.quantile(0.5)?,
                p95: s.quantile(0.95)?,
                max: s.max()?,
            }),
        }
    }

    /// The `q` quantile; `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        match self {
            Samples::Exact(v) => quantile_of(v, q),
            Samples::Sketched(s) => s.quantile(q),
        }
    }

    /// Adds every sample to `sketch`.
    pub fn add_to(&self, sketch: &mut crate::stats::sketch::Sketch) {
        match self {
            Samples::Exact(v) => v.iter().for_each(|&x| sketch.add(x)),
            Samples::Sketched(s) => sketch.merge(s),
        }
    }
}

/// The `q` quantile of unsorted `v` (a sorted copy); `None` when it is empty.
pub fn quantile_of(v: &[f64], q: f64) -> Option<f64> {
    let mut s = v.to_vec();
    sort(&mut s);
    quantile_sorted(&s, q)
}

/// Sorts in place (NaN last). A heapsort: O(n log n) without allocating, and a few hundred bytes
/// of wasm where the standard library's generic sort costs several kilobytes.
pub fn sort(v: &mut [f64]) {
    fn less(a: f64, b: f64) -> bool {
        a.total_cmp(&b).is_lt()
    }
    fn sift(v: &mut [f64], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && less(v[child], v[child + 1]) {
                child += 1;
            }
            if !less(v[root], v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for i in (0..n / 2).rev() {
        sift(v, i, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_orders_like_the_standard_sort() {
        let mut seed = 12345u64;
        for n in [0usize, 1, 2, 3, 10, 1000] {
            let mut v: Vec<f64> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 40) as f64 / 7.0 - 1000.0
                })
                .collect();
            let mut want = v.clone();
            want.sort_by(f64::total_cmp);
            sort(&mut v);
            assert_eq!(v, want);
        }
    }

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.5), Some(2.5));
        assert_eq!(quantile_sorted(&v, 0.0), Some(1.0));
        assert_eq!(quantile_sorted(&v, 1.0), Some(4.0));
        assert_eq!(quantile_sorted(&[7.0], 0.95), Some(7.0));
        assert_eq!(quantile_sorted(&[], 0.5), None);
        let mut s = [5.0, 1.0, 3.0];
        assert_eq!(
            Spread::of(&mut s),
            Some(Spread {
                count: 3,
                p50: 3.0,
                p95: 4.8,
                max: 5.0
            })
        );
    }
}
