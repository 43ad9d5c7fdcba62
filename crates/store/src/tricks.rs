//! The `task_tricks` table: which real sentence an evidence task shows as its trick when
//! the project's guideline asks for sentences that support or refute.

use crate::db::{Connection, OptionalExtension};
use crate::params;
use crate::Result;
use factdesk_core::key_hash::KeyHasher;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

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
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let row = crate::db::CopyRow {
            table: "task_tricks",
            columns: "task_id, sentence_id",
            ignore_conflicts: true,
        };
        return Ok(pg.stage(row, params![task_id, sentence_id])?);
    }
    conn.prepare_cached(
        "INSERT OR IGNORE INTO task_tricks (task_id, sentence_id) VALUES (?1, ?2)",
    )?
    .execute(params![task_id, sentence_id])?;
    Ok(())
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

/// A sentence text's hash, as [`ClaimFacts::family_texts`] holds it: equal texts have
/// equal hashes (two texts that collide only rule out a trick that would have fitted).
pub fn text_hash(text: &str) -> u64 {
    let mut h = KeyHasher::default();
    h.write(text.as_bytes());
    h.finish()
}

/// The text in column `idx`, lent rather than copied.
fn text_at<'r>(r: &'r crate::db::Row<'_>, idx: usize) -> crate::db::Result<&'r str> {
    r.get_ref(idx)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
            .into()
    })
}

/// What creating a task of a kind needs to know of one claim.
#[derive(Debug, Clone, Default)]
pub struct ClaimFacts {
    /// The claim's task of the kind: (id, overlap, whether it has a trick).
    pub task: Option<(i64, u32, bool)>,
    /// Evidence only: how many candidates the claim shows.
    pub candidates: u64,
    /// Evidence only: the documents of the claim's family (see [`family_documents`]),
    /// ascending.
    pub family: Vec<i64>,
    /// Evidence only: the [`text_hash`] of every sentence of those documents.
    pub family_texts: HashSet<u64>,
    /// Evidence only: the length in characters of each candidate's text.
    pub candidate_lengths: Vec<usize>,
}

/// [`ClaimFacts`] of many claims in a few reads (the claims' own reads, one by one, cost
/// a round trip each on PostgreSQL). `evidence` asks for the evidence facts too.
pub fn facts(
    conn: &Connection,
    kind: &str,
    claim_ids: &[i64],
    evidence: bool,
) -> Result<HashMap<i64, ClaimFacts>> {
    let mut out: HashMap<i64, ClaimFacts> = claim_ids
        .iter()
        .map(|&id| (id, ClaimFacts::default()))
        .collect();
    if claim_ids.is_empty() {
        return Ok(out);
    }
    let list = |from: usize| {
        (from..from + claim_ids.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![&kind];
    values.extend(claim_ids.iter().map(|id| id as &dyn rusqlite::ToSql));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT t.claim_id, t.id, t.overlap, EXISTS (SELECT 1 FROM task_tricks x WHERE x.task_id = t.id)
         FROM tasks t WHERE t.kind = ?1 AND t.claim_id IN ({})",
        list(2)
    ))?;
    let rows = stmt.query_map(values.as_slice(), |r| {
        Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    })?;
    for row in rows {
        let (claim, id, overlap, trick) = row?;
        if let Some(f) = out.get_mut(&claim) {
            f.task = Some((id, overlap, trick));
        }
    }
    if !evidence {
        return Ok(out);
    }
    let ids: Vec<&dyn rusqlite::ToSql> = claim_ids
        .iter()
        .map(|id| id as &dyn rusqlite::ToSql)
        .collect();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT k.claim_id, s.text FROM candidates k JOIN sentences s ON s.id = k.sentence_id
         WHERE k.claim_id IN ({})",
        list(1)
    ))?;
    for row in stmt.query_map(ids.as_slice(), |r| {
        Ok((r.get::<_, i64>(0)?, text_at(r, 1)?.chars().count()))
    })? {
        let (claim, length) = row?;
        if let Some(f) = out.get_mut(&claim) {
            f.candidates += 1;
            f.candidate_lengths.push(length);
        }
    }
    // The claim's own documents, its children's and its parent's.
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT k.id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.id
         WHERE k.id IN ({l})
         UNION SELECT k.parent_id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.id
         WHERE k.parent_id IN ({l})
         UNION SELECT k.id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.parent_id
         WHERE k.id IN ({l})",
        l = list(1)
    ))?;
    let mut documents: HashSet<i64> = HashSet::new();
    for row in stmt.query_map(ids.as_slice(), |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
    })? {
        let (claim, document) = row?;
        if let Some(f) = out.get_mut(&claim) {
            f.family.push(document);
            documents.insert(document);
        }
    }
    let mut documents: Vec<i64> = documents.into_iter().collect();
    documents.sort_unstable();
    let mut texts: HashMap<i64, Vec<u64>> = HashMap::new();
    for chunk in documents.chunks(claim_ids.len().max(1)) {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT document_id, text FROM sentences WHERE document_id IN ({})",
            (1..=chunk.len())
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))?;
        let values: Vec<&dyn rusqlite::ToSql> =
            chunk.iter().map(|id| id as &dyn rusqlite::ToSql).collect();
        for row in stmt.query_map(values.as_slice(), |r| {
            Ok((r.get::<_, i64>(0)?, text_hash(text_at(r, 1)?)))
        })? {
            let (document, text) = row?;
            texts.entry(document).or_default().push(text);
        }
    }
    for f in out.values_mut() {
        f.family.sort_unstable();
        f.family.dedup();
        for d in &f.family {
            f.family_texts
                .extend(texts.get(d).into_iter().flatten().copied());
        }
    }
    Ok(out)
}
