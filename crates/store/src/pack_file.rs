//! Packs of work as the lead's project records them: the `packs` table, the opaque task
//! ids each pack uses, and which of a pack's answers a merge already took in. The pack
//! file itself is `pack_store`. A merge holds no claim on its pack between its
//! transactions (each answer and its record are written together, and a merge looks again
//! inside each), so `packs.merging_since` (migration 0010, a claim that a killed merge
//! left behind) is no longer read or written.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;
use serde::Serialize;

/// A pack as the lead's project records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackRow {
    pub id: String,
    pub annotator_id: i64,
    pub annotator: String,
    pub kind: Option<TaskKind>,
    pub items: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub returned_at: Option<i64>,
    pub merged: i64,
}

const PACK_COLUMNS: &str = "p.id, p.annotator_id, a.name, p.kind, p.items, p.created_at, p.expires_at, p.returned_at, p.merged";

fn pack_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<PackRow> {
    let id: String = r.get(0)?;
    let kind = match r.get_ref(3)? {
        rusqlite::types::ValueRef::Null => None,
        _ => Some(crate::typed::kind_of(r, 3, || format!("pack {id}"))?),
    };
    Ok(PackRow {
        id,
        annotator_id: r.get(1)?,
        annotator: r.get(2)?,
        kind,
        items: r.get(4)?,
        created_at: r.get(5)?,
        expires_at: r.get(6)?,
        returned_at: r.get(7)?,
        merged: r.get(8)?,
    })
}

/// Records a pack issued to an annotator.
pub fn insert(conn: &crate::Tx<'_>, p: &PackRow) -> Result<()> {
    conn.execute(
        "INSERT INTO packs (id, annotator_id, kind, items, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![p.id, p.annotator_id, p.kind.map(TaskKind::as_str), p.items, p.created_at, p.expires_at],
    )?;
    Ok(())
}

pub fn get(conn: &Read, id: &str) -> Result<Option<PackRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {PACK_COLUMNS} FROM packs p JOIN annotators a ON a.id = p.annotator_id WHERE p.id = ?1"),
            [id],
            pack_from_row,
        )
        .optional()?)
}

/// Every pack, newest first.
pub fn list(conn: &Read) -> Result<Vec<PackRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {PACK_COLUMNS} FROM packs p JOIN annotators a ON a.id = p.annotator_id ORDER BY p.created_at DESC, p.id"
    ))?;
    let rows = stmt.query_map([], pack_from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Records a return: when (the first merge's time stands).
pub fn mark_returned(conn: &crate::Tx<'_>, id: &str, now: i64) -> Result<()> {
    conn.execute(
        "UPDATE packs SET returned_at = coalesce(returned_at, ?2) WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}

/// Counts `added` more answers merged from the pack, in the transaction that wrote them.
pub fn count_merged(conn: &crate::Tx<'_>, id: &str, added: i64) -> Result<()> {
    conn.execute(
        "UPDATE packs SET merged = merged + ?2 WHERE id = ?1",
        params![id, added],
    )?;
    Ok(())
}

/// Gives the pack's unanswered items back to the pool.
pub fn release(conn: &crate::Tx<'_>, id: &str) -> Result<u64> {
    Ok(conn.execute(
        "UPDATE assignments SET state = 'released' WHERE pack_id = ?1 AND state = 'reserved'",
        [id],
    )? as u64)
}

/// Gives back to the pool one item of the pack, reported as a problem by its holder, as
/// `assignments::release` does for a report made in the project; false when the pack
/// no longer holds it (answered, or given back by an earlier merge).
pub fn release_task(conn: &crate::Tx<'_>, id: &str, task_id: i64, now: i64) -> Result<bool> {
    Ok(conn.execute(
        "UPDATE assignments SET state = 'released', reserved_at = ?3, expires_at = NULL
         WHERE pack_id = ?1 AND task_id = ?2 AND state = 'reserved'",
        params![id, task_id, now],
    )? > 0)
}

/// Tasks of `kind` (or any kind but refutation writing) this annotator can take for a
/// pack: short of answers counting live reservations, not answered or held by them, not
/// closed, not the verification of a refutation they wrote, and not in a re-annotation
/// study (whose room belongs to its group, served in the project).
pub fn open_tasks(
    conn: &Read,
    annotator_id: i64,
    kind: Option<TaskKind>,
    now: i64,
    limit: u64,
) -> Result<Vec<crate::tasks::TaskRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered FROM tasks t
         WHERE t.answered < t.overlap AND t.closed_at IS NULL AND t.kind != 'refute' AND t.kind != 'design' AND (?2 IS NULL OR t.kind = ?2)
           {}
           AND NOT EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
                           WHERE c.id = t.claim_id AND w.annotator_id = ?1)
           AND NOT EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
           AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.task_id = t.id AND a.annotator_id = ?1
                           AND (a.state = 'answered' OR (a.state = 'reserved' AND (a.expires_at IS NULL OR a.expires_at > ?3))))
           AND t.answered + (SELECT count(*) FROM assignments a WHERE a.task_id = t.id AND a.annotator_id != ?1
                 AND a.state = 'reserved' AND (a.expires_at IS NULL OR a.expires_at > ?3)) < t.overlap
         ORDER BY t.kind, t.shuffle_key, t.id LIMIT ?4",
        crate::tasks::GIVEN_ACROSS_KINDS_OF_FIRST
    ))?;
    let rows = stmt.query_map(
        params![annotator_id, kind.map(TaskKind::as_str), now, limit as i64],
        crate::tasks::from_row,
    )?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Records the id a pack gives one of its tasks.
pub fn insert_task(
    conn: &crate::Tx<'_>,
    pack_id: &str,
    pack_task_id: i64,
    task_id: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO pack_tasks (pack_id, pack_task_id, task_id) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![pack_id, pack_task_id, task_id])?;
    Ok(())
}

/// The project's task behind a pack's task id, if the pack has it.
pub fn task_of(conn: &Read, pack_id: &str, pack_task_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT task_id FROM pack_tasks WHERE pack_id = ?1 AND pack_task_id = ?2")?
        .query_row(params![pack_id, pack_task_id], |r| r.get(0))
        .optional()?)
}

/// Whether a merge already took in the pack's answer `uuid`.
pub fn answer_merged(conn: &Read, pack_id: &str, uuid: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT count(*) > 0 FROM pack_answers WHERE pack_id = ?1 AND uuid = ?2")?
        .query_row(params![pack_id, uuid], |r| r.get(0))?)
}

/// Records that the pack's answer `uuid` became the project's answer `annotation_uuid`.
pub fn record_merged(
    conn: &crate::Tx<'_>,
    pack_id: &str,
    uuid: &str,
    annotation_uuid: &str,
    now: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO pack_answers (pack_id, uuid, annotation_uuid, merged_at) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![pack_id, uuid, annotation_uuid, now])?;
    Ok(())
}

/// Marks where one answer of a merge starts, inside the merge's transaction, so that an
/// answer refused halfway can be undone while the merge goes on ([`undo_answer`]).
pub fn begin_answer(conn: &Read) -> Result<()> {
    conn.execute_batch("SAVEPOINT pack_answer")?;
    Ok(())
}

/// Keeps what the answer begun by [`begin_answer`] wrote.
pub fn keep_answer(conn: &Read) -> Result<()> {
    conn.execute_batch("RELEASE pack_answer")?;
    Ok(())
}

/// Undoes what the answer begun by [`begin_answer`] wrote.
pub fn undo_answer(conn: &Read) -> Result<()> {
    conn.execute_batch("ROLLBACK TO pack_answer; RELEASE pack_answer")?;
    Ok(())
}
