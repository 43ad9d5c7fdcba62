//! The `sentence_embeddings` table: the semantic ranker's vectors, cached per text and
//! model so re-ranking and new claims on the same documents embed nothing twice.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;

/// The cache key of a text: the first 16 bytes of its BLAKE3 hash.
pub type TextKey = [u8; 16];

/// The key of `text` in the cache.
pub fn text_key(text: &str) -> TextKey {
    let mut key = [0u8; 16];
    key.copy_from_slice(&blake3::hash(text.as_bytes()).as_bytes()[..16]);
    key
}

fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored vector, or `None` when its bytes are not whole f32s (a damaged row is then
/// embedded again rather than trusted).
fn from_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// The cached vector of one text under `model`.
pub fn get(conn: &Read, model: &str, key: &TextKey) -> Result<Option<Vec<f32>>> {
    let bytes: Option<Vec<u8>> = conn
        .prepare_cached(
            "SELECT vector FROM sentence_embeddings WHERE text_hash = ?1 AND model = ?2",
        )?
        .query_row(params![&key[..], model], |r| r.get(0))
        .optional()?;
    Ok(bytes.as_deref().and_then(from_bytes))
}

/// Stores vectors, keeping any already there (the same text and model give the same one).
pub fn put(conn: &crate::Tx<'_>, model: &str, vectors: &[(TextKey, &[f32])]) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO sentence_embeddings (text_hash, model, vector) VALUES (?1, ?2, ?3)",
    )?;
    for (key, vector) in vectors {
        stmt.execute(params![&key[..], model, to_bytes(vector)])?;
    }
    Ok(())
}

/// How many vectors are cached for `model`.
pub fn count(conn: &Read, model: &str) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sentence_embeddings WHERE model = ?1",
        [model],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    #[test]
    fn vectors_round_trip_per_model_and_damaged_rows_read_as_missing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let key = text_key("Masks work.");
        assert_ne!(key, text_key("Masks work"));
        let v = [0.25f32, -1.5, 3.0e-8];
        let tx = store.transaction().unwrap_or_else(|e| panic!("{e}"));
        put(&tx, "m1", &[(key, &v)]).unwrap_or_else(|e| panic!("{e}"));
        put(&tx, "m1", &[(key, &[9.0])]).unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        let conn = store.read();
        assert_eq!(get(conn, "m1", &key).ok().flatten(), Some(v.to_vec()));
        assert_eq!(get(conn, "m2", &key).ok().flatten(), None);
        assert_eq!(count(conn, "m1").ok(), Some(1));
        let other = text_key("x");
        let bad = conn.execute(
            "INSERT INTO sentence_embeddings (text_hash, model, vector) VALUES (?1, 'm1', x'010203')",
            [&other[..]],
        );
        assert!(
            bad.is_err(),
            "the schema refuses a vector of partial floats"
        );
    }
}
