//! The load bench's arithmetic: percentiles of what it measured, and a person's pace.

use std::time::Duration;

/// The value below which a fraction `p` of `sorted` lies (NaN when there is none).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// A pause drawn from an exponential distribution of mean `mean_ms` (xorshift state in
/// `seed`): how long a person takes over an item varies that way, mostly short.
pub fn think(seed: &mut u64, mean_ms: f64) -> Duration {
    if mean_ms <= 0.0 {
        return Duration::ZERO;
    }
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    let uniform = ((*seed >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    Duration::from_secs_f64(-uniform.ln() * mean_ms / 1e3)
}
