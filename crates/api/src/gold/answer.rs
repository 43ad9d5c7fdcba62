//! A task's answers and the lead's decision as the lead sees them, what a task settled on,
//! and how answers are compared with each other and with that outcome. Both the
//! aggregation and the adjudication build on this module; neither reaches into the other.

use factdesk_core::answer::{Judgement, Response, Selection};
use factdesk_store::decisions::DecisionRow;
use serde::Serialize;
use ts_rs::TS;

/// What a task settled on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Evidence: the gold sentences (ids in the project).
    Evidence { sentences: Vec<i64> },
    /// Evidence: a strict majority said none of the sentences is evidence.
    NoEvidence,
    /// Evidence: no sentence was selected by a strict majority.
    NoGoldEvidence,
    /// Verify or label: the verdict or label a strict majority (or the model) gave.
    Label { label: Judgement },
    /// Verify or label: no strict majority.
    NoMajority,
}

/// One annotator's current answer on a task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct QueueAnswer {
    pub annotation_id: i64,
    pub annotator: String,
    /// Whether it counts: its annotator is not flagged (or the lead included them) and
    /// it did not pick the trick.
    pub counted: bool,
    /// Rejected because it picked the trick: shown, counted for nothing, never taken.
    pub rejected: bool,
    pub answer: Response,
    pub comment: Option<String>,
    pub trick_failed: bool,
}

/// The lead's current decision on a task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Decision {
    pub lead: String,
    /// Unix milliseconds.
    pub at: i64,
    pub reason: Option<String>,
    /// The annotator whose answer was taken, if one was.
    pub taken_from: Option<String>,
    pub answer: Response,
}

impl Decision {
    /// The decision a row records; none when the row undid the last one.
    pub(crate) fn from_row(d: &DecisionRow, answers: &[QueueAnswer]) -> Option<Decision> {
        Some(Decision {
            lead: d.lead.clone(),
            at: d.at,
            reason: d.reason.clone(),
            taken_from: d.taken_from.and_then(|id| {
                answers
                    .iter()
                    .find(|a| a.annotation_id == id)
                    .map(|a| a.annotator.clone())
            }),
            answer: d.answer.clone()?,
        })
    }
}

/// An answer reduced to what is compared: the selected set ("none" for "no evidence"),
/// or the verdict or label. Sorting these strings orders the categories of a kind.
pub(crate) fn key(response: &Response) -> String {
    match response {
        Response::Evidence {
            selection: Selection::NoEvidence,
        } => "none".into(),
        Response::Evidence {
            selection: Selection::Sentences(ids),
        } => ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","),
        Response::Refute { .. } => String::new(),
        Response::Verify { verdict } => verdict.as_str().into(),
        Response::Label { label } => label.as_str().into(),
    }
}

/// The key an outcome agrees with; none when nothing was settled.
pub(crate) fn outcome_key(outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Evidence { sentences } => {
            // In id order, as `key` writes an answer's selection; the outcome lists the
            // sentences in candidate order.
            let mut ids = sentences.clone();
            ids.sort_unstable();
            Some(ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
        }
        Outcome::NoEvidence => Some("none".into()),
        Outcome::Label { label } => Some(label.as_str().into()),
        Outcome::NoGoldEvidence | Outcome::NoMajority => None,
    }
}

/// The outcome a decision's answer stands for.
pub(crate) fn from_answer(response: &Response) -> Outcome {
    match response {
        Response::Evidence {
            selection: Selection::NoEvidence,
        } => Outcome::NoEvidence,
        Response::Evidence {
            selection: Selection::Sentences(ids),
        } if ids.is_empty() => Outcome::NoGoldEvidence,
        Response::Evidence {
            selection: Selection::Sentences(ids),
        } => Outcome::Evidence {
            sentences: ids.clone(),
        },
        Response::Refute { .. } => Outcome::NoMajority,
        Response::Verify { .. } | Response::Label { .. } => match response.judgement() {
            Some(label) => Outcome::Label { label },
            None => Outcome::NoMajority,
        },
    }
}

impl crate::Project {
    /// Fails on the first task of an unknown kind or stored answer (of any kind, even
    /// those the caller does not count, such as written refutations) that cannot be read,
    /// naming its row: readers that fetch one kind at a time would otherwise skip it.
    ///
    /// The check reads every answer, so it is skipped while nothing changed since it last
    /// passed: one command computing agreement for each kind, or a report, reads them once.
    pub(crate) fn check_stored(&self) -> crate::Result<()> {
        let mark = self.store.change_mark()?;
        let checked_at = || {
            self.checked_at
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if mark.is_some() && *checked_at() == mark {
            return Ok(());
        }
        let conn = self.store.conn();
        factdesk_store::tasks::check_kinds(conn)?;
        factdesk_store::annotations::all(conn)?;
        factdesk_store::decisions::latest(conn)?;
        *checked_at() = mark;
        Ok(())
    }

    /// Refuses a stored evidence answer (or decision) that selects a sentence its claim
    /// never showed as a candidate: a damaged or rewritten row, which would otherwise be
    /// silently dropped from the gold data or blamed on the item.
    pub(crate) fn refuse_outside_candidates(
        &self,
        rows: &[factdesk_store::annotations::AnnotationRow],
        decided: &[&DecisionRow],
    ) -> crate::Result<()> {
        use std::collections::{HashMap, HashSet};
        let selects = |r: &Response| matches!(r, Response::Evidence { selection } if !selection.ids().is_empty());
        if !rows.iter().any(|a| selects(&a.answer.response))
            && !decided
                .iter()
                .any(|d| d.answer.as_ref().is_some_and(selects))
        {
            return Ok(());
        }
        // Two bulk reads, not a query per answer: at 300,000 answers the per-row reads
        // cost more than the export they guard.
        let conn = self.store.conn();
        let claim_of: HashMap<i64, i64> =
            factdesk_store::tasks::claims_of_tasks(conn, factdesk_core::task::TaskKind::Evidence)?
                .into_iter()
                .collect();
        let mut shown: HashMap<i64, HashSet<i64>> = HashMap::new();
        for (claim_id, sentence_id) in factdesk_store::feed::candidate_ids(conn)? {
            shown.entry(claim_id).or_default().insert(sentence_id);
        }
        let check = |task_id: i64, response: &Response, row: &dyn Fn() -> String| {
            let Response::Evidence { selection } = response else {
                return Ok(());
            };
            if selection.ids().is_empty() {
                return Ok(());
            }
            let Some(&claim_id) = claim_of.get(&task_id) else {
                return Err(crate::Error::new(
                    crate::ErrorCode::Database,
                    format!(
                        "{}: an evidence answer on task {task_id}, which is not an evidence task",
                        row()
                    ),
                ));
            };
            let candidates = shown.get(&claim_id);
            match selection
                .ids()
                .iter()
                .find(|id| !candidates.is_some_and(|c| c.contains(id)))
            {
                Some(id) => Err(crate::Error::new(
                    crate::ErrorCode::Database,
                    format!(
                        "{}: the stored answer selects sentence {id}, which is not a candidate of claim {claim_id}",
                        row()
                    ),
                )),
                None => Ok(()),
            }
        };
        for a in rows {
            check(a.task_id, &a.answer.response, &|| {
                format!("annotation {} ({})", a.id, a.uuid)
            })?;
        }
        for d in decided {
            if let Some(response) = &d.answer {
                check(d.task_id, response, &|| {
                    format!("decision {} on task {}", d.id, d.task_id)
                })?;
            }
        }
        Ok(())
    }
}
