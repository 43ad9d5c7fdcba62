//! The `task_tricks` table: which real sentence an evidence task shows as its trick when
//! the project's guideline asks for sentences that support or refute.

use crate::db::{Connection, OptionalExtension};
use crate::params;
use crate::Result;

/// A sentence that may serve as another claim's trick: a candidate of some claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Donor {
    pub sentence_id: i64,
    pub document_id: i64,
    pub text: String,
}

/// Every candidate sentence of the project once, in id order: the sentences a trick is
/// drawn from, since a ranked sentence looks like the candidates it sits among.
pub fn donors(conn: &Connection) -> Result<Vec<Donor>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.document_id, s.text FROM sentences s
         WHERE s.id IN (SELECT sentence_id FROM candidates) ORDER BY s.id",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Donor {
            sentence_id: r.get(0)?,
            document_id: r.get(1)?,
            text: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The documents of a claim's family (the claim, its parent and its children): a trick
/// must come from none of them.
pub fn family_documents(conn: &Connection, claim_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT cd.document_id FROM claim_documents cd JOIN claims k ON k.id = cd.claim_id
         WHERE k.id = ?1 OR k.parent_id = ?1
            OR k.id = (SELECT parent_id FROM claims WHERE id = ?1)
         ORDER BY cd.document_id",
    )?;
    let rows = stmt.query_map([claim_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Records `sentence_id` as the trick of `task_id`, keeping an earlier choice.
pub fn set(conn: &Connection, task_id: i64, sentence_id: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR IGNORE INTO task_tricks (task_id, sentence_id) VALUES (?1, ?2)",
    )?
    .execute(params![task_id, sentence_id])?;
    Ok(())
}

/// The trick sentence of `task_id`: (sentence id, text), if one was found for it.
pub fn get(conn: &Connection, task_id: i64) -> Result<Option<(i64, String)>> {
    Ok(conn
        .prepare_cached(
            "SELECT s.id, s.text FROM task_tricks t JOIN sentences s ON s.id = t.sentence_id
             WHERE t.task_id = ?1",
        )?
        .query_row([task_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

/// The id of the `kind` task of `claim_id`, if there is one.
pub fn task_of(conn: &Connection, kind: &str, claim_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT id FROM tasks WHERE kind = ?1 AND claim_id = ?2")?
        .query_row(params![kind, claim_id], |r| r.get(0))
        .optional()?)
}

/// How many evidence tasks the project has.
pub fn evidence_tasks(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM tasks WHERE kind = 'evidence'",
        [],
        |r| r.get(0),
    )?)
}

/// How many evidence answers the project holds, superseded ones included.
pub fn evidence_answers(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE t.kind = 'evidence'",
        [],
        |r| r.get(0),
    )?)
}

/// The texts of every sentence of the given documents.
pub fn sentence_texts(conn: &Connection, document_ids: &[i64]) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT text FROM sentences WHERE document_id = ?1")?;
    let mut out = Vec::new();
    for id in document_ids {
        let rows = stmt.query_map([id], |r| r.get(0))?;
        for text in rows {
            out.push(text?);
        }
    }
    Ok(out)
}

/// The texts of a claim's ranked candidate sentences.
pub fn candidate_texts(conn: &Connection, claim_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.text FROM candidates k JOIN sentences s ON s.id = k.sentence_id WHERE k.claim_id = ?1",
    )?;
    let rows = stmt.query_map([claim_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
