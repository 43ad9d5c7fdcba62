//! Re-annotation studies, COVID-Fact's quality check: the lead draws a seeded sample of N
//! items of one kind and names a second group of annotators (the members, group B) who
//! answer them again; group A is everyone else with a counted answer on those items. The
//! study reports Cohen's kappa between the two groups' majority votes with a bootstrap
//! interval over items, and Fleiss' kappa within each group.
//!
//! Each sampled task gets room for the group: its overlap grows by the group's size in the
//! transaction that draws the sample, so "counted answers ≤ overlap" still holds; serving
//! (`annotate::study`) keeps those extra slots for the members.

use crate::actor::Actor;
use crate::agreement::AgreementRequest;
use crate::dashboard::Statistic;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::agreement::{
    compute_all, group_majority_kappa, landis_koch, AgreementOptions, Label, MetricValue, Rating,
    RatingTable,
};
use factdesk_core::seeded::Seeded;
use factdesk_store::studies::{self, NewStudy, StudyRow};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use ts_rs::TS;

/// The metric name of the group-majority kappa in reports.
pub const MAJORITY_METRIC: &str = "group_majority_cohen_kappa";

/// A study to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StudyRequest {
    pub kind: TaskKind,
    /// How many items to sample.
    pub sample: u32,
    /// The second group's annotators, by name.
    pub members: Vec<String>,
    /// Seed of the sample; the project's seed when absent.
    #[ts(type = "number | null")]
    pub seed: Option<u64>,
}

/// A drawn study.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Study {
    pub id: i64,
    pub kind: TaskKind,
    pub sample_size: u32,
    #[ts(type = "number")]
    pub seed: u64,
    /// Unix milliseconds.
    pub created_at: i64,
    pub lead: String,
    /// Group B, sorted by name.
    pub members: Vec<String>,
    /// The sampled task ids.
    pub items: Vec<i64>,
}

/// What deleting a study undid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DeletedStudy {
    pub id: i64,
    /// Sampled items given back their overlap.
    pub items: u64,
    /// The members' current answers on those items, ordinary answers from now on.
    pub member_answers: u64,
}

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

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

fn statistic(metric: &str, m: &MetricValue) -> Statistic {
    Statistic {
        metric: metric.to_string(),
        value: m.value,
        reason: m.reason.clone(),
        ci95: m.value.and(m.ci95),
        reading: m.value.map(|v| landis_koch(v).to_string()),
    }
}

fn study_of(row: StudyRow) -> Study {
    Study {
        id: row.id,
        kind: row.kind,
        sample_size: row.sample_size,
        seed: row.seed,
        created_at: row.created_at,
        lead: row.lead,
        members: row.members,
        items: row.items,
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
    /// Draws a study for `lead`: `req.sample` tasks of `req.kind` that are in no study yet
    /// and that no member has met (`studies::met_by`), seeded, each given room for the
    /// group, in one write transaction.
    pub fn create_study(&mut self, lead: &Actor, req: &StudyRequest) -> Result<Study> {
        self.require_lead(lead, "draw studies")?;
        let lead_id = self.annotator_row(lead.name())?.id;
        if req.kind == TaskKind::Refute {
            return Err(invalid(
                "refutations are free text and have no agreement: a study samples evidence, verify or label items",
            ));
        }
        if req.sample == 0 {
            return Err(invalid("--sample must be at least 1"));
        }
        let mut members = BTreeSet::new();
        let mut member_ids = Vec::new();
        for name in &req.members {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            if !members.insert(name.to_string()) {
                return Err(invalid(format!("{name:?} is named twice in the group")));
            }
            member_ids.push(self.study_member(name)?);
        }
        if member_ids.is_empty() {
            return Err(invalid(
                "name the second group's annotators (--group ana,ben,caro)",
            ));
        }
        let seed = match req.seed {
            Some(seed) => seed,
            None => self.settings()?.seed,
        };
        let now = self.clock.now_ms();
        let kind = req.kind;
        let tx = self.store.transaction()?;
        // Read inside the write transaction: a study drawn at the same time elsewhere
        // cannot take the same tasks.
        let free = studies::free_tasks(&tx, kind)?;
        // Only items no member has met: an answer a member gave before the draw is a
        // first-round answer, and counting it as the study's would take it out of the
        // gold and report the first round split in two as a re-annotation kappa.
        let mut met = HashSet::new();
        for &member in &member_ids {
            met.extend(studies::met_by(&tx, member, kind)?);
        }
        let mut items: Vec<i64> = free
            .iter()
            .map(|&(id, _)| id)
            .filter(|id| !met.contains(id))
            .collect();
        if items.len() < req.sample as usize {
            let group = members.iter().cloned().collect::<Vec<_>>().join(", ");
            return Err(invalid(format!(
                "--sample {}: only {} {kind} tasks are in no study yet and unseen by the group ({group}); {} more were already answered, served, packed or written by one of them (create tasks with `factdesk tasks`, or name people who have not worked on them)",
                req.sample,
                items.len(),
                free.len() - items.len()
            )));
        }
        Seeded::for_purpose(seed, &format!("study:{kind}")).shuffle(&mut items);
        items.truncate(req.sample as usize);
        items.sort_unstable();
        let id = studies::insert(
            &tx,
            &NewStudy {
                kind,
                sample_size: req.sample,
                seed,
                created_at: now,
                lead_id,
            },
        )?;
        for &member in &member_ids {
            studies::add_member(&tx, id, member)?;
        }
        for &task in &items {
            studies::add_item(&tx, id, task, member_ids.len() as u32)?;
        }
        tx.commit()?;
        tracing::info!(
            study = id,
            kind = kind.as_str(),
            sample = req.sample,
            "study drawn"
        );
        self.studies(lead)?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("study {id} vanished")))
    }

    /// A study member's id: an annotator whom a lead has not disabled. A lead is refused:
    /// they adjudicate with everyone's answers in view, so theirs would be no independent
    /// second opinion; a disabled person could never fill the room the study keeps.
    fn study_member(&self, name: &str) -> Result<i64> {
        let row = self.annotator_row(name)?;
        if row.role == crate::annotators::Role::Lead.as_str() {
            return Err(invalid(format!(
                "{} is a lead of this project: a study's group re-annotates blind, and a lead sees everyone's answers; name annotators",
                row.name
            )));
        }
        if factdesk_store::sign_in::is_disabled(self.store.conn(), row.id)? {
            return Err(invalid(format!(
                "{} was disabled by a lead of this project and could never answer the study's items; enable them first (`factdesk annotators P enable {}`) or name someone else",
                row.name, row.name
            )));
        }
        Ok(row.id)
    }

    /// Deletes a study drawn by mistake: its items get back the overlap they had before
    /// it (or their counted answers, when more), and its members' answers on them count
    /// as ordinary answers from then on.
    pub fn delete_study(&mut self, lead: &Actor, id: i64) -> Result<DeletedStudy> {
        self.require_lead(lead, "delete studies")?;
        self.store.require_writable()?;
        let tx = self.store.transaction()?;
        let deleted = studies::delete(&tx, id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no study {id}; `factdesk study P` lists them"),
            )
        })?;
        tx.commit()?;
        tracing::info!(study = id, items = deleted.items, "study deleted");
        Ok(DeletedStudy {
            id,
            items: deleted.items,
            member_answers: deleted.member_answers,
        })
    }

    /// Every study, oldest first.
    pub fn studies(&self, lead: &Actor) -> Result<Vec<Study>> {
        self.require_lead(lead, "see the studies")?;
        Ok(studies::list(self.store.conn())?
            .into_iter()
            .map(study_of)
            .collect())
    }

    /// The figures of every study (of `kind`, when given), from counted answers only.
    pub fn study_agreements(
        &self,
        lead: &Actor,
        kind: Option<TaskKind>,
        req: &AgreementRequest,
    ) -> Result<Vec<StudyAgreement>> {
        self.require_lead(lead, "see the studies' agreement")?;
        let studies = self.studies(lead)?;
        if !studies.iter().any(|s| kind.is_none_or(|k| k == s.kind)) {
            return Ok(Vec::new());
        }
        let read = crate::current::CurrentAnswers::read(self)?;
        self.study_agreements_in(lead, &read, kind, req)
    }

    /// [`Project::study_agreements`] from answers already read.
    pub(crate) fn study_agreements_in(
        &self,
        lead: &Actor,
        read: &crate::current::CurrentAnswers,
        kind: Option<TaskKind>,
        req: &AgreementRequest,
    ) -> Result<Vec<StudyAgreement>> {
        let mut by_kind: BTreeMap<&str, crate::agreement::Ratings> = BTreeMap::new();
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
    (ratings, candidates): &crate::agreement::Ratings,
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
    let to_error = |e: factdesk_core::agreement::TableError| invalid(e.to_string());
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
