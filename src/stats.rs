//! Exact percentiles over one stream's samples.

/// The `q` quantile (0..=1) of sorted samples, interpolating between the closest ranks (the
/// convention of NumPy's default and of vLLM's benchmark reports). `None` when empty.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let rank = unit(q) * last as f64;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(last);
    let frac = rank - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
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
        samples.sort_unstable_by(f64::total_cmp);
        Some(Spread {
            count: samples.len(),
            p50: quantile_sorted(samples, 0.5)?,
            p95: quantile_sorted(samples, 0.95)?,
            max: *samples.last()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
