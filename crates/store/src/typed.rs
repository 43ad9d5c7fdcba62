//! Reading the project's domain values (task kinds, answers) through core's types, inside
//! a row mapping. A value this build cannot read travels out of the mapping carrying the
//! store error that names its row, and `From<db::Error>` hands that error back.

use crate::db::Row;
use crate::Error;
use factdesk_core::answer::{Answer, Response};
use factdesk_core::claim::{Label, UnknownLabel};
use factdesk_core::role::Role;
use factdesk_core::task::TaskKind;

pub(crate) fn carried(column: usize, e: Error) -> crate::db::Error {
    carry(column, e)
}

fn carry(_column: usize, e: Error) -> crate::db::Error {
    crate::db::Error::Carried(Box::new(e))
}

/// The task kind in `column` of a row of task `task_id`.
pub(crate) fn task_kind(r: &Row<'_>, column: usize, task_id: i64) -> crate::db::Result<TaskKind> {
    kind_of(r, column, || format!("task {task_id}"))
}

/// The task kind in `column`; `row` names the row in the error.
pub(crate) fn kind_of(
    r: &Row<'_>,
    column: usize,
    row: impl FnOnce() -> String,
) -> crate::db::Result<TaskKind> {
    let text: String = r.get(column)?;
    text.parse().map_err(|_| {
        carry(
            column,
            Error::UnknownTaskKind {
                row: row(),
                kind: text,
            },
        )
    })
}

/// A person's role in `column`; `row` names the row in the error. An unknown role is
/// refused rather than read as an annotator: guessing would hand someone the wrong rights.
pub(crate) fn role(
    r: &Row<'_>,
    column: usize,
    row: impl FnOnce() -> String,
) -> crate::db::Result<Role> {
    let text: String = r.get(column)?;
    text.parse().map_err(|_| {
        carry(
            column,
            Error::UnknownRole {
                row: row(),
                role: text,
            },
        )
    })
}

/// The claim label in `column`, if any; `row` names the row in the error.
pub(crate) fn label(
    r: &Row<'_>,
    column: usize,
    row: impl FnOnce() -> String,
) -> crate::db::Result<Option<Label>> {
    let Some(text) = r.get::<_, Option<String>>(column)? else {
        return Ok(None);
    };
    text.parse().map(Some).map_err(|e: UnknownLabel| {
        carry(
            column,
            Error::BadValue {
                row: row(),
                reason: e.to_string(),
            },
        )
    })
}

/// The stored answer text in `column`, read for a task of `kind`; `row` names the row
/// (annotation or decision) in the error.
pub(crate) fn response(
    r: &Row<'_>,
    column: usize,
    kind: TaskKind,
    picked_trick: bool,
    row: impl FnOnce() -> String,
) -> crate::db::Result<Response> {
    let text: String = r.get(column)?;
    Response::from_stored_answer(kind, &text, picked_trick).map_err(|e| {
        carry(
            column,
            Error::BadAnswer {
                row: row(),
                reason: e.to_string(),
            },
        )
    })
}

/// An annotation's answer: the response in `column`, then its comment and duration.
pub(crate) fn answer(
    r: &Row<'_>,
    column: usize,
    kind: TaskKind,
    picked_trick: bool,
    comment: Option<String>,
    duration_ms: Option<i64>,
    row: impl FnOnce() -> String,
) -> crate::db::Result<Answer> {
    Ok(Answer {
        response: response(r, column, kind, picked_trick, row)?,
        comment,
        duration_ms,
    })
}
