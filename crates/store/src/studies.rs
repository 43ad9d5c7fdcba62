//! Re-annotation studies: a seeded sample of one kind's tasks answered again by a group of
//! annotators (the members). Each sampled task keeps the overlap it had before the study
//! (`base_overlap`); the study adds the group's size to it in the same transaction.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;

/// A study as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudyRow {
    pub id: i64,
    pub kind: TaskKind,
    pub sample_size: u32,
    pub seed: u64,
    pub created_at: i64,
    pub lead: String,
    /// Member names, sorted.
    pub members: Vec<String>,
    /// Sampled task ids, ascending.
    pub items: Vec<i64>,
    /// How the sample was grouped ("jaccard-bins:10"); `None` for a uniform draw.
    pub strata: Option<String>,
    /// Each sampled item's stratum, beside `items`.
    pub item_strata: Vec<Option<String>>,
}

/// A study to create.
#[derive(Debug, Clone, Copy)]
pub struct NewStudy<'a> {
    pub kind: TaskKind,
    pub sample_size: u32,
    pub seed: u64,
    pub created_at: i64,
    pub lead_id: i64,
    pub strata: Option<&'a str>,
}

/// A task that a study could sample, with what a stratum is read from.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRow {
    pub task_id: i64,
    /// The claim's id as imported.
    pub ext_id: String,
    pub claim: String,
    /// A pair's second text, else the claim's best-ranked candidate sentence, if it has
    /// candidates: what word overlap is measured against.
    pub top_candidate: Option<String>,
    pub label: Option<String>,
    /// The claim's imported metadata, a JSON object.
    pub metadata: String,
}

/// Tasks of `kind` in no study yet, by id, with their claim's text, best candidate,
/// label and metadata; never a design's control items, which check annotators and are
/// no sample of the data.
pub fn sample_rows(conn: &Read, kind: TaskKind) -> Result<Vec<SampleRow>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, c.text, c.label, c.metadata,
                coalesce((SELECT p.text_b FROM pair_texts p WHERE p.claim_id = c.id),
                    (SELECT s.text FROM candidates k JOIN sentences s ON s.id = k.sentence_id
                     WHERE k.claim_id = c.id ORDER BY k.rank LIMIT 1)), c.ext_id
         FROM tasks t JOIN claims c ON c.id = t.claim_id
         WHERE t.kind = ?1 AND NOT EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
           AND NOT EXISTS (SELECT 1 FROM control_answers x WHERE x.claim_id = c.id)
         ORDER BY t.id",
    )?;
    let rows = stmt.query_map([kind.as_str()], |r| {
        Ok(SampleRow {
            task_id: r.get(0)?,
            claim: r.get(1)?,
            label: r.get(2)?,
            metadata: r.get(3)?,
            top_candidate: r.get(4)?,
            ext_id: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Where a task stands in its study, seen by one annotator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRoom {
    pub base_overlap: u32,
    /// Members of the study (its group's size).
    pub group_size: u32,
    pub is_member: bool,
    /// Current answers that did not pick the trick, by members and by everyone else.
    pub member_answers: u32,
    pub other_answers: u32,
    /// Live reservations of non-members other than this annotator.
    pub other_reservations: u32,
    /// Whether this annotator has a current answer on the task.
    pub answered: bool,
}

/// Tasks of `kind` in no study yet, with their overlap, by id.
pub fn free_tasks(conn: &Read, kind: TaskKind) -> Result<Vec<(i64, u32)>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, t.overlap FROM tasks t
         WHERE t.kind = ?1 AND NOT EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
         ORDER BY t.id",
    )?;
    let rows = stmt.query_map([kind.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Tasks of `kind` that `annotator_id` has already met: answered, been served (held,
/// lapsed or skipped), carried in a pack, or (verification) whose refutation they wrote.
/// A study member's answer on one of these would be no second group's: an answer given
/// before the draw is a first-round answer, one given after it was still formed in the
/// first round's view of the item, and nobody verifies a refutation they wrote.
pub fn met_by(conn: &Read, annotator_id: i64, kind: TaskKind) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id FROM tasks t
         WHERE t.kind = ?2
           AND (EXISTS (SELECT 1 FROM annotations a WHERE a.task_id = t.id AND a.annotator_id = ?1)
             OR EXISTS (SELECT 1 FROM assignments s WHERE s.task_id = t.id AND s.annotator_id = ?1)
             OR EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
                        WHERE c.id = t.claim_id AND w.annotator_id = ?1))
         ORDER BY t.id",
    )?;
    let rows = stmt.query_map(params![annotator_id, kind.as_str()], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// What deleting a study undid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deleted {
    /// Sampled tasks given back their overlap.
    pub items: u64,
    /// Current answers of its members on its items, which are ordinary answers from now.
    pub member_answers: u64,
}

/// Deletes a study: each sampled task gets back the overlap it had before the draw, or
/// its counted answers when more (so no task holds more counted answers than its
/// overlap); the members' answers on those tasks stay, as ordinary answers. `None` when
/// there is no such study.
pub fn delete(conn: &crate::Tx<'_>, study_id: i64) -> Result<Option<Deleted>> {
    let exists: bool = conn
        .prepare_cached("SELECT count(*) > 0 FROM studies WHERE id = ?1")?
        .query_row([study_id], |r| r.get(0))?;
    if !exists {
        return Ok(None);
    }
    let member_answers: u64 = conn
        .prepare_cached(
            "SELECT count(*) FROM annotations a
             JOIN study_items i ON i.task_id = a.task_id AND i.study_id = ?1
             JOIN study_members m ON m.study_id = ?1 AND m.annotator_id = a.annotator_id
             WHERE NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)",
        )?
        .query_row([study_id], |r| r.get::<_, i64>(0))? as u64;
    conn.prepare_cached(
        "UPDATE tasks SET overlap = (
             SELECT CASE WHEN tasks.answered > i.base_overlap THEN tasks.answered ELSE i.base_overlap END
             FROM study_items i WHERE i.task_id = tasks.id)
         WHERE id IN (SELECT task_id FROM study_items WHERE study_id = ?1)",
    )?
    .execute([study_id])?;
    let items = conn
        .prepare_cached("DELETE FROM study_items WHERE study_id = ?1")?
        .execute([study_id])? as u64;
    conn.prepare_cached("DELETE FROM study_members WHERE study_id = ?1")?
        .execute([study_id])?;
    conn.prepare_cached("DELETE FROM studies WHERE id = ?1")?
        .execute([study_id])?;
    Ok(Some(Deleted {
        items,
        member_answers,
    }))
}

/// Creates the study row; returns its id.
pub fn insert(conn: &crate::Tx<'_>, s: &NewStudy<'_>) -> Result<i64> {
    conn.execute(
        "INSERT INTO studies (kind, sample_size, seed, created_at, lead_id, strata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![s.kind.as_str(), s.sample_size, s.seed as i64, s.created_at, s.lead_id, s.strata],
    )?;
    Ok(conn.last_insert_rowid()?)
}

pub fn add_member(conn: &crate::Tx<'_>, study: i64, annotator_id: i64) -> Result<()> {
    conn.prepare_cached("INSERT INTO study_members (study_id, annotator_id) VALUES (?1, ?2)")?
        .execute(params![study, annotator_id])?;
    Ok(())
}

/// Puts a task in the study, in `stratum` if the sample was stratified, and raises its
/// overlap by `room`, keeping the old overlap.
pub fn add_item(
    conn: &crate::Tx<'_>,
    study: i64,
    task_id: i64,
    room: u32,
    stratum: Option<&str>,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO study_items (study_id, task_id, base_overlap, stratum)
         SELECT ?1, id, overlap, ?3 FROM tasks WHERE id = ?2",
    )?
    .execute(params![study, task_id, stratum])?;
    conn.prepare_cached("UPDATE tasks SET overlap = overlap + ?2 WHERE id = ?1")?
        .execute(params![task_id, room])?;
    Ok(())
}

/// Every study, oldest first, with its members and items.
pub fn list(conn: &Read) -> Result<Vec<StudyRow>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.kind, s.sample_size, s.seed, s.created_at, a.name, s.strata
         FROM studies s JOIN annotators a ON a.id = s.lead_id ORDER BY s.id",
    )?;
    let mut studies = stmt
        .query_map([], |r| {
            let id: i64 = r.get(0)?;
            Ok(StudyRow {
                id,
                kind: crate::typed::kind_of(r, 1, || format!("study {id}"))?,
                sample_size: r.get(2)?,
                seed: r.get::<_, i64>(3)? as u64,
                created_at: r.get(4)?,
                lead: r.get(5)?,
                members: Vec::new(),
                items: Vec::new(),
                strata: r.get(6)?,
                item_strata: Vec::new(),
            })
        })?
        .collect::<crate::db::Result<Vec<_>>>()?;
    let mut members = conn.prepare_cached(
        "SELECT a.name FROM study_members m JOIN annotators a ON a.id = m.annotator_id
         WHERE m.study_id = ?1 ORDER BY a.name",
    )?;
    let mut items = conn.prepare_cached(
        "SELECT task_id, stratum FROM study_items WHERE study_id = ?1 ORDER BY task_id",
    )?;
    for study in &mut studies {
        study.members = members
            .query_map([study.id], |r| r.get(0))?
            .collect::<crate::db::Result<_>>()?;
        let rows: Vec<(i64, Option<String>)> = items
            .query_map([study.id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<crate::db::Result<_>>()?;
        (study.items, study.item_strata) = rows.into_iter().unzip();
    }
    Ok(studies)
}

/// The study room of a task for one annotator at `now`; `None` when the task is in no
/// study.
pub fn item_room(
    conn: &Read,
    task_id: i64,
    annotator_id: i64,
    now: i64,
) -> Result<Option<ItemRoom>> {
    let Some((study, base_overlap)) = conn
        .prepare_cached("SELECT study_id, base_overlap FROM study_items WHERE task_id = ?1")?
        .query_row([task_id], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?)))
        .optional()?
    else {
        return Ok(None);
    };
    let (group_size, is_member): (u32, bool) = conn
        .prepare_cached(
            "SELECT count(*), coalesce(sum(CASE WHEN annotator_id = ?2 THEN 1 ELSE 0 END), 0) FROM study_members WHERE study_id = ?1",
        )?
        .query_row(params![study, annotator_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let (member_answers, other_answers, answered): (u32, u32, bool) = conn
        .prepare_cached(
            "SELECT coalesce(sum(CASE WHEN a.trick_failed = 0 AND m.annotator_id IS NOT NULL THEN 1 ELSE 0 END), 0),
                    coalesce(sum(CASE WHEN a.trick_failed = 0 AND m.annotator_id IS NULL THEN 1 ELSE 0 END), 0),
                    coalesce(sum(CASE WHEN a.annotator_id = ?3 THEN 1 ELSE 0 END), 0) > 0
             FROM annotations a
             LEFT JOIN study_members m ON m.study_id = ?2 AND m.annotator_id = a.annotator_id
             WHERE a.task_id = ?1
               AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)",
        )?
        .query_row(params![task_id, study, annotator_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    let other_reservations: u32 = conn
        .prepare_cached(
            "SELECT count(*) FROM assignments s
             WHERE s.task_id = ?1 AND s.annotator_id != ?3 AND s.state = 'reserved'
               AND (s.expires_at IS NULL OR s.expires_at > ?4)
               AND NOT EXISTS (SELECT 1 FROM study_members m WHERE m.study_id = ?2 AND m.annotator_id = s.annotator_id)",
        )?
        .query_row(params![task_id, study, annotator_id, now], |r| r.get(0))?;
    Ok(Some(ItemRoom {
        base_overlap,
        group_size,
        is_member,
        member_answers,
        other_answers,
        other_reservations,
        answered,
    }))
}

/// Sampled tasks of `kind` that this member has not answered yet, in study order and then
/// the kind's seeded serving order.
pub fn open_for_member(conn: &Read, annotator_id: i64, kind: TaskKind) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT i.task_id FROM study_members m
         JOIN studies s ON s.id = m.study_id
         JOIN study_items i ON i.study_id = s.id
         JOIN tasks t ON t.id = i.task_id
         WHERE m.annotator_id = ?1 AND s.kind = ?2
           AND NOT EXISTS (SELECT 1 FROM annotations a WHERE a.task_id = i.task_id AND a.annotator_id = ?1)
         ORDER BY s.id, t.shuffle_key, t.id",
    )?;
    let rows = stmt.query_map(params![annotator_id, kind.as_str()], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Every (task, annotator) of a study member on one of the study's sampled tasks: the
/// answers there are the study's, not the first group's.
pub fn member_items(conn: &Read) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT i.task_id, m.annotator_id FROM study_items i
         JOIN study_members m ON m.study_id = i.study_id
         ORDER BY i.task_id, m.annotator_id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Every task's overlap, with the overlap it had before a study added its group's room
/// (none when the task is in no study), by id.
pub fn overlaps(conn: &Read) -> Result<Vec<(i64, u32, Option<u32>)>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, t.overlap, i.base_overlap FROM tasks t
         LEFT JOIN study_items i ON i.task_id = t.id ORDER BY t.id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
