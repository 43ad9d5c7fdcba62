//! The adjudication queue with the design's items in it: a design item waits for the
//! lead when its counted answers differ on a question, or when a required choice question
//! has no strict majority (its gold is held back until then). The built-in kinds' items
//! come from `crate::gold`; this module adds the design's and keeps the queue's order.

use super::gold::{majority_answers, unsettled};
use crate::current::CurrentAnswers;
use crate::gold::{
    in_queue_order, Decision, GoldRequest, Outcome, QueueAnswer, QueueGroup, QueueItem,
};
use crate::{Lead, Project, Result};
use factdesk_core::answer::Response;
use factdesk_core::design::{Design, Given, QuestionType};
use factdesk_core::task::TaskKind;
use std::collections::{BTreeMap, HashMap};

impl Project {
    /// Tasks the counted annotators disagree on (or that settled on nothing), most
    /// disagreement first; then, in their own group, tasks with fewer than two counted
    /// answers; the design's items among them. Lead only.
    pub fn adjudication_queue(&self, lead: &Lead, req: &GoldRequest) -> Result<Vec<QueueItem>> {
        self.acting_lead(lead)?;
        let mut items = self.built_in_queue(lead, req)?;
        if let Some(design) = self.settings()?.design {
            items.extend(self.design_queue(&design, req)?);
            in_queue_order(&mut items);
        }
        Ok(items)
    }

    fn design_queue(&self, design: &Design, req: &GoldRequest) -> Result<Vec<QueueItem>> {
        let read = CurrentAnswers::read(self)?;
        let people = self.all_annotators()?;
        let names: HashMap<i64, (String, bool)> = people
            .into_iter()
            .map(|a| {
                let counts = a.counts_with(req.include_flagged);
                (a.id, (a.name, counts))
            })
            .collect();
        let controls = self.store.all_control_answers()?;
        let claim_of = read.claim_of(self, TaskKind::Design)?;
        let mut by_task: BTreeMap<i64, Vec<QueueAnswer>> = BTreeMap::new();
        for a in read.of_kind(TaskKind::Design) {
            let (name, counts) = names.get(&a.annotator_id).cloned().unwrap_or_default();
            by_task.entry(a.task_id).or_default().push(QueueAnswer {
                annotation_id: a.id,
                annotator: name,
                counted: counts && !a.trick_failed,
                in_study: false,
                rejected: a.trick_failed,
                answer: a.answer.response.clone(),
                comment: a.answer.comment.clone(),
                trick_failed: a.trick_failed,
            });
        }
        let decisions: HashMap<i64, factdesk_store::decisions::DecisionRow> =
            factdesk_store::decisions::latest(self.store.read())?
                .into_iter()
                .filter(|d| d.kind == TaskKind::Design)
                .map(|d| (d.task_id, d))
                .collect();
        let mut items = Vec::new();
        for (task_id, mut answers) in by_task {
            let Some(&claim_id) = claim_of.get(&task_id) else {
                continue;
            };
            if controls.contains_key(&claim_id) {
                continue;
            }
            let Some(claim) = self.store.claim(claim_id)? else {
                continue;
            };
            answers.sort_by_key(|a| !a.counted);
            let decision = decisions
                .get(&task_id)
                .and_then(|d| Decision::from_row(d, &answers));
            let text_b = self.store.pair_text(claim_id)?;
            let texts = HashMap::from([(claim_id, (claim.text.clone(), text_b.clone()))]);
            let (outcome, share, settled) = majorities(design, &answers, &texts, claim_id);
            if decision.is_none() && settled && share.is_none_or(|s| s >= 1.0) {
                continue;
            }
            let counted = answers.iter().filter(|a| a.counted).count();
            items.push(QueueItem {
                task_id,
                kind: TaskKind::Design,
                claim: claim.text,
                claim_id: claim.ext_id,
                claim_number: claim.id,
                group: QueueGroup::of(counted),
                share_agreeing: share,
                outcome: match &decision {
                    Some(d) => crate::gold::outcome_of_answer(&d.answer),
                    None => outcome,
                },
                answers,
                candidates: Vec::new(),
                decision,
                text_b,
                questions: design.questions.clone(),
            });
        }
        Ok(items)
    }
}

/// What the counted answers settle on question by question (as the gold would), the
/// mean share agreeing with it over the questions but free-text ones, and whether every
/// required question has a strict majority.
fn majorities(
    design: &Design,
    answers: &[QueueAnswer],
    texts: &HashMap<i64, (String, Option<String>)>,
    claim_id: i64,
) -> (Outcome, Option<f64>, bool) {
    let counted: Vec<&BTreeMap<String, Given>> = answers
        .iter()
        .filter(|a| a.counted)
        .filter_map(|a| match &a.answer {
            Response::Design { answers } => Some(answers),
            _ => None,
        })
        .collect();
    let line = majority_answers(design, &counted, texts, claim_id);
    // As the gold holds an item back.
    let settled_all = unsettled(design, &line).is_none();
    let mut values = BTreeMap::new();
    let mut shares = Vec::new();
    for (id, gold) in line {
        let Some(q) = design.questions.iter().find(|q| q.id == id) else {
            continue;
        };
        // As for the built-in kinds: the share agreeing with the outcome, or with the
        // largest group when there is none.
        let agreeing = match (q.kind, &gold.value) {
            (QuestionType::Choice, None) => {
                let mut votes: BTreeMap<&Given, u32> = BTreeMap::new();
                for g in counted.iter().filter_map(|a| a.get(&id)) {
                    *votes.entry(g).or_default() += 1;
                }
                votes.into_values().max().unwrap_or(0)
            }
            _ => gold.agreeing,
        };
        if q.kind != QuestionType::Text && gold.answers > 0 {
            shares.push(f64::from(agreeing) / f64::from(gold.answers));
        }
        if let Some(v) = gold.value {
            values.insert(id, v);
        }
    }
    let share = (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64);
    let outcome = if settled_all && !counted.is_empty() {
        Outcome::Answers { answers: values }
    } else {
        Outcome::NoMajority
    };
    (outcome, share, settled_all)
}
