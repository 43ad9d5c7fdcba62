//! Answers in the order they were written, for readers that follow the project as it
//! grows (the lead's live dashboard): everything after a known annotation id, with the
//! task's kind and claim, and the newest id as a cheap "anything new?" probe.

use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::answer::Response;
use factdesk_core::task::TaskKind;

/// One written answer with what a reader needs to place it.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedRow {
    pub id: i64,
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim_id: i64,
    pub annotator_id: i64,
    pub answer: Response,
    pub trick_failed: bool,
    pub duration_ms: Option<i64>,
    pub supersedes: Option<i64>,
    pub created_at: i64,
}

/// Every answer with an id above `after`, oldest first.
pub fn since(conn: &Read, after: i64) -> Result<Vec<FeedRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.id, a.task_id, t.kind, t.claim_id, a.annotator_id, a.answer, a.trick_failed,
                a.duration_ms, a.supersedes, a.created_at
         FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE a.id > ?1 ORDER BY a.id",
    )?;
    let rows = stmt.query_map(params![after], |r| {
        let id: i64 = r.get(0)?;
        let task_id: i64 = r.get(1)?;
        let kind = crate::typed::task_kind(r, 2, task_id)?;
        Ok(FeedRow {
            id,
            task_id,
            kind,
            claim_id: r.get(3)?,
            annotator_id: r.get(4)?,
            answer: crate::typed::response(r, 5, kind, r.get(6)?, || format!("annotation {id}"))?,
            trick_failed: r.get(6)?,
            duration_ms: r.get(7)?,
            supersedes: r.get(8)?,
            created_at: r.get(9)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The newest annotation id, 0 when there is none: one index lookup.
pub fn last_id(conn: &Read) -> Result<i64> {
    Ok(
        conn.query_row("SELECT coalesce(max(id), 0) FROM annotations", [], |r| {
            r.get(0)
        })?,
    )
}

/// Every claim's ranked candidate sentence ids, by claim, in rank order.
pub fn candidate_ids(conn: &Read) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn
        .prepare_cached("SELECT claim_id, sentence_id FROM candidates ORDER BY claim_id, rank")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// One claim's ranked candidate sentence ids, in rank order.
pub fn candidate_ids_of(conn: &Read, claim_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn
        .prepare_cached("SELECT sentence_id FROM candidates WHERE claim_id = ?1 ORDER BY rank")?;
    let rows = stmt.query_map([claim_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
