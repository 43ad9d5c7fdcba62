//! The `reviews` table: the lead's accept or reject of a written refutation.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::answer::Response;
use factdesk_core::task::TaskKind;

pub fn insert(
    conn: &crate::Tx<'_>,
    annotation_id: i64,
    lead_id: i64,
    accepted: bool,
    note: Option<&str>,
    at: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO reviews (annotation_id, lead_id, accepted, note, at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (annotation_id) DO UPDATE SET lead_id = ?2, accepted = ?3, note = ?4, at = ?5",
        params![annotation_id, lead_id, accepted, note, at],
    )?;
    Ok(())
}

/// Whether answer `annotation_id` is a written refutation (an answer to a refute task).
pub fn is_refutation(conn: &Read, annotation_id: i64) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE a.id = ?1 AND t.kind = 'refute')",
        [annotation_id],
        |r| r.get(0),
    )?)
}

/// A writer's refutations so far: (written, accepted, rejected), over current answers.
pub fn writer_counts(conn: &Read, annotator_id: i64) -> Result<(u64, u64, u64)> {
    Ok(conn.query_row(
        "SELECT count(*), coalesce(sum(CASE WHEN r.accepted = 1 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN r.accepted = 0 THEN 1 ELSE 0 END), 0)
         FROM annotations a JOIN tasks t ON t.id = a.task_id LEFT JOIN reviews r ON r.annotation_id = a.id
         WHERE a.annotator_id = ?1 AND t.kind = 'refute'
           AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)",
        [annotator_id],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64)),
    )?)
}

/// A written refutation waiting for review, with its original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub annotation_id: i64,
    pub annotator: String,
    /// The original claim's row id (its number) and text.
    pub original_id: i64,
    pub original: String,
    /// The written claim's row id (its number) and text.
    pub written_id: i64,
    pub written: String,
}

/// Written refutations waiting for review, oldest first. Those of qualified writers need
/// none and are not listed.
pub fn pending(conn: &Read) -> Result<Vec<Pending>> {
    let mut stmt = conn.prepare(
        "SELECT a.id, n.name, c.text, a.answer, a.uuid, w.text, c.id, w.id
         FROM annotations a JOIN tasks t ON t.id = a.task_id JOIN claims c ON c.id = t.claim_id
         JOIN annotators n ON n.id = a.annotator_id
         JOIN claims w ON w.written_in = a.id
         WHERE t.kind = 'refute' AND w.refutation_state = 'pending_review'
         ORDER BY a.id",
    )?;
    let rows = stmt.query_map([], |r| {
        let id: i64 = r.get(0)?;
        Ok(Pending {
            annotation_id: id,
            annotator: r.get(1)?,
            original_id: r.get(6)?,
            original: r.get(2)?,
            written_id: r.get(7)?,
            written: written(r, 3, 4, 5, id)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The written claim of refutation `annotation_id` as its claims row keeps it, once its
/// stored answer is known to read and to say the same; none when no claim was written.
pub fn written_text(conn: &Read, annotation_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT a.answer, a.uuid, w.text FROM annotations a
             JOIN tasks t ON t.id = a.task_id AND t.kind = 'refute'
             JOIN claims w ON w.written_in = a.id
             WHERE a.id = ?1",
            [annotation_id],
            |r| written(r, 0, 1, 2, annotation_id),
        )
        .optional()?)
}

/// The claims row's text (the one the desk works on: it is created in the same
/// transaction as the answer), after checking the answer in `answer` reads and agrees.
fn written(
    r: &crate::db::Row<'_>,
    answer: usize,
    uuid: usize,
    claim_text: usize,
    id: i64,
) -> crate::db::Result<String> {
    let uuid: String = r.get(uuid)?;
    let row = || format!("annotation {id} ({uuid})");
    let text: String = r.get(claim_text)?;
    match crate::typed::response(r, answer, TaskKind::Refute, false, row)? {
        Response::Refute { text: said } if said == text => Ok(text),
        _ => Err(crate::typed::carried(
            claim_text,
            crate::Error::BadValue {
                row: row(),
                reason: "the written claim and the stored answer say different things".into(),
            },
        )),
    }
}

/// How many of a writer's refutations the lead accepted, replaced ones included: a writer
/// who rewrites an accepted refutation stays qualified.
pub fn accepted_count(conn: &Read, annotator_id: i64) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM reviews r JOIN annotations a ON a.id = r.annotation_id
         WHERE a.annotator_id = ?1 AND r.accepted = 1",
        [annotator_id],
        |r| r.get::<_, i64>(0),
    )? as u64)
}
