//! Re-annotation studies, COVID-Fact's quality check: the lead draws a seeded sample of N
//! items of one kind and names a second group of annotators (the members, group B) who
//! answer them again; group A is everyone else with a counted answer on those items. The
//! study reports Cohen's kappa between the two groups' majority votes with a bootstrap
//! interval over items, and Fleiss' kappa within each group.
//!
//! Each sampled task gets room for the group: its overlap grows by the group's size in the
//! transaction that draws the sample, so "counted answers ≤ overlap" still holds; serving
//! (`annotate::study`) keeps those extra slots for the members.

mod kept;
mod strata;

pub use kept::KeptSample;
pub use strata::{StratifiedSample, MAX_BINS};

use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::seeded::Seeded;
pub use factdesk_core::strata::{Strata, Stratum};
use factdesk_store::studies::{self, NewStudy, StudyRow};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};
use ts_rs::TS;

/// A study to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StudyRequest {
    pub kind: TaskKind,
    /// How many items to sample: in all, or from each stratum when `strata` is given.
    pub sample: u32,
    /// The second group's annotators, by name.
    pub members: Vec<String>,
    /// Seed of the sample, as text (a number is taken too); the project's seed when
    /// absent.
    #[serde(with = "crate::seed_text::option")]
    #[ts(type = "string | null")]
    pub seed: Option<u64>,
    /// Groups to draw `sample` items from each, rather than `sample` items at random.
    #[serde(default)]
    #[ts(optional)]
    pub strata: Option<Strata>,
}

/// A drawn study.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Study {
    pub id: i64,
    pub kind: TaskKind,
    pub sample_size: u32,
    /// As text: the project's drawn seed is above what a screen holds exactly.
    #[serde(with = "crate::seed_text")]
    #[ts(type = "string")]
    pub seed: u64,
    /// Unix milliseconds.
    pub created_at: i64,
    pub lead: String,
    /// Group B, sorted by name.
    pub members: Vec<String>,
    /// The sampled task ids.
    pub items: Vec<i64>,
    /// How the sample was grouped ("jaccard-bins:10", "label", "field:topic"); `None`
    /// for a uniform draw.
    pub strata: Option<String>,
    /// Each stratum with the items drawn from it, as named when drawn.
    pub by_stratum: Vec<StratumItems>,
}

/// The items a study drew from one stratum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StratumItems {
    pub name: String,
    pub items: Vec<i64>,
}

/// What deleting a study undid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeletedStudy {
    pub id: i64,
    /// Sampled items given back their overlap.
    pub items: u64,
    /// The members' current answers on those items, ordinary answers from now on.
    pub member_answers: u64,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// How a study's items were drawn, in a sentence for cards and reports.
pub fn sampled(study: &Study) -> String {
    let head = format!(
        "Study {}: {} {} items, seed {}",
        study.id,
        study.items.len(),
        study.kind.as_str(),
        study.seed
    );
    match &study.strata {
        None => format!("{head}, drawn uniformly among the items in no study"),
        Some(spec) => {
            let groups: Vec<String> = study
                .by_stratum
                .iter()
                .map(|g| format!("{} ({})", g.name, g.items.len()))
                .collect();
            let how = if spec.starts_with("jaccard-bins") {
                " (stemmed word overlap between each claim and its best-ranked candidate, as ranked when drawn)"
            } else {
                ""
            };
            format!("{head}, stratified by {spec}{how}: {}", groups.join(", "))
        }
    }
}

fn study_of(row: StudyRow) -> Study {
    let mut by_stratum: Vec<StratumItems> = Vec::new();
    for (&task, stratum) in row.items.iter().zip(&row.item_strata) {
        let Some(name) = stratum else { continue };
        match by_stratum.iter_mut().find(|s| &s.name == name) {
            Some(s) => s.items.push(task),
            None => by_stratum.push(StratumItems {
                name: name.clone(),
                items: vec![task],
            }),
        }
    }
    by_stratum.sort_by(|a, b| a.name.cmp(&b.name));
    Study {
        strata: row.strata,
        by_stratum,
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

/// Refuses a draw whose sampled items could never get their answers from outside the
/// group. Serving keeps each sampled item's original overlap for non-members and only
/// the room the study adds for the members, and the gold needs that overlap from
/// non-members (kept apart) or overlap plus group (pooled): either way an item needs
/// `overlap` non-members who answered it or still can. Those are the non-members with an
/// answer on it that did not pick the trick, and everyone outside the group who has not
/// answered it, is not disabled, and is an annotator or a lead who works on this kind
/// (a lead who never annotates would fill nothing).
fn fillable_outside(
    tx: &factdesk_store::Read,
    kind: TaskKind,
    items: &[i64],
    overlaps: &HashMap<i64, u32>,
    member_ids: &[i64],
) -> Result<()> {
    use crate::annotators::Role;
    let mut answers = HashMap::new();
    for &task in items {
        answers.insert(
            task,
            factdesk_store::annotations::current_of_task(tx, task)?,
        );
    }
    let mut outside = Vec::new();
    for person in factdesk_store::annotators::list(tx)? {
        if member_ids.contains(&person.id) || factdesk_store::sign_in::is_disabled(tx, person.id)? {
            continue;
        }
        // A lead counts once they work on this kind (served or answered any of its items).
        if person.role == Role::Annotator || !studies::met_by(tx, person.id, kind)?.is_empty() {
            outside.push((person.id, person.name));
        }
    }
    let mut short = Vec::new();
    for &task in items {
        let rows = answers.get(&task).map(Vec::as_slice).unwrap_or_default();
        let answered: HashSet<i64> = rows.iter().map(|a| a.annotator_id).collect();
        let done = rows
            .iter()
            .filter(|a| !a.trick_failed && !member_ids.contains(&a.annotator_id))
            .count();
        let can = outside
            .iter()
            .filter(|(id, _)| !answered.contains(id))
            .count();
        let need = overlaps.get(&task).copied().unwrap_or(0) as usize;
        if done + can < need {
            short.push((task, need, done + can));
        }
    }
    let Some(&(_, need, have)) = short.iter().max_by_key(|(_, need, have)| need - have) else {
        return Ok(());
    };
    let names: Vec<&str> = outside.iter().map(|(_, n)| n.as_str()).collect();
    Err(invalid(format!(
        "--group: {} of the {} sampled {kind} items could never be filled: an item needs {need} answers from people outside the group (its overlap; the members only fill the room the study adds), and at most {have} can come ({} outside the group who can still answer: {}; leads who do not annotate and disabled people do not count). Name fewer people in the group, add annotators (`factdesk annotators P add NAME`) or enable one, then draw again",
        short.len(),
        items.len(),
        outside.len(),
        if names.is_empty() { "nobody".to_string() } else { names.join(", ") },
    )))
}

impl Project {
    /// Draws a study for `lead`: `req.sample` tasks of `req.kind` that are in no study yet
    /// and that no member has met (`studies::met_by`), seeded, each given room for the
    /// group, in one write transaction.
    pub fn create_study(&mut self, lead: &Lead, req: &StudyRequest) -> Result<Study> {
        self.acting_lead(lead)?;
        let lead_id = self.annotator_row(lead.name())?.id;
        if req.kind == TaskKind::Refute {
            return Err(invalid(
                "refutations are free text and have no agreement: a study samples evidence, verify or label items",
            ));
        }
        if req.kind == TaskKind::Design {
            return Err(invalid(
                "a study samples evidence, verify or label items; design items are drawn as the task set (sample --keep-only)",
            ));
        }
        if req.sample == 0 {
            return Err(invalid("--sample must be at least 1"));
        }
        let (members, member_ids) = self.study_group(&req.members)?;
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
        let mut item_strata: HashMap<i64, String> = HashMap::new();
        if let Some(by) = &req.strata {
            let rows = strata::unmet(studies::sample_rows(&tx, kind)?, &met);
            let grouped = strata::keys(&rows, by)?;
            items.clear();
            for stratum in strata::drawn(&grouped.keys, &grouped.order, req.sample, seed, kind)? {
                for task in stratum.items {
                    items.push(task);
                    item_strata.insert(task, stratum.name.clone());
                }
            }
        } else if items.len() < req.sample as usize {
            let group = members.iter().cloned().collect::<Vec<_>>().join(", ");
            return Err(invalid(format!(
                "--sample {}: only {} {kind} tasks are in no study yet and unseen by the group ({group}); {} more were already answered, served, packed or written by one of them (create tasks with `factdesk tasks`, or name people who have not worked on them)",
                req.sample,
                items.len(),
                free.len() - items.len()
            )));
        }
        if req.strata.is_none() {
            Seeded::for_purpose(seed, &format!("study:{kind}")).shuffle(&mut items);
            items.truncate(req.sample as usize);
        }
        items.sort_unstable();
        let spec = req.strata.as_ref().map(Strata::spec);
        let overlaps: HashMap<i64, u32> = free.iter().copied().collect();
        fillable_outside(&tx, kind, &items, &overlaps, &member_ids)?;
        let id = studies::insert(
            &tx,
            &NewStudy {
                kind,
                sample_size: u32::try_from(items.len()).unwrap_or(u32::MAX),
                seed,
                created_at: now,
                lead_id,
                strata: spec.as_deref(),
            },
        )?;
        for &member in &member_ids {
            studies::add_member(&tx, id, member)?;
        }
        for &task in &items {
            let stratum = item_strata.get(&task).map(String::as_str);
            studies::add_item(&tx, id, task, member_ids.len() as u32, stratum)?;
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

    /// The group's names, sorted, and their ids in the order given.
    fn study_group(&self, names: &[String]) -> Result<(BTreeSet<String>, Vec<i64>)> {
        let mut members = BTreeSet::new();
        let mut member_ids = Vec::new();
        for name in names {
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
        Ok((members, member_ids))
    }

    /// A study member's id: an annotator whom a lead has not disabled. A lead is refused:
    /// they adjudicate with everyone's answers in view, so theirs would be no independent
    /// second opinion; a disabled person could never fill the room the study keeps.
    fn study_member(&self, name: &str) -> Result<i64> {
        let row = self.annotator_row(name)?;
        if row.role == crate::annotators::Role::Lead {
            return Err(invalid(format!(
                "{} is a lead of this project: a study's group re-annotates blind, and a lead sees everyone's answers; name annotators",
                row.name
            )));
        }
        if factdesk_store::sign_in::is_disabled(self.store.read(), row.id)? {
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
    pub fn delete_study(&mut self, lead: &Lead, id: i64) -> Result<DeletedStudy> {
        self.acting_lead(lead)?;
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

    /// The dataset cards' section on how each study's items were drawn; empty without
    /// studies.
    pub(crate) fn study_samples_card(&self) -> Result<String> {
        let studies = studies::list(self.store.read())?;
        if studies.is_empty() {
            return Ok(String::new());
        }
        let mut s = String::from("\n## Re-annotation studies\n\n");
        for study in studies.into_iter().map(study_of) {
            s.push_str(&format!("- {}\n", sampled(&study)));
        }
        Ok(s)
    }

    /// Every study, oldest first.
    pub fn studies(&self, lead: &Lead) -> Result<Vec<Study>> {
        self.acting_lead(lead)?;
        Ok(studies::list(self.store.read())?
            .into_iter()
            .map(study_of)
            .collect())
    }
}
