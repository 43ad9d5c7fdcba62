//! Reading the project file's domain values (task kinds, answers) through core's types,
//! inside rusqlite's row mapping. A value this build cannot read travels out of the
//! mapping as a conversion failure carrying the store error that names its row, and
//! `From<rusqlite::Error>` hands that error back.

use crate::Error;
use factdesk_core::answer::{Answer, Response};
use factdesk_core::claim::{Label, UnknownLabel};
use factdesk_core::task::TaskKind;
use rusqlite::types::Type;
use rusqlite::Row;
use std::fmt;

/// A store error carried through a rusqlite row mapping.
#[derive(Debug)]
pub(crate) struct Carried(pub(crate) Error);

impl fmt::Display for Carried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Carried {}

pub(crate) fn carried(column: usize, e: Error) -> rusqlite::Error {
    carry(column, e)
}

fn carry(column: usize, e: Error) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, Type::Text, Box::new(Carried(e)))
}

/// The task kind in `column` of a row of task `task_id`.
pub(crate) fn task_kind(r: &Row<'_>, column: usize, task_id: i64) -> rusqlite::Result<TaskKind> {
    kind_of(r, column, || format!("task {task_id}"))
}

/// The task kind in `column`; `row` names the row in the error.
pub(crate) fn kind_of(
    r: &Row<'_>,
    column: usize,
    row: impl FnOnce() -> String,
) -> rusqlite::Result<TaskKind> {
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

/// The claim label in `column`, if any; `row` names the row in the error.
pub(crate) fn label(
    r: &Row<'_>,
    column: usize,
    row: impl FnOnce() -> String,
) -> rusqlite::Result<Option<Label>> {
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
) -> rusqlite::Result<Response> {
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
) -> rusqlite::Result<Answer> {
    Ok(Answer {
        response: response(r, column, kind, picked_trick, row)?,
        comment,
        duration_ms,
    })
}
