//! How well a ranking put a claim's gold evidence sentences in its top k: the figures
//! `factdesk eval-ranking` reports, each with one definition (docs/ranking.md).
//!
//! Every figure is computed per claim and then averaged over claims (macro average), so a
//! claim with many gold sentences weighs as much as one with a single gold sentence.

/// The cut-offs k the evaluation reports: a task shows the top 5, and 1, 2 and 3 show
/// how near the top the gold evidence sits (2: the multilingual pipeline's MRR@2 and P@2
/// of the top 2 passages).
pub const CUTOFFS: [usize; 4] = [1, 2, 3, 5];

/// One claim's figures at a cut-off k, or their mean over claims.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RetrievalAtK {
    /// 1 when at least one gold sentence is in the top k, else 0: COVID-Fact's evidence
    /// recall.
    pub hit: f64,
    /// The share of the claim's gold sentences found in the top k.
    pub recall: f64,
    /// The share of the top k that is gold, out of k (a ranking shorter than k counts
    /// its missing places as wrong).
    pub precision: f64,
    /// The harmonic mean of this claim's precision and recall at k; 0 when both are.
    pub f1: f64,
    /// 1 / the rank of the first gold sentence when it is within the top k, else 0.
    pub mrr: f64,
    /// Average precision at k: the precision at each rank i <= k that holds a gold
    /// sentence, summed and divided by min(k, the number of gold sentences), so a ranking
    /// with every place it could fill filled by gold scores 1.
    pub map: f64,
}

impl RetrievalAtK {
    /// The figures of one claim: `is_gold[i]` says whether the sentence ranked `i + 1`
    /// is one of its `gold` gold sentences. A claim without gold sentences scores 0
    /// everywhere (the caller leaves such claims out).
    pub fn of(is_gold: &[bool], gold: usize, k: usize) -> RetrievalAtK {
        if gold == 0 || k == 0 {
            return RetrievalAtK::default();
        }
        let top = &is_gold[..k.min(is_gold.len())];
        let mut found = 0usize;
        let mut first = None;
        let mut precision_sum = 0.0;
        for (i, _) in top.iter().enumerate().filter(|(_, g)| **g) {
            found += 1;
            first.get_or_insert(i + 1);
            precision_sum += found as f64 / (i + 1) as f64;
        }
        let recall = found as f64 / gold as f64;
        let precision = found as f64 / k as f64;
        RetrievalAtK {
            hit: if found > 0 { 1.0 } else { 0.0 },
            recall,
            precision,
            f1: if precision + recall > 0.0 {
                2.0 * precision * recall / (precision + recall)
            } else {
                0.0
            },
            mrr: first.map_or(0.0, |rank| 1.0 / rank as f64),
            map: precision_sum / k.min(gold) as f64,
        }
    }

    /// The mean of `claims`' figures; all 0 for none.
    pub fn mean(claims: &[RetrievalAtK]) -> RetrievalAtK {
        let n = claims.len().max(1) as f64;
        let sum = |f: fn(&RetrievalAtK) -> f64| claims.iter().map(f).sum::<f64>() / n;
        RetrievalAtK {
            hit: sum(|c| c.hit),
            recall: sum(|c| c.recall),
            precision: sum(|c| c.precision),
            f1: sum(|c| c.f1),
            mrr: sum(|c| c.mrr),
            map: sum(|c| c.map),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, what: &str) {
        assert!((got - want).abs() < 1e-12, "{what}: {got} != {want}");
    }

    fn assert_figures(got: RetrievalAtK, want: [f64; 6]) {
        let names = ["hit", "recall", "precision", "f1", "mrr", "map"];
        let got_all = [got.hit, got.recall, got.precision, got.f1, got.mrr, got.map];
        for ((g, w), name) in got_all.into_iter().zip(want).zip(names) {
            close(g, w, name);
        }
    }

    /// Ranked: wrong, gold, wrong, gold, gold; the claim has 4 gold sentences (one never
    /// ranked). Worked by hand:
    /// - k = 1: nothing found.
    /// - k = 3: 1 found at rank 2: recall 1/4, precision 1/3, F1 2/7, MRR 1/2, MAP (1/2)/3.
    /// - k = 5: 3 found at ranks 2, 4, 5: recall 3/4, precision 3/5, F1 2/3, MRR 1/2,
    ///   MAP (1/2 + 2/4 + 3/5)/4 = 0.4.
    #[test]
    fn a_hand_worked_ranking() {
        let ranked = [false, true, false, true, true];
        assert_figures(RetrievalAtK::of(&ranked, 4, 1), [0.0; 6]);
        assert_figures(
            RetrievalAtK::of(&ranked, 4, 3),
            [1.0, 0.25, 1.0 / 3.0, 2.0 / 7.0, 0.5, 1.0 / 6.0],
        );
        assert_figures(
            RetrievalAtK::of(&ranked, 4, 5),
            [1.0, 0.75, 0.6, 2.0 / 3.0, 0.5, 0.4],
        );
    }

    /// One gold sentence ranked first of a ranking of one: found, but four of the five
    /// places are empty.
    #[test]
    fn a_ranking_shorter_than_k_counts_its_empty_places_as_wrong() {
        let got = RetrievalAtK::of(&[true], 1, 5);
        assert_figures(got, [1.0, 1.0, 0.2, 1.0 / 3.0, 1.0, 1.0]);
    }

    /// Hit and recall part ways when a claim has several gold sentences: 2 of 4 found in
    /// the top 3 is a hit of 1 and a recall of 0.5; the mean over two claims halves both
    /// for a claim that found nothing.
    #[test]
    fn hit_is_at_least_one_gold_recall_is_the_share_found() {
        let found_two = RetrievalAtK::of(&[true, false, true], 4, 3);
        close(found_two.hit, 1.0, "hit");
        close(found_two.recall, 0.5, "recall");
        close(found_two.map, (1.0 + 2.0 / 3.0) / 3.0, "map");
        let none = RetrievalAtK::of(&[false, false, false], 1, 3);
        let mean = RetrievalAtK::mean(&[found_two, none]);
        close(mean.hit, 0.5, "mean hit");
        close(mean.recall, 0.25, "mean recall");
        assert_eq!(RetrievalAtK::mean(&[]), RetrievalAtK::default());
    }
}
