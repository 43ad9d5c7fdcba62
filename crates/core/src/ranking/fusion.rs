//! Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009).
//!
//! Scores from different rankers are not comparable (BM25 is unbounded, the similarities
//! lie in 0..=1), but ranks are: a sentence scores `Σ 1 / (k + rank)` over the rankings
//! it appears in, so being near the top of several rankings beats being first in one.

use super::{best_first, rank_order, Scored};

/// The usual constant, from the paper; it damps the weight of the very top ranks.
pub const RRF_K: f64 = 60.0;

/// Fuses rankings by reciprocal rank, best first. Each input is put in `rank_order`
/// first; ranks are 1-based positions in it. A sentence listed twice in one ranking
/// counts once, at its better rank. A `k` that is negative or not finite is replaced by
/// [`RRF_K`], since it could divide by zero.
pub fn fuse(rankings: &[&[Scored]], k: f64) -> Vec<Scored> {
    let weighted: Vec<(&[Scored], f64)> = rankings.iter().map(|&r| (r, 1.0)).collect();
    fuse_weighted(&weighted, k)
}

/// Reciprocal rank fusion with a weight per ranking: a sentence scores
/// `Σ weight / (k + rank)`. A ranker known to be weaker can then still break the
/// stronger one's ties without dragging its good rankings down.
pub fn fuse_weighted(rankings: &[(&[Scored], f64)], k: f64) -> Vec<Scored> {
    let k = if k.is_finite() && k >= 0.0 { k } else { RRF_K };
    // Each sentence's entry in `out`, found by its id in a small open-addressing table.
    // Shares are added ranking by ranking, so each sentence's sum runs in the rankings'
    // order; within one ranking only a sentence's first (best) position counts.
    let entries: usize = rankings.iter().map(|(r, _)| r.len()).sum();
    let bits = (2 * entries).next_power_of_two().max(8).trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut slots: Vec<u32> = vec![0; mask + 1];
    let mut out: Vec<Scored> = Vec::new();
    // The ranking that last added to each entry of `out`.
    let mut counted_in: Vec<usize> = Vec::new();
    let mut sorted = Vec::new();
    for (which, &(ranking, weight)) in rankings.iter().enumerate() {
        // Rankers already return best first; only copy and sort an input that is not.
        let ordered: &[Scored] = if ranking.iter().all(|s| !s.score.is_nan())
            && ranking.is_sorted_by(|a, b| best_first(a, b).is_le())
        {
            ranking
        } else {
            sorted.clear();
            sorted.extend_from_slice(ranking);
            rank_order(&mut sorted);
            &sorted
        };
        for (position, s) in ordered.iter().enumerate() {
            let share = weight / (k + (position + 1) as f64);
            let hash = (s.sentence_id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut slot = (hash >> (64 - bits)) as usize;
            loop {
                match slots[slot] {
                    0 => {
                        out.push(Scored {
                            sentence_id: s.sentence_id,
                            score: share,
                        });
                        counted_in.push(which);
                        slots[slot] = out.len() as u32;
                        break;
                    }
                    i if out[i as usize - 1].sentence_id == s.sentence_id => {
                        let i = i as usize - 1;
                        if counted_in[i] != which {
                            out[i].score += share;
                            counted_in[i] = which;
                        }
                        break;
                    }
                    _ => slot = (slot + 1) & mask,
                }
            }
        }
    }
    rank_order(&mut out);
    out
}

/// `ranking`'s scores rescaled within it to 0..=1, the best 1 and the worst 0 (all 0 when
/// they are equal), so scores of rankers on different scales can be added. A NaN score
/// counts as the worst.
pub fn min_max(ranking: &[Scored]) -> Vec<Scored> {
    let finite = || ranking.iter().map(|s| s.score).filter(|x| x.is_finite());
    let low = finite().fold(f64::INFINITY, f64::min);
    let high = finite().fold(f64::NEG_INFINITY, f64::max);
    ranking
        .iter()
        .map(|s| Scored {
            sentence_id: s.sentence_id,
            score: if high > low && s.score.is_finite() {
                (s.score - low) / (high - low)
            } else {
                0.0
            },
        })
        .collect()
}

/// Weighted reciprocal rank fusion of `ranks` ([`fuse_weighted`] with `k`) plus, for
/// each of `scores`, its weight times the sentence's min-max rescaled score in it (0 for
/// a sentence it does not list), best first. Ranks say which sentence each ranker
/// prefers; the scores add how far ahead it is, which ranks alone throw away.
pub fn fuse_ranks_and_scores(
    ranks: &[(&[Scored], f64)],
    k: f64,
    scores: &[(&[Scored], f64)],
) -> Vec<Scored> {
    let mut total: std::collections::BTreeMap<i64, f64> = fuse_weighted(ranks, k)
        .into_iter()
        .map(|s| (s.sentence_id, s.score))
        .collect();
    for &(ranking, weight) in scores {
        let mut seen = std::collections::HashSet::new();
        for s in min_max(ranking) {
            // A sentence listed twice counts once, with its first (best) score.
            if seen.insert(s.sentence_id) {
                *total.entry(s.sentence_id).or_default() += weight * s.score;
            }
        }
    }
    let mut out: Vec<Scored> = total
        .into_iter()
        .map(|(sentence_id, score)| Scored { sentence_id, score })
        .collect();
    rank_order(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_rescales_within_the_ranking() {
        let got = min_max(&scored(&[(1, 12.0), (2, 7.0), (3, 2.0), (4, f64::NAN)]));
        assert_eq!(got, scored(&[(1, 1.0), (2, 0.5), (3, 0.0), (4, 0.0)]));
        assert_eq!(
            min_max(&scored(&[(1, 3.0), (2, 3.0)])),
            scored(&[(1, 0.0), (2, 0.0)])
        );
        assert!(min_max(&[]).is_empty());
    }

    #[test]
    fn ranks_and_scores_hand_computed() {
        // Ranks, k = 0: A puts 1 then 2; B puts 2 then 1. Alone they tie (1 + 1/2 each).
        // Scores: C gives 2 a clear lead (10 against 1 and 0 for 3), weight 0.5; sentence
        // 3 is only in C, at its minimum: 0.
        let a = scored(&[(1, 2.0), (2, 1.0)]);
        let b = scored(&[(2, 2.0), (1, 1.0)]);
        let c = scored(&[(2, 10.0), (1, 1.0), (3, 0.0)]);
        let got = fuse_ranks_and_scores(&[(&a, 1.0), (&b, 1.0)], 0.0, &[(&c, 0.5)]);
        let want = [(2, 1.5 + 0.5), (1, 1.5 + 0.5 * 0.1), (3, 0.0)];
        assert_eq!(got.len(), want.len());
        for (g, (id, score)) in got.iter().zip(want) {
            assert_eq!(g.sentence_id, id);
            assert!((g.score - score).abs() < 1e-12, "{g:?}");
        }
        // Without scores it is the rank fusion, ties by id.
        assert_eq!(
            fuse_ranks_and_scores(&[(&a, 1.0), (&b, 1.0)], 0.0, &[]),
            fuse_weighted(&[(&a, 1.0), (&b, 1.0)], 0.0)
        );
    }

    #[test]
    fn weights_scale_each_rankings_share() {
        let a = [
            Scored {
                sentence_id: 1,
                score: 2.0,
            },
            Scored {
                sentence_id: 2,
                score: 1.0,
            },
        ];
        let b = [
            Scored {
                sentence_id: 2,
                score: 2.0,
            },
            Scored {
                sentence_id: 1,
                score: 1.0,
            },
        ];
        let fused = fuse_weighted(&[(&a, 1.0), (&b, 0.5)], 0.0);
        assert_eq!(fused[0].sentence_id, 1);
        assert!((fused[0].score - (1.0 + 0.25)).abs() < 1e-12);
        assert!((fused[1].score - (0.5 + 0.5)).abs() < 1e-12);
    }

    fn scored(pairs: &[(i64, f64)]) -> Vec<Scored> {
        pairs
            .iter()
            .map(|&(sentence_id, score)| Scored { sentence_id, score })
            .collect()
    }

    #[test]
    fn hand_computed_example() {
        // Ranking A: 1, 2, 3. Ranking B (given unsorted): 3, 1, 4. With k = 60:
        //   1: 1/61 + 1/62        2: 1/62
        //   3: 1/63 + 1/61        4: 1/63
        let a = scored(&[(1, 0.9), (2, 0.5), (3, 0.1)]);
        let b = scored(&[(4, 1.0), (1, 7.0), (3, 12.0)]);
        let got = fuse(&[&a, &b], RRF_K);
        let want = [
            (1, 1.0 / 61.0 + 1.0 / 62.0),
            (3, 1.0 / 63.0 + 1.0 / 61.0),
            (2, 1.0 / 62.0),
            (4, 1.0 / 63.0),
        ];
        assert_eq!(got.len(), want.len());
        for (g, (id, score)) in got.iter().zip(want) {
            assert_eq!(g.sentence_id, id);
            assert!((g.score - score).abs() < 1e-15, "{g:?}");
        }
        // The concrete values: 0.0325225..., 0.0322665..., 0.0161290..., 0.0158730...
        assert!((got[0].score - 0.032_522_474_9).abs() < 1e-9);
        assert!((got[1].score - 0.032_266_458_5).abs() < 1e-9);
    }

    #[test]
    fn equal_fused_scores_break_by_sentence_id() {
        // 5 is first in one ranking and second in the other, as is 2: a tie.
        let a = scored(&[(5, 2.0), (2, 1.0)]);
        let b = scored(&[(2, 2.0), (5, 1.0)]);
        let got = fuse(&[&a, &b], RRF_K);
        assert_eq!(
            got.iter().map(|s| s.sentence_id).collect::<Vec<_>>(),
            [2, 5]
        );
        assert_eq!(got[0].score, got[1].score);
    }

    #[test]
    fn small_k_and_bad_k() {
        let a = scored(&[(1, 1.0), (2, 0.5)]);
        assert_eq!(fuse(&[&a], 0.0), scored(&[(1, 1.0), (2, 0.5)]));
        assert_eq!(fuse(&[&a], f64::NAN), fuse(&[&a], RRF_K));
        assert_eq!(fuse(&[&a], -1.0), fuse(&[&a], RRF_K));
    }

    #[test]
    fn duplicates_count_once_and_nan_ranks_as_zero() {
        // In rank order: 2 (0.5), 2 (0.1), 1 (NaN as 0): sentence 1 is third.
        let a = scored(&[(1, f64::NAN), (2, 0.5), (2, 0.1)]);
        let got = fuse(&[&a], 0.0);
        assert_eq!(got, scored(&[(2, 1.0), (1, 1.0 / 3.0)]));
    }

    /// The fusion as it was first written: every (sentence, ranking, rank) entry sorted,
    /// so each sentence's shares are summed in ranking order.
    fn fuse_by_sorting(rankings: &[(&[Scored], f64)], k: f64) -> Vec<Scored> {
        let k = if k.is_finite() && k >= 0.0 { k } else { RRF_K };
        let mut entries: Vec<(i64, usize, usize)> = Vec::new();
        for (which, &(ranking, _)) in rankings.iter().enumerate() {
            let mut ordered = ranking.to_vec();
            rank_order(&mut ordered);
            entries.extend(
                ordered
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.sentence_id, which, i)),
            );
        }
        entries.sort_unstable();
        let mut out: Vec<Scored> = Vec::new();
        let mut previous = None;
        for &(sentence_id, which, position) in &entries {
            if previous == Some((sentence_id, which)) {
                continue;
            }
            previous = Some((sentence_id, which));
            let share = rankings[which].1 / (k + (position + 1) as f64);
            match out.last_mut() {
                Some(last) if last.sentence_id == sentence_id => last.score += share,
                _ => out.push(Scored {
                    sentence_id,
                    score: share,
                }),
            }
        }
        rank_order(&mut out);
        out
    }

    #[test]
    fn fusing_through_the_table_equals_sorting_every_entry_bit_for_bit() {
        let mut rng = crate::seeded::Seeded::new(11);
        for round in 0..500 {
            let n = rng.below(120) as usize;
            let mut rankings: Vec<Vec<Scored>> = Vec::new();
            for _ in 0..1 + round % 4 {
                let mut ranking = Vec::new();
                for _ in 0..n {
                    // Repeats, negative ids and NaN scores now and then.
                    let sentence_id = rng.below(2 * n as u64 + 1) as i64 - 3;
                    let score = match rng.below(50) {
                        0 => f64::NAN,
                        r => (r % 7) as f64 / 3.0,
                    };
                    ranking.push(Scored { sentence_id, score });
                }
                if round % 2 == 0 {
                    // As rankers return them: best first, no NaN.
                    rank_order(&mut ranking);
                }
                rankings.push(ranking);
            }
            let mut weighted: Vec<(&[Scored], f64)> = Vec::new();
            for (i, r) in rankings.iter().enumerate() {
                weighted.push((r, [1.0, 0.1, 0.3, 1.25][i]));
            }
            for k in [5.0, 0.0, 60.0, f64::NAN] {
                let got = fuse_weighted(&weighted, k);
                let want = fuse_by_sorting(&weighted, k);
                assert_eq!(got.len(), want.len(), "round {round}");
                for (g, w) in got.iter().zip(&want) {
                    assert_eq!(g.sentence_id, w.sentence_id, "round {round}");
                    assert_eq!(g.score.to_bits(), w.score.to_bits(), "round {round}");
                }
            }
        }
    }

    #[test]
    fn empty_inputs() {
        assert!(fuse(&[], RRF_K).is_empty());
        assert!(fuse(&[&[], &[]], RRF_K).is_empty());
    }
}
