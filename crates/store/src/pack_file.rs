//! Packs of work: the lead's `packs` table, and the rows written into a pack file (a
//! project file holding one annotator's issued work) and read back from it on merge.

use crate::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// A pack as the lead's project records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackRow {
    pub id: String,
    pub annotator_id: i64,
    pub annotator: String,
    pub kind: Option<String>,
    pub items: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub returned_at: Option<i64>,
    pub merged: i64,
}

const PACK_COLUMNS: &str = "p.id, p.annotator_id, a.name, p.kind, p.items, p.created_at, p.expires_at, p.returned_at, p.merged";

fn pack_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<PackRow> {
    Ok(PackRow {
        id: r.get(0)?,
        annotator_id: r.get(1)?,
        annotator: r.get(2)?,
        kind: r.get(3)?,
        items: r.get(4)?,
        created_at: r.get(5)?,
        expires_at: r.get(6)?,
        returned_at: r.get(7)?,
        merged: r.get(8)?,
    })
}

/// Records a pack issued to an annotator.
pub fn insert(conn: &Connection, p: &PackRow) -> Result<()> {
    conn.execute(
        "INSERT INTO packs (id, annotator_id, kind, items, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![p.id, p.annotator_id, p.kind, p.items, p.created_at, p.expires_at],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, id: &str) -> Result<Option<PackRow>> {
    Ok(conn
        .query_row(
            &format!("SELECT {PACK_COLUMNS} FROM packs p JOIN annotators a ON a.id = p.annotator_id WHERE p.id = ?1"),
            [id],
            pack_from_row,
        )
        .optional()?)
}

/// Every pack, newest first.
pub fn list(conn: &Connection) -> Result<Vec<PackRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {PACK_COLUMNS} FROM packs p JOIN annotators a ON a.id = p.annotator_id ORDER BY p.created_at DESC, p.id"
    ))?;
    let rows = stmt.query_map([], pack_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records a return: when, and how many answers it added.
pub fn mark_returned(conn: &Connection, id: &str, now: i64, added: i64) -> Result<()> {
    conn.execute(
        "UPDATE packs SET returned_at = coalesce(returned_at, ?2), merged = merged + ?3 WHERE id = ?1",
        params![id, now, added],
    )?;
    Ok(())
}

/// Gives the pack's unanswered items back to the pool.
pub fn release(conn: &Connection, id: &str) -> Result<u64> {
    Ok(conn.execute(
        "UPDATE assignments SET state = 'released' WHERE pack_id = ?1 AND state = 'reserved'",
        [id],
    )? as u64)
}

/// Tasks of `kind` (or any kind but refutation writing) this annotator can take for a
/// pack: short of answers counting live reservations, not answered or held by them.
pub fn open_tasks(
    conn: &Connection,
    annotator_id: i64,
    kind: Option<&str>,
    now: i64,
    limit: u64,
) -> Result<Vec<crate::tasks::TaskRow>> {
    let mut stmt = conn.prepare(
        "SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered FROM tasks t
         WHERE t.answered < t.overlap AND t.kind != 'refute' AND (?2 IS NULL OR t.kind = ?2)
           AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.task_id = t.id AND a.annotator_id = ?1
                           AND (a.state = 'answered' OR (a.state = 'reserved' AND (a.expires_at IS NULL OR a.expires_at > ?3))))
           AND t.answered + (SELECT count(*) FROM assignments a WHERE a.task_id = t.id AND a.annotator_id != ?1
                 AND a.state = 'reserved' AND (a.expires_at IS NULL OR a.expires_at > ?3)) < t.overlap
         ORDER BY t.kind, t.shuffle_key, t.id LIMIT ?4",
    )?;
    let rows = stmt.query_map(params![annotator_id, kind, now, limit as i64], |r| {
        Ok(crate::tasks::TaskRow {
            id: r.get(0)?,
            kind: r.get(1)?,
            claim_id: r.get(2)?,
            overlap: r.get(3)?,
            trick_slot: r.get(4)?,
            answered: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Sentences of a document in order: (id, idx, start_char, end_char, text).
pub type SentenceParts = (i64, i64, i64, i64, String);

pub fn sentences_of(conn: &Connection, document_id: i64) -> Result<Vec<SentenceParts>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, idx, start_char, end_char, text FROM sentences WHERE document_id = ?1 ORDER BY idx",
    )?;
    let rows = stmt.query_map([document_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Rows written into a pack file, with the ids the pack uses.
pub mod write {
    use super::*;

    /// Creates the manifest table (present only in pack files) and stores the manifest.
    pub fn manifest(conn: &Connection, manifest: &str, signature: &str) -> Result<()> {
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS pack_manifest (manifest TEXT NOT NULL, signature TEXT NOT NULL)",
        )?;
        conn.execute(
            "INSERT INTO pack_manifest (manifest, signature) VALUES (?1, ?2)",
            params![manifest, signature],
        )?;
        Ok(())
    }

    /// The project row takes the lead's id and settings; the secret stays the pack's own
    /// random value.
    pub fn project(conn: &Connection, id: &str, name: &str, settings: &str) -> Result<()> {
        conn.execute(
            "UPDATE project SET id = ?1, name = ?2, settings = ?3",
            params![id, name, settings],
        )?;
        Ok(())
    }

    pub fn annotator(conn: &Connection, id: i64, name: &str, now: i64) -> Result<()> {
        conn.execute(
            "INSERT INTO annotators (id, name, role, created_at) VALUES (?1, ?2, 'annotator', ?3)",
            params![id, name, now],
        )?;
        Ok(())
    }

    pub fn document(
        conn: &Connection,
        id: i64,
        d: &crate::DocumentRow,
        text: &str,
        hash: &str,
    ) -> Result<()> {
        conn.execute(
            "INSERT INTO documents (id, ext_id, url, title, text, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, d.ext_id, d.url, d.title, text, hash],
        )?;
        Ok(())
    }

    pub fn sentence(conn: &Connection, document_id: i64, s: &SentenceParts) -> Result<()> {
        conn.prepare_cached(
            "INSERT INTO sentences (id, document_id, idx, start_char, end_char, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![s.0, document_id, s.1, s.2, s.3, s.4])?;
        Ok(())
    }

    /// A claim without its imported label or metadata: those may hold the answer.
    pub fn claim(
        conn: &Connection,
        c: &crate::ClaimRow,
        parent_id: Option<i64>,
        hash: &str,
        now: i64,
    ) -> Result<()> {
        conn.execute(
            "INSERT OR IGNORE INTO claims (id, ext_id, text, context, source_url, parent_id, origin, hash, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'imported', ?7, ?8)",
            params![c.id, c.ext_id, c.text, c.context, c.source_url, parent_id, hash, now],
        )?;
        Ok(())
    }

    pub fn claim_document(conn: &Connection, claim_id: i64, document_id: i64) -> Result<()> {
        conn.execute(
            "INSERT OR IGNORE INTO claim_documents (claim_id, document_id) VALUES (?1, ?2)",
            params![claim_id, document_id],
        )?;
        Ok(())
    }

    /// A candidate without its scores: every option, the trick among them, looks alike.
    pub fn candidate(
        conn: &Connection,
        claim_id: i64,
        rank: i64,
        sentence_id: i64,
        ranker: &str,
    ) -> Result<()> {
        conn.prepare_cached(
            "INSERT INTO candidates (claim_id, rank, sentence_id, ranker, score, scores) VALUES (?1, ?2, ?3, ?4, 0, '{}')",
        )?
        .execute(params![claim_id, rank, sentence_id, ranker])?;
        Ok(())
    }

    pub fn task(
        conn: &Connection,
        t: &crate::tasks::TaskRow,
        shuffle_key: i64,
        now: i64,
    ) -> Result<()> {
        conn.execute(
            "INSERT INTO tasks (id, kind, claim_id, overlap, trick_slot, created_at, shuffle_key, answered)
             VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, 0)",
            params![t.id, t.kind, t.claim_id, t.overlap, now, shuffle_key],
        )?;
        Ok(())
    }
}

/// What a pack file says about itself: the manifest and its signature, if it is a pack.
pub fn read_manifest(conn: &Connection) -> Result<Option<(String, String)>> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'pack_manifest'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT manifest, signature FROM pack_manifest LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The issued contents of a pack, one JSON line per row in a fixed order, for its digest.
/// Answers and the state that answering changes are left out.
pub fn issued_rows(conn: &Connection) -> Result<Vec<String>> {
    const QUERIES: &[&str] = &[
        "SELECT json_array('project', id, name, settings) FROM project",
        "SELECT json_array('annotator', id, name, role) FROM annotators ORDER BY id",
        "SELECT json_array('document', id, ext_id, url, title, text, hash) FROM documents ORDER BY id",
        "SELECT json_array('sentence', id, document_id, idx, start_char, end_char, text) FROM sentences ORDER BY id",
        "SELECT json_array('claim', id, ext_id, text, context, label, source_url, parent_id, metadata) FROM claims WHERE origin = 'imported' ORDER BY id",
        "SELECT json_array('claim_document', claim_id, document_id) FROM claim_documents ORDER BY claim_id, document_id",
        "SELECT json_array('candidate', claim_id, rank, sentence_id, ranker, score, scores) FROM candidates ORDER BY claim_id, rank",
        "SELECT json_array('task', id, kind, claim_id, overlap, trick_slot, shuffle_key) FROM tasks WHERE kind != 'verify' OR claim_id IN (SELECT id FROM claims WHERE origin = 'imported') ORDER BY id",
    ];
    let mut out = Vec::new();
    for q in QUERIES {
        let mut stmt = conn.prepare(q)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

/// Moves everything in the write-ahead log into the file itself, so a copy of the one
/// file holds every committed answer. False when another connection kept it from finishing.
pub fn checkpoint(conn: &Connection) -> Result<bool> {
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    Ok(busy == 0)
}
