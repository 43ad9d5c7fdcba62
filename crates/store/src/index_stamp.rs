//! What a search index holds, stamped in its metadata when it commits, and the same
//! figures read from the project: the index is current when the two agree, and only
//! behind when the project merely gained rows since.

use crate::params;
use crate::Result;
use serde::{Deserialize, Serialize};
use tantivy::Index;

/// What an index holds, compared with the project to tell whether it is current.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub(crate) struct Coverage {
    pub claims: i64,
    pub claims_max: i64,
    pub claims_last: Option<String>,
    pub sentences: i64,
    pub sentences_max: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    pub layout: u32,
    pub project_id: String,
    pub coverage: Coverage,
}

pub(crate) fn read_stamp(index: &Index) -> Option<Stamp> {
    let metas = index.load_metas().ok()?;
    serde_json::from_str(metas.payload.as_deref()?).ok()
}

/// Counts and highest ids of claims and sentences, and the hash of the claim with the
/// highest id; with `after`, only rows newer than it.
pub(crate) fn coverage(conn: &crate::Read, after: Option<Coverage>) -> Result<Coverage> {
    let after = after.unwrap_or_default();
    let q = |table: &str, min: i64| -> Result<(i64, i64)> {
        Ok(conn.query_row(
            &format!("SELECT count(*), coalesce(max(id), 0) FROM {table} WHERE id > ?1"),
            params![min],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    };
    let (claims, claims_max) = q("claims", after.claims_max)?;
    let (sentences, sentences_max) = q("sentences", after.sentences_max)?;
    Ok(Coverage {
        claims,
        claims_max,
        claims_last: last_claim_hash(conn, claims_max)?,
        sentences,
        sentences_max,
    })
}

/// The content hash of claim `id`, so that rows rolled back and replaced under the same
/// ids are not mistaken for what the index holds.
pub(crate) fn last_claim_hash(conn: &crate::Read, id: i64) -> Result<Option<String>> {
    use crate::db::OptionalExtension;
    Ok(conn
        .query_row("SELECT hash FROM claims WHERE id = ?1", [id], |r| r.get(0))
        .optional()?)
}
