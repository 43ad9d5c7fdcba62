//! How well a model's scores separate right from wrong: precision, recall and F1 when
//! everything scored at least a threshold is taken, for every threshold the scores
//! offer, and the point-biserial correlation between score and outcome.
//!
//! COVID-Fact chose the contradiction score above which a generated counter-claim was
//! kept from precision, recall and F1 against people's verdicts, and reported the
//! point-biserial correlation of score and verdict; `factdesk predictions compare` gives
//! both for any model's `score`.

use serde::Serialize;

/// Taking every item scored at least `threshold`, against the items whose outcome is
/// positive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ts_rs::TS)]
pub struct ThresholdPoint {
    pub threshold: f64,
    /// Items scored at least the threshold.
    pub taken: u64,
    /// Of them, those whose outcome is positive.
    pub true_positives: u64,
    /// `true_positives / taken` (never undefined: the threshold is a score some item has).
    pub precision: f64,
    /// `true_positives / positives`; null when no outcome is positive.
    pub recall: Option<f64>,
    /// The harmonic mean of precision and recall (0 when both are); null with recall.
    pub f1: Option<f64>,
}

/// Every distinct score as a threshold, lowest first. Scores that are not finite are
/// left out (imports refuse them).
pub fn threshold_sweep(scored: &[(f64, bool)]) -> Vec<ThresholdPoint> {
    let mut items: Vec<(f64, bool)> = scored
        .iter()
        .copied()
        .filter(|(s, _)| s.is_finite())
        .collect();
    // Highest first, so each threshold's counts are a running sum.
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    let positives = items.iter().filter(|(_, p)| *p).count() as u64;
    let mut out = Vec::new();
    let (mut taken, mut true_positives) = (0u64, 0u64);
    let mut i = 0;
    while i < items.len() {
        let threshold = items[i].0;
        // Items with the same score are taken together.
        while i < items.len() && items[i].0 == threshold {
            taken += 1;
            true_positives += u64::from(items[i].1);
            i += 1;
        }
        let precision = true_positives as f64 / taken as f64;
        let recall = (positives > 0).then(|| true_positives as f64 / positives as f64);
        let f1 = recall.map(|r| {
            if precision + r > 0.0 {
                2.0 * precision * r / (precision + r)
            } else {
                0.0
            }
        });
        out.push(ThresholdPoint {
            threshold,
            taken,
            true_positives,
            precision,
            recall,
            f1,
        });
    }
    out.reverse();
    out
}

/// The point of the sweep with the highest F1; of equal ones the highest threshold (the
/// fewest items taken for the same F1). None when F1 is undefined (no positive outcome).
pub fn best_f1(sweep: &[ThresholdPoint]) -> Option<ThresholdPoint> {
    sweep
        .iter()
        .filter_map(|p| p.f1.map(|f1| (f1, p)))
        .fold(
            None,
            |best: Option<(f64, &ThresholdPoint)>, (f1, p)| match best {
                Some((b, _)) if b > f1 => best,
                _ => Some((f1, p)),
            },
        )
        .map(|(_, p)| *p)
}

/// The point-biserial correlation between score and outcome: Pearson's r with the
/// outcome as 1 or 0, that is (M1 - M0) / s * sqrt(p q) with M1 and M0 the mean scores of
/// the positive and negative items, s the standard deviation of all scores (over n) and
/// p and q the shares of positive and negative items. None (undefined) when every
/// outcome is the same or every score is.
pub fn point_biserial(scored: &[(f64, bool)]) -> Option<f64> {
    let items: Vec<(f64, bool)> = scored
        .iter()
        .copied()
        .filter(|(s, _)| s.is_finite())
        .collect();
    let n = items.len() as f64;
    let positives: Vec<f64> = items.iter().filter(|(_, p)| *p).map(|(s, _)| *s).collect();
    let negatives: Vec<f64> = items.iter().filter(|(_, p)| !*p).map(|(s, _)| *s).collect();
    if positives.is_empty() || negatives.is_empty() {
        return None;
    }
    // Equal scores carry no signal; their spread, 0 up to rounding, must not be divided by.
    if items.iter().all(|(s, _)| *s == items[0].0) {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let all: f64 = items.iter().map(|(s, _)| s).sum::<f64>() / n;
    let variance = items.iter().map(|(s, _)| (s - all).powi(2)).sum::<f64>() / n;
    let (p, q) = (positives.len() as f64 / n, negatives.len() as f64 / n);
    Some((mean(&positives) - mean(&negatives)) / variance.sqrt() * (p * q).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-12, "{got} != {want}");
    }

    /// Scores 0.9, 0.8, 0.7, 0.6, 0.2 with outcomes yes, yes, no, yes, no. By hand, at
    /// each threshold (taken, true positives; precision, recall, F1):
    /// 0.2: 5, 3; 3/5, 1, 3/4. 0.6: 4, 3; 3/4, 1, 6/7. 0.7: 3, 2; 2/3, 2/3, 2/3.
    /// 0.8: 2, 2; 1, 2/3, 4/5. 0.9: 1, 1; 1, 1/3, 1/2. numpy.corrcoef gives r 0.64195.
    const CASE: [(f64, bool); 5] = [
        (0.7, false),
        (0.9, true),
        (0.2, false),
        (0.6, true),
        (0.8, true),
    ];

    #[test]
    fn a_hand_worked_sweep() {
        let sweep = threshold_sweep(&CASE);
        let want = [
            (0.2, 5, 3, 0.6, 1.0, 0.75),
            (0.6, 4, 3, 0.75, 1.0, 6.0 / 7.0),
            (0.7, 3, 2, 2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0),
            (0.8, 2, 2, 1.0, 2.0 / 3.0, 0.8),
            (0.9, 1, 1, 1.0, 1.0 / 3.0, 0.5),
        ];
        assert_eq!(sweep.len(), want.len());
        for (p, (t, taken, tp, precision, recall, f1)) in sweep.iter().zip(want) {
            close(p.threshold, t);
            assert_eq!((p.taken, p.true_positives), (taken, tp), "{p:?}");
            close(p.precision, precision);
            close(p.recall.unwrap_or(f64::NAN), recall);
            close(p.f1.unwrap_or(f64::NAN), f1);
        }
        let best = best_f1(&sweep).map(|p| p.threshold);
        assert_eq!(best, Some(0.6));
        close(
            point_biserial(&CASE).unwrap_or(f64::NAN),
            0.6419505094795118,
        );
    }

    #[test]
    fn equal_scores_are_one_threshold_and_ties_in_f1_keep_the_higher() {
        let scored = [(0.5, true), (0.5, false), (0.3, false), (0.3, false)];
        let sweep = threshold_sweep(&scored);
        assert_eq!(sweep.len(), 2);
        assert_eq!((sweep[1].taken, sweep[1].true_positives), (2, 1));
        close(
            point_biserial(&scored).unwrap_or(f64::NAN),
            0.5773502691896257,
        );
        // F1 2/3 at 0.5, 2/5 at 0.3.
        assert_eq!(best_f1(&sweep).map(|p| p.threshold), Some(0.5));
        // F1 2/3 at 0.9 and at 0.6 (1/2 and 2/5 between): the higher threshold is kept.
        let tied = [(0.9, true), (0.8, false), (0.7, false), (0.6, true)];
        assert_eq!(
            best_f1(&threshold_sweep(&tied)).map(|p| p.threshold),
            Some(0.9)
        );
        // A higher F1 wins over a higher threshold.
        let rising = [(0.9, true), (0.1, true)];
        assert_eq!(
            best_f1(&threshold_sweep(&rising)).map(|p| p.threshold),
            Some(0.1)
        );
    }

    #[test]
    fn undefined_without_both_outcomes_or_without_spread() {
        assert_eq!(point_biserial(&[(0.9, true), (0.2, true)]), None);
        assert_eq!(point_biserial(&[(0.4, true), (0.4, false)]), None);
        assert_eq!(point_biserial(&[]), None);
        let no_positive = threshold_sweep(&[(0.4, false)]);
        assert_eq!(no_positive[0].recall, None);
        assert_eq!(best_f1(&no_positive), None);
        assert!(threshold_sweep(&[]).is_empty());
    }
}
