//! A task's answers and the lead's decision as the lead sees them, what a task settled on,
//! and how answers are compared with each other and with that outcome. Both the
//! aggregation and the adjudication build on this module; neither reaches into the other.

use factdesk_core::answer::{Judgement, Response, Selection};
use factdesk_store::decisions::DecisionRow;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What a task settled on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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
    /// Design: the answers by question the lead's decision gives.
    Answers {
        answers: std::collections::BTreeMap<String, factdesk_core::design::Given>,
    },
}

/// One annotator's current answer on a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QueueAnswer {
    pub annotation_id: i64,
    pub annotator: String,
    /// Whether it counts: its annotator is not flagged (or the lead included them), it
    /// did not pick the trick, and it is not a study's answer kept apart from the gold.
    pub counted: bool,
    /// Given by a re-annotation study's group on its sample: counted only when the
    /// project's `study_answers_in_gold` is on.
    pub in_study: bool,
    /// Rejected because it picked the trick: shown, counted for nothing, never taken.
    pub rejected: bool,
    pub answer: Response,
    pub comment: Option<String>,
    pub trick_failed: bool,
}

/// The lead's current decision on a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Decision {
    pub lead: String,
    /// Unix milliseconds.
    pub at: i64,
    pub reason: Option<String>,
    /// The project's disagreement category the lead named, if any.
    pub category: Option<String>,
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
            category: d.category.clone(),
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

/// An answer reduced to what is compared when votes are counted: two answers that agree
/// have equal keys, and an outcome's key equals the keys of the answers agreeing with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum VoteKey {
    /// The selected sentences, in id order.
    Sentences(Vec<i64>),
    /// None of the sentences is evidence.
    NoEvidence,
    /// A verdict or a label.
    Judgement(Judgement),
    /// A written refutation: reviewed, never compared, so all of them alike.
    Written,
    /// A design answer, as its stored text: compared question by question elsewhere
    /// (`crate::declared::gold`), here only as a whole.
    Design(String),
}

impl VoteKey {
    /// What `response` votes for.
    pub(crate) fn of(response: &Response) -> VoteKey {
        match response {
            Response::Evidence {
                selection: Selection::NoEvidence,
            } => VoteKey::NoEvidence,
            Response::Evidence {
                selection: Selection::Sentences(ids),
            } => VoteKey::Sentences(ids.clone()),
            Response::Refute { .. } => VoteKey::Written,
            Response::Verify { verdict } => VoteKey::Judgement(Judgement::Verdict(*verdict)),
            Response::Label { label } => VoteKey::Judgement(Judgement::Label(*label)),
            Response::Design { .. } => VoteKey::Design(response.to_stored()),
        }
    }

    /// What `outcome` settled on; none when nothing was settled.
    pub(crate) fn of_outcome(outcome: &Outcome) -> Option<VoteKey> {
        match outcome {
            Outcome::Evidence { sentences } => {
                // In id order, as an answer's selection is; the outcome lists the
                // sentences in candidate order.
                let mut ids = sentences.clone();
                ids.sort_unstable();
                Some(VoteKey::Sentences(ids))
            }
            Outcome::NoEvidence => Some(VoteKey::NoEvidence),
            Outcome::Label { label } => Some(VoteKey::Judgement(*label)),
            Outcome::Answers { answers } => Some(VoteKey::Design(
                Response::Design {
                    answers: answers.clone(),
                }
                .to_stored(),
            )),
            Outcome::NoGoldEvidence | Outcome::NoMajority => None,
        }
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
        Response::Design { answers } => Outcome::Answers {
            answers: answers.clone(),
        },
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
        let conn = self.store.read();
        factdesk_store::tasks::check_kinds(conn)?;
        factdesk_store::annotations::all(conn)?;
        factdesk_store::decisions::latest(conn)?;
        self.checked(mark);
        Ok(())
    }

    /// Records that every stored answer was read without fault at `mark`.
    pub(crate) fn checked(&self, mark: Option<(i64, u64)>) {
        *self
            .checked_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = mark;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_core::answer::Verdict;
    use factdesk_core::claim::Label;

    #[test]
    fn an_outcome_has_the_key_of_the_answers_agreeing_with_it() {
        let evidence = |ids: Vec<i64>| Response::Evidence {
            selection: Selection::sentences(ids),
        };
        // The outcome lists its sentences in candidate order, the answer in id order.
        let settled = Outcome::Evidence {
            sentences: vec![7, 3],
        };
        assert_eq!(
            VoteKey::of_outcome(&settled),
            Some(VoteKey::of(&evidence(vec![3, 7])))
        );
        assert_ne!(
            VoteKey::of(&evidence(vec![3])),
            VoteKey::of(&evidence(vec![3, 7]))
        );
        let none = Response::Evidence {
            selection: Selection::NoEvidence,
        };
        assert_eq!(
            VoteKey::of_outcome(&Outcome::NoEvidence),
            Some(VoteKey::of(&none))
        );
        let refuted = Response::Label {
            label: Label::Refuted,
        };
        let label = Outcome::Label {
            label: Judgement::Label(Label::Refuted),
        };
        assert_eq!(VoteKey::of_outcome(&label), Some(VoteKey::of(&refuted)));
        let verdict = Response::Verify {
            verdict: Verdict::Malformed,
        };
        assert_ne!(VoteKey::of(&verdict), VoteKey::of(&refuted));
        assert_eq!(VoteKey::of_outcome(&Outcome::NoGoldEvidence), None);
        assert_eq!(VoteKey::of_outcome(&Outcome::NoMajority), None);
    }
}
