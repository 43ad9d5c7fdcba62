//! "Show in document": a candidate sentence among its neighbours, and the live checks of
//! a refutation being written.

use super::item::TextPiece;
use super::trick_place::{self, Seat};
use crate::actor::Actor;
use crate::settings::EvidenceStance;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::checks;
use factdesk_store::tricks;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A document's id and its sentences (id, text) in order.
type DocumentText = (i64, Vec<(i64, String)>);

/// Sentences shown on each side of the one asked about.
const AROUND: usize = 3;

/// The sentences shown around position `pos` of `len`: `AROUND` each side, as far as
/// there are; the trick's passage and a candidate's are cut the same way.
fn window(pos: usize, len: usize) -> (usize, usize) {
    (pos.saturating_sub(AROUND), (pos + AROUND + 1).min(len))
}

/// One live check of a refutation being written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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
    /// real neighbours, never with the trick inserted. The trick's passage reads as a
    /// candidate's would: whatever the trick is (a real sentence from another document
    /// under `supports_or_refutes`, the claim's negation under `supports`), it is shown
    /// among the real sentences of one of the item's documents, at a place drawn to lie
    /// among the candidates as they lie among each other (`trick_place`). No passage an
    /// annotator sees carries its document's title: the trick's would name a document
    /// none of the other options come from.
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
        let stance = settings.stance();
        match slot.sentence_id {
            // The other options are left out of a candidate's passage (the window reaches
            // past them), so how much of a document the options fill cannot be read from it.
            // Every item's trick is left out too, so that a trick's text is shown in its
            // own item alone, as a real option's is where no other claim ranks it.
            Some(sentence_id) => {
                let mut hidden: Vec<i64> = slots
                    .iter()
                    .filter(|s| s.id != slot.id)
                    .filter_map(|s| s.sentence_id.or(s.trick_sentence_id))
                    .collect();
                let document = self.document_of(sentence_id)?;
                let sentences = self.store.document_sentences(&[document])?;
                hidden.extend(self.left_out_in(&sentences, stance)?);
                Ok(Passage {
                    title: None,
                    ..self.passage_around(sentence_id, &hidden)?
                })
            }
            None => self.trick_passage(task_id, &slots, &slot.text, stance),
        }
    }

    /// The trick `text` among the real sentences of one of the item's documents (the
    /// options left out, as in every option's passage), at a place `trick_place` draws
    /// from the project's secret and the task, so a pack and the project show the same.
    /// Shown alone when the item has no real sentence.
    fn trick_passage(
        &self,
        task_id: i64,
        slots: &[super::item::Slot],
        text: &str,
        stance: EvidenceStance,
    ) -> Result<Passage> {
        let options: Vec<i64> = slots.iter().filter_map(|s| s.sentence_id).collect();
        let documents = self.documents_of(&options)?;
        // Left out as the options are, but not counted among them.
        let mut tricks = Vec::new();
        for (_, sentences) in &documents {
            tricks.extend(self.left_out_in(sentences, stance)?);
        }
        // Each option's document and gap (its document's non-option sentences before it).
        let mut seats = Vec::new();
        for (doc, sentences) in &documents {
            let mut gap = 0;
            for (id, _) in sentences {
                if options.contains(id) {
                    seats.push(Seat { doc: *doc, gap });
                } else if !tricks.contains(id) {
                    gap += 1;
                }
            }
        }
        let rest = |doc: i64| {
            documents
                .iter()
                .filter(move |(d, _)| *d == doc)
                .flat_map(|(_, sentences)| sentences)
                .filter(|(id, _)| !options.contains(id) && !tricks.contains(id))
        };
        // From the project's secret, never from its seed: knowing the seed, a script
        // could test each option for the place the rule would give it.
        let secret = factdesk_store::tx::secret(self.store.read())?;
        let mut draw = crate::tasks::secret_draw(&secret, &format!("trick-passage:{task_id}"));
        let gaps = |doc: i64| rest(doc).count() + 1;
        let marked = TextPiece {
            text: text.to_string(),
            hit: true,
        };
        let Some(at) = trick_place::place(&seats, &gaps, AROUND, &mut draw) else {
            return Ok(Passage {
                title: None,
                sentences: vec![marked],
            });
        };
        let mut around: Vec<TextPiece> = rest(at.doc)
            .map(|(_, text)| TextPiece {
                text: text.clone(),
                hit: false,
            })
            .collect();
        let pos = at.gap.min(around.len());
        around.insert(pos, marked);
        let (from, to) = window(pos, around.len());
        Ok(Passage {
            title: None,
            sentences: around.drain(from..to).collect(),
        })
    }

    /// The ids of `sentences` whose text passages leave out: some item's trick says it.
    /// None under the `supports` stance: its trick is the claim's negation, never a
    /// document's sentence, and the sentence tricks chosen for a later change of stance
    /// would only cut holes in the passages read meanwhile.
    fn left_out_in(&self, sentences: &[(i64, String)], stance: EvidenceStance) -> Result<Vec<i64>> {
        if stance == EvidenceStance::Supports {
            return Ok(Vec::new());
        }
        let hashes: Vec<u64> = sentences
            .iter()
            .map(|(_, t)| tricks::text_hash(t))
            .collect();
        let left_out = tricks::left_out_of(self.store.read(), &hashes)?;
        Ok(sentences
            .iter()
            .zip(&hashes)
            .filter(|(_, h)| left_out.contains(h))
            .map(|((id, _), _)| *id)
            .collect())
    }

    /// The document of sentence `id`.
    fn document_of(&self, id: i64) -> Result<i64> {
        self.store
            .sentence(id)?
            .map(|s| s.document_id)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::NotFound,
                    format!("no sentence {id} in this project"),
                )
            })
    }

    /// The sentences of the documents the sentences `ids` come from, document by
    /// document in the order first met.
    fn documents_of(&self, ids: &[i64]) -> Result<Vec<DocumentText>> {
        let mut out: Vec<DocumentText> = Vec::new();
        for &id in ids {
            let doc = self.document_of(id)?;
            if !out.iter().any(|(d, _)| *d == doc) {
                out.push((doc, self.store.document_sentences(&[doc])?));
            }
        }
        Ok(out)
    }

    /// The passage around candidate sentence `sentence_id`, for a lead adjudicating: the
    /// lead sees real sentence ids, so there is no trick to hide.
    pub fn sentence_passage(&self, lead: &Lead, sentence_id: i64) -> Result<Passage> {
        self.acting_lead(lead)?;
        self.passage_around(sentence_id, &[])
    }

    /// Sentence `sentence_id` marked among its document's sentences, `AROUND` each side,
    /// leaving out the sentences in `hidden`.
    fn passage_around(&self, sentence_id: i64, hidden: &[i64]) -> Result<Passage> {
        let document_id = self.document_of(sentence_id)?;
        let doc = self.store.document(document_id)?;
        let around: Vec<(i64, String)> = self
            .store
            .document_sentences(&[document_id])?
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

    /// The live checks of a refutation being written for task `task_id`: a refute task
    /// given to the acting person (served, or answered and being corrected). The checks
    /// tell the claim's words, so any other task, of any kind and whoever asks, is
    /// refused alike, existing or not.
    pub fn check_refutation(&self, actor: &Actor, task_id: i64, text: &str) -> Result<Vec<Check>> {
        let name = self.member(actor)?;
        let annotator = self.annotator_row(name)?;
        let refused = || {
            Error::new(
                ErrorCode::NotFound,
                format!("task {task_id} is no refutation you are writing: ask for one with next"),
            )
        };
        if !factdesk_store::assignments::given(self.store.read(), task_id, annotator.id)? {
            return Err(refused());
        }
        let task = match self.task(task_id) {
            Ok(task) if task.kind == TaskKind::Refute => task,
            Ok(_) => return Err(refused()),
            Err(e) if e.code == ErrorCode::NotFound => return Err(refused()),
            Err(e) => return Err(e),
        };
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
