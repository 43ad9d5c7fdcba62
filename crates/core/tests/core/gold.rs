//! Gold aggregation and splits (issue 6, acceptance items 2 and 3): Dawid-Skene on a
//! seeded synthetic crowd, majority vote as the baseline, and leak-free family splits.

use factdesk_core::gold::{dawid_skene, majority, split_of, DawidSkeneOptions, Vote};
use factdesk_core::seeded::Seeded;
use proptest::prelude::*;

/// A synthetic labelling job: true categories drawn from `priors`, then each annotator
/// answers an item (with probability `coverage`) correctly with its accuracy, otherwise
/// picks one of the wrong categories uniformly.
struct Crowd {
    truth: Vec<usize>,
    votes: Vec<Vote>,
}

fn simulate(seed: u64, items: usize, priors: &[f64], accuracies: &[f64], coverage: f64) -> Crowd {
    let mut rng = Seeded::new(seed);
    let categories = priors.len();
    let truth: Vec<usize> = (0..items)
        .map(|_| {
            let mut x = rng.unit();
            for (k, p) in priors.iter().enumerate() {
                if x < *p {
                    return k;
                }
                x -= p;
            }
            categories - 1
        })
        .collect();
    let mut votes = Vec::new();
    for (item, &t) in truth.iter().enumerate() {
        for (annotator, &accuracy) in accuracies.iter().enumerate() {
            if rng.unit() >= coverage {
                continue;
            }
            let category = if rng.unit() < accuracy {
                t
            } else {
                let wrong = rng.below(categories as u64 - 1) as usize;
                if wrong >= t {
                    wrong + 1
                } else {
                    wrong
                }
            };
            votes.push(Vote {
                item,
                annotator,
                category,
            });
        }
    }
    Crowd { truth, votes }
}

fn share_correct(labels: &[Option<usize>], truth: &[usize]) -> f64 {
    let right = labels
        .iter()
        .zip(truth)
        .filter(|(l, t)| **l == Some(**t))
        .count();
    right as f64 / truth.len() as f64
}

const ACCURACIES: [f64; 5] = [0.9, 0.8, 0.7, 0.65, 0.2];

fn check_recovery(seed: u64, priors: &[f64], coverage: f64) {
    let items = 2000;
    let crowd = simulate(seed, items, priors, &ACCURACIES, coverage);
    let result = dawid_skene(
        &crowd.votes,
        items,
        ACCURACIES.len(),
        priors.len(),
        &DawidSkeneOptions::default(),
    );
    assert!(
        result.converged,
        "seed {seed}: {} iterations",
        result.iterations
    );
    for (a, (&estimated, &simulated)) in result.accuracy.iter().zip(&ACCURACIES).enumerate() {
        assert!(
            (estimated - simulated).abs() <= 0.05,
            "seed {seed}, annotator {a}: estimated {estimated:.3}, simulated {simulated}"
        );
    }
    let by_ds = share_correct(&result.labels, &crowd.truth);
    let by_majority = share_correct(&majority(&crowd.votes, items, priors.len()), &crowd.truth);
    assert!(
        by_ds > by_majority,
        "seed {seed}: Dawid-Skene {by_ds:.3} vs majority {by_majority:.3}"
    );
}

#[test]
fn gold_dawid_skene_recovers_accuracies_and_beats_majority_with_an_adversary() {
    for seed in [1, 2, 3] {
        check_recovery(seed, &[0.5, 0.3, 0.2], 1.0);
    }
}

#[test]
fn gold_dawid_skene_recovers_accuracies_when_annotators_answer_a_subset() {
    check_recovery(11, &[0.4, 0.35, 0.25], 0.7);
}

#[test]
fn gold_dawid_skene_is_deterministic_for_a_seed() {
    let crowd = simulate(5, 300, &[0.5, 0.5], &[0.9, 0.6, 0.5, 0.5], 0.8);
    let options = DawidSkeneOptions {
        seed: 9,
        ..DawidSkeneOptions::default()
    };
    let a = dawid_skene(&crowd.votes, 300, 4, 2, &options);
    let b = dawid_skene(&crowd.votes, 300, 4, 2, &options);
    assert_eq!(a, b);
}

#[test]
fn gold_dawid_skene_breaks_ties_by_seed_and_never_yields_nan() {
    // Two annotators disagreeing on every item is perfectly symmetric: only the seed
    // decides, and the answer is still finite and a valid label.
    let votes: Vec<Vote> = (0..4)
        .flat_map(|item| {
            [
                Vote {
                    item,
                    annotator: 0,
                    category: 0,
                },
                Vote {
                    item,
                    annotator: 1,
                    category: 1,
                },
            ]
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..16 {
        let options = DawidSkeneOptions {
            seed,
            ..DawidSkeneOptions::default()
        };
        let result = dawid_skene(&votes, 4, 2, 2, &options);
        assert!(all_finite(&result), "seed {seed}: {result:?}");
        for label in &result.labels {
            assert!(label.is_some(), "seed {seed}: a voted item has a label");
            seen.extend(*label);
        }
    }
    assert_eq!(seen.len(), 2, "different seeds break the tie both ways");
}

fn all_finite(r: &factdesk_core::gold::DawidSkene) -> bool {
    r.posteriors.iter().flatten().all(|x| x.is_finite())
        && r.accuracy.iter().all(|x| x.is_finite())
        && r.confusion
            .iter()
            .flatten()
            .flatten()
            .all(|x| x.is_finite())
        && r.priors.iter().all(|x| x.is_finite())
}

#[test]
fn gold_dawid_skene_edge_cases() {
    let options = DawidSkeneOptions::default();

    let empty = dawid_skene(&[], 0, 0, 3, &options);
    assert!(empty.labels.is_empty() && empty.posteriors.is_empty() && empty.accuracy.is_empty());
    assert!(all_finite(&empty));

    // Item 1 has no votes, annotator 2 never answered, one vote is out of range.
    let votes = [
        Vote {
            item: 0,
            annotator: 0,
            category: 2,
        },
        Vote {
            item: 0,
            annotator: 1,
            category: 2,
        },
        Vote {
            item: 2,
            annotator: 0,
            category: 0,
        },
        Vote {
            item: 2,
            annotator: 1,
            category: 0,
        },
        Vote {
            item: 7,
            annotator: 0,
            category: 0,
        },
    ];
    let r = dawid_skene(&votes, 3, 3, 3, &options);
    assert!(all_finite(&r), "{r:?}");
    // Item 2's lone vote may be read through annotator 1's estimated confusion, so only
    // that it gets some label is certain on data this small.
    assert_eq!(r.labels[0], Some(2));
    assert_eq!(r.labels[1], None);
    assert!(r.labels[2].is_some());
    assert_eq!(
        r.posteriors[1], r.priors,
        "an item without votes gets the priors"
    );
    for row in &r.confusion[2] {
        for cell in row {
            assert!(
                (cell - 1.0 / 3.0).abs() < 1e-12,
                "silent annotator: uniform"
            );
        }
    }
    assert!((r.accuracy[2] - 1.0 / 3.0).abs() < 1e-12);
    for p in &r.posteriors {
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }

    let no_categories = dawid_skene(&votes, 3, 3, 0, &options);
    assert_eq!(no_categories.labels, vec![None; 3]);
    assert!(all_finite(&no_categories));

    let no_iterations = dawid_skene(
        &votes,
        3,
        3,
        3,
        &DawidSkeneOptions {
            max_iterations: 0,
            ..options
        },
    );
    assert_eq!(no_iterations.iterations, 0);
    assert!(!no_iterations.converged);
    assert_eq!(no_iterations.labels, vec![Some(2), None, Some(0)]);
}

/// A forest of claims: `parent[i]` is the index of claim i's parent, always an earlier
/// claim, so claim 0..roots are roots. Ids look like real ones, not like indices.
fn forest(sizes: &[usize]) -> (Vec<String>, Vec<Option<usize>>) {
    let mut ids = Vec::new();
    let mut parent = Vec::new();
    for (family, &size) in sizes.iter().enumerate() {
        let root = ids.len();
        ids.push(format!("covidfact-{family:05}"));
        parent.push(None);
        for r in 0..size.saturating_sub(1) {
            // Refutations hang off the root or off an earlier refutation (nested families).
            let up = if r % 2 == 0 { root } else { ids.len() - 1 };
            ids.push(format!("covidfact-{family:05}-ref{r}"));
            parent.push(Some(up));
        }
    }
    (ids, parent)
}

fn root_of(mut claim: usize, parent: &[Option<usize>]) -> usize {
    while let Some(up) = parent[claim] {
        claim = up;
    }
    claim
}

/// Adds claims in `order`, giving each a split from its root's id the moment it arrives,
/// as an exporter that sees claims one by one would.
fn assign_in_order(
    ids: &[String],
    parent: &[Option<usize>],
    order: &[usize],
    seed: u64,
    ratios: &[u32],
) -> Vec<usize> {
    let mut split = vec![usize::MAX; ids.len()];
    for &claim in order {
        split[claim] = split_of(&ids[root_of(claim, parent)], seed, ratios);
    }
    split
}

/// Cases drawn afresh on every run; failures are not written into the source tree.
fn random_cases(cases: u32) -> ProptestConfig {
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

proptest! {
    #![proptest_config(random_cases(64))]

    #[test]
    fn gold_no_family_spans_two_splits_in_any_order(
        sizes in proptest::collection::vec(1usize..6, 1..60),
        seed in any::<u64>(),
        shuffle_seed in any::<u64>(),
        ratios in prop_oneof![Just(vec![70u32, 15, 15]), Just(vec![80, 10, 10]), Just(vec![50, 50])],
    ) {
        let (ids, parent) = forest(&sizes);
        let in_order: Vec<usize> = (0..ids.len()).collect();
        let mut shuffled = in_order.clone();
        Seeded::new(shuffle_seed).shuffle(&mut shuffled);

        let first = assign_in_order(&ids, &parent, &in_order, seed, &ratios);
        let second = assign_in_order(&ids, &parent, &shuffled, seed, &ratios);
        prop_assert_eq!(&first, &second);
        for claim in 0..ids.len() {
            prop_assert!(first[claim] < ratios.len());
            prop_assert_eq!(first[claim], first[root_of(claim, &parent)]);
        }
    }

    #[test]
    fn gold_split_depends_only_on_root_id_and_seed(
        root in "[a-z0-9-]{1,24}",
        seed in any::<u64>(),
        others in proptest::collection::vec("[a-z0-9-]{1,24}", 0..20),
    ) {
        let ratios = [70, 15, 15];
        let before = split_of(&root, seed, &ratios);
        // Work on other families in between changes nothing for this one.
        for other in &others {
            split_of(other, seed, &ratios);
        }
        prop_assert_eq!(before, split_of(&root, seed, &ratios));
        prop_assert_eq!(before, split_of(&root.clone(), seed, &[14, 3, 3]));
    }
}

/// How far each split's share of `claims` is from its requested ratio, in points.
fn deviations(ids: &[String], parent: &[Option<usize>], seed: u64, ratios: &[u32]) -> Vec<f64> {
    let order: Vec<usize> = (0..ids.len()).collect();
    let split = assign_in_order(ids, parent, &order, seed, ratios);
    let total: u32 = ratios.iter().sum();
    (0..ratios.len())
        .map(|index| {
            let share = split.iter().filter(|&&s| s == index).count() as f64 / ids.len() as f64;
            100.0 * (share - f64::from(ratios[index]) / f64::from(total)).abs()
        })
        .collect()
}

proptest! {
    // A hash gives each family an independent draw, so a split's share of 10,000 claims has
    // a standard deviation of about 0.5 points and 2 points is over 4 of them: a fixed
    // sample of seeds keeps that rare but possible excursion from making the test flaky,
    // while a biased or misapplied hash still fails it.
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(6),
        ..random_cases(32)
    })]

    #[test]
    fn gold_split_sizes_match_ratios_at_ten_thousand_claims(
        seed in any::<u64>(),
        ratios in prop_oneof![Just(vec![70u32, 15, 15]), Just(vec![80, 10, 10]), Just(vec![60, 20, 20])],
    ) {
        let (ids, parent) = forest(&[1; 10_000]);
        let off = deviations(&ids, &parent, seed, &ratios);
        prop_assert!(off.iter().all(|&d| d <= 2.0), "{:?} off by {:?} points", ratios, off);
    }
}

#[test]
fn gold_split_sizes_hold_with_refutation_families() {
    // COVID-Fact's shape: a root claim with a few refutations, 10,000 claims in all. Whole
    // families move together, so shares wander more than with single claims.
    let mut rng = Seeded::new(2024);
    let mut sizes = Vec::new();
    let mut claims = 0;
    while claims < 10_000 {
        let size = (1 + rng.below(3) as usize).min(10_000 - claims);
        sizes.push(size);
        claims += size;
    }
    let (ids, parent) = forest(&sizes);
    for ratios in [[70, 15, 15], [80, 10, 10]] {
        for seed in [1, 2, 3, 42] {
            let off = deviations(&ids, &parent, seed, &ratios);
            assert!(
                off.iter().all(|&d| d <= 2.0),
                "seed {seed}, {ratios:?}: off by {off:?} points"
            );
        }
    }
}

#[test]
fn gold_split_is_the_same_on_every_machine() {
    // Pinned values: a change to the hash would move every exported claim between splits.
    let ids = [
        "covidfact-00000",
        "covidfact-00001",
        "covidfact-00002",
        "covidfact-00003",
        "a",
        "claim/42",
        "ünïcode",
        "",
    ];
    let with = |seed| -> Vec<usize> {
        ids.iter()
            .map(|id| split_of(id, seed, &[40, 30, 30]))
            .collect()
    };
    assert_eq!(with(1), [1, 1, 1, 2, 0, 0, 1, 0]);
    assert_eq!(with(7), [0, 2, 1, 0, 1, 0, 0, 2]);
}

#[test]
fn gold_split_edge_cases() {
    assert_eq!(split_of("x", 1, &[]), 0);
    assert_eq!(split_of("x", 1, &[0, 0]), 0);
    assert_eq!(split_of("x", 1, &[0, 5, 0]), 1);
    assert_eq!(split_of("x", 1, &[100]), 0);
    let seeds_disagree =
        (0..64).any(|s| split_of("x", s, &[50, 50]) != split_of("x", 0, &[50, 50]));
    assert!(seeds_disagree, "the seed takes part in the hash");
}
