//! "Show in document": a candidate sentence among its neighbours, and the live checks of
//! a refutation being written.

use super::item::TextPiece;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::checks;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Sentences shown on each side of the one asked about.
const AROUND: usize = 3;

/// One live check of a refutation being written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Check {
    /// empty, identical, length, negation_only or subject.
    pub kind: String,
    pub passed: bool,
    pub message: String,
}

/// A passage of a document around one option, that option marked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Passage {
    pub title: Option<String>,
    /// The passage, sentence by sentence; `hit` marks the option's sentence.
    pub sentences: Vec<TextPiece>,
}

impl Project {
    /// The passage around option `option_id` of an evidence task. The trick gets a
    /// passage of the same shape (its neighbours' passage with it in place), so asking
    /// for context tells nothing about which option it is.
    pub fn passage(&self, name: &str, task_id: i64, option_id: &str) -> Result<Passage> {
        let annotator = self.annotator_row(name)?;
        let settings = self.settings()?;
        let task = self.task(task_id)?;
        if TaskKind::from_db(&task.kind) != TaskKind::Evidence {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "only evidence items have passages",
            ));
        }
        let claim = self
            .store
            .claim(task.claim_id)?
            .map(|c| c.text)
            .unwrap_or_default();
        let slots = self.slots(&task, annotator.id, &claim, &settings)?;
        let at = slots
            .iter()
            .position(|s| s.id == option_id)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NotFound,
                    format!("no option {option_id:?} in task {task_id}"),
                )
            })?;
        // The trick borrows the passage of the option next to it.
        let anchor = slots[at]
            .sentence_id
            .or_else(|| slots.iter().find_map(|s| s.sentence_id));
        let Some(anchor) = anchor else {
            return Ok(Passage {
                title: None,
                sentences: vec![TextPiece {
                    text: slots[at].text.clone(),
                    hit: true,
                }],
            });
        };
        let sentence = self
            .store
            .sentence(anchor)?
            .ok_or_else(|| Error::new(ErrorCode::NotFound, "the candidate sentence is missing"))?;
        let doc = self.store.document(sentence.document_id)?;
        let around: Vec<(i64, String)> = self.store.document_sentences(&[sentence.document_id])?;
        let pos = around.iter().position(|(id, _)| *id == anchor).unwrap_or(0);
        let (from, to) = (
            pos.saturating_sub(AROUND),
            (pos + AROUND + 1).min(around.len()),
        );
        let mut sentences: Vec<TextPiece> = around[from..to]
            .iter()
            .map(|(id, text)| TextPiece {
                text: text.clone(),
                hit: slots[at].sentence_id == Some(*id),
            })
            .collect();
        if slots[at].sentence_id.is_none() {
            sentences.insert(
                pos - from,
                TextPiece {
                    text: slots[at].text.clone(),
                    hit: true,
                },
            );
        }
        Ok(Passage {
            title: doc.and_then(|d| d.title),
            sentences,
        })
    }

    /// The passage around candidate sentence `sentence_id`, for a lead adjudicating: the
    /// lead sees real sentence ids, so there is no trick to hide.
    pub fn sentence_passage(&self, lead: &str, sentence_id: i64) -> Result<Passage> {
        self.require_lead(lead)?;
        let sentence = self.store.sentence(sentence_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no sentence {sentence_id} in this project"),
            )
        })?;
        let doc = self.store.document(sentence.document_id)?;
        let around: Vec<(i64, String)> = self.store.document_sentences(&[sentence.document_id])?;
        let pos = around
            .iter()
            .position(|(id, _)| *id == sentence_id)
            .unwrap_or(0);
        let (from, to) = (
            pos.saturating_sub(AROUND),
            (pos + AROUND + 1).min(around.len()),
        );
        Ok(Passage {
            title: doc.and_then(|d| d.title),
            sentences: around[from..to]
                .iter()
                .map(|(id, text)| TextPiece {
                    text: text.clone(),
                    hit: *id == sentence_id,
                })
                .collect(),
        })
    }

    /// The live checks of a refutation being written for task `task_id`.
    pub fn check_refutation(&self, task_id: i64, text: &str) -> Result<Vec<Check>> {
        let task = self.task(task_id)?;
        let claim = self
            .store
            .claim(task.claim_id)?
            .map(|c| c.text)
            .unwrap_or_default();
        Ok(
            checks::check_refutation(&claim, text, &self.settings()?.checks)
                .into_iter()
                .map(|r| Check {
                    kind: serde_json::to_value(r.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    passed: r.passed,
                    message: r.message,
                })
                .collect(),
        )
    }
}
