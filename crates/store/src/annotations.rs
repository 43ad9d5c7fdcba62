//! The `annotations` table: answers, appended and never changed. A correction is a new
//! row whose `supersedes` points at the answer it replaces; the current answer of an
//! annotator on a task is the one nothing supersedes.

use crate::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct NewAnnotation<'a> {
    pub uuid: &'a str,
    pub task_id: i64,
    pub annotator_id: i64,
    /// JSON.
    pub answer: &'a str,
    pub comment: Option<&'a str>,
    pub trick_failed: bool,
    pub duration_ms: Option<i64>,
    pub supersedes: Option<i64>,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnotationRow {
    pub id: i64,
    pub uuid: String,
    pub task_id: i64,
    pub annotator_id: i64,
    pub answer: serde_json::Value,
    pub comment: Option<String>,
    pub trick_failed: bool,
    pub duration_ms: Option<i64>,
    pub supersedes: Option<i64>,
    pub created_at: i64,
}

const COLUMNS: &str = "id, uuid, task_id, annotator_id, answer, comment, trick_failed, duration_ms, supersedes, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<AnnotationRow> {
    let answer: String = r.get(4)?;
    Ok(AnnotationRow {
        id: r.get(0)?,
        uuid: r.get(1)?,
        task_id: r.get(2)?,
        annotator_id: r.get(3)?,
        answer: serde_json::from_str(&answer).unwrap_or(serde_json::Value::Null),
        comment: r.get(5)?,
        trick_failed: r.get(6)?,
        duration_ms: r.get(7)?,
        supersedes: r.get(8)?,
        created_at: r.get(9)?,
    })
}

pub fn insert(conn: &Connection, a: &NewAnnotation<'_>) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO annotations (uuid, task_id, annotator_id, answer, comment, trick_failed, duration_ms, supersedes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![a.uuid, a.task_id, a.annotator_id, a.answer, a.comment, a.trick_failed, a.duration_ms, a.supersedes, a.created_at])?;
    Ok(conn.last_insert_rowid())
}

/// The annotator's current answer on a task.
pub fn current(
    conn: &Connection,
    task_id: i64,
    annotator_id: i64,
) -> Result<Option<AnnotationRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM annotations a WHERE task_id = ?1 AND annotator_id = ?2
               AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
             ORDER BY id DESC LIMIT 1"
        ))?
        .query_row(params![task_id, annotator_id], from_row)
        .optional()?)
}

pub fn by_uuid(conn: &Connection, uuid: &str) -> Result<Option<AnnotationRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM annotations WHERE uuid = ?1"
        ))?
        .query_row([uuid], from_row)
        .optional()?)
}

/// The task of the annotator's most recent answer of a kind before `before_task`
/// (any when `None`), for going back one item.
pub fn previous_task(
    conn: &Connection,
    annotator_id: i64,
    kind: &str,
    before_task: Option<i64>,
) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(
            "SELECT a.task_id FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE a.annotator_id = ?1 AND t.kind = ?2 AND a.supersedes IS NULL
               AND (?3 IS NULL OR a.id < coalesce((SELECT min(id) FROM annotations WHERE task_id = ?3 AND annotator_id = ?1), 9223372036854775807))
             ORDER BY a.id DESC LIMIT 1",
        )?
        .query_row(params![annotator_id, kind, before_task], |r| r.get(0))
        .optional()?)
}

/// Every answer, superseded ones included, oldest first (a pack's answers, for merging).
pub fn all(conn: &Connection) -> Result<Vec<AnnotationRow>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM annotations ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every current answer of a kind, oldest first.
pub fn current_of_kind(conn: &Connection, kind: &str) -> Result<Vec<AnnotationRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {} FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE t.kind = ?1 AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
         ORDER BY a.id",
        COLUMNS
            .split(", ")
            .map(|c| format!("a.{c}"))
            .collect::<Vec<_>>()
            .join(", ")
    ))?;
    let rows = stmt.query_map([kind], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many tasks of a kind the annotator has answered.
pub fn answered_count(conn: &Connection, annotator_id: i64, kind: &str) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(DISTINCT a.task_id) FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE a.annotator_id = ?1 AND t.kind = ?2",
        params![annotator_id, kind],
        |r| r.get::<_, i64>(0),
    )? as u64)
}

/// Who wrote a refutation claim in Factdesk (the annotator of the answer that wrote it).
pub fn writer_of_claim(conn: &Connection, claim_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(
            "SELECT w.annotator_id FROM claims c JOIN annotations w ON w.id = c.written_in WHERE c.id = ?1",
        )?
        .query_row([claim_id], |r| r.get(0))
        .optional()?)
}
