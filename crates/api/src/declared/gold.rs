//! Gold for a project's own design, question by question: a choice question settles on
//! the label a strict majority of the counted answers gave; a multiple-choice question on
//! the labels a strict majority chose; a span question on the tokens a strict majority
//! marked (joined into spans); a free-text question lists every counted text. The lead's
//! decision on an item (`factdesk adjudicate --decide T --take NAME`) settles all its
//! questions at once. An item whose required choice question has no strict majority and
//! no decision is held back from the gold file, listed with the reason.

use super::agreement::{span_text, Counted};
use crate::current::CurrentAnswers;
use crate::gold::{split_names, GoldRequest};
use crate::{Lead, Project, Result};
use factdesk_core::answer::Response;
use factdesk_core::design::declared::{asked, marked, spans_of, tokens};
use factdesk_core::design::{Design, Given, Question, QuestionType};
use factdesk_core::gold::split_of;
use factdesk_core::task::TaskKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use ts_rs::TS;

/// How a question's gold value was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Settled {
    /// Every counted answer gave it.
    Unanimous,
    /// A strict majority gave it (per label or per token for multiple choice and spans).
    Majority,
    /// The lead's decision.
    Decision,
    /// A free-text question: every counted text, none chosen.
    AllTexts,
    /// No strict majority and no decision.
    NoMajority,
}

/// One question's gold on an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct GoldAnswer {
    /// Null when nothing settled it.
    pub value: Option<Given>,
    pub settled: Settled,
    /// Counted answers to the question...
    pub answers: u32,
    /// ...and how many gave exactly the gold value.
    pub agreeing: u32,
}

/// One item's line in the design's gold file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct DesignGoldLine {
    /// The item's id, as imported.
    pub id: String,
    pub text_a: String,
    pub text_b: Option<String>,
    pub split: String,
    /// Each question's gold, by question id.
    pub answers: BTreeMap<String, GoldAnswer>,
    /// The lead's disagreement category, when a decision settled the item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Fewer counted answers than its task's overlap, exported because the lead asked
    /// (`--include-under-annotated`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub under_annotated: bool,
}

/// An item left out of the design's gold file, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HeldBack {
    pub id: String,
    pub task_id: i64,
    pub reason: String,
    /// Whether the lead's decision would settle it (a required question without a strict
    /// majority), rather than more answers.
    pub needs_decision: bool,
}

/// The design's gold: the lines, and the items held back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct DesignGold {
    pub design: String,
    pub lines: Vec<DesignGoldLine>,
    pub held_back: Vec<HeldBack>,
}

impl Project {
    /// The gold of the project's design tasks; `None` when it declares no design.
    pub fn design_gold(&self, lead: &Lead, req: &GoldRequest) -> Result<Option<DesignGold>> {
        self.acting_lead(lead)?;
        let read = CurrentAnswers::read(self)?;
        let Some(design) = self.settings()?.design else {
            return Ok(None);
        };
        let counted = self.counted_design_answers(&read, req.include_flagged)?;
        let texts = self.design_texts(&counted)?;
        let decisions: HashMap<i64, factdesk_store::decisions::DecisionRow> =
            factdesk_store::decisions::latest(self.store.read())?
                .into_iter()
                .filter(|d| d.kind == TaskKind::Design && d.answer.is_some())
                .map(|d| (d.task_id, d))
                .collect();
        let mut by_task: BTreeMap<i64, Vec<&Counted<'_>>> = BTreeMap::new();
        for c in &counted {
            by_task.entry(c.task_id).or_default().push(c);
        }
        let mut tasks = factdesk_store::tasks::overlaps(self.store.read(), TaskKind::Design)?;
        tasks.sort_unstable();
        // Control items check the annotators; they are no data.
        let controls = self.store.all_control_answers()?;
        tasks.retain(|(_, claim, _)| !controls.contains_key(claim));
        let names = split_names(req.splits.len());
        let mut gold = DesignGold {
            design: design.name.clone(),
            lines: Vec::new(),
            held_back: Vec::new(),
        };
        for (task_id, claim_id, overlap) in tasks {
            let answers = by_task.remove(&task_id).unwrap_or_default();
            let decision = decisions.get(&task_id);
            if answers.is_empty() && decision.is_none() {
                continue;
            }
            let Some(claim) = self.store.claim(claim_id)? else {
                continue;
            };
            let text_b = self.store.pair_text(claim_id)?;
            let held = |reason: String, needs_decision| HeldBack {
                id: claim.ext_id.clone(),
                task_id,
                reason,
                needs_decision,
            };
            let under = decision.is_none() && (answers.len() as u32) < overlap;
            if under && !req.include_under_annotated {
                gold.held_back.push(held(
                    format!(
                        "{} counted answers of the {overlap} the overlap asks for",
                        answers.len()
                    ),
                    false,
                ));
                continue;
            }
            let line_answers = match decision.and_then(|d| d.answer.as_ref()) {
                Some(Response::Design { answers: decided }) => {
                    decided_answers(&design, decided, &answers, text_b.is_some())
                }
                _ => {
                    let given: Vec<_> = answers.iter().map(|c| c.answers).collect();
                    majority_answers(&design, &given, &texts, claim_id)
                }
            };
            if let Some(q) = unsettled(&design, &line_answers) {
                gold.held_back.push(held(
                    format!(
                        "question {:?} has no strict majority and no decision: settle it with factdesk adjudicate",
                        q.id
                    ),
                    true,
                ));
                continue;
            }
            gold.lines.push(DesignGoldLine {
                split: names[split_of(&claim.ext_id, req.seed, &req.splits)].clone(),
                id: claim.ext_id.clone(),
                text_a: claim.text.clone(),
                text_b,
                answers: line_answers,
                category: decision.and_then(|d| d.category.clone()),
                under_annotated: under,
            });
        }
        Ok(Some(gold))
    }
}

/// Each question's gold from the lead's decision, with how many answers agree with it.
fn decided_answers(
    design: &Design,
    decided: &BTreeMap<String, Given>,
    answers: &[&Counted<'_>],
    has_text_b: bool,
) -> BTreeMap<String, GoldAnswer> {
    design
        .questions
        .iter()
        .filter(|q| asked(q, has_text_b))
        .map(|q| {
            let given: Vec<&Given> = answers
                .iter()
                .filter_map(|a| a.answers.get(&q.id))
                .collect();
            let value = decided.get(&q.id).cloned();
            let agreeing = given.iter().filter(|g| Some(**g) == value.as_ref()).count() as u32;
            let gold = GoldAnswer {
                value,
                settled: Settled::Decision,
                answers: given.len() as u32,
                agreeing,
            };
            (q.id.clone(), gold)
        })
        .collect()
}

/// Each question asked of the item's claim `claim_id`, with its gold from the counted
/// answers (each an answer's questions and what it gave them): the gold file's and the
/// adjudication queue's one reading of them.
pub(crate) fn majority_answers(
    design: &Design,
    answers: &[&BTreeMap<String, Given>],
    texts: &HashMap<i64, (String, Option<String>)>,
    claim_id: i64,
) -> BTreeMap<String, GoldAnswer> {
    let has_b = texts.get(&claim_id).is_some_and(|(_, b)| b.is_some());
    design
        .questions
        .iter()
        .filter(|q| asked(q, has_b))
        .map(|q| {
            let given: Vec<&Given> = answers.iter().filter_map(|a| a.get(&q.id)).collect();
            let text = span_text(q, texts, claim_id);
            (q.id.clone(), majority(q, &given, text, answers.len()))
        })
        .collect()
}

/// The first required question the item's gold leaves without a strict majority: the
/// item waits for the lead (held back from the gold file, listed in the queue).
pub(crate) fn unsettled<'d>(
    design: &'d Design,
    gold: &BTreeMap<String, GoldAnswer>,
) -> Option<&'d Question> {
    design.questions.iter().find(|q| {
        q.required
            && gold
                .get(&q.id)
                .is_some_and(|g| g.settled == Settled::NoMajority)
    })
}

fn is_majority(votes: usize, of: usize) -> bool {
    2 * votes > of
}

/// One question's gold from the answers given to it, of `counted` counted answers on the
/// item: a strict majority of those, so an optional question one of three answered
/// settles on nothing.
fn majority(q: &Question, given: &[&Given], text: Option<&str>, counted: usize) -> GoldAnswer {
    let n = counted.max(given.len());
    let value = match q.kind {
        QuestionType::Text => {
            let texts = given
                .iter()
                .filter_map(|g| match g {
                    Given::One(t) => Some(t.clone()),
                    _ => None,
                })
                .collect();
            return GoldAnswer {
                value: Some(Given::Many(texts)),
                settled: Settled::AllTexts,
                answers: given.len() as u32,
                agreeing: 0,
            };
        }
        QuestionType::Choice => {
            let mut votes: BTreeMap<&Given, usize> = BTreeMap::new();
            for g in given {
                *votes.entry(*g).or_default() += 1;
            }
            votes
                .into_iter()
                .find(|(_, v)| is_majority(*v, n))
                .map(|(g, _)| g.clone())
        }
        QuestionType::Multi => {
            let labels = q.labels.as_deref().unwrap_or_default();
            let chosen = labels
                .iter()
                .filter(|l| {
                    let votes = given
                        .iter()
                        .filter(|g| matches!(g, Given::Many(c) if c.contains(l)))
                        .count();
                    is_majority(votes, n)
                })
                .cloned()
                .collect();
            (!given.is_empty()).then_some(Given::Many(chosen))
        }
        QuestionType::Span => text.filter(|_| !given.is_empty()).map(|text| {
            let words = tokens(text);
            let mut votes = vec![0usize; words.len()];
            for g in given {
                if let Given::Spans { spans } = g {
                    for (i, on) in marked(&words, spans).into_iter().enumerate() {
                        votes[i] += usize::from(on);
                    }
                }
            }
            let gold: Vec<bool> = votes.iter().map(|&v| is_majority(v, n)).collect();
            Given::Spans {
                spans: spans_of(&words, &gold),
            }
        }),
    };
    // Spans agree when they mark the same tokens, not the same characters.
    let same = |g: &Given| match (q.kind, g, &value, text) {
        (
            QuestionType::Span,
            Given::Spans { spans },
            Some(Given::Spans { spans: gold }),
            Some(t),
        ) => {
            let words = tokens(t);
            marked(&words, spans) == marked(&words, gold)
        }
        _ => Some(g) == value.as_ref(),
    };
    let agreeing = given.iter().filter(|g| same(g)).count() as u32;
    let settled = match &value {
        None => Settled::NoMajority,
        Some(_) if agreeing as usize == n => Settled::Unanimous,
        Some(_) => Settled::Majority,
    };
    GoldAnswer {
        value,
        settled,
        answers: given.len() as u32,
        agreeing,
    }
}
