//! The `decisions` table: the lead's word on tasks the annotators could not settle.
//! Appended like answers; a later row for the same task supersedes the earlier one, and a
//! row without an answer undoes the decision.

use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::answer::Response;
use factdesk_core::task::TaskKind;
use serde::Serialize;

/// A decision to record.
#[derive(Debug, Clone)]
pub struct NewDecision<'a> {
    pub task_id: i64,
    pub lead_id: i64,
    /// Stored like an annotation's answer; `None` undoes the current decision.
    pub answer: Option<&'a Response>,
    pub taken_from: Option<i64>,
    pub reason: Option<&'a str>,
    /// One of the project's disagreement categories, checked by the caller.
    pub category: Option<&'a str>,
    pub at: i64,
}

/// A task's latest decision row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionRow {
    pub id: i64,
    pub task_id: i64,
    pub lead: String,
    pub kind: TaskKind,
    /// `None`: the last decision was undone.
    pub answer: Option<Response>,
    pub taken_from: Option<i64>,
    pub reason: Option<String>,
    pub category: Option<String>,
    pub at: i64,
}

/// Appends a decision, superseding the task's current one if any.
pub fn insert(conn: &crate::Tx<'_>, d: &NewDecision<'_>) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO decisions (task_id, lead_id, answer, taken_from, reason, category, supersedes, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT max(id) FROM decisions WHERE task_id = ?1), ?7)",
    )?
    .execute(params![
        d.task_id,
        d.lead_id,
        d.answer.map(Response::to_stored),
        d.taken_from,
        d.reason,
        d.category,
        d.at
    ])?;
    Ok(conn.last_insert_rowid()?)
}

/// The latest decision row of every task that has one (undone ones included).
pub fn latest(conn: &Read) -> Result<Vec<DecisionRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT d.id, d.task_id, a.name, d.answer, d.taken_from, d.reason, d.at, t.kind, d.category
         FROM decisions d JOIN annotators a ON a.id = d.lead_id JOIN tasks t ON t.id = d.task_id
         WHERE d.id = (SELECT max(id) FROM decisions e WHERE e.task_id = d.task_id)
         ORDER BY d.task_id",
    )?;
    let rows = stmt.query_map([], |r| {
        let id: i64 = r.get(0)?;
        let task_id: i64 = r.get(1)?;
        let kind = crate::typed::task_kind(r, 7, task_id)?;
        let answer = match r.get_ref(3)? {
            rusqlite::types::ValueRef::Null => None,
            _ => Some(crate::typed::response(r, 3, kind, false, || {
                format!("decision {id} on task {task_id}")
            })?),
        };
        Ok(DecisionRow {
            id,
            task_id,
            lead: r.get(2)?,
            kind,
            answer,
            taken_from: r.get(4)?,
            reason: r.get(5)?,
            category: r.get(8)?,
            at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
