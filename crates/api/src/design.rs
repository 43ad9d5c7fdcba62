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

/// A control item's known answers, question id to label; none when the claim is no
/// control item.
pub(crate) fn control_of(
    project: &Project,
    claim_id: i64,
) -> Result<Option<BTreeMap<String, String>>> {
    let Some(json) = project.store.control_answers(claim_id)? else {
        return Ok(None);
    };
    serde_json::from_str(&json).map(Some).map_err(|e| {
        Error::new(
            ErrorCode::Database,
            format!("claim {claim_id}: its control answers cannot be read ({e})"),
        )
    })
}

/// Whether `answers` on `task` misses its control: a question the control names answered
/// with another label, or not at all. Such an answer is rejected as picking an evidence
/// item's trick is.
pub(crate) fn misses_control(
    project: &Project,
    task: &TaskRow,
    answers: &BTreeMap<String, Given>,
) -> Result<bool> {
    let Some(control) = control_of(project, task.claim_id)? else {
        return Ok(false);
    };
    let key = factdesk_core::design::declared::label_key;
    Ok(control.iter().any(|(q, label)| match answers.get(q) {
        Some(Given::One(given)) => key(given) != key(label),
        _ => true,
    }))
}

/// Why a control's known answers do not fit `design`: each must name a choice question of
/// it and one of that question's labels; a control needs a design declared first.
pub(crate) fn control_problem(
    design: Option<&Design>,
    control: &BTreeMap<String, String>,
) -> Option<String> {
    let Some(design) = design else {
        return Some(
            "a control item's answers are checked against the project's design: declare the design before importing control items (docs/designs.md)".into(),
        );
    };
    let key = factdesk_core::design::declared::label_key;
    control.iter().find_map(|(q, label)| {
        let question = design
            .questions
            .iter()
            .find(|d| &d.id == q && d.kind == factdesk_core::design::QuestionType::Choice);
        match question {
            None => Some(format!(
                "question {q:?} is no choice question of the design {:?}",
                design.name
            )),
            Some(d) => {
                let labels = d.labels.as_deref().unwrap_or_default();
                (!labels.iter().any(|l| key(l) == key(label))).then(|| {
                    format!(
                        "question {q:?} has no label {label:?} (its labels: {})",
                        labels.join(", ")
                    )
                })
            }
        }
    })
}

/// Why the control items already imported do not fit `design`, naming the first such
/// item and its question.
pub(crate) fn controls_problem(project: &Project, design: &Design) -> Result<Option<String>> {
    let mut controls: Vec<(i64, String)> =
        project.store.all_control_answers()?.into_iter().collect();
    controls.sort_unstable();
    for (claim_id, json) in controls {
        let control: BTreeMap<String, String> = serde_json::from_str(&json).unwrap_or_default();
        if let Some(problem) = control_problem(Some(design), &control) {
            let id = project
                .store
                .claim(claim_id)?
                .map_or_else(|| claim_id.to_string(), |c| c.ext_id);
            return Ok(Some(format!("control item {id:?}: {problem}")));
        }
    }
    Ok(None)
}
