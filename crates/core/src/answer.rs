//! An annotator's (or the lead's) answer to a task, one variant per task kind, and its one
//! stored form.
//!
//! The project file keeps the kind's part of an answer as JSON text in a column beside the
//! comment and the time taken. [`Response::to_stored`] writes it and
//! [`Response::from_stored`] reads it back; nothing else reads or writes that text. Rows
//! written before answers carried a version (no `v` field) are version 1: the same keys
//! without `v` and `kind`. A row that fits neither is an error, never a default.

use crate::claim::Label;
use crate::design::Given;
use crate::task::TaskKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use ts_rs::TS;

/// The version [`Response::to_stored`] writes.
pub const STORED_VERSION: u32 = 2;

/// A verification's judgement of a counter-claim against its original.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Contradicts,
    DoesNotContradict,
    /// The counter-claim is malformed and cannot be judged.
    Malformed,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [
        Verdict::Contradicts,
        Verdict::DoesNotContradict,
        Verdict::Malformed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Contradicts => "contradicts",
            Verdict::DoesNotContradict => "does_not_contradict",
            Verdict::Malformed => "malformed",
        }
    }

    /// Only the exact spellings: a verdict comes from Factdesk's own screens.
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The one category a verification or label answer gives, as annotators are compared on
/// it. Serialised as its plain spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum Judgement {
    Verdict(Verdict),
    Label(Label),
}

impl Judgement {
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Verdict(v) => v.as_str(),
            Judgement::Label(l) => l.as_str(),
        }
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What an evidence answer chose.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The ids of the selected candidate sentences, ascending and without repeats. Empty
    /// only when the annotator picked nothing but the trick, which is never stored.
    Sentences(Vec<i64>),
    /// None of the sentences is evidence.
    NoEvidence,
}

impl Selection {
    /// Sentences in id order, each once.
    pub fn sentences(mut ids: Vec<i64>) -> Selection {
        ids.sort_unstable();
        ids.dedup();
        Selection::Sentences(ids)
    }

    /// The selected sentence ids; none for "no evidence".
    pub fn ids(&self) -> &[i64] {
        match self {
            Selection::Sentences(ids) => ids,
            Selection::NoEvidence => &[],
        }
    }
}

/// The part of an answer that depends on its task's kind. As JSON (across IPC and in
/// the CLI's output) it reads as [`ResponseJson`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, TS)]
#[ts(as = "ResponseJson", rename = "KindAnswer")]
pub enum Response {
    Evidence {
        selection: Selection,
    },
    /// The written refuted claim, trimmed.
    Refute {
        text: String,
    },
    Verify {
        verdict: Verdict,
    },
    Label {
        label: Label,
    },
    /// A design task's answers by question id, as the project's design checked them.
    Design {
        answers: BTreeMap<String, Given>,
    },
}

/// A [`Response`] as JSON: its kind, with the keys stored answers have always had, so a
/// reader of the older shape reads this one too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ResponseJson {
    /// `selected` is empty when `no_evidence` is true (and when only the trick was picked).
    Evidence {
        selected: Vec<i64>,
        no_evidence: bool,
    },
    Refute {
        text: String,
    },
    Verify {
        label: Verdict,
    },
    Label {
        label: Label,
    },
    Design {
        answers: BTreeMap<String, Given>,
    },
}

impl From<Response> for ResponseJson {
    fn from(r: Response) -> ResponseJson {
        match r {
            Response::Evidence { selection } => ResponseJson::Evidence {
                no_evidence: selection == Selection::NoEvidence,
                selected: selection.ids().to_vec(),
            },
            Response::Refute { text } => ResponseJson::Refute { text },
            Response::Verify { verdict } => ResponseJson::Verify { label: verdict },
            Response::Label { label } => ResponseJson::Label { label },
            Response::Design { answers } => ResponseJson::Design { answers },
        }
    }
}

impl TryFrom<ResponseJson> for Response {
    type Error = BadAnswer;

    fn try_from(r: ResponseJson) -> Result<Response, BadAnswer> {
        Ok(match r {
            ResponseJson::Evidence {
                selected,
                no_evidence: true,
            } if selected.is_empty() => Response::Evidence {
                selection: Selection::NoEvidence,
            },
            ResponseJson::Evidence {
                no_evidence: true, ..
            } => {
                return Err(BadAnswer(
                    "an evidence answer both selects sentences and says \"no evidence\"".into(),
                ))
            }
            ResponseJson::Evidence { selected, .. } => Response::Evidence {
                selection: Selection::sentences(selected),
            },
            ResponseJson::Refute { text } => Response::Refute { text },
            ResponseJson::Verify { label } => Response::Verify { verdict: label },
            ResponseJson::Label { label } => Response::Label { label },
            ResponseJson::Design { answers } => Response::Design { answers },
        })
    }
}

impl Serialize for Response {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ResponseJson::from(self.clone()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Response {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Response, D::Error> {
        Response::try_from(ResponseJson::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// An answer as kept: what it says, the annotator's comment and the time it took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Answer {
    pub response: Response,
    pub comment: Option<String>,
    /// Time spent on the item in milliseconds, when it was measured.
    pub duration_ms: Option<i64>,
}

/// Why a stored answer cannot be read. The store names the row it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadAnswer(pub String);

impl fmt::Display for BadAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadAnswer {}

/// The stored JSON object of every version: version 1 has the kind's keys alone,
/// version 2 adds `v` and `kind` and keeps those keys, so readers of either agree.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    #[serde(skip_serializing_if = "Option::is_none")]
    v: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<TaskKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    no_evidence: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    answers: Option<BTreeMap<String, Given>>,
}

impl Response {
    pub fn kind(&self) -> TaskKind {
        match self {
            Response::Evidence { .. } => TaskKind::Evidence,
            Response::Refute { .. } => TaskKind::Refute,
            Response::Verify { .. } => TaskKind::Verify,
            Response::Label { .. } => TaskKind::Label,
            Response::Design { .. } => TaskKind::Design,
        }
    }

    /// The selection of an evidence answer.
    pub fn selection(&self) -> Option<&Selection> {
        match self {
            Response::Evidence { selection } => Some(selection),
            _ => None,
        }
    }

    /// The category of a verification or label answer.
    pub fn judgement(&self) -> Option<Judgement> {
        match self {
            Response::Verify { verdict } => Some(Judgement::Verdict(*verdict)),
            Response::Label { label } => Some(Judgement::Label(*label)),
            _ => None,
        }
    }

    /// The text kept in the project file.
    pub fn to_stored(&self) -> String {
        let mut s = Stored {
            v: Some(STORED_VERSION),
            kind: Some(self.kind()),
            ..Stored::default()
        };
        match self {
            Response::Evidence { selection } => {
                s.selected = Some(selection.ids().to_vec());
                s.no_evidence = Some(*selection == Selection::NoEvidence);
            }
            Response::Refute { text } => s.text = Some(text.clone()),
            Response::Verify { verdict } => s.label = Some(verdict.as_str().into()),
            Response::Label { label } => s.label = Some(label.as_str().into()),
            Response::Design { answers } => s.answers = Some(answers.clone()),
        }
        // A struct of strings, numbers and booleans always serialises.
        serde_json::to_string(&s).unwrap_or_default()
    }

    /// Reads the text kept for an answer to a task of `kind`, of any version.
    pub fn from_stored(kind: TaskKind, text: &str) -> Result<Response, BadAnswer> {
        Response::from_stored_answer(kind, text, false)
    }

    /// [`Response::from_stored`] for an annotator's answer that `picked_trick`: the trick
    /// is never stored, so its selection of sentences may be empty. Any other evidence
    /// answer selects a sentence or says "no evidence", as submitting requires.
    pub fn from_stored_answer(
        kind: TaskKind,
        text: &str,
        picked_trick: bool,
    ) -> Result<Response, BadAnswer> {
        let s: Stored = serde_json::from_str(text)
            .map_err(|e| BadAnswer(format!("the answer is not a stored answer ({e})")))?;
        match s.v {
            None | Some(1) | Some(STORED_VERSION) => {}
            Some(v) if v < STORED_VERSION => {
                return Err(BadAnswer(format!("the answer has an unknown version {v}")))
            }
            Some(v) => {
                return Err(BadAnswer(format!(
                    "the answer has version {v}, newer than this Factdesk reads ({STORED_VERSION})"
                )))
            }
        }
        if s.v.is_some_and(|v| v >= 2) && s.kind != Some(kind) {
            return Err(BadAnswer(format!(
                "the answer is marked {} but its task is {} task",
                s.kind.map_or("with no kind".to_string(), |k| format!(
                    "as {} answer",
                    k.with_article()
                )),
                kind.with_article()
            )));
        }
        typed(kind, s, picked_trick)
    }
}

/// A stored answer's fields as the answer of a task of `kind`: only that kind's fields,
/// each as submitting would have taken it.
fn typed(kind: TaskKind, s: Stored, picked_trick: bool) -> Result<Response, BadAnswer> {
    let foreign = |field: &str| {
        BadAnswer(format!(
            "{} answer holds {field:?}, which belongs to another kind",
            kind.with_article()
        ))
    };
    let missing =
        |field: &str| BadAnswer(format!("{} answer lacks {field:?}", kind.with_article()));
    if kind != TaskKind::Design && s.answers.is_some() {
        return Err(foreign("answers"));
    }
    match kind {
        TaskKind::Design => {
            if s.selected.is_some() || s.no_evidence.is_some() {
                return Err(foreign("selected"));
            }
            if s.text.is_some() {
                return Err(foreign("text"));
            }
            if s.label.is_some() {
                return Err(foreign("label"));
            }
            let answers = s.answers.ok_or_else(|| missing("answers"))?;
            Ok(Response::Design { answers })
        }
        TaskKind::Evidence => {
            if s.text.is_some() {
                return Err(foreign("text"));
            }
            if s.label.is_some() {
                return Err(foreign("label"));
            }
            let selected = s.selected.ok_or_else(|| missing("selected"))?;
            match s.no_evidence {
                Some(true) if selected.is_empty() => Ok(Response::Evidence {
                    selection: Selection::NoEvidence,
                }),
                Some(true) => Err(BadAnswer(
                    "an evidence answer both selects sentences and says \"no evidence\"".into(),
                )),
                Some(false) if selected.is_empty() && !picked_trick => Err(BadAnswer(
                    "an evidence answer selects no sentence and does not say \"no evidence\""
                        .into(),
                )),
                Some(false) => Ok(Response::Evidence {
                    selection: Selection::sentences(selected),
                }),
                None => Err(missing("no_evidence")),
            }
        }
        TaskKind::Refute => {
            if s.selected.is_some() || s.no_evidence.is_some() {
                return Err(foreign("selected"));
            }
            if s.label.is_some() {
                return Err(foreign("label"));
            }
            let text = s.text.ok_or_else(|| missing("text"))?;
            // Submitting trims the text and refuses it empty or holding a NUL.
            if text.trim().is_empty() {
                return Err(BadAnswer("a refute answer holds an empty text".into()));
            }
            if text.contains('\0') {
                return Err(BadAnswer(
                    "a refute answer's text holds a NUL character".into(),
                ));
            }
            Ok(Response::Refute { text })
        }
        TaskKind::Verify | TaskKind::Label => {
            if s.selected.is_some() || s.no_evidence.is_some() {
                return Err(foreign("selected"));
            }
            if s.text.is_some() {
                return Err(foreign("text"));
            }
            let label = s.label.ok_or_else(|| missing("label"))?;
            if kind == TaskKind::Verify {
                Verdict::parse(&label)
                    .map(|verdict| Response::Verify { verdict })
                    .ok_or_else(|| BadAnswer(format!("unknown verdict {label:?}")))
            } else {
                label
                    .parse::<Label>()
                    .map(|label| Response::Label { label })
                    .map_err(|e| BadAnswer(e.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests;
