//! The encoder's element-wise steps, written without branches so the compiler turns each
//! loop into SIMD: `exp` by range reduction and a polynomial, `erf` by Abramowitz and
//! Stegun's formula 7.1.26 (largest error 1.5e-7), and sums kept in eight lanes.
//! Called once per element through the C library, erf and exp took 11 % and 5.5 % of
//! the previous (candle) encoder's time (docs/ranking.md).

const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts, so `n * LN2_HI` is exact for the `n` that occur.
const LN2_HI: f32 = 0.693_145_75;
const LN2_LO: f32 = 1.428_606_8e-6;
/// 1.5 * 2^23: adding it rounds a float to an integer held in the low mantissa bits.
const ROUND: f32 = 12_582_912.0;

/// e^x, relative error under 1e-7 for x in [-87, 88]; inputs outside are clamped, so
/// very negative ones give about 1.6e-38 rather than 0 (a softmax weight that small is
/// lost in the sum anyway).
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let t = x * LOG2_E + ROUND;
    let n = t - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // n as an integer: t's bits exceed ROUND's by exactly n.
    let k = t.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
    p * f32::from_bits(((k + 127) << 23) as u32)
}

/// The error function (Abramowitz and Stegun 7.1.26).
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [
        0.254_829_6,
        -0.284_496_74,
        1.421_413_8,
        -1.453_152,
        1.061_405_4,
    ];
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// GELU as BERT defines it (with erf, not the tanh approximation), in place.
pub(crate) fn gelu(xs: &mut [f32]) {
    for x in xs {
        *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// The sum, in eight lanes so that it vectorises.
pub(crate) fn sum(xs: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += x;
        }
    }
    lanes.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

fn max(xs: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l = if x > *l { x } else { *l };
        }
    }
    lanes
        .iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &x| m.max(x))
}

/// Softmax of one row of attention scores, in place.
pub(crate) fn softmax(row: &mut [f32]) {
    let top = max(row);
    for x in row.iter_mut() {
        *x = exp(*x - top);
    }
    let scale = 1.0 / sum(row);
    for x in row {
        *x *= scale;
    }
}

/// Layer normalisation of one row, in place: zero mean, unit variance (biased, as
/// torch's LayerNorm), then scaled and shifted by the layer's weights.
pub(crate) fn layer_norm(row: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let n = row.len() as f32;
    let mean = sum(row) / n;
    let mut lanes = [0.0f32; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (l, x) in lanes.iter_mut().zip(c) {
            *l += (x - mean) * (x - mean);
        }
    }
    let squares =
        lanes.iter().sum::<f32>() + rest.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>();
    let inv = 1.0 / (squares / n + eps).sqrt();
    for ((x, w), b) in row.iter_mut().zip(weight).zip(bias) {
        *x = (*x - mean) * inv * w + b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_a_few_units_in_the_last_place() {
        let mut worst = 0.0f64;
        for i in -87_000..=88_000 {
            let x = i as f32 / 1000.0;
            let want = f64::from(x).exp();
            worst = worst.max(((f64::from(exp(x)) - want) / want).abs());
        }
        assert!(worst < 3e-7, "relative error {worst}");
        assert!(exp(-1e9) < 1e-37 && exp(-1e9) >= 0.0);
        assert!(exp(1e9).is_finite());
    }

    #[test]
    fn erf_and_gelu_agree_with_the_exact_functions() {
        // erf from its series (small x) and its continued-fraction-free tail bound: the
        // f64 reference is the composite Simpson integral of 2/sqrt(pi) e^(-t^2).
        let erf64 = |x: f64| {
            let steps = 2000;
            let h = x / f64::from(steps);
            let f = |t: f64| (-t * t).exp();
            let mut s = f(0.0) + f(x);
            for i in 1..steps {
                s += f(f64::from(i) * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
            }
            s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt()
        };
        let mut worst = 0.0f64;
        for i in -600..=600 {
            let x = i as f32 / 100.0;
            worst = worst.max((f64::from(erf(x)) - erf64(f64::from(x))).abs());
        }
        // 1.5e-7 from the formula, the rest from rounding in f32.
        assert!(worst < 5e-7, "erf error {worst}");
        let mut xs = [-3.0f32, -0.5, 0.0, 0.5, 3.0];
        gelu(&mut xs);
        for (g, x) in xs.iter().zip([-3.0f64, -0.5, 0.0, 0.5, 3.0]) {
            let want = 0.5 * x * (1.0 + erf64(x / std::f64::consts::SQRT_2));
            assert!(
                (f64::from(*g) - want).abs() < 1e-6,
                "gelu({x}) = {g}, want {want}"
            );
        }
    }

    #[test]
    fn softmax_and_layer_norm_match_their_definitions() {
        let mut row: Vec<f32> = (0..45).map(|i| (i as f32 * 0.37).sin() * 9.0).collect();
        let raw = row.clone();
        softmax(&mut row);
        let total: f64 = raw.iter().map(|&x| f64::from(x).exp()).sum();
        for (p, x) in row.iter().zip(&raw) {
            assert!((f64::from(*p) - f64::from(*x).exp() / total).abs() < 1e-7);
        }
        let mut row: Vec<f32> = (0..384)
            .map(|i| (i as f32 * 0.11).cos() * 3.0 + 1.0)
            .collect();
        let raw = row.clone();
        let w: Vec<f32> = (0..384).map(|i| 1.0 + i as f32 / 384.0).collect();
        let b = vec![0.25f32; 384];
        layer_norm(&mut row, &w, &b, 1e-12);
        let mean = raw.iter().map(|&x| f64::from(x)).sum::<f64>() / 384.0;
        let var = raw
            .iter()
            .map(|&x| (f64::from(x) - mean).powi(2))
            .sum::<f64>()
            / 384.0;
        for i in 0..384 {
            let want = (f64::from(raw[i]) - mean) / var.sqrt() * f64::from(w[i]) + 0.25;
            assert!((f64::from(row[i]) - want).abs() < 1e-5, "{i}");
        }
    }
}
