//! What an annotator is shown for a task. Everything here is what the annotator's side
//! can read, so it holds no other annotator's answers and nothing that tells the trick
//! sentence from the candidates: every option has the same fields, and its id is an
//! opaque keyed hash.

use crate::settings::{trick_sentence, EvidenceStance, Settings};
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::answer::{Answer, Response, Selection};
use factdesk_core::design::{for_item, Design, Question, Shows};
use factdesk_core::highlight::{segments, HighlightOptions, Segment};
use factdesk_store::tasks::TaskRow;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where the evidence a label item shows comes from. The item names no annotator and no
/// vote: only how its evidence was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EvidenceState {
    /// The lead decided the claim's evidence task.
    Adjudicated,
    /// A strict majority of the counted answers on the claim's evidence task. How many
    /// answers were counted is not said: an annotator's item shows no count of other
    /// people's answers (issue 36; the lead reads it on the claim's page and in the gold).
    Majority,
    /// Given with the claim when it was imported (its `evidence` field); the claim has
    /// no evidence task.
    Imported,
    /// The claim's evidence task has not settled yet: too few counted answers, or no
    /// sentence with a strict majority and no decision. The item shows the candidates.
    NotSettled,
    /// The claim has no evidence task and was imported without evidence, so nothing will
    /// settle its evidence. The item shows the candidates.
    NoEvidenceStep,
}

impl EvidenceState {
    /// Whether the evidence is settled (possibly on no evidence at all).
    pub fn is_settled(self) -> bool {
        !matches!(
            self,
            EvidenceState::NotSettled | EvidenceState::NoEvidenceStep
        )
    }
}

/// A piece of text, highlighted where it shares a word with the claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TextPiece {
    pub text: String,
    pub hit: bool,
}

/// A sentence the annotator can select.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ItemOption {
    /// Opaque: it names the option for this annotator and task only.
    pub id: String,
    pub text: String,
    pub pieces: Vec<TextPiece>,
}

/// The annotator's earlier answer, shown when they go back to an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PreviousAnswer {
    pub selected: Vec<String>,
    pub no_evidence: bool,
    pub text: Option<String>,
    pub label: Option<String>,
    pub comment: Option<String>,
    /// A design task's answers by question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub answers: Option<std::collections::BTreeMap<String, factdesk_core::design::Given>>,
}

/// The annotator's pace on a kind of task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Pace {
    /// Items this annotator has answered.
    pub done: u64,
    /// Items of this kind this annotator can do: those done plus those still open to them
    /// (short of answers and not answered by them), of which at most
    /// [`factdesk_core::pace::SHOWN_LEFT`] are counted.
    pub total: u64,
    /// More items are left than `total` counts: the count stops at
    /// [`factdesk_core::pace::SHOWN_LEFT`], so that it does not tell the project's size.
    pub more: bool,
    /// Items per hour over the answers of the last half hour, breaks left out and each
    /// item taken to need at least three seconds; null until there are four.
    pub per_hour: Option<f64>,
    /// Minutes to finish what is left at that pace.
    pub minutes_left: Option<f64>,
}

/// One item of work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Item {
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim: String,
    pub context: Option<String>,
    /// Evidence: the candidates and the trick, in display order.
    pub options: Vec<ItemOption>,
    /// Verify: the counter-claim to judge against `claim`.
    pub counter_claim: Option<String>,
    /// Design: a pair's second text (its first is `claim`); null when the item is a claim
    /// alone.
    #[serde(default)]
    pub text_b: Option<String>,
    /// Label: the evidence sentences to judge the claim against: the claim's settled
    /// evidence (empty when the evidence step settled on no evidence), or its candidates
    /// while nothing is settled; `evidence_state` says which.
    pub evidence: Vec<String>,
    /// Label: where `evidence` comes from, or that it is not settled yet; null on other
    /// kinds (and in packs made before labels showed settled evidence).
    pub evidence_state: Option<EvidenceState>,
    pub guidelines: String,
    pub previous: Option<PreviousAnswer>,
    pub pace: Pace,
    /// What the item shows, by its design (see [`factdesk_core::design`]); set as the item
    /// is served, absent from items stored in packs.
    #[serde(default)]
    pub shows: Option<Shows>,
    /// The questions it asks: `submit` takes answers keyed by their ids.
    #[serde(default)]
    pub questions: Vec<Question>,
    /// In a pack: the problem its holder reported on this item (the lead reads it once
    /// the pack is merged); absent everywhere else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported: Option<String>,
}

impl Item {
    /// The item with its design's questions, from its kind and the options it shows; a
    /// design task's from the project's `declared` design.
    pub(crate) fn with_design(mut self, declared: Option<&Design>) -> Item {
        let options: Vec<String> = self.options.iter().map(|o| o.id.clone()).collect();
        let design = for_item(self.kind, &options, declared, self.text_b.is_some());
        self.shows = Some(design.shows);
        self.questions = design.questions;
        self
    }
}

/// An option shown for an evidence task, as the server knows it.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub id: String,
    pub text: String,
    /// `None` for the trick.
    pub sentence_id: Option<i64>,
    /// The trick's real sentence, when it is one (the `supports_or_refutes` stance): the
    /// document view shows it among its own neighbours, as it would any sentence.
    pub trick_sentence_id: Option<i64>,
}

/// The opaque id of display slot `slot` for this annotator and task.
fn option_id(secret: &[u8], task_id: i64, annotator_id: i64, slot: usize) -> String {
    let message = format!("option:{task_id}:{annotator_id}:{slot}");
    format!("o{}", crate::opaque::keyed_hex(secret, &message))
}

/// The trick shown among an evidence task's options, with its real sentence id when it is
/// one: the claim's negation under the `supports` stance, the task's unrelated real
/// sentence (`task_trick`) under `supports_or_refutes`; `None` when there is none to show.
fn trick_of(
    task_trick: Option<(i64, String)>,
    claim: &str,
    settings: &Settings,
) -> Option<(String, Option<i64>)> {
    let trick = match settings.stance() {
        EvidenceStance::Supports => Some((trick_sentence(&settings.trick_template, claim), None)),
        EvidenceStance::SupportsOrRefutes => task_trick.map(|(id, text)| (text, Some(id))),
    };
    trick.filter(|(text, _)| !text.is_empty())
}

/// The options of an evidence task in display order, from its candidates (sentence id and
/// text, in rank order) and its stored trick, with the trick at its slot (see
/// [`trick_of`]).
pub(crate) fn slots_of(
    task: &TaskRow,
    annotator_id: i64,
    secret: &[u8],
    (claim, settings): (&str, &Settings),
    candidates: &[(i64, String)],
    task_trick: Option<(i64, String)>,
) -> Vec<Slot> {
    let mut texts: Vec<(String, Option<i64>, Option<i64>)> = candidates
        .iter()
        .map(|(id, text)| (text.clone(), Some(*id), None))
        .collect();
    // A pack's tasks carry no trick slot: there the trick is one of the candidates.
    if let Some(slot) = task.trick_slot {
        if let Some((text, real)) = trick_of(task_trick, claim, settings) {
            let at = (slot as usize).min(texts.len());
            texts.insert(at, (text, None, real));
        }
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, (text, sentence_id, trick_sentence_id))| Slot {
            id: option_id(secret, task.id, annotator_id, i),
            text,
            sentence_id,
            trick_sentence_id,
        })
        .collect()
}

impl Project {
    /// The options of an evidence task in display order, read from the project (see
    /// [`slots_of`]).
    pub(crate) fn slots(
        &self,
        task: &TaskRow,
        annotator_id: i64,
        claim: &str,
        settings: &Settings,
    ) -> Result<Vec<Slot>> {
        let conn = self.store.read();
        let secret = factdesk_store::tx::secret(conn)?;
        let text = factdesk_store::serving::task_text(conn, task.id)?
            .and_then(|(_, text)| text)
            .unwrap_or_default();
        Ok(slots_of(
            task,
            annotator_id,
            &secret,
            (claim, settings),
            &text.candidates,
            text.trick,
        ))
    }

    pub(crate) fn build_item(&self, task: &TaskRow, annotator_id: i64) -> Result<Item> {
        let secret = factdesk_store::tx::secret(self.store.read())?;
        self.build_item_with(task, annotator_id, &self.settings()?, &secret)
    }

    /// The item of `task` for `annotator_id`, with the settings and secret already read.
    pub(crate) fn build_item_with(
        &self,
        task: &TaskRow,
        annotator_id: i64,
        settings: &Settings,
        secret: &[u8],
    ) -> Result<Item> {
        let kind = task.kind;
        let missing = || {
            Error::new(
                ErrorCode::NotFound,
                format!("task {} points at a missing claim", task.id),
            )
        };
        let (_, text) =
            factdesk_store::serving::task_text(self.store.read(), task.id)?.ok_or_else(missing)?;
        let text = text.ok_or_else(missing)?;
        let highlight = HighlightOptions::default();
        // Without highlighting every option is one unmarked piece, the same for all.
        let marks = settings.highlights();
        let pieces = |text: &str, against: &str| -> Vec<TextPiece> {
            if !marks {
                return vec![TextPiece {
                    text: text.to_string(),
                    hit: false,
                }];
            }
            segments(text, against, &highlight)
                .into_iter()
                .map(|Segment { text, hit }| TextPiece { text, hit })
                .collect()
        };
        let mut item = Item {
            task_id: task.id,
            kind,
            claim: text.claim_text.clone(),
            context: text.context.clone(),
            options: Vec::new(),
            counter_claim: None,
            text_b: None,
            evidence: Vec::new(),
            evidence_state: None,
            guidelines: String::new(),
            previous: None,
            pace: self.pace(annotator_id, kind)?,
            shows: None,
            questions: Vec::new(),
            reported: None,
        };
        let mut slots = Vec::new();
        match kind {
            TaskKind::Evidence => {
                item.guidelines = settings.evidence_guideline();
                slots = slots_of(
                    task,
                    annotator_id,
                    secret,
                    (&text.claim_text, settings),
                    &text.candidates,
                    text.trick.clone(),
                );
                item.options = slots
                    .iter()
                    .map(|s| ItemOption {
                        id: s.id.clone(),
                        text: s.text.clone(),
                        pieces: pieces(&s.text, &text.claim_text),
                    })
                    .collect();
            }
            TaskKind::Refute => item.guidelines = settings.guidelines.refute.clone(),
            TaskKind::Design => {
                let Some(design) = &settings.design else {
                    return Err(crate::design::undeclared());
                };
                item.guidelines = crate::design::guideline(design);
                item.text_b = self.store.pair_text(task.claim_id)?;
            }
            TaskKind::Verify => {
                item.guidelines = settings.guidelines.verify.clone();
                let parent = match text.parent_id {
                    Some(p) => self.store.claim(p)?,
                    None => None,
                };
                match parent {
                    Some(p) => {
                        item.claim = p.text;
                        item.context = p.context;
                        item.counter_claim = Some(text.claim_text.clone());
                    }
                    None => item.counter_claim = Some(text.claim_text.clone()),
                }
            }
            TaskKind::Label => {
                item.guidelines = settings.guidelines.label.clone();
                // A label is judged against the evidence the evidence step settled; until
                // it has, the candidates are shown, marked as not settled (see
                // docs/annotation.md, "What a label item shows").
                let settled = self.settled_evidence(task.claim_id, settings)?;
                item.evidence = match settled.state.is_settled() {
                    true => settled.sentences.into_iter().map(|(_, t)| t).collect(),
                    false => text.candidates.iter().map(|(_, t)| t.clone()).collect(),
                };
                item.evidence_state = Some(settled.state);
            }
        }
        item.previous = self.previous_answer(task.id, annotator_id, &slots)?;
        Ok(item.with_design(settings.design.as_ref()))
    }

    fn previous_answer(
        &self,
        task_id: i64,
        annotator_id: i64,
        slots: &[Slot],
    ) -> Result<Option<PreviousAnswer>> {
        let Some(a) =
            factdesk_store::annotations::current(self.store.read(), task_id, annotator_id)?
        else {
            return Ok(None);
        };
        Ok(Some(previous_answer(&a.answer, a.trick_failed, slots)))
    }

    pub(crate) fn pace(&self, annotator_id: i64, kind: TaskKind) -> Result<Pace> {
        // The answers of the last half hour at most (see `factdesk_core::pace`).
        let counts =
            factdesk_store::serving::pace_counts(self.store.read(), annotator_id, kind, 200)?;
        let done = counts.done;
        let left = counts.open.saturating_sub(counts.mine);
        let shown = left.min(factdesk_core::pace::SHOWN_LEFT);
        let more = left > shown;
        let per_hour = factdesk_core::pace::per_hour(&counts.times, self.clock.now_ms());
        Ok(Pace {
            done,
            total: done + shown,
            more,
            per_hour,
            minutes_left: per_hour.filter(|_| !more).map(|p| left as f64 / p * 60.0),
        })
    }
}

/// A stored answer as the annotator's screen shows it again: the options that were
/// selected (the trick too, when it was picked), or the text, verdict or label.
fn previous_answer(answer: &Answer, trick_failed: bool, slots: &[Slot]) -> PreviousAnswer {
    let mut previous = PreviousAnswer {
        selected: Vec::new(),
        no_evidence: false,
        text: None,
        label: None,
        comment: answer.comment.clone(),
        answers: None,
    };
    match &answer.response {
        Response::Evidence { selection } => {
            previous.no_evidence = *selection == Selection::NoEvidence;
            let chosen = selection.ids();
            // In display order, the trick in its own place: listed last, it was named
            // to anyone who selected every option and went back (hostile pass 19).
            let picked = |s: &&Slot| match s.sentence_id {
                Some(id) => chosen.contains(&id),
                None => trick_failed,
            };
            previous.selected = slots.iter().filter(picked).map(|s| s.id.clone()).collect();
        }
        Response::Refute { text } => previous.text = Some(text.clone()),
        Response::Verify { verdict } => previous.label = Some(verdict.as_str().into()),
        Response::Label { label } => previous.label = Some(label.as_str().into()),
        Response::Design { answers } => previous.answers = Some(answers.clone()),
    }
    previous
}

#[cfg(test)]
mod tests {
    use super::EvidenceState;

    /// A label item stored before its evidence state lost the count (a pack issued then)
    /// still reads, and what is sent now carries no count.
    #[test]
    fn a_majority_carries_no_count_and_an_old_one_still_reads() {
        let old = serde_json::from_str::<EvidenceState>(r#"{"state":"majority","answers":3}"#);
        assert_eq!(old.ok(), Some(EvidenceState::Majority));
        let now = serde_json::to_string(&EvidenceState::Majority).unwrap_or_default();
        assert_eq!(now, r#"{"state":"majority"}"#);
    }
}
