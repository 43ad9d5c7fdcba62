//! The `tasks` table: one per (kind, claim), answered by `overlap` annotators.

use crate::db::{Engine, OptionalExtension, Row};
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;
use serde::Serialize;
use std::collections::HashMap;

mod open_to;

pub use open_to::{given_across_kinds, has_room, open_for_annotator, skipped_with_room};
pub(crate) use open_to::{open_walk, GIVEN_ACROSS_KINDS_OF_FIRST, OPEN_TO};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskRow {
    pub id: i64,
    pub kind: TaskKind,
    pub claim_id: i64,
    pub overlap: u32,
    /// Evidence tasks: the position, among the shown sentences, of the trick.
    pub trick_slot: Option<u32>,
    pub answered: u32,
}

/// In the order `from_row` reads them.
const COLUMNS: &str = "id, kind, claim_id, overlap, trick_slot, answered";

pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<TaskRow> {
    let id: i64 = r.get(0)?;
    Ok(TaskRow {
        id,
        kind: crate::typed::task_kind(r, 1, id)?,
        claim_id: r.get(2)?,
        overlap: r.get(3)?,
        trick_slot: r.get(4)?,
        answered: r.get(5)?,
    })
}

/// A task to create.
#[derive(Debug, Clone, Copy)]
pub struct NewTask {
    pub kind: TaskKind,
    pub claim_id: i64,
    pub overlap: u32,
    pub trick_slot: Option<u32>,
    pub shuffle_key: i64,
    pub created_at: i64,
}

/// Creates a task unless the claim already has one of that kind; true when created.
pub fn insert(conn: &crate::Tx<'_>, t: &NewTask) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO tasks (kind, claim_id, overlap, trick_slot, shuffle_key, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![t.kind.as_str(), t.claim_id, t.overlap, t.trick_slot, t.shuffle_key, t.created_at])?;
    Ok(n == 1)
}

/// Creates a task the claim does not have yet (the caller read so in its write
/// transaction); returns its id. Staged for COPY during a bulk write on PostgreSQL.
pub fn insert_new(conn: &crate::Tx<'_>, t: &NewTask) -> Result<i64> {
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let id = pg.reserve_id("tasks")?;
        let row = crate::db::CopyRow {
            table: "tasks",
            columns: "id, kind, claim_id, overlap, trick_slot, shuffle_key, created_at",
            ignore_conflicts: false,
        };
        pg.stage(
            row,
            params![
                id,
                t.kind.as_str(),
                t.claim_id,
                t.overlap,
                t.trick_slot,
                t.shuffle_key,
                t.created_at
            ],
        )?;
        return Ok(id);
    }
    conn.prepare_cached(
        "INSERT INTO tasks (kind, claim_id, overlap, trick_slot, shuffle_key, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        t.kind.as_str(),
        t.claim_id,
        t.overlap,
        t.trick_slot,
        t.shuffle_key,
        t.created_at
    ])?;
    Ok(conn.last_insert_rowid()?)
}

/// Rows a statement of [`insert_new_many`] or `tricks::set_many` writes at most.
pub(crate) const ROWS_A_STATEMENT: usize = 500;

/// [`insert_new`] for many tasks, in order; gives their ids in the same order. On a file
/// a statement writes up to [`ROWS_A_STATEMENT`] rows: the open-task trigger makes an
/// insert journal each page it changes for its own rollback, once a statement, and one
/// row a statement copied a few pages per task.
pub fn insert_new_many(conn: &crate::Tx<'_>, tasks: &[NewTask]) -> Result<Vec<i64>> {
    if conn.sqlite().is_none() {
        return tasks.iter().map(|t| insert_new(conn, t)).collect();
    }
    let mut ids = Vec::with_capacity(tasks.len());
    for batch in tasks.chunks(ROWS_A_STATEMENT) {
        let rows = (0..batch.len())
            .map(|i| {
                let p = 6 * i;
                format!(
                    "(?{}, ?{}, ?{}, ?{}, ?{}, ?{})",
                    p + 1,
                    p + 2,
                    p + 3,
                    p + 4,
                    p + 5,
                    p + 6
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let kinds: Vec<&str> = batch.iter().map(|t| t.kind.as_str()).collect();
        let mut values: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(6 * batch.len());
        for (t, kind) in batch.iter().zip(&kinds) {
            values.extend([
                kind as &dyn rusqlite::ToSql,
                &t.claim_id,
                &t.overlap,
                &t.trick_slot,
                &t.shuffle_key,
                &t.created_at,
            ]);
        }
        // The order RETURNING gives its rows in is SQLite's to choose: ids are matched to
        // tasks by (kind, claim), which is unique.
        let mut stmt = conn.prepare_cached(&format!(
            "INSERT INTO tasks (kind, claim_id, overlap, trick_slot, shuffle_key, created_at)
             VALUES {rows} RETURNING kind, claim_id, id"
        ))?;
        let mut made: HashMap<(String, i64), i64> = HashMap::with_capacity(batch.len());
        for row in stmt.query_map(values.as_slice(), |r| {
            Ok(((r.get(0)?, r.get(1)?), r.get(2)?))
        })? {
            let (key, id) = row?;
            made.insert(key, id);
        }
        for t in batch {
            let id = made.get(&(t.kind.as_str().to_owned(), t.claim_id));
            ids.push(*id.ok_or_else(|| {
                crate::Error::Corrupt(format!(
                    "the {} task of claim {} was inserted without an id",
                    t.kind.as_str(),
                    t.claim_id
                ))
            })?);
        }
    }
    Ok(ids)
}

pub fn get(conn: &Read, id: i64) -> Result<Option<TaskRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM tasks WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// Every task of a kind as (task id, claim id), in one read.
/// Every task of `kind` as (task id, claim id, overlap).
pub fn overlaps(conn: &Read, kind: TaskKind) -> Result<Vec<(i64, i64, u32)>> {
    let mut stmt =
        conn.prepare_cached("SELECT id, claim_id, overlap FROM tasks WHERE kind = ?1")?;
    let rows = stmt.query_map([kind.as_str()], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?.max(0) as u32))
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

pub fn claims_of_tasks(conn: &Read, kind: TaskKind) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare_cached("SELECT id, claim_id FROM tasks WHERE kind = ?1")?;
    let rows = stmt.query_map([kind.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Holds a task for the rest of a [`crate::Store::decision`], waiting for a decision that
/// holds it now: what is read of its room afterwards stays true until the commit. A
/// no-op on a file, whose write transaction holds the whole project.
pub fn lock(conn: &Read, id: i64) -> Result<()> {
    lock_and_read_closed(conn, id).map(drop)
}

/// [`lock`], and whether the task is closed ([`is_closed`]) as it stays until the commit,
/// in the same round trip on PostgreSQL.
pub fn lock_and_read_closed(conn: &Read, id: i64) -> Result<bool> {
    if conn.engine() != Engine::Postgres {
        return is_closed(conn, id);
    }
    Ok(conn
        .prepare_cached("SELECT closed_at IS NOT NULL FROM tasks WHERE id = ?1 FOR NO KEY UPDATE")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// What [`hold_if_room`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Held by this decision, with room for the annotator.
    Room,
    /// Held by this decision, without room.
    Full,
    /// Held by another decision now: passed by, not waited for.
    Busy,
}

/// Holds a task for the rest of a decision and says whether it has room for one more
/// answer from `annotator_id` (as [`has_room`]); `Busy` at once when another decision
/// holds it now, so a taker moves on to the next item instead of queueing. On a file the
/// transaction holds the whole project and the caller chose the task by its room in
/// the same transaction: `Room`.
pub fn hold_if_room(conn: &Read, id: i64, annotator_id: i64, now: i64) -> Result<Hold> {
    if conn.engine() != Engine::Postgres {
        return Ok(Hold::Room);
    }
    let held = conn
        .prepare_cached("SELECT 1 FROM tasks WHERE id = ?1 FOR NO KEY UPDATE SKIP LOCKED")?
        .query_row([id], |_| Ok(()))
        .optional()?
        .is_some();
    if !held {
        return Ok(Hold::Busy);
    }
    // A statement of its own: under READ COMMITTED it sees every decision on the task
    // committed before the hold was granted.
    Ok(if has_room(conn, id, annotator_id, now)? {
        Hold::Room
    } else {
        Hold::Full
    })
}

/// Changes a task's count of counted answers by `delta` (+1, -1 or 0).
pub fn adjust_answered(conn: &crate::Tx<'_>, id: i64, delta: i64) -> Result<()> {
    if delta != 0 {
        conn.prepare_cached("UPDATE tasks SET answered = answered + ?2 WHERE id = ?1")?
            .execute(params![id, delta])?;
    }
    Ok(())
}

/// Recounts the counted answers of every task `annotator_id` answered, after whether
/// their answers count has changed.
pub fn recount_for(conn: &crate::Tx<'_>, annotator_id: i64) -> Result<()> {
    if conn.engine() == Engine::Postgres {
        // Hold the tasks first, so the recount below reads every answer committed on
        // them; in id order, so two recounts meet in the same order (a deadlock with a
        // task the decision already holds is PostgreSQL's to break and the caller's to
        // retry).
        let mut stmt = conn.prepare_cached(
            "SELECT id FROM tasks WHERE id IN (SELECT task_id FROM annotations WHERE annotator_id = ?1)
             ORDER BY id FOR NO KEY UPDATE",
        )?;
        stmt.query([annotator_id])?;
    }
    conn.prepare_cached(
        "UPDATE tasks SET answered = (
             SELECT count(*) FROM annotations a JOIN annotators p ON p.id = a.annotator_id
             WHERE a.task_id = tasks.id AND a.trick_failed = 0 AND p.counted = 1
               AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id))
         WHERE id IN (SELECT task_id FROM annotations WHERE annotator_id = ?1)",
    )?
    .execute([annotator_id])?;
    Ok(())
}

/// How many tasks of a kind there are (read from the queue index alone).
pub fn count(conn: &Read, kind: TaskKind) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM tasks WHERE kind = ?1")?
        .query_row([kind.as_str()], |r| r.get::<_, i64>(0))? as u64)
}

/// (tasks, answers wanted, answers given) of a kind; closed tasks want nothing more.
pub fn totals(conn: &Read, kind: TaskKind) -> Result<(u64, u64, u64)> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(sum(overlap), 0), coalesce(sum(CASE WHEN answered < overlap THEN answered ELSE overlap END), 0) FROM tasks WHERE kind = ?1 AND closed_at IS NULL",
        [kind.as_str()],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64)),
    )?)
}

/// Why a claim gets no task of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ineligible {
    /// No document is linked to it, so there is nothing to select or label against.
    NoDocuments,
    /// It has documents but no candidate sentences (none ranked, or all dropped).
    NoCandidates,
    /// A refutation imported or written with its parent: its evidence is the parent's.
    EvidenceFromParent,
    /// A written refutation waiting for the lead's review.
    PendingReview,
    /// A written refutation the lead rejected.
    Rejected,
    /// A written refutation its writer replaced.
    Superseded,
}

/// Claims eligible for a kind of task, with their text. `evidence`: claims with
/// candidates; `label`: claims with documents; both leave out refutations (whose evidence
/// is their parent's) unless `include_children`. `verify`: imported refutations and
/// written ones that are accepted or need no review. `refute`: original claims (the
/// caller keeps the short ones); `design`: original claims, pairs among them. None of an import still writing (`unfinished`): its
/// claims may not have their candidates yet.
pub fn eligible_claims(
    conn: &Read,
    kind: TaskKind,
    include_children: bool,
) -> Result<Vec<(i64, String)>> {
    let sql = match kind {
        // A written refutation gets work of its own only once it stands: accepted (or
        // needing no review), never pending, rejected or replaced by its writer (twelfth
        // hostile pass: each rewrite's row got label tasks nobody had reviewed).
        TaskKind::Evidence => "SELECT id, text FROM claims c WHERE (?1 <> 0 OR parent_id IS NULL) AND coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE) AND EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id) AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = c.import_id AND i.rows_added < 0) ORDER BY id",
        TaskKind::Verify => "SELECT id, text FROM claims c WHERE parent_id IS NOT NULL AND coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE) AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = c.import_id AND i.rows_added < 0) ORDER BY id",
        TaskKind::Label => "SELECT id, text FROM claims c WHERE (?1 <> 0 OR parent_id IS NULL) AND coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE) AND EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = c.import_id AND i.rows_added < 0) ORDER BY id",
        // A design asks about imported items: pairs, or claims for their words.
        TaskKind::Refute | TaskKind::Design => "SELECT id, text FROM claims c WHERE parent_id IS NULL AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.id = c.import_id AND i.rows_added < 0) ORDER BY id",
    };
    let mut stmt = conn.prepare(sql)?;
    let params = flag(&stmt, &include_children);
    let rows = stmt.query_map(&params[..], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The claims a kind of task is meant for that cannot get one, with (id, ext id, text) and
/// why; the counterpart of [`eligible_claims`]. `refute` has none here: its only reason,
/// length, is the caller's to judge.
pub fn ineligible_claims(
    conn: &Read,
    kind: TaskKind,
    include_children: bool,
) -> Result<Vec<(i64, String, String, Ineligible)>> {
    let sql = match kind {
        TaskKind::Evidence => {
            "SELECT id, ext_id, text, CASE
                WHEN parent_id IS NOT NULL AND ?1 = 0 THEN 'parent'
                WHEN NOT coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE) THEN refutation_state
                WHEN NOT EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) THEN 'no_documents'
                ELSE 'no_candidates' END
             FROM claims c WHERE (parent_id IS NOT NULL AND ?1 = 0)
                OR NOT coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE)
                OR NOT EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id)
             ORDER BY id"
        }
        TaskKind::Label => {
            "SELECT id, ext_id, text, CASE
                WHEN parent_id IS NOT NULL AND ?1 = 0 THEN 'parent'
                WHEN NOT coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE) THEN refutation_state
                ELSE 'no_documents' END
             FROM claims c WHERE (parent_id IS NOT NULL AND ?1 = 0)
                OR NOT coalesce(refutation_state IN ('accepted', 'no_review_needed'), TRUE)
                OR NOT EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id)
             ORDER BY id"
        }
        TaskKind::Verify => {
            "SELECT id, ext_id, text, refutation_state FROM claims
             WHERE parent_id IS NOT NULL AND refutation_state NOT IN ('accepted', 'no_review_needed')
             ORDER BY id"
        }
        TaskKind::Refute | TaskKind::Design => return Ok(Vec::new()),
    };
    let mut stmt = conn.prepare(sql)?;
    let params = flag(&stmt, &include_children);
    let rows = stmt.query_map(&params[..], |r| {
        let reason: String = r.get(3)?;
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, reason))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, ext_id, text, reason) = row?;
        let reason = match reason.as_str() {
            "parent" => Ineligible::EvidenceFromParent,
            "no_documents" => Ineligible::NoDocuments,
            "no_candidates" => Ineligible::NoCandidates,
            "pending_review" => Ineligible::PendingReview,
            "rejected" => Ineligible::Rejected,
            _ => Ineligible::Superseded,
        };
        out.push((id, ext_id, text, reason));
    }
    Ok(out)
}

/// The flag as the statement's one parameter, when it has one.
fn flag<'a>(
    stmt: &crate::db::Statement<'_>,
    include_children: &'a bool,
) -> Vec<&'a dyn rusqlite::ToSql> {
    if stmt.parameter_count() == 0 {
        Vec::new()
    } else {
        vec![include_children]
    }
}

/// Closes a claim's open task of a kind (its refutation was rejected or replaced): it is
/// never served again, and live reservations on it are released.
pub fn close(conn: &crate::Tx<'_>, kind: TaskKind, claim_id: i64, now: i64) -> Result<()> {
    conn.prepare_cached(
        "UPDATE assignments SET state = 'released' WHERE state = 'reserved'
           AND task_id IN (SELECT id FROM tasks WHERE kind = ?1 AND claim_id = ?2 AND closed_at IS NULL)",
    )?
    .execute(params![kind.as_str(), claim_id])?;
    conn.prepare_cached(
        "UPDATE tasks SET closed_at = ?3 WHERE kind = ?1 AND claim_id = ?2 AND closed_at IS NULL",
    )?
    .execute(params![kind.as_str(), claim_id, now])?;
    Ok(())
}

/// Opens a claim's closed task of a kind again; true when there was one.
pub fn reopen(conn: &crate::Tx<'_>, kind: TaskKind, claim_id: i64) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE tasks SET closed_at = NULL WHERE kind = ?1 AND claim_id = ?2 AND closed_at IS NOT NULL",
        )?
        .execute(params![kind.as_str(), claim_id])?;
    Ok(n > 0)
}

/// Whether a task is closed.
pub fn is_closed(conn: &Read, id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT closed_at IS NOT NULL FROM tasks WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// The ids of closed tasks.
pub fn closed(conn: &Read) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached("SELECT id FROM tasks WHERE closed_at IS NOT NULL")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Original claims, which refutation writing is for: (id, ext id, text).
pub fn refute_candidates(conn: &Read) -> Result<Vec<(i64, String, String)>> {
    let mut stmt =
        conn.prepare("SELECT id, ext_id, text FROM claims WHERE parent_id IS NULL ORDER BY id")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The claims that have a task of `kind`, open or not.
pub fn claims_with(conn: &Read, kind: TaskKind) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached("SELECT claim_id FROM tasks WHERE kind = ?1")?;
    let rows = stmt.query_map([kind.as_str()], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// A claim's tasks, each with whether it is closed, by kind and id.
pub fn of_claim(conn: &Read, claim_id: i64) -> Result<Vec<(TaskRow, bool)>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, closed_at IS NOT NULL FROM tasks WHERE claim_id = ?1 ORDER BY kind, id"
    ))?;
    let rows = stmt.query_map([claim_id], |r| Ok((from_row(r)?, r.get(6)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Fails on the first task whose kind this build does not know. Readers that fetch tasks
/// one kind at a time never see such a row, so they call this first rather than skip it.
pub fn check_kinds(conn: &Read) -> Result<()> {
    let mut stmt = conn.prepare_cached("SELECT id, kind FROM tasks ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        crate::typed::task_kind(&r, 1, r.get(0)?)?;
    }
    Ok(())
}
