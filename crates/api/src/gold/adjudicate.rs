//! The lead's adjudication: tasks sorted by disagreement with every answer side by side,
//! and decisions (take an answer, or give one) that record who, when and why and can be
//! undone.

use super::answer::{from_answer, Decision, Outcome, QueueAnswer};
use super::GoldRequest;
use crate::annotate::{check_shape, Answer, Shaped};
use crate::disagreement::DecisionNote;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::answer::{Response, Selection, STORED_VERSION};
use factdesk_store::decisions::{self, NewDecision};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the lead decides on a task: one of two cases, so a decision with both or neither
/// cannot be sent. As JSON `{"take": "ana"}` or `{"answer": {"kind": "label", "label":
/// "REFUTED"}}`: externally tagged, as `Response` carries its own `kind` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Ruling {
    /// Take this annotator's current answer.
    Take(String),
    /// The lead's own answer, checked as an annotator's is.
    Answer(Response),
}

/// Read by hand, not derived: serde's own message for an object with both keys is
/// "expected value", which tells a client nothing.
impl<'de> Deserialize<'de> for Ruling {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Ruling, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Keys {
            take: Option<String>,
            answer: Option<Response>,
        }
        let keys = Keys::deserialize(d)?;
        match (keys.take, keys.answer) {
            (Some(name), None) => Ok(Ruling::Take(name)),
            (None, Some(answer)) => Ok(Ruling::Answer(answer)),
            (Some(_), Some(_)) => Err(serde::de::Error::custom(
                "a ruling takes an annotator's answer (\"take\") or gives one (\"answer\"), not both",
            )),
            (None, None) => Err(serde::de::Error::custom(
                "a ruling needs \"take\" (an annotator's name) or \"answer\" (an answer with its \"kind\")",
            )),
        }
    }
}

/// A candidate sentence in its document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QueueCandidate {
    pub sentence_id: i64,
    pub document_id: String,
    pub sentence_index: i64,
    pub text: String,
}

/// Which part of the queue an item sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum QueueGroup {
    /// Two or more counted answers that disagree (or settle on nothing): first.
    Disagreement,
    /// Fewer than two counted answers (one answer, or only a flagged annotator's or
    /// rejected ones): nothing to compare yet, so after the disagreements.
    Thin,
}

impl QueueGroup {
    /// The group of an item with `counted` counted answers.
    pub(crate) fn of(counted: usize) -> QueueGroup {
        if counted >= 2 {
            QueueGroup::Disagreement
        } else {
            QueueGroup::Thin
        }
    }
}

/// A task waiting for (or holding) the lead's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QueueItem {
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim: String,
    /// The claim's own id, as imported.
    pub claim_id: String,
    /// The claim's number in the project ("#12" on screen).
    pub claim_number: i64,
    pub group: QueueGroup,
    /// Of the counted answers; null when there are none.
    pub share_agreeing: Option<f64>,
    pub outcome: Outcome,
    /// Counted answers first, then the others (flagged annotators', rejected ones).
    pub answers: Vec<QueueAnswer>,
    /// Evidence tasks: the candidates shown; label tasks: the evidence the claim was
    /// judged against. Grouped by document (in order of first appearance), each
    /// document's in sentence order, so their numbers on screen read in order.
    pub candidates: Vec<QueueCandidate>,
    pub decision: Option<Decision>,
    /// Design items: a pair's second text (`claim` is its first).
    #[serde(default)]
    pub text_b: Option<String>,
    /// Design items: the design's questions, which the answers are keyed by.
    #[serde(default)]
    pub questions: Vec<factdesk_core::design::Question>,
}

/// The queue's order: disagreements before thin items, the least agreement first.
pub(crate) fn in_queue_order(items: &mut [QueueItem]) {
    items.sort_by(|a, b| {
        let share = |i: &QueueItem| i.share_agreeing.unwrap_or(0.0);
        a.group
            .cmp(&b.group)
            .then(share(a).total_cmp(&share(b)))
            .then(a.task_id.cmp(&b.task_id))
    });
}

impl Project {
    /// The built-in kinds' part of the adjudication queue (`crate::declared` adds the
    /// design's): tasks the counted annotators disagree on (or that settled on nothing),
    /// most disagreement first; then, in their own group, tasks with fewer than two
    /// counted answers. For a lead, who the caller checked.
    pub(crate) fn built_in_queue(&self, lead: &Lead, req: &GoldRequest) -> Result<Vec<QueueItem>> {
        let aggregation = self.aggregate(lead, req)?;
        // A closed verification (its refutation rejected or replaced) needs no decision.
        let closed: std::collections::HashSet<i64> =
            factdesk_store::tasks::closed(self.store.read())?
                .into_iter()
                .collect();
        let mut items = Vec::new();
        for t in aggregation.tasks {
            if closed.contains(&t.task_id) {
                continue;
            }
            let unsettled = matches!(t.outcome, Outcome::NoGoldEvidence | Outcome::NoMajority);
            if t.decision.is_none() && !unsettled && t.share_agreeing.is_none_or(|s| s >= 1.0) {
                continue;
            }
            let claim = self
                .store
                .claim(t.claim_id)?
                .ok_or_else(|| Error::new(ErrorCode::NotFound, "a task's claim is missing"))?;
            let candidates = if matches!(t.kind, TaskKind::Evidence | TaskKind::Label) {
                in_reading_order(
                    self.store
                        .candidates(t.claim_id)?
                        .into_iter()
                        .map(|c| QueueCandidate {
                            sentence_id: c.sentence_id,
                            document_id: c.document_ext_id,
                            sentence_index: c.sentence_index,
                            text: c.text,
                        })
                        .collect(),
                )
            } else {
                Vec::new()
            };
            let mut answers = t.answers;
            answers.sort_by_key(|a| !a.counted);
            let counted = answers.iter().filter(|a| a.counted).count();
            items.push(QueueItem {
                task_id: t.task_id,
                kind: t.kind,
                claim: claim.text,
                claim_number: claim.id,
                claim_id: claim.ext_id,
                group: QueueGroup::of(counted),
                share_agreeing: t.share_agreeing,
                outcome: t.outcome,
                answers,
                candidates,
                decision: t.decision,
                text_b: None,
                questions: Vec::new(),
            });
        }
        in_queue_order(&mut items);
        Ok(items)
    }

    /// Records the lead's decision on a task: take an annotator's current answer, or give
    /// one (stored like an annotator's answer). Returns the resulting outcome.
    pub fn decide(
        &mut self,
        lead: &Lead,
        task_id: i64,
        ruling: Ruling,
        note: &DecisionNote,
    ) -> Result<Outcome> {
        self.acting_lead(lead)?;
        self.decide_task(lead, task_id, None, ruling, note)
    }

    /// [`Project::decide`] from a screen that showed the task's decision as `seen` (its
    /// time, `None` for no decision): refused as a conflict when the decision is another
    /// by now (taken meanwhile in another window or by `factdesk adjudicate`), so a queue
    /// left open does not silently replace it.
    pub fn decide_seen(
        &mut self,
        lead: &Lead,
        task_id: i64,
        seen: Option<i64>,
        ruling: Ruling,
        note: &DecisionNote,
    ) -> Result<Outcome> {
        self.acting_lead(lead)?;
        self.decide_task(lead, task_id, Some(seen), ruling, note)
    }

    /// The lead's answer written by hand (`factdesk adjudicate --answer`), typed for task
    /// `task_id`'s kind and checked against its candidates, ready for [`Ruling::Answer`].
    pub fn hand_answer(&self, lead: &Lead, task_id: i64, given: &HandAnswer) -> Result<Response> {
        self.acting_lead(lead)?;
        let task = self.decidable_task(task_id)?;
        self.checked_answer(task.kind, task_id, task.claim_id, given)
    }

    /// Task `task_id`, refused when it takes no decision: a written refutation (reviewed
    /// instead) or a closed verification.
    fn decidable_task(&self, task_id: i64) -> Result<factdesk_store::tasks::TaskRow> {
        let task = self.task(task_id)?;
        if task.kind == TaskKind::Refute {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "written refutations are reviewed (factdesk review), not adjudicated",
            ));
        }
        // A closed verification's refutation was rejected or replaced: nothing to settle.
        if factdesk_store::tasks::is_closed(self.store.read(), task_id)? {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("task {task_id} is closed: the refutation it verifies was rejected or replaced, so there is nothing to decide"),
            ));
        }
        Ok(task)
    }

    fn decide_task(
        &mut self,
        lead: &Lead,
        task_id: i64,
        seen: Option<Option<i64>>,
        ruling: Ruling,
        note: &DecisionNote,
    ) -> Result<Outcome> {
        let lead_id = self.find_annotator(lead.name())?.id;
        let task = self.decidable_task(task_id)?;
        let category = self.listed_category(note)?;
        let kind = task.kind;
        let (answer, taken_from) = match ruling {
            Ruling::Take(name) => {
                let who = self.find_annotator(&name)?;
                let taken =
                    factdesk_store::annotations::current(self.store.read(), task_id, who.id)?
                        .ok_or_else(|| {
                            Error::new(
                                ErrorCode::NotFound,
                                format!("{name} has not answered task {task_id}"),
                            )
                        })?;
                if taken.trick_failed {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        format!("{name}'s answer on task {task_id} picked the trick and was rejected; give an answer instead"),
                    ));
                }
                (taken.answer.response, Some(taken.id))
            }
            Ruling::Answer(given) => {
                if given.kind() != kind {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "answer: field \"kind\" is {}, but task {task_id} is {} task",
                            given.kind(),
                            kind.with_article()
                        ),
                    ));
                }
                let as_given = HandAnswer::from(&given);
                (
                    self.checked_answer(kind, task_id, task.claim_id, &as_given)?,
                    None,
                )
            }
        };
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        // Checked inside the write transaction: no other decision slips in between.
        if let Some(seen) = seen {
            same_decision(&tx, task_id, seen)?;
        }
        decisions::insert(
            &tx,
            &NewDecision {
                task_id,
                lead_id,
                answer: Some(&answer),
                taken_from,
                reason: note.reason.as_deref().filter(|r| !r.trim().is_empty()),
                category: category.as_deref(),
                at: now,
            },
        )?;
        tx.commit()?;
        Ok(from_answer(&answer))
    }

    /// Undoes the lead's current decision on a task; the answers settle it again.
    pub fn undo_decision(&mut self, lead: &Lead, task_id: i64, reason: Option<&str>) -> Result<()> {
        self.acting_lead(lead)?;
        self.undo_task(lead, task_id, None, reason)
    }

    /// [`Project::undo_decision`] of the decision a screen showed, made at `seen`: refused
    /// as a conflict when the task's decision is another by now.
    pub fn undo_decision_seen(
        &mut self,
        lead: &Lead,
        task_id: i64,
        seen: i64,
        reason: Option<&str>,
    ) -> Result<()> {
        self.acting_lead(lead)?;
        self.undo_task(lead, task_id, Some(seen), reason)
    }

    fn undo_task(
        &mut self,
        lead: &Lead,
        task_id: i64,
        seen: Option<i64>,
        reason: Option<&str>,
    ) -> Result<()> {
        let lead_id = self.find_annotator(lead.name())?.id;
        self.task(task_id)?;
        let current = decisions::latest(self.store.read())?
            .into_iter()
            .find(|d| d.task_id == task_id);
        if current.is_none_or(|d| d.answer.is_none()) {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("task {task_id} has no decision to undo"),
            ));
        }
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        if let Some(seen) = seen {
            same_decision(&tx, task_id, Some(seen))?;
        }
        decisions::insert(
            &tx,
            &NewDecision {
                task_id,
                lead_id,
                answer: None,
                taken_from: None,
                reason: reason.filter(|r| !r.trim().is_empty()),
                category: None,
                at: now,
            },
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The note's category as the project lists it; a blank one is none, and one the
    /// list lacks is refused before anything is written.
    fn listed_category(&self, note: &DecisionNote) -> Result<Option<String>> {
        let Some(given) = note.category.as_deref().filter(|c| !c.trim().is_empty()) else {
            return Ok(None);
        };
        let list = self.settings()?.disagreement_categories;
        match crate::disagreement::find(&list, given) {
            Ok(name) => Ok(Some(name.to_string())),
            Err(message) => Err(Error::input("decision", 0, Some("category"), message)),
        }
    }

    /// A lead's own answer, written as `{"selected": [sentence ids]}`, `{"no_evidence":
    /// true}` or `{"label": ...}`, typed, with its sentences among the candidates.
    fn checked_answer(
        &self,
        kind: TaskKind,
        task_id: i64,
        claim_id: i64,
        given: &HandAnswer,
    ) -> Result<Response> {
        let invalid = |m: String| Error::new(ErrorCode::InvalidInput, m);
        if given.v.is_some_and(|v| v != STORED_VERSION) {
            return Err(invalid(format!(
                "answer: field \"v\" must be {STORED_VERSION} when given"
            )));
        }
        if given.kind.is_some_and(|k| k != kind) {
            return Err(invalid(format!(
                "answer: field \"kind\" must be {kind} when given: task {task_id} is {} task",
                kind.with_article()
            )));
        }
        let shown: Vec<String> = self
            .store
            .candidates(claim_id)?
            .into_iter()
            .map(|c| c.sentence_id.to_string())
            .collect();
        let issued: Vec<&str> = shown.iter().map(String::as_str).collect();
        // The same checks as an annotator's answer, with sentence ids as the options.
        let as_submitted = Answer {
            task_id,
            selected: given.selected.iter().map(i64::to_string).collect(),
            no_evidence: given.no_evidence,
            text: given.text.clone(),
            label: given.label.clone(),
            comment: None,
            duration_ms: None,
            answers: given.answers.clone().map(crate::annotate::ByQuestion),
            key: None,
        };
        if let Some(bad) = given
            .selected
            .iter()
            .find(|s| !shown.contains(&s.to_string()))
        {
            return Err(invalid(format!(
                "answer: field \"selected\": sentence {bad} is not a candidate of this claim"
            )));
        }
        let shaped = check_shape(kind, &as_submitted, &issued)
            .map_err(|e| invalid(format!("answer: {}", e.message)))?;
        Ok(match shaped {
            Shaped::Options(_) => Response::Evidence {
                selection: Selection::sentences(given.selected.clone()),
            },
            Shaped::Response(Response::Design { answers }) => {
                let task = self.task(task_id)?;
                let claim = self.store.claim(claim_id)?.ok_or_else(|| {
                    Error::new(ErrorCode::NotFound, "the task's claim is missing")
                })?;
                Response::Design {
                    answers: crate::design::checked(
                        self,
                        &task,
                        &claim.text,
                        &self.settings()?,
                        &answers,
                    )
                    .map_err(|e| invalid(format!("answer: {}", e.message)))?,
                }
            }
            Shaped::Response(response) => response,
        })
    }
}

/// Candidates grouped by document, in the order the documents first appear, and each
/// document's in sentence order.
fn in_reading_order(mut candidates: Vec<QueueCandidate>) -> Vec<QueueCandidate> {
    let mut documents: Vec<String> = Vec::new();
    for c in &candidates {
        if !documents.contains(&c.document_id) {
            documents.push(c.document_id.clone());
        }
    }
    candidates.sort_by_key(|c| {
        let doc = documents.iter().position(|d| *d == c.document_id);
        (doc, c.sentence_index)
    });
    candidates
}

/// A lead's own answer as a person writes it (`factdesk adjudicate --answer`): the fields
/// of `factdesk submit`'s answers, with sentence ids instead of option ids; `v` and `kind`
/// may come along when a stored answer is pasted. [`Project::hand_answer`] types it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HandAnswer {
    v: Option<u32>,
    kind: Option<TaskKind>,
    selected: Vec<i64>,
    no_evidence: bool,
    text: Option<String>,
    label: Option<String>,
    /// A design task's answers by question.
    answers: Option<std::collections::BTreeMap<String, factdesk_core::design::Given>>,
}

/// A typed answer in the written fields, so it passes the very checks a written one does.
impl From<&Response> for HandAnswer {
    fn from(r: &Response) -> HandAnswer {
        let mut given = HandAnswer {
            kind: Some(r.kind()),
            ..HandAnswer::default()
        };
        match r {
            Response::Evidence { selection } => {
                given.selected = selection.ids().to_vec();
                given.no_evidence = *selection == Selection::NoEvidence;
            }
            Response::Refute { text } => given.text = Some(text.clone()),
            Response::Verify { verdict } => given.label = Some(verdict.as_str().into()),
            Response::Label { label } => given.label = Some(label.as_str().into()),
            Response::Design { answers } => given.answers = Some(answers.clone()),
        }
        given
    }
}

/// Refuses, as a conflict, when task `task_id`'s current decision is not the one made at
/// `seen` (`None`: no decision, or the last one undone).
fn same_decision(conn: &factdesk_store::Read, task_id: i64, seen: Option<i64>) -> Result<()> {
    let now = decisions::latest(conn)?
        .into_iter()
        .find(|d| d.task_id == task_id)
        .filter(|d| d.answer.is_some())
        .map(|d| d.at);
    if now == seen {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::Conflict,
        match now {
            Some(_) => format!("task {task_id} was decided meanwhile (in another window or by factdesk adjudicate); the queue is read again"),
            None => format!("task {task_id}'s decision was undone meanwhile (in another window or by factdesk adjudicate); the queue is read again"),
        },
    ))
}
