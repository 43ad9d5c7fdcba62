//! Predictions against the gold data: per model, the accuracy of its labels (overall and
//! per gold label, with precision and the confusion matrix), and what became of its
//! counter-claims once people verified them; where the lines gave a `score`, how well it
//! separates right from wrong ([`super::score`]).

use super::score::{analyse, ScoreAnalysis};
use crate::gold::{Aggregation, GoldRequest, Outcome, UnderAnnotated};
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Project, Result};
use factdesk_core::answer::{Judgement, Verdict};
use factdesk_core::claim::Label;
use factdesk_store::predictions;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

/// Every model's predictions set against the gold data.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PredictionComparison {
    pub method: String,
    pub models: Vec<ModelComparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ModelComparison {
    pub model: String,
    /// Null when the model predicted no label.
    pub labels: Option<LabelComparison>,
    /// Null when the model wrote no counter-claim.
    pub counter_claims: Option<CounterClaimSummary>,
}

/// A model's labels against the gold labels of the claims it labelled.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LabelComparison {
    pub predicted: u64,
    /// Predictions whose claim is in the gold data.
    pub compared: u64,
    /// Predictions whose claim was dropped or not yet settled.
    pub without_gold: u64,
    pub correct: u64,
    /// `correct / compared`; null when nothing could be compared.
    pub accuracy: Option<f64>,
    /// Each label found in the gold or the predictions, in Label order.
    pub per_label: Vec<PerLabel>,
    /// Rows: gold label, columns: predicted label, in the order of `per_label`.
    pub confusion: Vec<Vec<u64>>,
    /// The `score` against whether the label is right, over compared predictions; null
    /// when none has a score.
    pub score: Option<ScoreAnalysis>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PerLabel {
    pub label: String,
    /// Compared claims with this gold label.
    pub gold: u64,
    /// Compared predictions of this label.
    pub predicted: u64,
    pub correct: u64,
    /// Accuracy on the claims of this gold label (recall); null without any.
    pub accuracy: Option<f64>,
    /// Share of this label's predictions that were right; null without any.
    pub precision: Option<f64>,
}

/// What people's verification made of a model's counter-claims.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CounterClaimSummary {
    pub written: u64,
    /// Verified as contradicting their claim and exported as gold.
    pub in_gold: u64,
    /// `in_gold / written`.
    pub share_in_gold: Option<f64>,
    /// The others, by the export's reason (not yet verified, verified as malformed, ...).
    pub not_in_gold: BTreeMap<String, u64>,
    /// The `score` against people's verdict (contradicts, or does not contradict or
    /// malformed), over counter-claims whose verification settled; null when none has a
    /// score.
    pub score: Option<ScoreAnalysis>,
}

/// What a label's score is measured against.
const LABEL_OUTCOME: &str = "label equals the gold label";
/// What a counter-claim's score is measured against.
const COUNTER_OUTCOME: &str = "verified as contradicting its claim";

fn share(n: u64, of: u64) -> Option<f64> {
    (of > 0).then(|| n as f64 / of as f64)
}

impl Project {
    /// Compares every model's predictions with the gold data under `req`. Predictions
    /// take no part in the gold data: it is the export's, exactly.
    pub fn compare_predictions(
        &self,
        by: &Lead,
        req: &GoldRequest,
    ) -> Result<PredictionComparison> {
        self.acting_lead(by)?;
        let (comparison, _) = self.compare_predictions_in(
            || self.aggregate_in(&crate::current::CurrentAnswers::read(self)?, req),
            req,
        )?;
        Ok(comparison)
    }

    /// [`Project::compare_predictions`] against the answers as `aggregated` gives them
    /// under `req`, asked for only when there are predictions. Beside the comparison, the
    /// claims its walk of the export held back as under-annotated under `req` (`None`
    /// when there are no predictions, so nothing was walked): the report's methodology
    /// lists them without walking the export again.
    pub(crate) fn compare_predictions_in<A: std::borrow::Borrow<Aggregation>>(
        &self,
        aggregated: impl FnOnce() -> Result<A>,
        req: &GoldRequest,
    ) -> Result<(PredictionComparison, Option<Vec<UnderAnnotated>>)> {
        let conn = self.store.read();
        let labels = predictions::labels(conn)?;
        let counters = predictions::counter_claims(conn)?;
        if labels.is_empty() && counters.is_empty() {
            // The gold data takes a while at scale: not gathered for nothing.
            let nothing = PredictionComparison {
                method: req.method.as_str().to_string(),
                models: Vec::new(),
            };
            return Ok((nothing, None));
        }
        let aggregation = aggregated()?;
        let aggregation = aggregation.borrow();
        let (lines, preview) = self.gold_labels_of(aggregation, req)?;
        // People's settled verdict on each counter-claim, for its score.
        let verdicts: HashMap<i64, bool> = aggregation
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Verify)
            .filter_map(|t| match &t.outcome {
                Outcome::Label {
                    label: Judgement::Verdict(v),
                } => Some((t.claim_id, *v == Verdict::Contradicts)),
                _ => None,
            })
            .collect();
        let gold: HashMap<i64, Label> = lines.iter().map(|l| (l.row_id, l.label)).collect();
        let dropped: HashMap<&str, &str> = preview
            .dropped
            .iter()
            .map(|d| (d.id.as_str(), d.reason.as_str()))
            .collect();
        let mut models: BTreeMap<String, ModelComparison> = BTreeMap::new();
        let mut by_model: BTreeMap<String, Vec<Predicted>> = BTreeMap::new();
        for p in &labels {
            model_entry(&mut models, &p.model);
            by_model.entry(p.model.clone()).or_default().push((
                gold.get(&p.claim_id).copied(),
                p.label,
                p.score,
            ));
        }
        for (model, pairs) in by_model {
            if let Some(m) = models.get_mut(&model) {
                m.labels = Some(label_comparison(&pairs));
            }
        }
        self.compare_counter_claims(&mut models, &counters, &gold, &dropped, &verdicts)?;
        let comparison = PredictionComparison {
            method: req.method.as_str().to_string(),
            models: models.into_values().collect(),
        };
        Ok((comparison, Some(preview.under_annotated)))
    }

    /// Each model's counter-claims: how many were written, how many reached the gold data
    /// (and why the others did not), and how their scores follow people's verdicts.
    fn compare_counter_claims(
        &self,
        models: &mut BTreeMap<String, ModelComparison>,
        counters: &[predictions::CounterClaim],
        gold: &HashMap<i64, Label>,
        dropped: &HashMap<&str, &str>,
        verdicts: &HashMap<i64, bool>,
    ) -> Result<()> {
        let mut counter_scores: BTreeMap<String, Vec<(Option<f64>, bool)>> = BTreeMap::new();
        for c in counters {
            let m = model_entry(models, &c.model);
            let s = m.counter_claims.get_or_insert_with(|| CounterClaimSummary {
                written: 0,
                in_gold: 0,
                share_in_gold: None,
                not_in_gold: BTreeMap::new(),
                score: None,
            });
            s.written += 1;
            if let Some(&contradicts) = verdicts.get(&c.counter_claim_id) {
                counter_scores
                    .entry(c.model.clone())
                    .or_default()
                    .push((c.score, contradicts));
            }
            if gold.contains_key(&c.counter_claim_id) {
                s.in_gold += 1;
            } else {
                let ext = self
                    .store
                    .claim(c.counter_claim_id)?
                    .map(|k| k.ext_id)
                    .unwrap_or_default();
                let reason = dropped.get(ext.as_str()).copied().unwrap_or("not exported");
                *s.not_in_gold.entry(reason.to_string()).or_insert(0) += 1;
            }
            s.share_in_gold = share(s.in_gold, s.written);
        }
        for (model, items) in counter_scores {
            if let Some(s) = models
                .get_mut(&model)
                .and_then(|m| m.counter_claims.as_mut())
            {
                s.score = analyse(COUNTER_OUTCOME, &items);
            }
        }
        Ok(())
    }
}

/// A model's comparison, begun empty the first time the model is met.
fn model_entry<'m>(
    models: &'m mut BTreeMap<String, ModelComparison>,
    model: &str,
) -> &'m mut ModelComparison {
    models
        .entry(model.to_string())
        .or_insert_with(|| ModelComparison {
            model: model.to_string(),
            labels: None,
            counter_claims: None,
        })
}

/// A label prediction as compared: the gold label (none when the claim has no gold
/// line), the predicted label, and the line's score.
type Predicted = (Option<Label>, Label, Option<f64>);

/// Accuracy, per-label figures, the confusion matrix and the score's analysis of (gold,
/// predicted, score) triples; a prediction without gold is counted apart.
fn label_comparison(pairs: &[Predicted]) -> LabelComparison {
    let compared: Vec<(Label, Label)> = pairs
        .iter()
        .filter_map(|(g, p, _)| g.map(|g| (g, *p)))
        .collect();
    let scored: Vec<(Option<f64>, bool)> = pairs
        .iter()
        .filter_map(|(g, p, s)| g.map(|g| (*s, g == *p)))
        .collect();
    let mut seen: Vec<Label> = compared.iter().flat_map(|(g, p)| [*g, *p]).collect();
    seen.sort();
    seen.dedup();
    let at = |l: Label| seen.iter().position(|s| *s == l).unwrap_or(0);
    let mut confusion = vec![vec![0u64; seen.len()]; seen.len()];
    for (g, p) in &compared {
        confusion[at(*g)][at(*p)] += 1;
    }
    let per_label = seen
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let gold: u64 = confusion[i].iter().sum();
            let predicted: u64 = confusion.iter().map(|row| row[i]).sum();
            let correct = confusion[i][i];
            PerLabel {
                label: l.as_str().to_string(),
                gold,
                predicted,
                correct,
                accuracy: share(correct, gold),
                precision: share(correct, predicted),
            }
        })
        .collect();
    let correct = compared.iter().filter(|(g, p)| g == p).count() as u64;
    LabelComparison {
        predicted: pairs.len() as u64,
        compared: compared.len() as u64,
        without_gold: (pairs.len() - compared.len()) as u64,
        correct,
        accuracy: share(correct, compared.len() as u64),
        per_label,
        confusion,
        score: analyse(LABEL_OUTCOME, &scored),
    }
}
