//! "Show in document": a candidate sentence among its neighbours, and the live checks of
//! a refutation being written.

use super::item::TextPiece;
use crate::actor::Actor;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::checks;
use factdesk_core::seeded::Seeded;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Sentences shown on each side of the one asked about.
const AROUND: usize = 3;

/// The sentences shown around position `pos` of `len`: `AROUND` each side, as far as
/// there are; the trick's passage and a candidate's are cut the same way.
fn window(pos: usize, len: usize) -> (usize, usize) {
    (pos.saturating_sub(AROUND), (pos + AROUND + 1).min(len))
}

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
    /// The passage around option `option_id` of an evidence task: a candidate among its
    /// real neighbours, never with the trick inserted. The trick's own passage has the
    /// same shape and shows nothing a real sentence's would not: a real sentence from
    /// another document (the `supports_or_refutes` stance) shows its own real neighbours;
    /// the negation (the `supports` stance) shows among the real sentences of one of the
    /// item's documents, at a seeded place, as a candidate among its neighbours would (a
    /// negation alone told it apart: real candidates come with neighbours). No passage an
    /// annotator sees carries its document's title: the trick's would name a document none
    /// of the other options come from.
    pub fn passage(&self, actor: &Actor, task_id: i64, option_id: &str) -> Result<Passage> {
        let name = self.member(actor)?;
        let annotator = self.annotator_row(name)?;
        let settings = self.settings()?;
        let task = self.task(task_id)?;
        if task.kind != TaskKind::Evidence {
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
        let slot = slots.iter().find(|s| s.id == option_id).ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no option {option_id:?} in task {task_id}"),
            )
        })?;
        // The sentences ranked beside the shown one are left out of its passage (the window
        // reaches past them): the other options for a real candidate, the fellow candidates
        // of the claim it came from for a trick taken from another document. So whether
        // two options share a document, and how much of a document the options fill,
        // cannot be read from a passage to tell a real candidate from the trick.
        let hidden: Vec<i64> = match (slot.sentence_id, slot.trick_sentence_id) {
            (Some(_), _) => slots
                .iter()
                .filter(|s| s.id != slot.id)
                .filter_map(|s| s.sentence_id.or(s.trick_sentence_id))
                .collect(),
            (None, Some(trick)) => self.store.fellow_candidates(trick)?,
            (None, None) => Vec::new(),
        };
        match slot.sentence_id.or(slot.trick_sentence_id) {
            Some(sentence_id) => Ok(Passage {
                title: None,
                ..self.passage_around(sentence_id, &hidden)?
            }),
            None => self.negation_passage(task_id, settings.seed, &slots, &slot.text),
        }
    }

    /// The negation trick `text` inserted among the real sentences of one of the item's
    /// documents (the options left out, as in every option's passage), both chosen from
    /// the project's seed and the task, so a pack and the project show the same.
    fn negation_passage(
        &self,
        task_id: i64,
        seed: u64,
        slots: &[super::item::Slot],
        text: &str,
    ) -> Result<Passage> {
        let options: Vec<i64> = slots.iter().filter_map(|s| s.sentence_id).collect();
        let alone = || Passage {
            title: None,
            sentences: vec![TextPiece {
                text: text.to_string(),
                hit: true,
            }],
        };
        if options.is_empty() {
            return Ok(alone());
        }
        let mut draw = Seeded::for_purpose(seed ^ task_id as u64, "trick passage");
        let host = options[draw.below(options.len() as u64) as usize];
        let Some(host) = self.store.sentence(host)? else {
            return Ok(alone());
        };
        let mut around: Vec<TextPiece> = self
            .store
            .document_sentences(&[host.document_id])?
            .into_iter()
            .filter(|(id, _)| !options.contains(id))
            .map(|(_, text)| TextPiece { text, hit: false })
            .collect();
        let pos = draw.below(around.len() as u64 + 1) as usize;
        around.insert(
            pos,
            TextPiece {
                text: text.to_string(),
                hit: true,
            },
        );
        let (from, to) = window(pos, around.len());
        Ok(Passage {
            title: None,
            sentences: around.drain(from..to).collect(),
        })
    }

    /// The passage around candidate sentence `sentence_id`, for a lead adjudicating: the
    /// lead sees real sentence ids, so there is no trick to hide.
    pub fn sentence_passage(&self, lead: &Actor, sentence_id: i64) -> Result<Passage> {
        self.require_lead(lead, "read any sentence's passage")?;
        self.passage_around(sentence_id, &[])
    }

    /// Sentence `sentence_id` marked among its document's sentences, `AROUND` each side,
    /// leaving out the sentences in `hidden`.
    fn passage_around(&self, sentence_id: i64, hidden: &[i64]) -> Result<Passage> {
        let sentence = self.store.sentence(sentence_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no sentence {sentence_id} in this project"),
            )
        })?;
        let doc = self.store.document(sentence.document_id)?;
        let around: Vec<(i64, String)> = self
            .store
            .document_sentences(&[sentence.document_id])?
            .into_iter()
            .filter(|(id, _)| *id == sentence_id || !hidden.contains(id))
            .collect();
        let pos = around
            .iter()
            .position(|(id, _)| *id == sentence_id)
            .unwrap_or(0);
        let (from, to) = window(pos, around.len());
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
    pub fn check_refutation(&self, actor: &Actor, task_id: i64, text: &str) -> Result<Vec<Check>> {
        self.member(actor)?;
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
