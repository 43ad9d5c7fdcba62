//! Row counts for the project overview and `factdesk stats`.

use crate::Read;
use crate::Result;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub claims: u64,
    /// Claims with no parent: the originals, as opposed to refutations.
    pub root_claims: u64,
    pub documents: u64,
    pub sentences: u64,
    pub candidates: u64,
    pub tasks: u64,
    pub annotations: u64,
    pub annotators: u64,
}

pub(crate) fn get(conn: &Read) -> Result<Counts> {
    let count =
        |sql: &str| -> Result<u64> { Ok(conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
    Ok(Counts {
        claims: count("SELECT count(*) FROM claims")?,
        root_claims: count("SELECT count(*) FROM claims WHERE parent_id IS NULL")?,
        documents: count("SELECT count(*) FROM documents")?,
        sentences: count("SELECT count(*) FROM sentences")?,
        candidates: count("SELECT count(*) FROM candidates")?,
        tasks: count("SELECT count(*) FROM tasks")?,
        annotations: count("SELECT count(*) FROM annotations")?,
        annotators: count("SELECT count(*) FROM annotators")?,
    })
}
