//! The `task_samples` and `task_sample_items` tables: a stratified sample made the task
//! set of its kind (`factdesk sample --keep-only`), the kind's other tasks closed.

use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;

/// A sample as drawn, before it is kept.
#[derive(Debug, Clone)]
pub struct NewTaskSample<'a> {
    pub kind: TaskKind,
    /// How it was grouped: "jaccard-bins:10", "label", "field:topic".
    pub strata: &'a str,
    pub seed: u64,
    pub per_stratum: u32,
    pub created_at: i64,
    /// Each drawn task with its stratum.
    pub items: &'a [(i64, String)],
}

/// A kept sample, as the dataset card prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSampleRow {
    pub kind: TaskKind,
    pub strata: String,
    pub seed: u64,
    pub per_stratum: u32,
    /// Each stratum with its number of tasks, by name.
    pub strata_counts: Vec<(String, u64)>,
}

/// Tasks of `kind` outside `drawn` that someone was given or answered: a sample becomes
/// the task set before work on the others begins, so nothing given is taken back.
pub fn given_outside(conn: &Read, kind: TaskKind, drawn: &[i64]) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT t.id FROM tasks t JOIN assignments a ON a.task_id = t.id
         WHERE t.kind = ?1 AND t.claim_id NOT IN (SELECT claim_id FROM control_answers)
         ORDER BY t.id",
    )?;
    let rows = stmt.query_map(params![kind.as_str()], |r| r.get::<_, i64>(0))?;
    let given: Vec<i64> = rows.collect::<crate::db::Result<_>>()?;
    Ok(given.into_iter().filter(|t| !drawn.contains(t)).collect())
}

/// Keeps the sample: records it and closes every open task of its kind outside it but
/// the control items, which stay to check the annotators. Returns how many were closed.
pub fn keep(conn: &crate::Tx<'_>, s: &NewTaskSample<'_>) -> Result<u64> {
    conn.execute(
        "INSERT INTO task_samples (kind, strata, seed, per_stratum, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![s.kind.as_str(), s.strata, s.seed as i64, s.per_stratum, s.created_at],
    )?;
    let id = conn.last_insert_rowid()?;
    for (task, stratum) in s.items {
        conn.prepare_cached(
            "INSERT INTO task_sample_items (sample_id, task_id, stratum) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![id, task, stratum])?;
    }
    let closed = conn
        .prepare_cached(
            "UPDATE tasks SET closed_at = ?3 WHERE kind = ?1 AND closed_at IS NULL
               AND id NOT IN (SELECT task_id FROM task_sample_items WHERE sample_id = ?2)
               AND claim_id NOT IN (SELECT claim_id FROM control_answers)",
        )?
        .execute(params![s.kind.as_str(), id, s.created_at])?;
    Ok(closed as u64)
}

/// The latest sample kept for `kind`, if any.
pub fn latest(conn: &Read, kind: TaskKind) -> Result<Option<TaskSampleRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, strata, seed, per_stratum FROM task_samples WHERE kind = ?1 ORDER BY id DESC LIMIT 1",
    )?;
    let mut rows = stmt.query_map(params![kind.as_str()], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let Some(row) = rows.next() else {
        return Ok(None);
    };
    let (id, strata, seed, per) = row?;
    let mut counts = conn.prepare_cached(
        "SELECT stratum, count(*) FROM task_sample_items WHERE sample_id = ?1
         GROUP BY stratum ORDER BY stratum",
    )?;
    let strata_counts = counts
        .query_map(params![id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<crate::db::Result<_>>()?;
    Ok(Some(TaskSampleRow {
        kind,
        strata,
        seed: seed as u64,
        per_stratum: per as u32,
        strata_counts,
    }))
}
