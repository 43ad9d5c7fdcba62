//! What chance alone gives: the exact distribution of the number of successes in
//! independent trials, each with its own probability (the Poisson binomial).
//!
//! The attack tests ask whether a guesser finds the trick more often than chance allows.
//! A normal approximation with a few standard deviations of margin fails by chance once
//! in a few hundred runs when a dozen strategies are checked; the exact tail with a
//! Bonferroni share of the error per strategy fails by chance at most as often as asked.

/// The probability of each count of successes `0..=ps.len()` in independent trials that
/// succeed with the probabilities `ps` (each clamped to `[0, 1]`). Exact up to rounding:
/// one pass of the convolution per trial.
pub fn distribution(ps: &[f64]) -> Vec<f64> {
    let mut dist = vec![0.0; ps.len() + 1];
    dist[0] = 1.0;
    for (done, &p) in ps.iter().enumerate() {
        let p = p.clamp(0.0, 1.0);
        for k in (0..=done + 1).rev() {
            let stay = dist[k] * (1.0 - p);
            let step = if k > 0 { dist[k - 1] * p } else { 0.0 };
            dist[k] = stay + step;
        }
    }
    dist
}

/// The probability of more than `count` successes.
pub fn above(ps: &[f64], count: usize) -> f64 {
    distribution(ps)
        .iter()
        .skip(count + 1)
        .sum::<f64>()
        .min(1.0)
}

/// The most successes chance gives with false-alarm probability at most `alpha`: the
/// smallest `count` such that more than `count` successes happen by chance with
/// probability at most `alpha`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// More hits than this beat chance.
    pub count: usize,
    /// The exact probability that chance alone gives more than `count` hits.
    pub false_alarm: f64,
    /// The hits chance gives on average.
    pub expected: f64,
}

/// The [`Bound`] for trials with success probabilities `ps` at false-alarm probability
/// `alpha`.
pub fn bound(ps: &[f64], alpha: f64) -> Bound {
    let dist = distribution(ps);
    let expected = ps.iter().map(|p| p.clamp(0.0, 1.0)).sum();
    // Walk down from the top, adding each count's probability to the tail above it.
    let mut tail = 0.0;
    let mut count = ps.len();
    while count > 0 && tail + dist[count] <= alpha {
        tail += dist[count];
        count -= 1;
    }
    Bound {
        count,
        false_alarm: tail,
        expected,
    }
}

/// The fewest successes chance gives with false-alarm probability at most `alpha`: the
/// largest `count` such that fewer than `count` successes happen by chance with
/// probability at most `alpha` (`false_alarm` is that probability).
pub fn floor(ps: &[f64], alpha: f64) -> Bound {
    let dist = distribution(ps);
    let expected = ps.iter().map(|p| p.clamp(0.0, 1.0)).sum();
    let mut tail = 0.0;
    let mut count = 0;
    while count < ps.len() && tail + dist[count] <= alpha {
        tail += dist[count];
        count += 1;
    }
    Bound {
        count,
        false_alarm: tail,
        expected,
    }
}

/// The Wilson score interval's lower end for `successes` of `trials` at the two-sided
/// normal quantile `z` (1.96 for 95%): how low the true rate may be, given what was seen.
/// 0 when there are no trials.
pub fn wilson_lower(successes: u64, trials: u64, z: f64) -> f64 {
    if trials == 0 {
        return 0.0;
    }
    let n = trials as f64;
    let p = successes.min(trials) as f64 / n;
    let z2 = z * z;
    let centre = p + z2 / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - spread) / (1.0 + z2 / n)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} against {b}");
    }

    #[test]
    fn equal_probabilities_give_the_binomial() {
        // Binomial(10, 0.5): P(X = 5) = 252/1024, P(X > 8) = 11/1024.
        let ps = [0.5; 10];
        let d = distribution(&ps);
        close(d[5], 252.0 / 1024.0, 1e-15);
        close(above(&ps, 8), 11.0 / 1024.0, 1e-15);
        close(d.iter().sum(), 1.0, 1e-12);
    }

    #[test]
    fn the_bound_is_the_smallest_count_within_alpha() {
        // Binomial(200, 1/6): P(X > k) is 1.844e-7 at k = 62 and 4.280e-7 at k = 61 (sums
        // of exact binomial terms), so at alpha = 2e-7 the bound is 62.
        let ps = [1.0 / 6.0; 200];
        let b = bound(&ps, 2e-7);
        assert_eq!(b.count, 62);
        close(b.false_alarm, 1.844_28e-7, 1e-11);
        assert!(b.false_alarm <= 2e-7);
        assert!(above(&ps, b.count - 1) > 2e-7);
        close(b.expected, 200.0 / 6.0, 1e-9);
    }

    #[test]
    fn the_floor_mirrors_the_bound() {
        // Binomial(200, 1/6) is the mirror of Binomial(200, 5/6): fewer than c successes of
        // one are more than 200 - c of the other. P(X < 10) is 1.135e-7 and P(X < 11)
        // 4.487e-7, so at alpha = 2e-7 the floor is 10.
        let low = floor(&[1.0 / 6.0; 200], 2e-7);
        let high = bound(&[5.0 / 6.0; 200], 2e-7);
        assert_eq!(low.count, 10);
        assert_eq!(low.count, 200 - high.count);
        close(low.false_alarm, high.false_alarm, 1e-15);
        assert!(low.false_alarm <= 2e-7);
    }

    #[test]
    fn trials_that_cannot_succeed_add_nothing() {
        // A slot guess on items with fewer slots than its number never hits there.
        let mut ps = vec![0.25; 40];
        ps.extend([0.0; 40]);
        let with_zeros = bound(&ps, 1e-6);
        let without = bound(&[0.25; 40], 1e-6);
        assert_eq!(with_zeros.count, without.count);
        // Certain trials shift the count by their number.
        let mut sure = vec![1.0; 3];
        sure.extend([0.25; 40]);
        assert_eq!(bound(&sure, 1e-6).count, without.count + 3);
    }

    #[test]
    fn wilson_lower_matches_the_published_formula() {
        // 3 of 3 at 95%: 0.4385 (Wilson 1927's formula).
        close(wilson_lower(3, 3, 1.959_964), 0.438_5, 1e-4);
        // 81 of 263: 0.2553 (Newcombe 1998, example (b)).
        close(wilson_lower(81, 263, 1.959_964), 0.255_3, 1e-4);
        assert_eq!(wilson_lower(0, 0, 1.96), 0.0);
    }
}
