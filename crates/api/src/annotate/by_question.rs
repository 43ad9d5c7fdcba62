//! Answers keyed by question id (`{"task_id", "answers": {"label": "REFUTED"}}`), as an
//! item's `questions` name them, turned into the fields each built-in design's answer
//! has always had. Scripts then read an item's questions instead of knowing every kind;
//! the field shapes keep working beside them.

use super::shape::Answer;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Result};
use factdesk_core::design::{built_in, QuestionType, COMMENT};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

pub use factdesk_core::design::Given;

/// An answer's questions and what was given for each, every question once: a JSON map
/// may repeat a key, and the last one silently won (eighth hostile pass).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ByQuestion(pub BTreeMap<String, Given>);

impl<'de> Deserialize<'de> for ByQuestion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Once;
        impl<'de> serde::de::Visitor<'de> for Once {
            type Value = ByQuestion;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("answers by question id")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> std::result::Result<ByQuestion, M::Error> {
                let mut out = BTreeMap::new();
                while let Some((id, given)) = map.next_entry::<String, Given>()? {
                    if out.contains_key(&id) {
                        return Err(serde::de::Error::custom(format!(
                            "question {id:?} is answered twice"
                        )));
                    }
                    out.insert(id, given);
                }
                Ok(ByQuestion(out))
            }
        }
        d.deserialize_map(Once)
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// `a` with its answers by question moved into the fields of `kind`'s answer; `a` itself
/// when it gives none. Refused, naming the question, when it also fills the fields, names
/// a question the design lacks, answers one in the wrong shape or leaves a required one out.
pub(crate) fn by_fields(kind: TaskKind, a: &Answer) -> Result<Cow<'_, Answer>> {
    let Some(ByQuestion(given)) = &a.answers else {
        return Ok(Cow::Borrowed(a));
    };
    let task = a.task_id;
    if kind == TaskKind::Design {
        return design_comment(a, given);
    }
    let filled = !a.selected.is_empty() || a.no_evidence || a.text.is_some() || a.label.is_some();
    if filled {
        return Err(invalid(format!(
            "task {task}: give the answer by question (\"answers\") or by field (selected, no_evidence, text, label), not both"
        )));
    }
    let design = built_in(kind, &[]);
    let mut out = Answer {
        answers: None,
        ..a.clone()
    };
    for (id, value) in given {
        let Some(question) = design.questions.iter().find(|q| &q.id == id) else {
            let ids: Vec<&str> = design.questions.iter().map(|q| q.id.as_str()).collect();
            return Err(invalid(format!(
                "task {task} is {} task: it asks no question {id:?} (its questions: {})",
                kind.with_article(),
                ids.join(", ")
            )));
        };
        let wrong = || {
            let wanted = match question.kind {
                QuestionType::Choice => "one label as a string",
                QuestionType::Multi => "a list of labels ([] for none)",
                QuestionType::Span => "{\"spans\": [[start, end], ...]}",
                QuestionType::Text => "its text as a string",
            };
            invalid(format!(
                "task {task}: question {id:?} takes {wanted}, not {}",
                value.shape()
            ))
        };
        match (question.kind, value) {
            (QuestionType::Multi, Given::Many(labels)) => {
                // The evidence question: none chosen is "no evidence".
                out.no_evidence = labels.is_empty();
                out.selected.clone_from(labels);
            }
            (QuestionType::Text, Given::One(text)) if id == COMMENT => {
                if a.comment.is_some() {
                    return Err(invalid(format!(
                        "task {task}: the comment is given twice, as a field and as a question"
                    )));
                }
                out.comment = Some(text.clone());
            }
            (QuestionType::Text, Given::One(text)) => out.text = Some(text.clone()),
            (QuestionType::Choice, Given::One(label)) => out.label = Some(label.clone()),
            _ => return Err(wrong()),
        }
    }
    if let Some(q) = design
        .questions
        .iter()
        .find(|q| q.required && !given.contains_key(&q.id))
    {
        return Err(invalid(format!(
            "task {task}: question {:?} is not answered",
            q.id
        )));
    }
    Ok(Cow::Owned(out))
}

/// A design task's answer keeps its questions as given (the project checks them against
/// its design); only the comment moves to its field.
fn design_comment<'a>(a: &'a Answer, given: &BTreeMap<String, Given>) -> Result<Cow<'a, Answer>> {
    let Some(comment) = given.get(COMMENT) else {
        return Ok(Cow::Borrowed(a));
    };
    let Given::One(text) = comment else {
        return Err(invalid(format!(
            "task {}: question \"comment\" takes its text as a string, not {}",
            a.task_id,
            comment.shape()
        )));
    };
    if a.comment.is_some() {
        return Err(invalid(format!(
            "task {}: the comment is given twice, as a field and as a question",
            a.task_id
        )));
    }
    let mut rest = given.clone();
    rest.remove(COMMENT);
    Ok(Cow::Owned(Answer {
        comment: Some(text.clone()),
        answers: Some(ByQuestion(rest)),
        ..a.clone()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(pairs: &[(&str, Given)]) -> Answer {
        Answer {
            task_id: 7,
            answers: Some(ByQuestion(
                pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), v.clone()))
                    .collect(),
            )),
            ..Answer::default()
        }
    }

    fn one(s: &str) -> Given {
        Given::One(s.into())
    }

    #[test]
    fn each_built_in_question_fills_its_field() -> Result<()> {
        let label = answer(&[("label", one("REFUTED")), ("comment", one("sure"))]);
        let flat = by_fields(TaskKind::Label, &label)?;
        assert_eq!(flat.label.as_deref(), Some("REFUTED"));
        assert_eq!(flat.comment.as_deref(), Some("sure"));
        assert_eq!(flat.answers, None);
        let chosen = answer(&[("evidence", Given::Many(vec!["o1".into()]))]);
        let flat = by_fields(TaskKind::Evidence, &chosen)?;
        assert_eq!(
            (flat.selected.clone(), flat.no_evidence),
            (vec!["o1".into()], false)
        );
        let flat = |kind, a: Answer| by_fields(kind, &a).map(Cow::into_owned);
        let none = flat(
            TaskKind::Evidence,
            answer(&[("evidence", Given::Many(vec![]))]),
        )?;
        assert!(none.no_evidence && none.selected.is_empty());
        let written = flat(TaskKind::Refute, answer(&[("refutation", one("x"))]))?;
        assert_eq!(written.text.as_deref(), Some("x"));
        let verdict = flat(TaskKind::Verify, answer(&[("verdict", one("malformed"))]))?;
        assert_eq!(verdict.label.as_deref(), Some("malformed"));
        Ok(())
    }

    #[test]
    fn a_wrong_question_shape_or_mix_is_refused_by_name() {
        let cases = [
            (
                TaskKind::Label,
                answer(&[("verdict", one("contradicts"))]),
                "asks no question \"verdict\"",
            ),
            (
                TaskKind::Label,
                answer(&[("label", Given::Many(vec![]))]),
                "takes one label as a string",
            ),
            (
                TaskKind::Evidence,
                answer(&[("evidence", one("o1"))]),
                "a list of labels",
            ),
            (
                TaskKind::Verify,
                answer(&[("comment", one("c"))]),
                "\"verdict\" is not answered",
            ),
            (
                TaskKind::Label,
                Answer {
                    label: Some("REFUTED".into()),
                    ..answer(&[("label", one("REFUTED"))])
                },
                "not both",
            ),
        ];
        for (kind, a, says) in cases {
            let message = by_fields(kind, &a)
                .err()
                .map(|e| e.message)
                .unwrap_or_default();
            assert!(message.contains(says), "{kind:?} {a:?}: {message}");
        }
    }

    #[test]
    fn a_question_answered_twice_is_refused_as_the_answer_is_read() {
        let twice = r#"{"task_id": 1, "answers": {"label": "SUPPORTED", "label": "REFUTED"}}"#;
        let read = serde_json::from_str::<Answer>(twice);
        let message = read.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("\"label\" is answered twice"), "{message}");
        let once = r#"{"task_id": 1, "answers": {"label": "SUPPORTED"}}"#;
        assert!(serde_json::from_str::<Answer>(once).is_ok());
        let none = r#"{"task_id": 1, "answers": null, "label": "SUPPORTED"}"#;
        assert!(serde_json::from_str::<Answer>(none).is_ok_and(|a| a.answers.is_none()));
    }

    #[test]
    fn an_answer_by_field_is_taken_as_it_is() -> Result<()> {
        let a = Answer {
            task_id: 1,
            label: Some("SUPPORTED".into()),
            ..Answer::default()
        };
        assert!(matches!(by_fields(TaskKind::Label, &a)?, Cow::Borrowed(_)));
        Ok(())
    }
}
