//! The `tasks` table: one per (kind, claim), answered by `overlap` annotators.

use crate::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskRow {
    pub id: i64,
    pub kind: String,
    pub claim_id: i64,
    pub overlap: u32,
    /// Evidence tasks: the position, among the shown sentences, of the trick.
    pub trick_slot: Option<u32>,
    pub answered: u32,
}

const COLUMNS: &str = "id, kind, claim_id, overlap, trick_slot, answered";

fn from_row(r: &Row<'_>) -> rusqlite::Result<TaskRow> {
    Ok(TaskRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        claim_id: r.get(2)?,
        overlap: r.get(3)?,
        trick_slot: r.get(4)?,
        answered: r.get(5)?,
    })
}

/// A task to create.
#[derive(Debug, Clone, Copy)]
pub struct NewTask<'a> {
    pub kind: &'a str,
    pub claim_id: i64,
    pub overlap: u32,
    pub trick_slot: Option<u32>,
    pub shuffle_key: i64,
    pub created_at: i64,
}

/// Creates a task unless the claim already has one of that kind; true when created.
pub fn insert(conn: &Connection, t: &NewTask<'_>) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO tasks (kind, claim_id, overlap, trick_slot, shuffle_key, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![t.kind, t.claim_id, t.overlap, t.trick_slot, t.shuffle_key, t.created_at])?;
    Ok(n == 1)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<TaskRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM tasks WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// Tasks of `kind` still short of answers, in shuffle order starting at `from_key`
/// (wrapping around), `limit` at a time after `after_key`.
pub fn open_from(
    conn: &Connection,
    kind: &str,
    from_key: i64,
    wrapped: bool,
    after: i64,
    limit: u32,
) -> Result<Vec<(TaskRow, i64)>> {
    let sql = if wrapped {
        format!("SELECT {COLUMNS}, shuffle_key FROM tasks WHERE kind = ?1 AND answered < overlap AND shuffle_key < ?2 AND shuffle_key > ?3 ORDER BY shuffle_key, id LIMIT ?4")
    } else {
        format!("SELECT {COLUMNS}, shuffle_key FROM tasks WHERE kind = ?1 AND answered < overlap AND shuffle_key >= ?2 AND shuffle_key > ?3 ORDER BY shuffle_key, id LIMIT ?4")
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![kind, from_key, after, limit], |r| {
        Ok((from_row(r)?, r.get(6)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Counts one more annotator's answer on a task.
pub fn add_answer(conn: &Connection, id: i64) -> Result<()> {
    conn.prepare_cached("UPDATE tasks SET answered = answered + 1 WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// How many tasks of a kind there are (read from the queue index alone).
pub fn count(conn: &Connection, kind: &str) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM tasks WHERE kind = ?1")?
        .query_row([kind], |r| r.get::<_, i64>(0))? as u64)
}

/// How many tasks of a kind an annotator could still be served: short of answers and not
/// answered by them. Answers given on tasks that are now full do not count against them.
pub fn open_for(conn: &Connection, kind: &str, annotator_id: i64) -> Result<u64> {
    // Kept by triggers (migration 0005): counting 300,000 tasks took a third of a second.
    let open: i64 = conn
        .prepare_cached("SELECT open FROM open_tasks WHERE kind = ?1")?
        .query_row([kind], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    let mine: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM assignments a JOIN tasks t ON t.id = a.task_id
             WHERE a.annotator_id = ?1 AND a.state = 'answered' AND t.kind = ?2 AND t.answered < t.overlap",
        )?
        .query_row(params![annotator_id, kind], |r| r.get(0))?;
    Ok((open - mine).max(0) as u64)
}

/// (tasks, answers wanted, answers given) of a kind.
pub fn totals(conn: &Connection, kind: &str) -> Result<(u64, u64, u64)> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(sum(overlap), 0), coalesce(sum(min(answered, overlap)), 0) FROM tasks WHERE kind = ?1",
        [kind],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64)),
    )?)
}

/// Claims eligible for a kind of task, with their text. `evidence`: claims with
/// candidates; `verify`: refutations; `label`: claims with documents; `refute`: original
/// claims (the caller keeps the short ones).
pub fn eligible_claims(conn: &Connection, kind: &str) -> Result<Vec<(i64, String)>> {
    let sql = match kind {
        "evidence" => "SELECT id, text FROM claims c WHERE EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id) ORDER BY id",
        "verify" => "SELECT id, text FROM claims WHERE parent_id IS NOT NULL ORDER BY id",
        "label" => "SELECT id, text FROM claims c WHERE EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) ORDER BY id",
        _ => "SELECT id, text FROM claims WHERE parent_id IS NULL ORDER BY id",
    };
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
