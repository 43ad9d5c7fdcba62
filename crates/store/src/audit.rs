//! Reads that check serving held its invariants, for benches and operators: no task with
//! more counted answers than its overlap, no person with two current answers to a task,
//! and whether given acknowledged answers are stored.

use crate::Read;
use crate::Result;

/// Tasks with more annotators whose answer did not pick the trick than the task's
/// overlap.
pub fn tasks_over_overlap(conn: &Read) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM (
             SELECT t.id FROM tasks t JOIN annotations a ON a.task_id = t.id
             WHERE a.trick_failed = 0
             GROUP BY t.id, t.overlap
             HAVING COUNT(DISTINCT a.annotator_id) > t.overlap) AS over",
        [],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

/// (task, person) pairs with more than one current answer. Within a pair every answer
/// but the current one is superseded by the next, so the current ones are the rows
/// minus those that supersede.
pub fn double_answers(conn: &Read) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM (
             SELECT task_id, annotator_id FROM annotations
             GROUP BY task_id, annotator_id
             HAVING COUNT(*) - COUNT(supersedes) > 1) AS doubled",
        [],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

/// Answers that replaced an earlier one of the same person (a correction, or a retried
/// submit whose first ack was lost).
pub fn superseding_answers(conn: &Read) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM annotations WHERE supersedes IS NOT NULL",
        [],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

/// Of `uuids`, those no stored answer has.
pub fn missing_answers(conn: &Read, uuids: &[String]) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT count(*) FROM annotations WHERE uuid = ?1")?;
    let mut missing = Vec::new();
    for uuid in uuids {
        let found: i64 = stmt.query_row([uuid], |r| r.get(0))?;
        if found == 0 {
            missing.push(uuid.clone());
        }
    }
    Ok(missing)
}
