//! A mergeable quantile sketch with bounded relative error (DDSketch, Masson, Rim and Lee,
//! VLDB 2019).
//!
//! A value x > 0 falls in bucket k = ceil(log_γ x) with γ = (1 + α) / (1 − α); the bucket's
//! representative 2γᵏ / (γ + 1) is within relative error α of every value in it. Sketches of
//! parts of a data set merge by adding bucket counts, and the merge equals the sketch of the
//! whole: summaries from several tabs, pages or users combine without losing accuracy.
//! Values below 1 µs (the ms unit's 0.001) are counted as zero.

use crate::float;
use crate::prelude::*;

/// The relative accuracy: 1%.
pub const ALPHA: f64 = 0.01;
const GAMMA: f64 = 1.020_202_020_202_02; // (1 + α) / (1 − α)
const LN_GAMMA: f64 = 0.020_000_666_706_669_435; // ln γ
/// Values below this are counted in the zero bucket.
pub const MIN_VALUE: f64 = 1e-3;
/// At most this many buckets; past it the lowest are folded together (accuracy is then kept
/// for the upper quantiles, which are the ones latency reports care about).
pub const MAX_BUCKETS: usize = 2048;

/// A DDSketch over non-negative values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sketch {
    buckets: Vec<u64>,
    offset: i32,
    zero: u64,
    count: u64,
    min: f64,
    max: f64,
    sum: f64,
}

fn key(x: f64) -> i32 {
    float::ceil(float::ln(x) / LN_GAMMA) as i32
}

fn value(k: i32) -> f64 {
    2.0 * float::exp(f64::from(k) * LN_GAMMA) / (1.0 + GAMMA)
}

impl Sketch {
    /// An empty sketch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The largest value added, exactly.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// The smallest value added, exactly.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// The mean (kept exactly, from the sum).
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// Adds a value. Negative values count as zero; values that are not finite are ignored.
    pub fn add(&mut self, x: f64) {
        self.add_n(x, 1);
    }

    /// Adds a value `n` times.
    pub fn add_n(&mut self, x: f64, n: u64) {
        if !x.is_finite() || n == 0 {
            return;
        }
        let x = x.max(0.0);
        if self.count == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.count += n;
        self.sum += x * n as f64;
        if x < MIN_VALUE {
            self.zero += n;
        } else {
            self.add_to_bucket(key(x), n);
        }
    }

    fn add_to_bucket(&mut self, k: i32, n: u64) {
        if self.buckets.is_empty() {
            self.offset = k;
            self.buckets.push(0);
        } else if k < self.offset {
            let grow = (self.offset - k) as usize;
            self.buckets.splice(0..0, core::iter::repeat_n(0, grow));
            self.offset = k;
        }
        let i = (k - self.offset) as usize;
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, 0);
        }
        self.buckets[i] += n;
        if self.buckets.len() > MAX_BUCKETS {
            let excess = self.buckets.len() - MAX_BUCKETS;
            let folded: u64 = self.buckets.drain(..excess).sum();
            self.buckets[0] += folded;
            self.offset += excess as i32;
        }
    }

    /// Counts every value `k` times (a summary sampled at a rate `k` times lower than another's
    /// stands for `k` times as many streams when the two are merged).
    pub fn scale(&mut self, k: u64) {
        self.count *= k;
        self.zero *= k;
        self.sum *= k as f64;
        for b in &mut self.buckets {
            *b *= k;
        }
    }

    /// Adds all of `other`'s values.
    pub fn merge(&mut self, other: &Sketch) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            self.min = other.min;
            self.max = other.max;
        } else {
            self.min = self.min.min(other.min);
            self.max = self.max.max(other.max);
        }
        self.count += other.count;
        self.sum += other.sum;
        self.zero += other.zero;
        for (i, &n) in other.buckets.iter().enumerate() {
            if n > 0 {
                self.add_to_bucket(other.offset + i as i32, n);
            }
        }
    }

    /// The `q` quantile (0..=1), within relative error [`ALPHA`]; `None` when empty. Like
    /// the exact quantile of sorted samples, it interpolates between the two closest ranks, so a
    /// summary and a single stream's report follow the same convention (and the p99 of three
    /// streams is near the slowest, not the middle one).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = unit(q) * (self.count - 1) as f64;
        let lo = float::floor(rank);
        let a = self.at_rank(lo as u64);
        let b = self.at_rank(float::ceil(rank) as u64);
        Some(a + (b - a) * (rank - lo))
    }

    /// The value of the `rank`-th smallest item (0-based), within relative error [`ALPHA`].
    fn at_rank(&self, rank: u64) -> f64 {
        if rank == 0 {
            return self.min;
        }
        if rank + 1 >= self.count {
            return self.max;
        }
        if rank < self.zero {
            return self.min;
        }
        let mut seen = self.zero;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen > rank {
                let v = value(self.offset + i as i32);
                return v.max(self.min).min(self.max);
            }
        }
        self.max
    }
}

impl Sketch {
    /// Writes the sketch compactly: `[offset, zero, count, min, max, sum, [buckets…]]`, or
    /// `null` when empty. Counts and buckets are integers, so merging an export is exact.
    pub fn export(&self, w: &mut crate::jsonwrite::JsonWriter) {
        if self.count == 0 {
            w.null();
            return;
        }
        w.open_array();
        w.num(f64::from(self.offset));
        w.uint(self.zero);
        w.uint(self.count);
        w.raw_f64(self.min);
        w.raw_f64(self.max);
        w.raw_f64(self.sum);
        w.open_array();
        for &b in &self.buckets {
            w.uint(b);
        }
        w.close_array();
        w.close_array();
    }

    /// Reads what [`Sketch::export`] wrote, its `min`, `max` and `sum` with `number` (a saved
    /// timeline reads them correctly rounded, so that they come back bit for bit).
    pub fn import(
        sc: &mut crate::read::jsonscan::Scanner<'_>,
        number: fn(&mut crate::read::jsonscan::Scanner<'_>) -> crate::read::jsonscan::Result<f64>,
    ) -> crate::read::jsonscan::Result<Sketch> {
        let mut s = Sketch::new();
        if sc.is_null() {
            sc.skip()?;
            return Ok(s);
        }
        let mut nums = [0f64; 6];
        sc.array(&mut |sc, i| {
            if i < 6 {
                nums[i] = number(sc)?;
                Ok(())
            } else if i == 6 {
                sc.array(&mut |sc, _| {
                    if s.buckets.len() < MAX_BUCKETS {
                        s.buckets.push(sc.number()?.max(0.0) as u64);
                        Ok(())
                    } else {
                        sc.skip()
                    }
                })
            } else {
                sc.skip()
            }
        })?;
        s.offset = nums[0] as i32;
        s.zero = nums[1].max(0.0) as u64;
        s.count = nums[2].max(0.0) as u64;
        s.min = nums[3];
        s.max = nums[4];
        s.sum = nums[5];
        Ok(s)
    }
}

/// `q` limited to 0..=1. Not `f64::clamp`: its panic message formats floats, which alone would
/// add ~15 KB to the wasm module.
pub fn unit(q: f64) -> f64 {
    if q > 1.0 {
        1.0
    } else if q > 0.0 {
        q
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::quantile_sorted;

    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
        fn normal(&mut self) -> f64 {
            let (u, v) = (self.unit(), self.unit());
            (-2.0 * u.ln()).sqrt() * (2.0 * core::f64::consts::PI * v).cos()
        }
    }

    fn exact(sorted: &[f64], q: f64) -> f64 {
        quantile_sorted(sorted, q).unwrap()
    }

    fn check(name: &str, mut data: Vec<f64>) {
        let mut s = Sketch::new();
        data.iter().for_each(|&x| s.add(x));
        data.sort_by(f64::total_cmp);
        for q in [0.0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0] {
            let (want, got) = (exact(&data, q), s.quantile(q).unwrap());
            let tol = ALPHA * want.abs() + 1e-9;
            assert!(
                (got - want).abs() <= tol + MIN_VALUE,
                "{name} n={} q={q}: {got} vs {want}",
                data.len()
            );
        }
        assert_eq!(s.max(), data.last().copied());
    }

    #[test]
    fn quantiles_are_within_one_percent_for_many_distributions_and_sizes() {
        let mut rng = Rng(42);
        for n in [3usize, 10, 100, 1_000, 100_000] {
            let uniform: Vec<f64> = (0..n).map(|_| 1.0 + 999.0 * rng.unit()).collect();
            let exponential: Vec<f64> = (0..n).map(|_| -50.0 * rng.unit().ln()).collect();
            let lognormal: Vec<f64> = (0..n).map(|_| (3.0 + 1.5 * rng.normal()).exp()).collect();
            let bimodal: Vec<f64> = (0..n)
                .map(|i| {
                    if i % 3 == 0 {
                        800.0 + 50.0 * rng.unit()
                    } else {
                        20.0 + 5.0 * rng.unit()
                    }
                })
                .collect();
            let constant = vec![16.7; n];
            check("uniform", uniform);
            check("exponential", exponential);
            check("lognormal", lognormal);
            check("bimodal", bimodal);
            check("constant", constant);
        }
    }

    #[test]
    fn merging_parts_equals_the_sketch_of_the_whole() {
        let mut rng = Rng(7);
        let data: Vec<f64> = (0..10_000).map(|_| (2.0 + rng.normal()).exp()).collect();
        let mut whole = Sketch::new();
        data.iter().for_each(|&x| whole.add(x));
        let mut merged = Sketch::new();
        for part in data.chunks(777) {
            let mut s = Sketch::new();
            part.iter().for_each(|&x| s.add(x));
            merged.merge(&s);
        }
        for q in [0.5, 0.9, 0.95, 0.99] {
            assert_eq!(merged.quantile(q), whole.quantile(q));
        }
        assert_eq!((merged.count(), merged.max()), (whole.count(), whole.max()));
    }

    #[test]
    fn zeros_and_empty() {
        let mut s = Sketch::new();
        assert_eq!(s.quantile(0.5), None);
        for x in [0.0, 0.0, 0.0, 5.0, -1.0, f64::NAN] {
            s.add(x);
        }
        assert_eq!(s.count(), 5);
        assert_eq!(s.quantile(0.5), Some(0.0));
        // Rank 0.99 · 4 = 3.96 lies between a zero and the maximum, 5.
        assert!((s.quantile(0.99).unwrap() - 4.8).abs() < 1e-9);
        assert_eq!((s.quantile(1.0), s.max()), (Some(5.0), Some(5.0)));
    }
}
