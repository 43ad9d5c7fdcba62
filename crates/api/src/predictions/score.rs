//! What a model's `score` says about its predictions: the threshold sweep and the
//! point-biserial correlation of [`factdesk_core::scores`], against the gold outcome of
//! each prediction (its label right or wrong; its counter-claim verified as contradicting
//! its claim or not).

use factdesk_core::scores::{best_f1, point_biserial, threshold_sweep, ThresholdPoint};
use serde::Serialize;
use ts_rs::TS;

/// A model's scores against a yes/no gold outcome.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ScoreAnalysis {
    /// What the outcome is: "label equals the gold label" or "verified as contradicting".
    pub outcome: String,
    /// Predictions with both a score and a gold outcome: the ones analysed.
    pub scored: u64,
    /// Of them, those whose outcome is yes.
    pub positives: u64,
    /// Predictions with a gold outcome but no score, left out.
    pub unscored: u64,
    /// Pearson's r between score and outcome (1 or 0); null when every outcome or every
    /// score is the same.
    pub point_biserial: Option<f64>,
    /// The threshold of the sweep with the highest F1 (of equal ones, the highest).
    pub best_f1: Option<ThresholdPoint>,
    /// Taking every prediction scored at least each distinct score, lowest first.
    pub sweep: Vec<ThresholdPoint>,
}

/// The analysis of `items` (a score if the line gave one, and the gold outcome); None when
/// no item has a score.
pub(super) fn analyse(outcome: &str, items: &[(Option<f64>, bool)]) -> Option<ScoreAnalysis> {
    let scored: Vec<(f64, bool)> = items
        .iter()
        .filter_map(|(s, o)| s.map(|s| (s, *o)))
        .collect();
    if scored.is_empty() {
        return None;
    }
    let sweep = threshold_sweep(&scored);
    Some(ScoreAnalysis {
        outcome: outcome.to_string(),
        scored: scored.len() as u64,
        positives: scored.iter().filter(|(_, o)| *o).count() as u64,
        unscored: (items.len() - scored.len()) as u64,
        point_biserial: point_biserial(&scored),
        best_f1: best_f1(&sweep),
        sweep,
    })
}
