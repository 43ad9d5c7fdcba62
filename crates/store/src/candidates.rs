//! The `candidates` table: the ranked evidence sentences shown for each claim.

use crate::db::params_from_iter;
use crate::db::CopyRow;
use crate::Read;
use crate::{params, Result};
use factdesk_core::ranking::Ranker;
use serde::Serialize;
use std::collections::HashMap;

/// One ranked sentence to store.
#[derive(Debug, Clone)]
pub struct NewCandidate<'a> {
    pub rank: u32,
    pub sentence_id: i64,
    pub ranker: &'a str,
    pub score: f64,
    /// The score each ranker gave the sentence (`None`: it did not rank it).
    pub scores: RankerScores,
    /// The rankers that put the sentence in their own top k, one bit each in
    /// [`Ranker::PLACING`]'s order.
    pub placed_by: u8,
}

/// Each ranker's score of one sentence.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankerScores {
    pub bm25: Option<f64>,
    pub levenshtein: Option<f64>,
    pub jaccard: Option<f64>,
    pub fused: Option<f64>,
    pub semantic: Option<f64>,
}

impl RankerScores {
    /// As a JSON object with the rankers that scored the sentence.
    fn to_json(self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (name, score) in [
            ("bm25", self.bm25),
            ("levenshtein", self.levenshtein),
            ("jaccard", self.jaccard),
            ("fused", self.fused),
            ("semantic", self.semantic),
        ] {
            if let Some(score) = score {
                map.insert(name.to_string(), serde_json::json!(score));
            }
        }
        serde_json::Value::Object(map)
    }
}

/// A stored candidate with its sentence.
#[derive(Debug, Clone, Serialize)]
pub struct CandidateRow {
    pub rank: u32,
    pub sentence_id: i64,
    pub document_id: i64,
    pub document_ext_id: String,
    pub sentence_index: i64,
    pub text: String,
    pub ranker: String,
    pub score: f64,
    pub scores: serde_json::Value,
    /// The rankers that put the sentence in their own top k (empty for rows ranked
    /// before this was recorded).
    pub placed_by: Vec<String>,
}

/// Claims that have documents to rank, optionally only those without candidates yet.
pub fn claims_to_rank(conn: &Read, only_unranked: bool) -> Result<Vec<(i64, String)>> {
    let sql = if only_unranked {
        "SELECT id, text FROM claims c WHERE EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id)
           AND NOT EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id) ORDER BY id"
    } else {
        "SELECT id, text FROM claims c WHERE EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) ORDER BY id"
    };
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The claims whose candidates someone has been shown: a task of the claim, or of one of
/// its refutations (whose items show the parent's evidence), was served, packed, answered
/// or decided. Their candidates are facts about what a person saw, which a later ranking
/// must not replace.
pub fn seen_claims(conn: &Read) -> Result<std::collections::HashSet<i64>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT c.id, c.parent_id FROM tasks t JOIN claims c ON c.id = t.claim_id
         WHERE t.id IN (SELECT task_id FROM assignments UNION SELECT task_id FROM annotations
                        UNION SELECT task_id FROM decisions)",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
    })?;
    let mut seen = std::collections::HashSet::new();
    for row in rows {
        let (claim, parent) = row?;
        seen.insert(claim);
        seen.extend(parent);
    }
    Ok(seen)
}

/// Which of `claim_ids` someone has seen, as [`seen_claims`] counts it (a task of the
/// claim or of one of its refutations served, packed, answered or decided), read inside
/// the caller's transaction so a claim served a moment ago counts.
pub fn seen_among(conn: &Read, claim_ids: &[i64]) -> Result<std::collections::HashSet<i64>> {
    let mut seen = std::collections::HashSet::new();
    if claim_ids.is_empty() {
        return Ok(seen);
    }
    let list = serde_json::to_string(claim_ids)?;
    let ids_in = crate::evidence::id_list(conn);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT DISTINCT c.id, c.parent_id FROM claims c JOIN tasks t ON t.claim_id = c.id
         WHERE (c.id IN ({ids_in}) OR c.parent_id IN ({ids_in}))
           AND (EXISTS (SELECT 1 FROM assignments a WHERE a.task_id = t.id)
             OR EXISTS (SELECT 1 FROM annotations n WHERE n.task_id = t.id)
             OR EXISTS (SELECT 1 FROM decisions d WHERE d.task_id = t.id))"
    ))?;
    let rows = stmt.query_map([&list], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
    })?;
    let wanted: std::collections::HashSet<i64> = claim_ids.iter().copied().collect();
    for row in rows {
        let (claim, parent) = row?;
        seen.extend(
            std::iter::once(claim)
                .chain(parent)
                .filter(|c| wanted.contains(c)),
        );
    }
    Ok(seen)
}

/// The documents a claim's evidence may come from.
pub fn claim_document_ids(conn: &Read, claim_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT document_id FROM claim_documents WHERE claim_id = ?1 ORDER BY document_id",
    )?;
    let rows = stmt.query_map([claim_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Every (claim id, document id) link, sorted by claim, then document.
pub fn claim_document_links(conn: &Read) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare(
        "SELECT claim_id, document_id FROM claim_documents ORDER BY claim_id, document_id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// (sentence id, text) of every sentence of the given documents, in document order.
pub fn document_sentences(conn: &Read, document_ids: &[i64]) -> Result<Vec<(i64, String)>> {
    if document_ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; document_ids.len()].join(",");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, text FROM sentences WHERE document_id IN ({marks}) ORDER BY document_id, idx"
    ))?;
    let rows = stmt.query_map(params_from_iter(document_ids), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The sentences (id, text) of each of these documents, in document order, in one read:
/// ranking many claims reads their documents a batch at a time, not one query each.
/// Documents without sentences, or unknown, are left out; a repeated id reads once.
pub fn sentences_of_documents(
    conn: &Read,
    document_ids: &[i64],
) -> Result<HashMap<i64, Vec<(i64, String)>>> {
    let mut by_document: HashMap<i64, Vec<(i64, i64, String)>> = HashMap::new();
    if document_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let ids = serde_json::to_string(document_ids)?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT s.document_id, s.idx, s.id, s.text FROM (SELECT DISTINCT value FROM ({}) AS ids) AS j
         JOIN sentences AS s ON s.document_id = j.value",
        crate::evidence::id_list(conn)
    ))?;
    let mut rows = stmt.query([ids])?;
    while let Some(r) = rows.next()? {
        by_document
            .entry(r.get(0)?)
            .or_default()
            .push((r.get(1)?, r.get(2)?, r.get(3)?));
    }
    Ok(by_document
        .into_iter()
        .map(|(document, mut sentences)| {
            sentences.sort_unstable_by_key(|&(idx, _, _)| idx);
            let sentences = sentences
                .into_iter()
                .map(|(_, id, text)| (id, text))
                .collect();
            (document, sentences)
        })
        .collect())
}

/// A candidate row's columns, in the order [`values`] gives them: one list for the COPY
/// and the INSERT paths.
macro_rules! columns {
    () => {
        "claim_id, rank, sentence_id, ranker, score, bm25, levenshtein, jaccard, fused, semantic, placed"
    };
}

fn values<'a>(claim_id: &'a i64, c: &'a NewCandidate<'_>) -> [&'a dyn rusqlite::ToSql; 11] {
    [
        claim_id,
        &c.rank,
        &c.sentence_id,
        &c.ranker,
        &c.score,
        &c.scores.bm25,
        &c.scores.levenshtein,
        &c.scores.jaccard,
        &c.scores.fused,
        &c.scores.semantic,
        &c.placed_by,
    ]
}

/// Replaces a claim's candidates.
pub fn replace(conn: &crate::Tx<'_>, claim_id: i64, candidates: &[NewCandidate<'_>]) -> Result<()> {
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        if pg.replacing_pending("candidates", claim_id) {
            pg.flush_copies()?;
        }
        let row = CopyRow {
            table: "candidates",
            columns: columns!(),
            ignore_conflicts: false,
        };
        for c in candidates {
            pg.stage_replacing(row, Some(("claim_id", claim_id)), &values(&claim_id, c))?;
        }
        if candidates.is_empty() {
            // Nothing to stage, but the claim's old candidates must still go.
            conn.prepare_cached("DELETE FROM candidates WHERE claim_id = ?1")?
                .execute([claim_id])?;
        }
        return Ok(());
    }
    conn.prepare_cached("DELETE FROM candidates WHERE claim_id = ?1")?
        .execute([claim_id])?;
    let mut stmt = conn.prepare_cached(concat!(
        "INSERT INTO candidates (",
        columns!(),
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    ))?;
    for c in candidates {
        stmt.execute(&values(&claim_id, c)[..])?;
    }
    Ok(())
}

/// Claims whose rows past their new last rank one DELETE removes in [`replace_many`].
const DELETE_CHUNK: usize = 4096;

/// Replaces the candidates of many claims, each listed once: the same rows as
/// [`replace`] for each in turn. Each new row is written over the claim's old row of the
/// same rank, if any (an update in place costs SQLite about a quarter less than deleting
/// the old row and inserting the new one), then the old rows past each claim's new last
/// rank are deleted, one statement per chunk of claims with as many new rows. On
/// PostgreSQL while rows go out with COPY, each claim is staged as [`replace`] stages it.
pub fn replace_many(conn: &crate::Tx<'_>, claims: &[(i64, Vec<NewCandidate<'_>>)]) -> Result<()> {
    if conn.copying().is_some() {
        for (claim_id, rows) in claims {
            replace(conn, *claim_id, rows)?;
        }
        return Ok(());
    }
    let (fresh, ranked_before) = split_fresh(conn, claims)?;
    insert_fresh(conn, &fresh)?;
    let mut stmt = conn.prepare_cached(concat!(
        "INSERT INTO candidates (",
        columns!(),
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (claim_id, rank) DO UPDATE SET sentence_id = excluded.sentence_id,
           ranker = excluded.ranker, score = excluded.score, scores = excluded.scores,
           bm25 = excluded.bm25, levenshtein = excluded.levenshtein, jaccard = excluded.jaccard,
           fused = excluded.fused, semantic = excluded.semantic, placed = excluded.placed"
    ))?;
    let mut by_count: std::collections::BTreeMap<usize, Vec<i64>> = Default::default();
    for (claim_id, rows) in ranked_before {
        for c in rows {
            stmt.execute(&values(claim_id, c)[..])?;
        }
        by_count.entry(rows.len()).or_default().push(*claim_id);
    }
    let delete = format!(
        "DELETE FROM candidates WHERE claim_id IN ({}) AND rank > ?2",
        crate::evidence::id_list(conn)
    );
    for (count, ids) in by_count {
        for chunk in ids.chunks(DELETE_CHUNK) {
            conn.prepare_cached(&delete)?
                .execute(params![serde_json::to_string(chunk)?, count as i64])?;
        }
    }
    Ok(())
}

/// Rows one INSERT writes for claims without candidates: fewer statements to run, each
/// with 11 × 32 parameters (far below either engine's limit).
const ROWS_PER_INSERT: usize = 32;

type ClaimRows<'c, 'a> = &'c (i64, Vec<NewCandidate<'a>>);

/// The claims that have no candidates yet (as every claim an import just wrote), and the
/// others. One range read finds the others: none for new claims, their own rows otherwise.
fn split_fresh<'c, 'a>(
    conn: &Read,
    claims: &'c [(i64, Vec<NewCandidate<'a>>)],
) -> Result<(Vec<ClaimRows<'c, 'a>>, Vec<ClaimRows<'c, 'a>>)> {
    let (Some(low), Some(high)) = (
        claims.iter().map(|(id, _)| *id).min(),
        claims.iter().map(|(id, _)| *id).max(),
    ) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT claim_id FROM candidates WHERE claim_id BETWEEN ?1 AND ?2",
    )?;
    let mut rows = stmt.query(params![low, high])?;
    let mut with_rows = std::collections::HashSet::new();
    while let Some(row) = rows.next()? {
        with_rows.insert(row.get::<_, i64>(0)?);
    }
    Ok(claims
        .iter()
        .partition(|(claim_id, _)| !with_rows.contains(claim_id)))
}

/// Inserts the rows of claims without candidates, [`ROWS_PER_INSERT`] to a statement.
fn insert_fresh(conn: &Read, claims: &[ClaimRows<'_, '_>]) -> Result<()> {
    let rows: Vec<(&i64, &NewCandidate<'_>)> = claims
        .iter()
        .flat_map(|(claim_id, rows)| rows.iter().map(move |c| (claim_id, c)))
        .collect();
    let mut chunks = rows.chunks_exact(ROWS_PER_INSERT);
    if chunks.len() > 0 {
        let mut stmt = conn.prepare_cached(&insert_rows_sql(ROWS_PER_INSERT))?;
        let mut values_of_chunk: Vec<&dyn rusqlite::ToSql> =
            Vec::with_capacity(11 * ROWS_PER_INSERT);
        for chunk in chunks.by_ref() {
            values_of_chunk.clear();
            for (claim_id, c) in chunk {
                values_of_chunk.extend(values(claim_id, c));
            }
            stmt.execute(&values_of_chunk[..])?;
        }
    }
    let mut one = conn.prepare_cached(&insert_rows_sql(1))?;
    for (claim_id, c) in chunks.remainder() {
        one.execute(&values(claim_id, c)[..])?;
    }
    Ok(())
}

/// `INSERT INTO candidates` of `rows` rows, parameters numbered from 1.
fn insert_rows_sql(rows: usize) -> String {
    let tuples: Vec<String> = (0..rows)
        .map(|r| {
            let numbers: Vec<String> = (1..=11).map(|i| format!("?{}", r * 11 + i)).collect();
            format!("({})", numbers.join(", "))
        })
        .collect();
    format!(
        "INSERT INTO candidates ({}) VALUES {}",
        columns!(),
        tuples.join(", ")
    )
}

/// How many candidates a claim shows.
pub fn count(conn: &Read, claim_id: i64) -> Result<u64> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM candidates WHERE claim_id = ?1",
        [claim_id],
        |r| r.get(0),
    )?;
    Ok(n.max(0) as u64)
}

/// A claim's candidates, best first.
pub fn of_claim(conn: &Read, claim_id: i64) -> Result<Vec<CandidateRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT k.rank, k.sentence_id, s.document_id, d.ext_id, s.idx, s.text, k.ranker, k.score, k.scores,
                k.bm25, k.levenshtein, k.jaccard, k.fused, k.semantic, k.placed
         FROM candidates k JOIN sentences s ON s.id = k.sentence_id JOIN documents d ON d.id = s.document_id
         WHERE k.claim_id = ?1 ORDER BY k.rank",
    )?;
    let rows = stmt.query_map([claim_id], |r| {
        let columns = RankerScores {
            bm25: r.get(9)?,
            levenshtein: r.get(10)?,
            jaccard: r.get(11)?,
            fused: r.get(12)?,
            semantic: r.get(13)?,
        };
        let placed: Option<u8> = r.get(14)?;
        // Rows written before the score columns keep their scores as JSON.
        let scores = if columns == RankerScores::default() {
            let json: String = r.get(8)?;
            serde_json::from_str(&json).unwrap_or(serde_json::Value::Null)
        } else {
            columns.to_json()
        };
        Ok(CandidateRow {
            rank: r.get(0)?,
            sentence_id: r.get(1)?,
            document_id: r.get(2)?,
            document_ext_id: r.get(3)?,
            sentence_index: r.get(4)?,
            text: r.get(5)?,
            ranker: r.get(6)?,
            score: r.get(7)?,
            scores,
            placed_by: Ranker::placed(placed.unwrap_or(0))
                .map(|r| r.as_str().to_string())
                .collect(),
        })
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

#[cfg(test)]
#[path = "candidates_tests.rs"]
mod tests;
