//! The `assignments` table: which annotator holds which task, until when.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;

/// Live reservations on a task by annotators other than `annotator_id`.
pub fn live_others(conn: &Read, task_id: i64, annotator_id: i64, now: i64) -> Result<u32> {
    Ok(conn
        .prepare_cached(
            "SELECT count(*) FROM assignments WHERE task_id = ?1 AND annotator_id != ?2 AND state = 'reserved'
               AND (expires_at IS NULL OR expires_at > ?3)",
        )?
        .query_row(params![task_id, annotator_id, now], |r| r.get(0))?)
}

/// This annotator's assignment state on a task, if any.
pub fn state(conn: &Read, task_id: i64, annotator_id: i64) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT state FROM assignments WHERE task_id = ?1 AND annotator_id = ?2")?
        .query_row(params![task_id, annotator_id], |r| r.get(0))
        .optional()?)
}

/// Whether a task was given to this annotator: they hold or held it (served, skipped,
/// carried in a pack: an assignment row, which nothing deletes) or they answered it. As
/// `serving::answer_text` reads it.
pub fn given(conn: &Read, task_id: i64, annotator_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM assignments WHERE task_id = ?1 AND annotator_id = ?2)
                 OR EXISTS (SELECT 1 FROM annotations WHERE task_id = ?1 AND annotator_id = ?2)",
        )?
        .query_row(params![task_id, annotator_id], |r| r.get(0))?)
}

/// Whether this annotator's reservation of a task is live at `now` (held, not lapsed,
/// not released, not answered).
pub fn holds_live(conn: &Read, task_id: i64, annotator_id: i64, now: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT count(*) > 0 FROM assignments WHERE task_id = ?1 AND annotator_id = ?2
               AND state = 'reserved' AND (expires_at IS NULL OR expires_at > ?3)",
        )?
        .query_row(params![task_id, annotator_id, now], |r| r.get(0))?)
}

/// Reserves a task for an annotator until `expires_at` (`None`: until answered), renewing
/// an earlier reservation that lapsed. A live reservation held for a pack is left as it
/// is: the pack's items stay the pack's until it is merged or expires.
pub fn reserve(
    conn: &crate::Tx<'_>,
    task_id: i64,
    annotator_id: i64,
    now: i64,
    expires_at: Option<i64>,
    pack_id: Option<&str>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO assignments (task_id, annotator_id, reserved_at, expires_at, pack_id, state)
         VALUES (?1, ?2, ?3, ?4, ?5, 'reserved')
         ON CONFLICT (task_id, annotator_id) DO UPDATE SET reserved_at = ?3, expires_at = ?4, pack_id = ?5, state = 'reserved'
         WHERE assignments.state != 'answered'
           AND (assignments.pack_id IS NULL OR assignments.pack_id IS NOT DISTINCT FROM ?5
                OR assignments.state != 'reserved'
                OR (assignments.expires_at IS NOT NULL AND assignments.expires_at <= ?3))",
    )?
    .execute(params![task_id, annotator_id, now, expires_at, pack_id])?;
    Ok(())
}

/// Marks a task answered by an annotator (creating the assignment if it had none).
pub fn mark_answered(
    conn: &crate::Tx<'_>,
    task_id: i64,
    annotator_id: i64,
    now: i64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO assignments (task_id, annotator_id, reserved_at, state) VALUES (?1, ?2, ?3, 'answered')
         ON CONFLICT (task_id, annotator_id) DO UPDATE SET state = 'answered'",
    )?
    .execute(params![task_id, annotator_id, now])?;
    Ok(())
}

/// Releases this annotator's live reservation of a task in the project (a skip): the task
/// goes back to the pool, and the row keeps the time of the skip so that skipped items
/// come back oldest first. True when there was a reservation to release; a pack's hold
/// and an answered task are left as they are.
pub fn release(conn: &crate::Tx<'_>, task_id: i64, annotator_id: i64, now: i64) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "UPDATE assignments SET state = 'released', reserved_at = ?3, expires_at = NULL
             WHERE task_id = ?1 AND annotator_id = ?2 AND state = 'reserved' AND pack_id IS NULL",
        )?
        .execute(params![task_id, annotator_id, now])?;
    Ok(n > 0)
}

/// A task of one kind that can still be answered by someone it was shown to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outstanding {
    pub name: String,
    /// The pack it went out in; `None`: served in the project.
    pub pack_id: Option<String>,
    /// Whether that pack was returned (merging it again can still answer its items).
    pub returned: bool,
    pub tasks: u64,
}

/// Tasks of `kind` shown to someone who has not answered them and can still send an
/// answer at `now`, by person and pack: held in the project, live or lapsed (a screen
/// left open still sends its answer; a skip ends it); in a pack not returned and not
/// expired (an expired one is refused at merge); or given back unanswered by a pack's
/// merge (merging that pack again still takes answers on them).
pub fn outstanding_of_kind(
    conn: &Read,
    kind: factdesk_core::task::TaskKind,
    now: i64,
) -> Result<Vec<Outstanding>> {
    let mut stmt = conn.prepare_cached(
        "SELECT a.name, s.pack_id, p.returned_at IS NOT NULL, count(*) FROM assignments s
         JOIN tasks t ON t.id = s.task_id JOIN annotators a ON a.id = s.annotator_id
         LEFT JOIN packs p ON p.id = s.pack_id
         WHERE t.kind = ?1
           AND ((s.pack_id IS NULL AND s.state = 'reserved')
             OR (s.pack_id IS NOT NULL AND s.state != 'answered'
                 AND (p.returned_at IS NOT NULL OR p.expires_at > ?2)))
         GROUP BY a.name, s.pack_id, p.returned_at IS NOT NULL ORDER BY a.name, s.pack_id",
    )?;
    let rows = stmt.query_map(params![kind.as_str(), now], |r| {
        Ok(Outstanding {
            name: r.get(0)?,
            pack_id: r.get(1)?,
            returned: r.get(2)?,
            tasks: r.get::<_, i64>(3)? as u64,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Gives back every item a person holds in the project, live or lapsed (a lead disabled
/// them: they can no longer answer or skip, and their items would otherwise wait on
/// them and hold a change of the evidence stance back), as a skip does: the tasks go
/// back to the pool. A pack's hold and answered tasks are left as they are. How many
/// were given back.
pub fn release_all_of(conn: &crate::Tx<'_>, annotator_id: i64, now: i64) -> Result<usize> {
    Ok(conn
        .prepare_cached(
            "UPDATE assignments SET state = 'released', reserved_at = ?2, expires_at = NULL
             WHERE annotator_id = ?1 AND state = 'reserved' AND pack_id IS NULL",
        )?
        .execute(params![annotator_id, now])?)
}
