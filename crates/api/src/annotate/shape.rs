//! What an answer may say, whoever takes it: the shape an annotator's side sends
//! ([`Answer`]), its acknowledgement, and the checks that turn it into a typed answer
//! without reading the project (only its kind's fields, no NUL or over-long text, a
//! selection among the options shown, a known verdict or label).

use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Result};
use factdesk_core::answer::{Response, Selection, Verdict};
use factdesk_core::claim::UnknownLabel;
use factdesk_core::claim::MAX_CLAIM_CHARS;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, msg)
}

/// An answer as the annotator's side sends it (one JSON line of `factdesk submit`, a
/// pack's answer, the app's IPC). [`check_shape`] turns it into the typed answer that is
/// stored; nothing reads this shape after that.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
pub struct Answer {
    pub task_id: i64,
    /// Evidence: the opaque ids of the selected sentences.
    pub selected: Vec<String>,
    /// Evidence: none of the sentences is evidence.
    pub no_evidence: bool,
    /// Refute: the written claim.
    pub text: Option<String>,
    /// Verify: contradicts, does_not_contradict or malformed. Label: SUPPORTED, REFUTED,
    /// NOT ENOUGH INFO or FAILED.
    pub label: Option<String>,
    pub comment: Option<String>,
    /// Time spent on the item as measured by the client; the server measures it otherwise.
    pub duration_ms: Option<i64>,
    /// The answer by question id, as the item's `questions` name them, instead of the
    /// fields above: `{"label": "REFUTED"}`, `{"evidence": ["o…"]}` (`[]`: no evidence),
    /// `{"refutation": "…"}`, `{"verdict": "contradicts"}`, and `"comment"` on any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(
        optional,
        as = "Option<std::collections::BTreeMap<String, super::by_question::Given>>"
    )]
    pub answers: Option<super::by_question::ByQuestion>,
    /// The sender's id for this answer (1 to 64 letters, digits and '-'), the same each
    /// time it is sent again: an answer whose key this person's same item already holds
    /// is acknowledged as it was stored, never stored twice. A browser that lost the
    /// connection before the acknowledgement sends the answer again with its key.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub key: Option<String>,
}

/// The acknowledgement of a committed answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Ack {
    pub ack: String,
    pub task_id: i64,
}

/// An answer as sent, checked and typed, save for an evidence selection: the options'
/// opaque ids, which only the project maps to sentences (and the trick).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shaped<'a> {
    Options(&'a [String]),
    Response(Response),
}

/// The checks every answer passes, whoever takes it (the project, or a pack on the
/// annotator's laptop before the project checks it again on merge), and its conversion to
/// the typed answer: only the fields of its kind, no NUL or over-long text, a selection or
/// "no evidence" (not both) among the options `issued` for it, a known verdict or label.
pub(crate) fn check_shape<'a>(
    kind: TaskKind,
    a: &'a Answer,
    issued: &[&str],
) -> Result<Shaped<'a>> {
    refuse_foreign_fields(kind, a)?;
    refuse_bad_text(a)?;
    Ok(match kind {
        TaskKind::Evidence => {
            if a.no_evidence && !a.selected.is_empty() {
                return Err(invalid("choose sentences or \"no evidence\", not both"));
            }
            if !a.no_evidence && a.selected.is_empty() {
                return Err(invalid("select at least one sentence, or \"no evidence\""));
            }
            if let Some(id) = a.selected.iter().find(|id| !issued.contains(&id.as_str())) {
                return Err(invalid(format!(
                    "unknown option {id:?} for task {}",
                    a.task_id
                )));
            }
            if a.no_evidence {
                Shaped::Response(Response::Evidence {
                    selection: Selection::NoEvidence,
                })
            } else {
                Shaped::Options(&a.selected)
            }
        }
        TaskKind::Verify => {
            let verdict = a.label.as_deref().and_then(Verdict::parse).ok_or_else(|| {
                invalid(format!(
                    "label must be one of {}",
                    Verdict::ALL.map(Verdict::as_str).join(", ")
                ))
            })?;
            Shaped::Response(Response::Verify { verdict })
        }
        TaskKind::Label => {
            // Any spelling the datasets use.
            let label = a
                .label
                .as_deref()
                .unwrap_or("")
                .parse()
                .map_err(|e: UnknownLabel| invalid(e.to_string()))?;
            Shaped::Response(Response::Label { label })
        }
        TaskKind::Refute => Shaped::Response(Response::Refute {
            text: a.text.as_deref().unwrap_or("").trim().to_string(),
        }),
        // Checked against the project's design and the item's texts by the caller, which
        // has both (see `crate::design::checked`).
        TaskKind::Design => match &a.answers {
            Some(given) => Shaped::Response(Response::Design {
                answers: given.0.clone(),
            }),
            None => {
                return Err(invalid(format!(
                    "task {} is a design task: give its answer by question (\"answers\": {{...}})",
                    a.task_id
                )))
            }
        },
    })
}

/// The longest comment taken, in characters.
const MAX_COMMENT: usize = 10_000;

/// Refuses a comment or written claim holding a NUL character, a comment longer than
/// `MAX_COMMENT` or a written claim longer than an imported one may be (hostile pass of
/// session 34: a refutation of one padded 10,000-character word went in as a claim):
/// text that no screen typed, from a client or a rewritten pack.
fn refuse_bad_text(a: &Answer) -> Result<()> {
    let fields = [
        ("comment", &a.comment, MAX_COMMENT),
        ("text", &a.text, MAX_CLAIM_CHARS),
    ];
    for (field, text, most) in fields {
        let Some(text) = text else { continue };
        if text.contains('\0') {
            return Err(invalid(format!(
                "task {}: {field} holds a NUL character",
                a.task_id
            )));
        }
        if text.chars().count() > most {
            return Err(invalid(format!(
                "task {}: {field} is longer than {most} characters",
                a.task_id
            )));
        }
    }
    Ok(())
}

/// Refuses an answer that fills in fields of another kind of task: a label on an evidence
/// item, a selection on a label, is a client (or a pack) that does not know what it answers.
fn refuse_foreign_fields(kind: TaskKind, a: &Answer) -> Result<()> {
    let foreign: &[(&str, bool)] = match kind {
        TaskKind::Evidence => &[("text", a.text.is_some()), ("label", a.label.is_some())],
        TaskKind::Refute => &[
            ("selected", !a.selected.is_empty()),
            ("no_evidence", a.no_evidence),
            ("label", a.label.is_some()),
        ],
        TaskKind::Verify | TaskKind::Label => &[
            ("selected", !a.selected.is_empty()),
            ("no_evidence", a.no_evidence),
            ("text", a.text.is_some()),
        ],
        TaskKind::Design => &[
            ("selected", !a.selected.is_empty()),
            ("no_evidence", a.no_evidence),
            ("text", a.text.is_some()),
            ("label", a.label.is_some()),
        ],
    };
    match foreign.iter().find(|(_, set)| *set) {
        Some((field, _)) => Err(invalid(format!(
            "task {} is {} task: {field} does not belong in its answer",
            a.task_id,
            kind.with_article()
        ))),
        None => Ok(()),
    }
}
