//! The `problem_reports` table: problems annotators report on items they cannot answer,
//! waiting for the lead until marked seen.

use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;

/// A report as the lead's list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRow {
    pub id: i64,
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim_id: i64,
    pub claim_text: String,
    pub annotator: String,
    pub text: String,
    pub created_at: i64,
}

pub fn insert(
    conn: &crate::Tx<'_>,
    task_id: i64,
    annotator_id: i64,
    text: &str,
    at: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO problem_reports (task_id, annotator_id, text, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![task_id, annotator_id, text, at],
    )?;
    Ok(())
}

/// Takes in a report made in pack `pack_id` on task `task_id`, unless a merge of that
/// pack already did (one report an item in a pack): false then, and nothing is written.
pub fn insert_from_pack(
    conn: &crate::Tx<'_>,
    pack_id: &str,
    task_id: i64,
    annotator_id: i64,
    text: &str,
    at: i64,
) -> Result<bool> {
    let merged: bool = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM problem_reports WHERE pack_id = ?1 AND task_id = ?2)",
        )?
        .query_row(params![pack_id, task_id], |r| r.get(0))?;
    if merged {
        return Ok(false);
    }
    conn.prepare_cached(
        "INSERT INTO problem_reports (task_id, annotator_id, text, created_at, pack_id) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![task_id, annotator_id, text, at, pack_id])?;
    Ok(true)
}

/// The reports not yet seen, oldest first, at most `limit`.
pub fn open(conn: &Read, limit: u32) -> Result<Vec<ReportRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.id, r.task_id, t.kind, c.id, c.text, a.name, r.text, r.created_at
         FROM problem_reports r JOIN tasks t ON t.id = r.task_id JOIN claims c ON c.id = t.claim_id
         JOIN annotators a ON a.id = r.annotator_id
         WHERE r.seen_at IS NULL ORDER BY r.created_at, r.id LIMIT {limit}"
    ))?;
    let rows = stmt.query_map([], |r| {
        let task_id = r.get(1)?;
        Ok(ReportRow {
            id: r.get(0)?,
            task_id,
            kind: crate::typed::task_kind(r, 2, task_id)?,
            claim_id: r.get(3)?,
            claim_text: r.get(4)?,
            annotator: r.get(5)?,
            text: r.get(6)?,
            created_at: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Marks report `id` seen by `lead`; false when there is no such report still open.
pub fn mark_seen(conn: &crate::Tx<'_>, id: i64, lead: &str, at: i64) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE problem_reports SET seen_at = ?1, seen_by = ?2 WHERE id = ?3 AND seen_at IS NULL",
        params![at, lead, id],
    )? == 1)
}

/// How many reports `annotator_id` made since `since`: a person filing reports in a loop
/// is held to a few a minute.
pub fn made_since(conn: &Read, annotator_id: i64, since: i64) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM problem_reports WHERE annotator_id = ?1 AND created_at >= ?2",
        params![annotator_id, since],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}
