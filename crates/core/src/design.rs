//! Task designs as data: what an item shows and the questions it asks, each question
//! typed (single choice, multiple choice, span, free text) with the labels it takes.
//!
//! Factdesk's four task kinds are its built-in designs, described here so that a script
//! or a client reads an item's questions rather than knowing each kind by heart: `next
//! --json` prints them, and `submit` takes answers keyed by question id.

pub mod declared;

use crate::answer::Verdict;
use crate::claim::Label;
use crate::task::TaskKind;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How a question is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum QuestionType {
    /// One label of the question's.
    Choice,
    /// Any number of the question's labels; none chosen is an answer too.
    Multi,
    /// Stretches of a shown text, as character offsets.
    Span,
    /// Text the annotator writes.
    Text,
}

/// What an item shows the annotator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Shows {
    /// A claim (and its context).
    #[default]
    Claim,
    /// A claim and its candidate evidence sentences.
    ClaimWithCandidates,
    /// A claim and the evidence settled for it.
    ClaimWithEvidence,
    /// Two texts side by side: an original claim and a counter-claim, or an imported
    /// pair's `text_a` and `text_b`.
    Pair,
}

/// Which shown text a span question marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SpanOver {
    /// The claim, or a pair's first text.
    TextA,
    /// A pair's second text.
    TextB,
}

/// One question's answer: a label, several labels, or spans of a shown text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum Given {
    /// A choice question's label, or a text question's text.
    One(String),
    /// A multiple-choice question's labels; none is an answer too.
    Many(Vec<String>),
    /// A span question's stretches, as character offsets `[start, end)`.
    Spans { spans: Vec<[u32; 2]> },
}

impl Given {
    /// What kind of value it is, for messages.
    pub fn shape(&self) -> &'static str {
        match self {
            Given::One(_) => "one label or a text",
            Given::Many(_) => "a list of labels",
            Given::Spans { .. } => "spans",
        }
    }
}

/// One question an item asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Question {
    /// The key its answer is given under.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// The labels a choice question takes, in the order shown; for an evidence item, the
    /// ids of its options. Absent for span and text questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub labels: Option<Vec<String>>,
    /// Whether an answer must give it.
    pub required: bool,
    /// A span question: the text it marks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub over: Option<SpanOver>,
    /// A declared question's instruction to annotators, shown beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub guideline: Option<String>,
    /// A choice question whose labels are in order (a scale): Krippendorff's alpha is
    /// then also given with the interval metric over the labels' positions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub ordered: bool,
}

impl Question {
    fn new(id: &str, kind: QuestionType, labels: Option<Vec<String>>, required: bool) -> Self {
        Question {
            id: id.to_string(),
            kind,
            labels,
            required,
            over: None,
            guideline: None,
            ordered: false,
        }
    }
}

/// The question id of the optional comment every built-in design takes.
pub const COMMENT: &str = "comment";

/// A design: what its items show and what they ask.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Design {
    /// A built-in design is named after its task kind; a declared one as its team names it.
    pub name: String,
    /// A declared design's items show a pair when they have a second text, and a claim
    /// otherwise, whatever this says.
    #[serde(default)]
    pub shows: Shows,
    pub questions: Vec<Question>,
}

/// The optional comment every design takes.
fn comment() -> Question {
    Question::new(COMMENT, QuestionType::Text, None, false)
}

/// The design an item of `kind` is asked under: the built-in one of its kind, or for a
/// design task the project's own (`declared`, with the comment added), shown as a pair
/// when the item has a second text. A design task without a declared design asks only
/// the comment; serving one is refused before it gets here.
pub fn for_item(
    kind: TaskKind,
    options: &[String],
    declared: Option<&Design>,
    has_text_b: bool,
) -> Design {
    if kind != TaskKind::Design {
        return built_in(kind, options);
    }
    let mut design = declared.cloned().unwrap_or(Design {
        name: "design".into(),
        shows: Shows::Claim,
        questions: Vec::new(),
    });
    design.shows = if has_text_b {
        Shows::Pair
    } else {
        Shows::Claim
    };
    // A span question over the second text is not asked of a claim alone.
    design.questions.retain(|q| declared::asked(q, has_text_b));
    design.questions.push(comment());
    design
}

/// The built-in design of a task kind. An evidence item's one question takes the ids of
/// the options it shows, which differ per item and per annotator: `options` gives them.
/// A design task's is the project's: see [`for_item`].
pub fn built_in(kind: TaskKind, options: &[String]) -> Design {
    let comment = comment();
    let (shows, main) = match kind {
        TaskKind::Evidence => (
            Shows::ClaimWithCandidates,
            Question::new(
                "evidence",
                QuestionType::Multi,
                Some(options.to_vec()),
                true,
            ),
        ),
        TaskKind::Refute => (
            Shows::Claim,
            Question::new("refutation", QuestionType::Text, None, true),
        ),
        TaskKind::Verify => (
            Shows::Pair,
            Question::new(
                "verdict",
                QuestionType::Choice,
                Some(Verdict::ALL.map(|v| v.as_str().to_string()).to_vec()),
                true,
            ),
        ),
        TaskKind::Label => (
            Shows::ClaimWithEvidence,
            Question::new(
                "label",
                QuestionType::Choice,
                Some(Label::ALL.map(|l| l.as_str().to_string()).to_vec()),
                true,
            ),
        ),
        TaskKind::Design => {
            return Design {
                name: kind.as_str().to_string(),
                shows: Shows::Claim,
                questions: vec![comment],
            }
        }
    };
    Design {
        name: kind.as_str().to_string(),
        shows,
        questions: vec![main, comment],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_asks_one_required_question_and_an_optional_comment() {
        for kind in TaskKind::ALL.into_iter().filter(|&k| k != TaskKind::Design) {
            let d = built_in(kind, &["o1".into(), "o2".into()]);
            assert_eq!(d.name, kind.as_str());
            assert_eq!(d.questions.len(), 2);
            assert!(d.questions[0].required);
            assert_eq!(d.questions[1].id, COMMENT);
            assert!(!d.questions[1].required);
        }
        let label = built_in(TaskKind::Label, &[]);
        assert_eq!(
            serde_json::to_value(&label.questions[0]).ok(),
            Some(
                serde_json::json!({"id": "label", "type": "choice", "labels": ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"], "required": true})
            )
        );
        let evidence = built_in(TaskKind::Evidence, &["o1".into()]);
        assert_eq!(evidence.questions[0].labels, Some(vec!["o1".to_string()]));
        assert_eq!(
            serde_json::to_value(&evidence.questions[1]).ok(),
            Some(serde_json::json!({"id": "comment", "type": "text", "required": false}))
        );
    }
}
