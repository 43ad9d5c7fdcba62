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

/// The positions shown around `pos` of `len`: those nearer to `pos` than to any of
/// `peers` (a tie goes to the earlier one), `AROUND` each side of `pos` among them. Two
/// positions' cells never share a position, whatever their peers, as long as each is the
/// other's peer.
fn cell_window(pos: usize, peers: &[usize], len: usize) -> Vec<usize> {
    let owns = |i: usize| {
        let mine = i.abs_diff(pos);
        peers.iter().all(|&p| {
            let theirs = i.abs_diff(p);
            mine < theirs || (mine == theirs && pos < p)
        })
    };
    let cell: Vec<usize> = (0..len).filter(|&i| i == pos || owns(i)).collect();
    let at = cell.iter().position(|&i| i == pos).unwrap_or(0);
    let (from, to) = window(at, cell.len());
    cell[from..to].to_vec()
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
        // Each option's passage is the part of its document nearer to it than to any
        // sentence ranked beside it (the other candidates of every claim it is a candidate
        // of, and the item's other options), so no two options' passages share a sentence:
        // shared neighbours told which options came from one document, and the trick,
        // from another, overlapped none (180 of 200 found so). The trick, a candidate of
        // another claim, gets its passage by the same rule among its own fellows, so its
        // passage is shaped as a real candidate's is.
        let sentence = slot.sentence_id.or(slot.trick_sentence_id);
        let peers: Vec<i64> = match sentence {
            Some(id) => {
                let mut peers = self.store.fellow_candidates(id)?;
                if slot.sentence_id.is_some() {
                    peers.extend(
                        slots
                            .iter()
                            .filter(|s| s.id != slot.id)
                            .filter_map(|s| s.sentence_id.or(s.trick_sentence_id)),
                    );
                }
                peers
            }
            None => Vec::new(),
        };
        match sentence {
            Some(sentence_id) => Ok(Passage {
                title: None,
                ..self.passage_around(sentence_id, &peers)?
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
        // The negation stands at a seeded place among the host document's sentences, and
        // its passage is the part of the document nearer to it than to any option there,
        // as every option's passage is.
        let mut doc: Vec<(Option<i64>, String)> = self
            .store
            .document_sentences(&[host.document_id])?
            .into_iter()
            .map(|(id, text)| (Some(id), text))
            .collect();
        let pos = draw.below(doc.len() as u64 + 1) as usize;
        doc.insert(pos, (None, text.to_string()));
        let peers: Vec<usize> = (doc.iter().enumerate())
            .filter(|(_, (id, _))| id.is_some_and(|id| options.contains(&id)))
            .map(|(i, _)| i)
            .collect();
        Ok(Passage {
            title: None,
            sentences: cell_window(pos, &peers, doc.len())
                .into_iter()
                .map(|i| TextPiece {
                    text: doc[i].1.clone(),
                    hit: i == pos,
                })
                .collect(),
        })
    }

    /// The passage around candidate sentence `sentence_id`, for a lead adjudicating: the
    /// lead sees real sentence ids, so there is no trick to hide.
    pub fn sentence_passage(&self, lead: &Actor, sentence_id: i64) -> Result<Passage> {
        self.require_lead(lead, "read any sentence's passage")?;
        self.passage_around(sentence_id, &[])
    }

    /// Sentence `sentence_id` marked among its document's sentences, `AROUND` each side,
    /// within the part of the document nearer to it than to any of `peers` (none of which
    /// is shown).
    fn passage_around(&self, sentence_id: i64, peers: &[i64]) -> Result<Passage> {
        let sentence = self.store.sentence(sentence_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no sentence {sentence_id} in this project"),
            )
        })?;
        let doc = self.store.document(sentence.document_id)?;
        let all = self.store.document_sentences(&[sentence.document_id])?;
        let pos = all
            .iter()
            .position(|(id, _)| *id == sentence_id)
            .unwrap_or(0);
        let peer_positions: Vec<usize> = (all.iter().enumerate())
            .filter(|(i, (id, _))| *i != pos && peers.contains(id))
            .map(|(i, _)| i)
            .collect();
        Ok(Passage {
            title: doc.and_then(|d| d.title),
            sentences: cell_window(pos, &peer_positions, all.len())
                .into_iter()
                .map(|i| TextPiece {
                    text: all[i].1.clone(),
                    hit: i == pos,
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

#[cfg(test)]
mod tests {
    use super::cell_window;

    #[test]
    fn neighbouring_options_never_share_a_sentence() {
        // Options at 2 and 6 of 10: 4 is as near to both and goes to the earlier.
        assert_eq!(cell_window(2, &[6], 10), vec![0, 1, 2, 3, 4]);
        assert_eq!(cell_window(6, &[2], 10), vec![5, 6, 7, 8, 9]);
        // Side by side, each is alone on the side of the other.
        assert_eq!(cell_window(3, &[4], 5), vec![0, 1, 2, 3]);
        assert_eq!(cell_window(4, &[3], 5), vec![4]);
        // Without peers, `AROUND` each side.
        assert_eq!(cell_window(5, &[], 20), vec![2, 3, 4, 5, 6, 7, 8]);
    }
}
