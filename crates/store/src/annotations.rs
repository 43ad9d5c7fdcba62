//! The `annotations` table: answers, appended and never changed. A correction is a new
//! row whose `supersedes` points at the answer it replaces; the current answer of an
//! annotator on a task is the one nothing supersedes.

use crate::db::{Engine, OptionalExtension, Row};
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::answer::{Answer, Response};
use factdesk_core::task::TaskKind;
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct NewAnnotation<'a> {
    pub uuid: &'a str,
    pub task_id: i64,
    pub annotator_id: i64,
    pub response: &'a Response,
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
    pub kind: TaskKind,
    /// What it says, with the comment and the time taken.
    pub answer: Answer,
    pub trick_failed: bool,
    pub supersedes: Option<i64>,
    pub created_at: i64,
}

/// Read from `annotations a JOIN tasks t`.
const COLUMNS: &str = "a.id, a.uuid, a.task_id, a.annotator_id, t.kind, a.answer, a.comment, a.trick_failed, a.duration_ms, a.supersedes, a.created_at";

pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<AnnotationRow> {
    let id: i64 = r.get(0)?;
    let uuid: String = r.get(1)?;
    let task_id: i64 = r.get(2)?;
    let kind = crate::typed::task_kind(r, 4, task_id)?;
    let answer = crate::typed::answer(r, 5, kind, r.get(7)?, r.get(6)?, r.get(8)?, || {
        format!("annotation {id} ({uuid})")
    })?;
    Ok(AnnotationRow {
        id,
        uuid,
        task_id,
        annotator_id: r.get(3)?,
        kind,
        answer,
        trick_failed: r.get(7)?,
        supersedes: r.get(9)?,
        created_at: r.get(10)?,
    })
}

pub fn insert(conn: &crate::Tx<'_>, a: &NewAnnotation<'_>) -> Result<i64> {
    let sql = "INSERT INTO annotations (uuid, task_id, annotator_id, answer, comment, trick_failed, duration_ms, supersedes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    let values = params![
        a.uuid,
        a.task_id,
        a.annotator_id,
        a.response.to_stored(),
        a.comment,
        a.trick_failed,
        a.duration_ms,
        a.supersedes,
        a.created_at
    ];
    if conn.engine() == Engine::Postgres {
        // The new id in the same round trip as the row, and the commit announced to
        // listeners ([`crate::listen`]).
        return Ok(conn
            .prepare_cached(&format!(
                "{sql} RETURNING id, pg_notify('{}', '')",
                crate::listen::CHANNEL
            ))?
            .query_row(values, |r| r.get(0))?);
    }
    conn.prepare_cached(sql)?.execute(values)?;
    Ok(conn.last_insert_rowid()?)
}

/// The annotator's current answer on a task.
pub fn current(conn: &Read, task_id: i64, annotator_id: i64) -> Result<Option<AnnotationRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE a.task_id = ?1 AND a.annotator_id = ?2
               AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
             ORDER BY a.id DESC LIMIT 1"
        ))?
        .query_row(params![task_id, annotator_id], from_row)
        .optional()?)
}

pub fn by_uuid(conn: &Read, uuid: &str) -> Result<Option<AnnotationRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE a.uuid = ?1"
        ))?
        .query_row([uuid], from_row)
        .optional()?)
}

/// How many answers `annotator_id` gave `task_id`: the first and every correction.
pub fn given_count(conn: &Read, task_id: i64, annotator_id: i64) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM annotations WHERE task_id = ?1 AND annotator_id = ?2",
        )?
        .query_row(params![task_id, annotator_id], |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The task of the annotator's most recent answer of a kind before `before_task`
/// (any when `None`), for going back one item.
pub fn previous_task(
    conn: &Read,
    annotator_id: i64,
    kind: TaskKind,
    before_task: Option<i64>,
) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(
            "SELECT a.task_id FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE a.annotator_id = ?1 AND t.kind = ?2 AND a.supersedes IS NULL
               AND (?3 IS NULL OR a.id < coalesce((SELECT min(id) FROM annotations WHERE task_id = ?3 AND annotator_id = ?1), 9223372036854775807))
             ORDER BY a.id DESC LIMIT 1",
        )?
        .query_row(params![annotator_id, kind.as_str(), before_task], |r| r.get(0))
        .optional()?)
}

/// Every answer, superseded ones included, oldest first (a pack's answers, for merging).
pub fn all(conn: &Read) -> Result<Vec<AnnotationRow>> {
    // Sized once: grown by doubling, a few hundred thousand rows were copied several
    // times into freshly faulted memory (most of an export's system time).
    let count: i64 = conn.query_row("SELECT count(*) FROM annotations", [], |r| r.get(0))?;
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM annotations a JOIN tasks t ON t.id = a.task_id ORDER BY a.id"
    ))?;
    for row in stmt.query_map([], from_row)? {
        out.push(row?);
    }
    Ok(out)
}

/// The id that splits the stored answers in two runs in id order, `share` (a fraction:
/// numerator, denominator) of them in the first: ids up to it, then the ids after it.
/// Answers are only ever appended, so the first run holds the same rows whenever it is
/// read. `None` when there are fewer than `min_rows` answers.
pub fn split_id(conn: &Read, share: (i64, i64), min_rows: i64) -> Result<Option<i64>> {
    let count: i64 = conn.query_row("SELECT count(*) FROM annotations", [], |r| r.get(0))?;
    let offset = count * share.0 / share.1.max(1) - 1;
    if count < min_rows || offset < 0 {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT id FROM annotations ORDER BY id LIMIT 1 OFFSET ?1",
            [offset],
            |r| r.get(0),
        )
        .optional()?)
}

/// Every stored answer with `after < id` and, when given, `id <= up_to`, oldest first: a
/// part of [`all`], whose parts can be read on connections of their own side by side.
pub fn range(conn: &Read, after: i64, up_to: Option<i64>) -> Result<Vec<AnnotationRow>> {
    let up_to = up_to.unwrap_or(i64::MAX);
    let count: i64 = conn.query_row(
        "SELECT count(*) FROM annotations WHERE id > ?1 AND id <= ?2",
        params![after, up_to],
        |r| r.get(0),
    )?;
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE a.id > ?1 AND a.id <= ?2 ORDER BY a.id"
    ))?;
    for row in stmt.query_map(params![after, up_to], from_row)? {
        out.push(row?);
    }
    Ok(out)
}

/// Every current answer on a task, oldest first.
pub fn current_of_task(conn: &Read, task_id: i64) -> Result<Vec<AnnotationRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE a.task_id = ?1 AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
         ORDER BY a.id"
    ))?;
    let rows = stmt.query_map([task_id], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Every current answer of a kind, oldest first.
pub fn current_of_kind(conn: &Read, kind: TaskKind) -> Result<Vec<AnnotationRow>> {
    // CROSS JOIN keeps the answers the outer loop, read in id order: led by the tasks,
    // SQLite walks them in shuffle order and jumps around the answers (twice as slow at
    // 300,000 answers), then sorts. PostgreSQL plans joins itself and has no CROSS JOIN
    // with a condition.
    let join = match conn.engine() {
        crate::Engine::Sqlite => "CROSS JOIN",
        crate::Engine::Postgres => "JOIN",
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM annotations a {join} tasks t ON t.id = a.task_id
         WHERE t.kind = ?1 AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
         ORDER BY a.id"
    ))?;
    let rows = stmt.query_map([kind.as_str()], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Whether a kind has any current answer, without reading the answers.
pub fn any_current_of_kind(conn: &Read, kind: TaskKind) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE t.kind = ?1 AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id))",
        )?
        .query_row([kind.as_str()], |r| r.get(0))?)
}

/// Whether `annotator_id` has given any answer on a task of `claim_id`, current or not.
pub fn answered_claim(conn: &Read, annotator_id: i64, claim_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE t.claim_id = ?1 AND a.annotator_id = ?2)",
        )?
        .query_row([claim_id, annotator_id], |r| r.get(0))?)
}

/// Who wrote a refutation claim in Factdesk (the annotator of the answer that wrote it).
pub fn writer_of_claim(conn: &Read, claim_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(
            "SELECT w.annotator_id FROM claims c JOIN annotations w ON w.id = c.written_in WHERE c.id = ?1",
        )?
        .query_row([claim_id], |r| r.get(0))
        .optional()?)
}

/// The claims `annotator_id` has worked on: those of the tasks they gave any answer on
/// (current or not), and the refutations their answers wrote. They are the claims an
/// annotator may see, and the ones their opaque claim references name.
pub fn claims_worked_on(conn: &Read, annotator_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.claim_id FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE a.annotator_id = ?1
         UNION
         SELECT c.id FROM annotations w JOIN claims c ON c.written_in = w.id
         WHERE w.annotator_id = ?1",
    )?;
    let rows = stmt.query_map([annotator_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
