//! Dawid & Skene (1979) aggregation: EM over one confusion matrix per annotator, so that a
//! careful annotator counts for more than a careless one and a consistently wrong one can
//! even be read backwards. Also reports each annotator's estimated accuracy.
//!
//! Every count is Laplace-smoothed (add one), so no probability is ever zero and no log or
//! division can produce NaN or infinity.

use serde::Serialize;

use super::Vote;
use crate::seeded::Seeded;

/// When to stop iterating, and the seed for breaking ties.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DawidSkeneOptions {
    pub max_iterations: usize,
    /// Converged once the log-likelihood changes by at most `tolerance` times its size
    /// (at least 1), so the test means the same on 20 items as on 2 million.
    pub tolerance: f64,
    pub seed: u64,
}

impl Default for DawidSkeneOptions {
    fn default() -> Self {
        DawidSkeneOptions {
            max_iterations: 200,
            tolerance: 1e-9,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DawidSkene {
    /// Most probable category per item (None for items without votes).
    pub labels: Vec<Option<usize>>,
    /// Posterior probability of each category per item.
    pub posteriors: Vec<Vec<f64>>,
    /// Each annotator's estimated accuracy: sum over k of prior_k * confusion[a][k][k].
    pub accuracy: Vec<f64>,
    /// confusion[a][true][given]
    pub confusion: Vec<Vec<Vec<f64>>>,
    pub priors: Vec<f64>,
    pub iterations: usize,
    pub converged: bool,
}

/// Share added to the leading category of an item whose initial vote shares tie, so EM
/// does not start from a symmetric point it cannot leave.
const TIE_NUDGE: f64 = 0.01;
/// Posteriors closer than this count as tied when picking an item's label.
const LABEL_TIE: f64 = 1e-12;

/// Runs Dawid-Skene on `votes`. Votes naming an item, annotator or category outside the
/// given counts are ignored. Items without votes get the priors as posteriors and no label;
/// an annotator without votes keeps the uniform confusion matrix the smoothing gives.
pub fn dawid_skene(
    votes: &[Vote],
    items: usize,
    annotators: usize,
    categories: usize,
    options: &DawidSkeneOptions,
) -> DawidSkene {
    if categories == 0 {
        return DawidSkene {
            labels: vec![None; items],
            posteriors: vec![Vec::new(); items],
            accuracy: vec![0.0; annotators],
            confusion: vec![Vec::new(); annotators],
            priors: Vec::new(),
            iterations: 0,
            converged: true,
        };
    }
    let by_item = group_by_item(votes, items, annotators, categories);
    let mut rng = Seeded::for_purpose(options.seed, "dawid-skene");

    let mut posteriors = initial_posteriors(&by_item, categories, &mut rng);
    let mut model = m_step(&by_item, &posteriors, annotators, categories);
    let mut previous: Option<f64> = None;
    let mut iterations = 0;
    let mut converged = false;
    while iterations < options.max_iterations {
        iterations += 1;
        let likelihood = e_step(&by_item, &model, &mut posteriors);
        model = m_step(&by_item, &posteriors, annotators, categories);
        if let Some(before) = previous {
            if (likelihood - before).abs() <= options.tolerance * likelihood.abs().max(1.0) {
                converged = true;
                break;
            }
        }
        previous = Some(likelihood);
    }

    let labels = by_item
        .iter()
        .zip(&posteriors)
        .map(|(item_votes, p)| (!item_votes.is_empty()).then(|| most_probable(p, &mut rng)))
        .collect();
    for (item_votes, p) in by_item.iter().zip(posteriors.iter_mut()) {
        if item_votes.is_empty() {
            p.clone_from(&model.priors);
        }
    }
    let accuracy = model
        .confusion
        .iter()
        .map(|matrix| {
            (0..categories)
                .map(|k| model.priors[k] * matrix[k][k])
                .sum()
        })
        .collect();
    DawidSkene {
        labels,
        posteriors,
        accuracy,
        confusion: model.confusion,
        priors: model.priors,
        iterations,
        converged,
    }
}

/// Class priors and per-annotator confusion matrices (`confusion[a][true][given]`).
struct Model {
    priors: Vec<f64>,
    confusion: Vec<Vec<Vec<f64>>>,
}

/// Each item's valid votes as (annotator, category).
fn group_by_item(
    votes: &[Vote],
    items: usize,
    annotators: usize,
    categories: usize,
) -> Vec<Vec<(usize, usize)>> {
    let mut by_item = vec![Vec::new(); items];
    for v in votes {
        if v.item < items && v.annotator < annotators && v.category < categories {
            by_item[v.item].push((v.annotator, v.category));
        }
    }
    by_item
}

/// Vote shares per item, with a seeded nudge towards one of the leading categories when
/// they tie. Items without votes start uniform.
fn initial_posteriors(
    by_item: &[Vec<(usize, usize)>],
    categories: usize,
    rng: &mut Seeded,
) -> Vec<Vec<f64>> {
    by_item
        .iter()
        .map(|item_votes| {
            if item_votes.is_empty() {
                return vec![1.0 / categories as f64; categories];
            }
            let mut shares = vec![0.0; categories];
            for &(_, category) in item_votes {
                shares[category] += 1.0;
            }
            let top = shares.iter().copied().fold(0.0, f64::max);
            let leaders: Vec<usize> = (0..categories).filter(|&k| shares[k] == top).collect();
            if leaders.len() > 1 {
                let pick = leaders[rng.below(leaders.len() as u64) as usize];
                shares[pick] += TIE_NUDGE;
            }
            let total: f64 = shares.iter().sum();
            shares.iter().map(|s| s / total).collect()
        })
        .collect()
}

/// Maximum a posteriori parameters from the current posteriors, add-one smoothed.
fn m_step(
    by_item: &[Vec<(usize, usize)>],
    posteriors: &[Vec<f64>],
    annotators: usize,
    categories: usize,
) -> Model {
    let mut prior_counts = vec![1.0; categories];
    let mut counts = vec![vec![vec![1.0; categories]; categories]; annotators];
    for (item_votes, p) in by_item.iter().zip(posteriors) {
        if item_votes.is_empty() {
            continue;
        }
        for (count, &share) in prior_counts.iter_mut().zip(p) {
            *count += share;
        }
        for &(annotator, given) in item_votes {
            for (truth, &share) in p.iter().enumerate() {
                counts[annotator][truth][given] += share;
            }
        }
    }
    let prior_total: f64 = prior_counts.iter().sum();
    let priors = prior_counts.iter().map(|c| c / prior_total).collect();
    for matrix in &mut counts {
        for row in matrix.iter_mut() {
            let total: f64 = row.iter().sum();
            for cell in row.iter_mut() {
                *cell /= total;
            }
        }
    }
    Model {
        priors,
        confusion: counts,
    }
}

/// Posteriors of every voted item under `model`, written into `posteriors`; returns the
/// log-likelihood of all votes.
fn e_step(by_item: &[Vec<(usize, usize)>], model: &Model, posteriors: &mut [Vec<f64>]) -> f64 {
    let mut likelihood = 0.0;
    for (item_votes, p) in by_item.iter().zip(posteriors.iter_mut()) {
        if item_votes.is_empty() {
            continue;
        }
        for (truth, slot) in p.iter_mut().enumerate() {
            *slot = model.priors[truth].ln()
                + item_votes
                    .iter()
                    .map(|&(annotator, given)| model.confusion[annotator][truth][given].ln())
                    .sum::<f64>();
        }
        // Log-sum-exp keeps many small probabilities from underflowing to zero.
        let top = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = p.iter().map(|lp| (lp - top).exp()).sum();
        let log_total = top + sum.ln();
        for slot in p.iter_mut() {
            *slot = (*slot - log_total).exp();
        }
        likelihood += log_total;
    }
    likelihood
}

/// The index of the highest posterior, a seeded pick among exact ties.
fn most_probable(p: &[f64], rng: &mut Seeded) -> usize {
    let top = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let leaders: Vec<usize> = (0..p.len()).filter(|&k| top - p[k] <= LABEL_TIE).collect();
    match leaders.len() {
        0 => 0,
        1 => leaders[0],
        n => leaders[rng.below(n as u64) as usize],
    }
}
