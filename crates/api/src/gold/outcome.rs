//! Each task's outcome: from the counted annotators' answers by strict majority or
//! Dawid-Skene, unless the lead decided it.

use super::answer::{from_answer, Decision, Outcome, QueueAnswer, VoteKey};
use super::{GoldMethod, GoldRequest};
use crate::current::CurrentAnswers;
use crate::settings::EvidenceStance;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::answer::{Judgement, Selection};
use factdesk_core::gold::{dawid_skene, majority, DawidSkeneOptions, Vote};
use factdesk_core::key_hash::IdMap;
use factdesk_store::decisions;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use ts_rs::TS;

/// One task with its answers and what they (or the lead) settled on.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TaskOutcome {
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim_id: i64,
    /// Every current answer; `counted` says which ones were aggregated.
    pub answers: Vec<QueueAnswer>,
    /// Answers counted.
    pub counted: u32,
    /// Counted answers the task asks for: its overlap, less the room a study added for
    /// its group when study answers are kept apart from the gold.
    pub needed: u32,
    /// Answers rejected because they picked the trick: shown, never counted.
    pub rejected: u32,
    /// Share of counted answers equal to the outcome (or to the commonest answer when
    /// nothing was settled); null without counted answers.
    pub share_agreeing: Option<f64>,
    pub outcome: Outcome,
    /// The lead's decision, which the outcome follows when present.
    pub decision: Option<Decision>,
}

/// Every answered task's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Aggregation {
    pub method: GoldMethod,
    pub tasks: Vec<TaskOutcome>,
    /// Annotators the gold is made from: at least one of their answers was aggregated
    /// (not only answers in a study kept apart, nor only answers that picked the trick).
    pub counted_annotators: Vec<String>,
    /// Left out: flagged for failing trick sentences and not included by the lead.
    pub excluded_annotators: Vec<String>,
    /// Current answers rejected because they picked the trick.
    pub rejected_answers: u64,
    /// The project's `study_answers_in_gold` when aggregated.
    pub study_answers_in_gold: bool,
    /// The flag rule in force: a person is left out after `trick_min_seen` tricks when
    /// the Wilson 95% lower bound of their failure rate is above `trick_flag_threshold`.
    pub trick_flag_threshold: f64,
    pub trick_min_seen: u32,
    /// The stance evidence was asked for under, which decides what the trick checks.
    pub evidence_stance: EvidenceStance,
    /// The recipe the project was set up by, if any.
    pub recipe: Option<String>,
    /// The name of the project's own design, if it declares one.
    pub design: Option<String>,
    /// Current answers of re-annotation studies' groups on their samples left out of the
    /// gold (0 when study answers are pooled).
    pub study_answers_apart: u64,
    /// Dawid-Skene only: each kind's estimated accuracy of each counted annotator.
    pub accuracy: BTreeMap<String, BTreeMap<String, f64>>,
}

pub(super) struct Pending {
    pub task_id: i64,
    pub claim_id: i64,
    pub answers: Vec<QueueAnswer>,
    pub candidates: Vec<i64>,
}

impl Project {
    /// Every answered evidence, verify and label task's outcome under `req`.
    pub fn aggregate(&self, by: &Lead, req: &GoldRequest) -> Result<Aggregation> {
        self.acting_lead(by)?;
        self.aggregate_in(&CurrentAnswers::read(self)?, req)
    }

    /// [`Project::aggregate`] from answers already read.
    pub(crate) fn aggregate_in(
        &self,
        read: &CurrentAnswers,
        req: &GoldRequest,
    ) -> Result<Aggregation> {
        let annotators = self.all_annotators()?;
        let settings = self.settings()?;
        let pool_studies = settings.study_answers_in_gold;
        let conn = self.store.read();
        // COVID-Fact's procedure: the gold comes from the first group; a study's group
        // answers its sample again only to measure agreement.
        let in_study: HashSet<(i64, i64)> = factdesk_store::studies::member_items(conn)?
            .into_iter()
            .collect();
        let needed: HashMap<i64, u32> = factdesk_store::studies::overlaps(conn)?
            .into_iter()
            .map(|(task, overlap, base)| (task, needed_answers(overlap, base, pool_studies)))
            .collect();
        let mut counted_annotators = Vec::new();
        let mut excluded_annotators = Vec::new();
        let mut names = HashMap::new();
        let mut counted_ids = BTreeSet::new();
        for a in &annotators {
            names.insert(a.id, a.name.clone());
            if a.counts_with(req.include_flagged) {
                counted_ids.insert(a.id);
                counted_annotators.push(a.name.clone());
            } else {
                excluded_annotators.push(a.name.clone());
            }
        }
        let decided: HashMap<i64, decisions::DecisionRow> = decisions::latest(self.store.read())?
            .into_iter()
            .filter(|d| d.answer.is_some())
            .map(|d| (d.task_id, d))
            .collect();
        let mut tasks = Vec::new();
        let mut accuracy = BTreeMap::new();
        for kind in [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label] {
            // Decisions select sentences only on evidence items: one check, one bulk read.
            if kind == TaskKind::Evidence {
                let decided_here: Vec<&decisions::DecisionRow> = decided.values().collect();
                read.refuse_outside_candidates(self, &decided_here)?;
            }
            let who = Counting {
                names: &names,
                counted_ids: &counted_ids,
                in_study: &in_study,
                pool_studies,
            };
            let by_task = who.answers_by_task(read.of_kind(kind));
            // Each task's claim and each claim's candidates in one read apiece, not one
            // query per task.
            let claim_of = read.claim_of(self, kind)?;
            let no_candidates = IdMap::default();
            let candidates_of = if kind == TaskKind::Evidence {
                read.candidates(self)?
            } else {
                &no_candidates
            };
            let mut pending = Vec::with_capacity(by_task.len());
            for (task_id, answers) in by_task {
                let claim_id = *claim_of
                    .get(&task_id)
                    .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no task {task_id}")))?;
                pending.push(Pending {
                    task_id,
                    claim_id,
                    answers,
                    candidates: candidates_of.get(&claim_id).cloned().unwrap_or_default(),
                });
            }
            let (outcomes, acc) = settle(kind, &pending, req.method, req.seed);
            if let Some(acc) = acc {
                accuracy.insert(kind.as_str().to_string(), acc);
            }
            tasks.extend(
                pending
                    .into_iter()
                    .zip(outcomes)
                    .map(|(p, outcome)| task_outcome(kind, p, outcome, &decided, &needed)),
            );
        }
        keep_who_answered(&tasks, &mut counted_annotators, &mut excluded_annotators);
        let rejected_answers = tasks.iter().map(|t| u64::from(t.rejected)).sum();
        let study_answers_apart = if pool_studies {
            0
        } else {
            let apart = tasks.iter().flat_map(|t| &t.answers).filter(|a| a.in_study);
            apart.count() as u64
        };
        Ok(Aggregation {
            method: req.method,
            rejected_answers,
            study_answers_in_gold: pool_studies,
            trick_flag_threshold: settings.trick_flag_threshold,
            trick_min_seen: settings.trick_min_seen,
            evidence_stance: settings.stance(),
            recipe: settings.recipe.clone(),
            design: settings.design.as_ref().map(|d| d.name.clone()),
            study_answers_apart,
            tasks,
            counted_annotators,
            excluded_annotators,
            accuracy,
        })
    }
}

/// Counted are the people the gold is made from, as the cards say: not a lead who never
/// annotated, a study's member who answered only its sample kept apart, or someone whose
/// every answer picked the trick. Left out are those flagged who answered something.
fn keep_who_answered(tasks: &[TaskOutcome], counted: &mut Vec<String>, excluded: &mut Vec<String>) {
    let answers = || tasks.iter().flat_map(|t| &t.answers);
    let aggregated: BTreeSet<&str> = answers()
        .filter(|a| a.counted)
        .map(|a| a.annotator.as_str())
        .collect();
    let answered: BTreeSet<&str> = answers().map(|a| a.annotator.as_str()).collect();
    counted.retain(|n| aggregated.contains(n.as_str()));
    excluded.retain(|n| answered.contains(n.as_str()));
}

/// A task's outcome: the lead's decision where there is one, else what its answers settled.
fn task_outcome(
    kind: TaskKind,
    p: Pending,
    settled: Outcome,
    decided: &HashMap<i64, decisions::DecisionRow>,
    needed: &HashMap<i64, u32>,
) -> TaskOutcome {
    let decision = decided
        .get(&p.task_id)
        .and_then(|d| Decision::from_row(d, &p.answers));
    let outcome = match &decision {
        Some(d) => from_answer(&d.answer),
        None => settled,
    };
    let counted: Vec<&QueueAnswer> = p.answers.iter().filter(|a| a.counted).collect();
    TaskOutcome {
        task_id: p.task_id,
        kind,
        claim_id: p.claim_id,
        counted: counted.len() as u32,
        needed: needed.get(&p.task_id).copied().unwrap_or(0),
        share_agreeing: share_agreeing(&counted, &outcome),
        rejected: p.answers.iter().filter(|a| a.rejected).count() as u32,
        answers: p.answers,
        outcome,
        decision,
    }
}

/// Who counts, for turning stored answers into the queue's answers.
struct Counting<'a> {
    names: &'a HashMap<i64, String>,
    counted_ids: &'a BTreeSet<i64>,
    in_study: &'a HashSet<(i64, i64)>,
    pool_studies: bool,
}

impl Counting<'_> {
    /// The current answers of one kind by task, each marked counted or not, rejected
    /// answers last so the lead's numbers run over the others only.
    fn answers_by_task<'r>(
        &self,
        current: impl Iterator<Item = &'r factdesk_store::annotations::AnnotationRow>,
    ) -> BTreeMap<i64, Vec<QueueAnswer>> {
        let mut by_task: BTreeMap<i64, Vec<QueueAnswer>> = BTreeMap::new();
        for a in current {
            let study = self.in_study.contains(&(a.task_id, a.annotator_id));
            by_task.entry(a.task_id).or_default().push(QueueAnswer {
                annotation_id: a.id,
                annotator: self.names.get(&a.annotator_id).cloned().unwrap_or_default(),
                counted: counts(
                    self.counted_ids.contains(&a.annotator_id),
                    a.trick_failed,
                    study,
                    self.pool_studies,
                ),
                in_study: study,
                rejected: a.trick_failed,
                answer: a.answer.response.clone(),
                comment: a.answer.comment.clone(),
                trick_failed: a.trick_failed,
            });
        }
        for answers in by_task.values_mut() {
            answers.sort_by_key(|a| a.rejected);
        }
        by_task
    }
}

/// Whether a current answer counts: its annotator counted, not one that picked the trick
/// (such an answer is rejected as a whole), and not a study's answer kept apart from the
/// gold.
pub(super) fn counts(
    annotator_counted: bool,
    trick_failed: bool,
    in_study: bool,
    pool_studies: bool,
) -> bool {
    annotator_counted && !trick_failed && (pool_studies || !in_study)
}

/// The counted answers a task asks for: its overlap, less the room a study added for its
/// group (`base` is the overlap before the study) when study answers are kept apart.
pub(super) fn needed_answers(overlap: u32, base: Option<u32>, pool_studies: bool) -> u32 {
    match base {
        Some(base) if !pool_studies => base,
        _ => overlap,
    }
}

/// Share of counted answers equal to the outcome (or to the commonest answer when
/// nothing was settled); none without counted answers.
pub(super) fn share_agreeing(counted: &[&QueueAnswer], outcome: &Outcome) -> Option<f64> {
    if counted.is_empty() {
        return None;
    }
    let agreeing = match VoteKey::of_outcome(outcome) {
        Some(k) => counted
            .iter()
            .filter(|a| VoteKey::of(&a.answer) == k)
            .count(),
        None => {
            let mut groups: HashMap<VoteKey, usize> = HashMap::new();
            for a in counted {
                *groups.entry(VoteKey::of(&a.answer)).or_default() += 1;
            }
            groups.values().copied().max().unwrap_or(0)
        }
    };
    Some(agreeing as f64 / counted.len() as f64)
}

/// Outcomes of one kind's tasks from their counted answers, and the Dawid-Skene
/// accuracy of each annotator when that method is used.
pub(super) fn settle(
    kind: TaskKind,
    pending: &[Pending],
    method: GoldMethod,
    seed: u64,
) -> (Vec<Outcome>, Option<BTreeMap<String, f64>>) {
    let mut annotator_index: BTreeMap<String, usize> = BTreeMap::new();
    for p in pending {
        for a in p.answers.iter().filter(|a| a.counted) {
            let next = annotator_index.len();
            annotator_index.entry(a.annotator.clone()).or_insert(next);
        }
    }
    let options = DawidSkeneOptions {
        seed,
        ..DawidSkeneOptions::default()
    };
    let vote = Voting {
        annotator_index: &annotator_index,
        method,
        options: &options,
    };
    let (outcomes, accuracy) = if kind == TaskKind::Evidence {
        settle_evidence(pending, &vote)
    } else {
        settle_categories(pending, &vote)
    };
    (outcomes, accuracy.map(|acc| named(&annotator_index, &acc)))
}

/// How the votes of one kind are counted.
struct Voting<'a> {
    annotator_index: &'a BTreeMap<String, usize>,
    method: GoldMethod,
    options: &'a DawidSkeneOptions,
}

impl Voting<'_> {
    /// Each item's label (if any) and, for Dawid-Skene, each annotator's accuracy.
    fn labels(
        &self,
        votes: &[Vote],
        items: usize,
        categories: usize,
    ) -> (Vec<Option<usize>>, Option<Vec<f64>>) {
        match self.method {
            GoldMethod::Majority => (majority(votes, items, categories), None),
            GoldMethod::DawidSkene => {
                let ds = dawid_skene(
                    votes,
                    items,
                    self.annotator_index.len(),
                    categories,
                    self.options,
                );
                (ds.labels, Some(ds.accuracy))
            }
        }
    }
}

/// Evidence: items are (task, candidate) pairs, category 1 when the annotator selected
/// it; a trick selection is never stored as a sentence, so it never counts. A strict
/// majority for "no evidence" settles the task on none.
fn settle_evidence(pending: &[Pending], vote: &Voting<'_>) -> (Vec<Outcome>, Option<Vec<f64>>) {
    let mut votes = Vec::new();
    let mut item = 0;
    for p in pending {
        for &sentence in &p.candidates {
            for a in p.answers.iter().filter(|a| a.counted) {
                let selected = a
                    .answer
                    .selection()
                    .is_some_and(|s| s.ids().contains(&sentence));
                votes.push(Vote {
                    item,
                    annotator: vote.annotator_index[&a.annotator],
                    category: usize::from(selected),
                });
            }
            item += 1;
        }
    }
    let (labels, accuracy) = vote.labels(&votes, item, 2);
    let mut item = 0;
    let outcomes = pending
        .iter()
        .map(|p| {
            let counted: Vec<&QueueAnswer> = p.answers.iter().filter(|a| a.counted).collect();
            let none = counted
                .iter()
                .filter(|a| a.answer.selection() == Some(&Selection::NoEvidence))
                .count();
            let sentences: Vec<i64> = p
                .candidates
                .iter()
                .zip(&labels[item..item + p.candidates.len()])
                .filter(|(_, l)| **l == Some(1))
                .map(|(s, _)| *s)
                .collect();
            item += p.candidates.len();
            if !counted.is_empty() && 2 * none > counted.len() {
                Outcome::NoEvidence
            } else if sentences.is_empty() {
                Outcome::NoGoldEvidence
            } else {
                Outcome::Evidence { sentences }
            }
        })
        .collect();
    (outcomes, accuracy)
}

/// Verification and labelling: one item per task, the categories being the verdicts or
/// labels the counted answers gave, in their spelling's order.
fn settle_categories(pending: &[Pending], vote: &Voting<'_>) -> (Vec<Outcome>, Option<Vec<f64>>) {
    let mut categories: Vec<Judgement> = pending
        .iter()
        .flat_map(|p| p.answers.iter().filter(|a| a.counted))
        .filter_map(|a| a.answer.judgement())
        .collect();
    // Numbered in their spelling's order, as they always were: Dawid-Skene's start and
    // its ties follow the numbers.
    categories.sort_unstable_by_key(|j| j.as_str());
    categories.dedup();
    let mut votes = Vec::new();
    for (item, p) in pending.iter().enumerate() {
        for a in p.answers.iter().filter(|a| a.counted) {
            let Some(given) = a.answer.judgement() else {
                continue;
            };
            if let Some(category) = categories.iter().position(|c| *c == given) {
                votes.push(Vote {
                    item,
                    annotator: vote.annotator_index[&a.annotator],
                    category,
                });
            }
        }
    }
    let (labels, accuracy) = vote.labels(&votes, pending.len(), categories.len());
    let outcomes = labels
        .into_iter()
        .map(|l| match l {
            Some(i) => Outcome::Label {
                label: categories[i],
            },
            None => Outcome::NoMajority,
        })
        .collect();
    (outcomes, accuracy)
}

fn named(index: &BTreeMap<String, usize>, values: &[f64]) -> BTreeMap<String, f64> {
    index
        .iter()
        .filter_map(|(name, &i)| values.get(i).map(|v| (name.clone(), *v)))
        .collect()
}
