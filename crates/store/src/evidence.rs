//! Sentences read in bulk for the gold export: one query for every evidence sentence,
//! instead of one per sentence.

use crate::Read;
use crate::{Result, SentenceRow};

/// A subquery of the ids in the JSON array bound to `?1`, one `value` column, in either
/// engine's words: long id lists travel as one parameter.
pub(crate) fn id_list(conn: &Read) -> &'static str {
    match conn.engine() {
        crate::Engine::Sqlite => "SELECT value FROM json_each(?1)",
        crate::Engine::Postgres => {
            "SELECT value::bigint AS value FROM jsonb_array_elements_text(CAST(?1 AS jsonb))"
        }
    }
}

/// The sentences with these ids; the ids travel as one JSON array parameter.
pub(crate) fn sentences(conn: &Read, ids: &[i64]) -> Result<Vec<SentenceRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ids)?;
    let ids_in = id_list(conn);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT s.id, s.document_id, d.ext_id, s.idx, s.start_char, s.end_char, s.text
         FROM sentences s JOIN documents d ON d.id = s.document_id
         WHERE s.id IN ({ids_in})"
    ))?;
    let rows = stmt.query_map([list], |r| {
        Ok(SentenceRow {
            id: r.get(0)?,
            document_id: r.get(1)?,
            document_ext_id: r.get(2)?,
            idx: r.get(3)?,
            start_char: r.get(4)?,
            end_char: r.get(5)?,
            text: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
