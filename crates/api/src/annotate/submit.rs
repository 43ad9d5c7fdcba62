//! Taking an answer: checked, committed, then acknowledged.

use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::checks;
use factdesk_store::annotations::{self, NewAnnotation};
use factdesk_store::{assignments, tasks};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// An answer as the annotator's side sends it (one JSON line of `factdesk submit`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
pub struct Answer {
    pub task_id: i64,
    /// Evidence: the opaque ids of the selected sentences.
    pub selected: Vec<String>,
    /// Evidence: none of the sentences is evidence.
    pub no_evidence: bool,
    /// Refute: the written claim.
    pub text: Option<String>,
    /// Verify: contradicts, does_not_contradict or malformed. Label: SUPPORTED, REFUTED,
    /// NOT ENOUGH INFO or FAILED.
    pub label: Option<String>,
    pub comment: Option<String>,
    /// Time spent on the item as measured by the client; the server measures it otherwise.
    pub duration_ms: Option<i64>,
}

/// The acknowledgement of a committed answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Ack {
    pub ack: String,
    pub task_id: i64,
}

pub const VERIFY_LABELS: [&str; 3] = ["contradicts", "does_not_contradict", "malformed"];

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, msg)
}

impl Project {
    /// Checks and commits `answer` by annotator `name`, returning the acknowledgement
    /// only once it is durable. A second answer to the same task supersedes the first.
    pub fn submit(&mut self, name: &str, answer: &Answer) -> Result<Ack> {
        let annotator = self.annotator_row(name)?;
        let settings = self.settings()?;
        let now = self.clock.now_ms();
        let task = self.task(answer.task_id)?;
        let kind = TaskKind::from_db(&task.kind);
        let conn = self.store.conn();
        let earlier = annotations::current(conn, task.id, annotator.id)?;
        if earlier.is_none() && !self.can_take(&task, annotator.id, now)? {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("task {} already has its {} answers; your reservation lapsed and it went to others", task.id, task.overlap),
            ));
        }
        let claim = self
            .store
            .claim(task.claim_id)?
            .ok_or_else(|| Error::new(ErrorCode::NotFound, "the task's claim is missing"))?;
        let mut trick_failed = false;
        let stored =
            match kind {
                TaskKind::Evidence => {
                    let slots = self.slots(&task, annotator.id, &claim.text, &settings)?;
                    if answer.no_evidence && !answer.selected.is_empty() {
                        return Err(invalid("choose sentences or \"no evidence\", not both"));
                    }
                    if !answer.no_evidence && answer.selected.is_empty() {
                        return Err(invalid("select at least one sentence, or \"no evidence\""));
                    }
                    let mut chosen = Vec::new();
                    for id in &answer.selected {
                        let slot = slots.iter().find(|s| &s.id == id).ok_or_else(|| {
                            invalid(format!("unknown option {id:?} for task {}", task.id))
                        })?;
                        match slot.sentence_id {
                            Some(sid) => chosen.push(sid),
                            None => trick_failed = true,
                        }
                    }
                    chosen.sort_unstable();
                    chosen.dedup();
                    serde_json::json!({"selected": chosen, "no_evidence": answer.no_evidence})
                }
                TaskKind::Refute => {
                    let text = answer.text.as_deref().unwrap_or("").trim().to_string();
                    let results = checks::check_refutation(&claim.text, &text, &settings.checks);
                    if let Some(failed) = checks::blocking(&results) {
                        return Err(Error::new(ErrorCode::CheckFailed, failed.message.clone()));
                    }
                    serde_json::json!({"text": text})
                }
                TaskKind::Verify => {
                    let label = answer.label.as_deref().unwrap_or("");
                    if !VERIFY_LABELS.contains(&label) {
                        return Err(invalid(format!(
                            "label must be one of {}",
                            VERIFY_LABELS.join(", ")
                        )));
                    }
                    serde_json::json!({"label": label})
                }
                TaskKind::Label => {
                    let label: factdesk_core::claim::Label =
                        answer.label.as_deref().unwrap_or("").parse().map_err(
                            |e: factdesk_core::claim::UnknownLabel| invalid(e.to_string()),
                        )?;
                    serde_json::json!({"label": label.as_str()})
                }
            };
        let duration = answer.duration_ms.or_else(|| {
            assignments::reserved_at(self.store.conn(), task.id, annotator.id)
                .ok()
                .flatten()
                .map(|at| now - at)
        });
        let uuid = uuid::Uuid::new_v4().to_string();
        let answer_json = stored.to_string();
        let tx = self.store.transaction()?;
        let id = annotations::insert(
            &tx,
            &NewAnnotation {
                uuid: &uuid,
                task_id: task.id,
                annotator_id: annotator.id,
                answer: &answer_json,
                comment: answer.comment.as_deref().filter(|c| !c.trim().is_empty()),
                trick_failed,
                duration_ms: duration,
                supersedes: earlier.as_ref().map(|e| e.id),
                created_at: now,
            },
        )?;
        if earlier.is_none() {
            tasks::add_answer(&tx, task.id)?;
        }
        assignments::mark_answered(&tx, task.id, annotator.id, now)?;
        if kind == TaskKind::Refute {
            let written = crate::refutation::Written {
                parent: &claim,
                text: stored["text"].as_str().unwrap_or_default(),
                annotation_id: id,
                uuid: &uuid,
                writer_id: annotator.id,
                supersedes: earlier.as_ref().map(|e| e.id),
                now,
            };
            crate::refutation::write(&tx, &settings, &written)?;
        }
        tx.commit()?;
        Ok(Ack {
            ack: uuid,
            task_id: task.id,
        })
    }
}
