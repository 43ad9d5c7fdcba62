//! Every answer ever given, with what a lead analysing the annotators needs beside it:
//! the task and its claim, who answered, what replaced it, whether it counted, the pack
//! it came in and, for a written refutation, what became of it.

use crate::db::Row;
use crate::Read;
use crate::Result;
use factdesk_core::answer::Answer;
use factdesk_core::claim::RefutationState;
use factdesk_core::task::TaskKind;

/// One answer as stored, with its surroundings.
#[derive(Debug, Clone, PartialEq)]
pub struct RawAnswer {
    pub id: i64,
    pub uuid: String,
    pub task_id: i64,
    pub kind: TaskKind,
    pub claim_id: String,
    pub claim: String,
    /// The claim a verified or refuted claim belongs to, for refutations.
    pub parent_claim_id: Option<String>,
    pub annotator: String,
    pub answer: Answer,
    pub trick_failed: bool,
    pub supersedes: Option<i64>,
    /// The answer that replaced this one, if any.
    pub superseded_by: Option<i64>,
    /// Whether the annotator's answers count (not flagged, or included by the lead).
    pub annotator_counted: bool,
    /// The pack the answer was merged from.
    pub pack: Option<String>,
    /// The state of the refutation a refute answer wrote.
    pub refutation_state: Option<RefutationState>,
    pub created_at: i64,
}

fn from_row(r: &Row<'_>) -> crate::db::Result<RawAnswer> {
    let id: i64 = r.get(0)?;
    let uuid: String = r.get(1)?;
    let task_id: i64 = r.get(2)?;
    let kind = crate::typed::task_kind(r, 3, task_id)?;
    let trick_failed: bool = r.get(8)?;
    let answer = crate::typed::answer(r, 7, kind, trick_failed, r.get(9)?, r.get(10)?, || {
        format!("annotation {id} ({uuid})")
    })?;
    let state: Option<String> = r.get(15)?;
    Ok(RawAnswer {
        id,
        uuid,
        task_id,
        kind,
        claim_id: r.get(4)?,
        claim: r.get(5)?,
        parent_claim_id: r.get(6)?,
        annotator: r.get(11)?,
        answer,
        trick_failed,
        supersedes: r.get(12)?,
        superseded_by: r.get(13)?,
        annotator_counted: r.get(14)?,
        pack: r.get(16)?,
        refutation_state: state.as_deref().and_then(RefutationState::from_db),
        created_at: r.get(17)?,
    })
}

/// Every answer, superseded and rejected ones included, oldest first.
pub fn all(conn: &Read) -> Result<Vec<RawAnswer>> {
    let mut stmt = conn.prepare(
        "SELECT a.id, a.uuid, a.task_id, t.kind, c.ext_id, c.text, pc.ext_id,
                a.answer, a.trick_failed, a.comment, a.duration_ms, p.name, a.supersedes,
                (SELECT b.id FROM annotations b WHERE b.supersedes = a.id),
                p.counted,
                (SELECT w.refutation_state FROM claims w WHERE w.written_in = a.id),
                pa.pack_id, a.created_at
         FROM annotations a
         JOIN tasks t ON t.id = a.task_id
         JOIN claims c ON c.id = t.claim_id
         LEFT JOIN claims pc ON pc.id = c.parent_id
         JOIN annotators p ON p.id = a.annotator_id
         LEFT JOIN (SELECT annotation_uuid, min(pack_id) AS pack_id FROM pack_answers
                    GROUP BY annotation_uuid) pa ON pa.annotation_uuid = a.uuid
         ORDER BY a.id",
    )?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
