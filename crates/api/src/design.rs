//! A project's own design (issue 33): the questions its design tasks ask, as the
//! `design` setting declares them. This module serves them (the guideline an item shows,
//! an answer checked against the design and the item's texts); `crate::declared`
//! measures and settles them, question by question.

use crate::settings::Settings;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::design::declared::{check, Texts};
use factdesk_core::design::{Design, Given};
use factdesk_store::tasks::TaskRow;
use std::collections::BTreeMap;

/// The refusal of design work in a project that declares no design.
pub(crate) fn undeclared() -> Error {
    Error::new(
        ErrorCode::Conflict,
        "the project declares no design: set one with `factdesk settings P --set design=...` or `factdesk init P --recipe NAME`",
    )
}

/// What a design item's guideline says: each question's instruction under its id.
pub(crate) fn guideline(design: &Design) -> String {
    design
        .questions
        .iter()
        .filter_map(|q| q.guideline.as_ref().map(|g| format!("{}: {g}", q.id)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A design answer in words, one question after another: "relation: entailment;
/// salient: 2 spans".
pub(crate) fn summary(answers: &BTreeMap<String, Given>) -> String {
    answers
        .iter()
        .map(|(id, given)| match given {
            Given::One(text) => format!("{id}: {text}"),
            Given::Many(labels) if labels.is_empty() => format!("{id}: none"),
            Given::Many(labels) => format!("{id}: {}", labels.join(", ")),
            Given::Spans { spans } => format!(
                "{id}: {} span{}",
                spans.len(),
                if spans.len() == 1 { "" } else { "s" }
            ),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A design answer checked against the project's design and the texts its item shows,
/// as it is stored.
pub(crate) fn checked(
    project: &Project,
    task: &TaskRow,
    text_a: &str,
    settings: &Settings,
    given: &BTreeMap<String, Given>,
) -> Result<BTreeMap<String, Given>> {
    let design = settings.design.as_ref().ok_or_else(undeclared)?;
    let text_b = project.store.pair_text(task.claim_id)?;
    let texts = Texts {
        text_a,
        text_b: text_b.as_deref(),
    };
    check(design, texts, given)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("task {}: {e}", task.id)))
}
