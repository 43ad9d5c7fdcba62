//! A re-annotation study's figures: Cohen's kappa between the two groups' majority
//! votes with a bootstrap interval over items, and Fleiss' kappa within each group, from
//! the counted answers on the sampled items (`crate::study` draws the studies).

use super::{AgreementRequest, Ratings, Statistic};
use crate::current::CurrentAnswers;
use crate::study::Study;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::agreement::{
    compute_all, group_majority_kappa, AgreementOptions, Label, MetricValue, Rating, RatingTable,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use ts_rs::TS;

/// The metric name of the group-majority kappa in reports.
pub const MAJORITY_METRIC: &str = "group_majority_cohen_kappa";

/// A study's agreement figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StudyAgreement {
    pub study: Study,
    /// Everyone else with a counted answer on the sampled items, sorted by name.
    pub group_a: Vec<String>,
    /// Sampled items with counted answers from both groups.
    pub items_answered: u64,
    /// Units (per candidate sentence for evidence) where both groups have a strict
    /// majority: the units the kappa is computed on.
    pub majority_units: u64,
    /// Cohen's kappa between the two groups' majority votes, bootstrap 95% interval over
    /// items (`group_majority_cohen_kappa`).
    pub majority_kappa: Statistic,
    /// Fleiss' kappa within group A and within group B, on the sampled items.
    pub fleiss_a: Statistic,
    pub fleiss_b: Statistic,
}

fn statistic(metric: &str, m: &MetricValue) -> Statistic {
    Statistic {
        metric: metric.to_string(),
        value: m.value,
        reason: m.reason.clone(),
        ci95: m.value.and(m.ci95),
        reading: m.reading.map(str::to_string),
    }
}

/// Evidence sets as per-candidate "selected" / "not selected" ratings, units named
/// "item/candidate", as agreement scores evidence.
fn per_candidate(ratings: &[Rating], candidates: &BTreeMap<String, Vec<String>>) -> Vec<Rating> {
    let mut out = Vec::new();
    for r in ratings {
        let Label::Set(selected) = &r.label else {
            continue;
        };
        for c in candidates.get(&r.item).into_iter().flatten() {
            let label = if selected.contains(c) {
                "selected"
            } else {
                "not selected"
            };
            out.push(Rating {
                item: format!("{}/{c}", r.item),
                annotator: r.annotator.clone(),
                label: Label::Category(label.to_string()),
            });
        }
    }
    out
}

impl Project {
    /// The figures of every study (of `kind`, when given), from counted answers only.
    pub fn study_agreements(
        &self,
        lead: &Lead,
        kind: Option<TaskKind>,
        req: &AgreementRequest,
    ) -> Result<Vec<StudyAgreement>> {
        self.acting_lead(lead)?;
        let studies = self.studies(lead)?;
        if !studies.iter().any(|s| kind.is_none_or(|k| k == s.kind)) {
            return Ok(Vec::new());
        }
        let read = CurrentAnswers::read(self)?;
        self.study_agreements_in(lead, &read, kind, req)
    }

    /// [`Project::study_agreements`] from answers already read.
    pub(crate) fn study_agreements_in(
        &self,
        lead: &Lead,
        read: &CurrentAnswers,
        kind: Option<TaskKind>,
        req: &AgreementRequest,
    ) -> Result<Vec<StudyAgreement>> {
        let mut by_kind: BTreeMap<&str, Ratings> = BTreeMap::new();
        let mut out = Vec::new();
        for study in self.studies(lead)? {
            if kind.is_some_and(|k| k != study.kind) {
                continue;
            }
            let ratings = match by_kind.get(study.kind.as_str()) {
                Some(r) => r,
                None => {
                    let r = self.ratings_in(read, study.kind, req.include_flagged)?;
                    by_kind.entry(study.kind.as_str()).or_insert(r)
                }
            };
            out.push(study_agreement(study, ratings, req)?);
        }
        Ok(out)
    }
}

fn study_agreement(
    study: Study,
    (ratings, candidates): &Ratings,
    req: &AgreementRequest,
) -> Result<StudyAgreement> {
    let items: HashSet<String> = study.items.iter().map(|t| format!("task-{t}")).collect();
    let sampled: Vec<Rating> = ratings
        .iter()
        .filter(|r| items.contains(&r.item))
        .cloned()
        .collect();
    let is_member = |name: &str| study.members.iter().any(|m| m == name);
    let group_a: Vec<String> = sampled
        .iter()
        .map(|r| r.annotator.clone())
        .filter(|name| !is_member(name))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut sides: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    for r in &sampled {
        let side = sides.entry(&r.item).or_default();
        if is_member(&r.annotator) {
            side.1 = true;
        } else {
            side.0 = true;
        }
    }
    let items_answered = sides.values().filter(|s| s.0 && s.1).count() as u64;
    let evidence = study.kind == TaskKind::Evidence;
    let to_error = |e: factdesk_core::agreement::TableError| {
        Error::new(ErrorCode::InvalidInput, e.to_string())
    };
    let majority_ratings = if evidence {
        per_candidate(&sampled, candidates)
    } else {
        sampled.clone()
    };
    let table = RatingTable::new(&majority_ratings, None, None).map_err(to_error)?;
    let cluster = |unit: &str| unit.split('/').next().unwrap_or(unit).to_string();
    let majority = group_majority_kappa(
        &table,
        &group_a,
        &study.members,
        &cluster,
        req.seed,
        req.bootstrap_reps,
    );
    let options = AgreementOptions {
        bootstrap_reps: req.bootstrap_reps,
        seed: req.seed,
    };
    let fleiss_metric = if evidence {
        "setsel_pooled_fleiss_kappa"
    } else {
        "fleiss_kappa"
    };
    let fleiss = |members: bool| -> Result<Statistic> {
        let group: Vec<Rating> = sampled
            .iter()
            .filter(|r| is_member(&r.annotator) == members)
            .cloned()
            .collect();
        // A group of one is allowed (its majority kappa against group A is defined), but
        // it has no agreement within it.
        if members && study.members.len() < 2 {
            return Ok(statistic(
                fleiss_metric,
                &MetricValue::undefined(
                    "a group of one has no agreement within it (Fleiss' kappa needs two raters per item); the majority kappa compares that one person with group A",
                ),
            ));
        }
        if group.is_empty() {
            return Ok(statistic(
                fleiss_metric,
                &MetricValue::undefined("no counted answers from this group yet"),
            ));
        }
        let table = if evidence {
            RatingTable::with_item_candidates(&group, None, candidates)
        } else {
            RatingTable::new(&group, None, None)
        }
        .map_err(to_error)?;
        let value = compute_all(&table, &options)
            .remove(fleiss_metric)
            .unwrap_or_else(|| MetricValue::undefined("no counted answers from this group yet"));
        Ok(statistic(fleiss_metric, &value))
    };
    Ok(StudyAgreement {
        group_a,
        items_answered,
        majority_units: majority.units as u64,
        majority_kappa: statistic(MAJORITY_METRIC, &majority.value),
        fleiss_a: fleiss(false)?,
        fleiss_b: fleiss(true)?,
        study,
    })
}
