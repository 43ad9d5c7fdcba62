//! The `task_tricks` table: which real sentence an evidence task shows as its trick when
//! the project's guideline asks for sentences that support or refute.

use crate::db::{Connection, OptionalExtension};
use crate::params;
use crate::Result;
use factdesk_core::key_hash::KeyHasher;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

/// A sentence that may serve as another claim's trick: a candidate of some claim. Its
/// text is not kept: what a run needs of it is read as the rows go by ([`each_donor`]),
/// so half a million sentences cost no copy of their texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Donor {
    pub sentence_id: i64,
    pub document_id: i64,
    /// Length in characters.
    pub chars: usize,
    /// The [`text_hash`] of its text.
    pub text_hash: u64,
}

impl Donor {
    pub fn of(sentence_id: i64, document_id: i64, text: &str) -> Donor {
        Donor {
            sentence_id,
            document_id,
            chars: text.chars().count(),
            text_hash: text_hash(text),
        }
    }
}

/// Calls `each` with every candidate sentence of the project once, in id order, and its
/// text: the sentences a trick is drawn from, since a ranked sentence looks like the
/// candidates it sits among.
pub fn each_donor(conn: &Connection, mut each: impl FnMut(Donor, &str)) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.document_id, s.text FROM sentences s
         WHERE s.id IN (SELECT sentence_id FROM candidates) ORDER BY s.id",
    )?;
    let rows = stmt.query_map([], |r| {
        let text = text_at(r, 2)?;
        each(Donor::of(r.get(0)?, r.get(1)?, text), text);
        Ok(())
    })?;
    for row in rows {
        row?;
    }
    Ok(())
}

/// [`each_donor`]'s donors.
pub fn donors(conn: &Connection) -> Result<Vec<Donor>> {
    let mut out = Vec::new();
    each_donor(conn, |d, _| out.push(d))?;
    Ok(out)
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

/// [`set`] for each (task, sentence) of `tricks`. On a file a statement writes up to
/// [`crate::tasks::ROWS_A_STATEMENT`] rows.
pub fn set_many(conn: &Connection, tricks: &[(i64, i64)]) -> Result<()> {
    if conn.sqlite().is_none() {
        return tricks
            .iter()
            .try_for_each(|&(task, sentence)| set(conn, task, sentence));
    }
    for batch in tricks.chunks(crate::tasks::ROWS_A_STATEMENT) {
        let rows = (0..batch.len())
            .map(|i| format!("(?{}, ?{})", 2 * i + 1, 2 * i + 2))
            .collect::<Vec<_>>()
            .join(", ");
        let values: Vec<&dyn rusqlite::ToSql> = batch
            .iter()
            .flat_map(|(task, sentence)| [task as &dyn rusqlite::ToSql, sentence])
            .collect();
        conn.prepare_cached(&format!(
            "INSERT OR IGNORE INTO task_tricks (task_id, sentence_id) VALUES {rows}"
        ))?
        .execute(values.as_slice())?;
    }
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

/// A claim's task of a kind: (id, overlap, whether it has a trick).
pub type TaskState = (i64, u32, bool);

/// What creating a task of a kind needs to know of one claim.
#[derive(Debug, Clone, Default)]
pub struct ClaimFacts {
    /// The claim's task of the kind, as it was when the facts were read.
    pub task: Option<TaskState>,
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

/// The length and [`text_hash`] of sentences whose texts are already in memory (a run's
/// donors), by id: the evidence facts of a claim take them from here rather than read
/// and hash each text again, once per claim whose family holds it.
#[derive(Debug, Default)]
pub struct KnownSentences {
    /// Ascending.
    ids: Vec<i64>,
    chars: Vec<usize>,
    hashes: Vec<u64>,
}

impl KnownSentences {
    pub fn of(donors: &[Donor]) -> KnownSentences {
        let mut order: Vec<&Donor> = donors.iter().collect();
        // [`donors`] gives them in id order already.
        if !order.is_sorted_by_key(|d| d.sentence_id) {
            order.sort_by_key(|d| d.sentence_id);
        }
        order.dedup_by_key(|d| d.sentence_id);
        KnownSentences {
            ids: order.iter().map(|d| d.sentence_id).collect(),
            chars: order.iter().map(|d| d.chars).collect(),
            hashes: order.iter().map(|d| d.text_hash).collect(),
        }
    }

    fn at(&self, sentence_id: i64) -> Option<usize> {
        self.ids.binary_search(&sentence_id).ok()
    }
}

/// `?from, ?from+1, …` for `n` values.
fn placeholders(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn as_params(ids: &[i64]) -> Vec<&dyn rusqlite::ToSql> {
    ids.iter().map(|id| id as &dyn rusqlite::ToSql).collect()
}

/// The `kind` task of each of `claim_ids` that has one, in one read: what a write
/// transaction reads again before it writes, so facts read ahead of it cannot make it
/// create a task twice or replace a trick.
pub fn task_states(
    conn: &Connection,
    kind: &str,
    claim_ids: &[i64],
) -> Result<HashMap<i64, TaskState>> {
    let mut out = HashMap::with_capacity(claim_ids.len());
    if claim_ids.is_empty() {
        return Ok(out);
    }
    let mut values: Vec<&dyn rusqlite::ToSql> = vec![&kind];
    values.extend(as_params(claim_ids));
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT t.claim_id, t.id, t.overlap, EXISTS (SELECT 1 FROM task_tricks x WHERE x.task_id = t.id)
         FROM tasks t WHERE t.kind = ?1 AND t.claim_id IN ({})",
        placeholders(2, claim_ids.len())
    ))?;
    let rows = stmt.query_map(values.as_slice(), |r| {
        Ok((r.get::<_, i64>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
    })?;
    for row in rows {
        let (claim, state) = row?;
        out.insert(claim, state);
    }
    Ok(out)
}

/// [`ClaimFacts`] of many claims in a few reads (the claims' own reads, one by one, cost
/// a round trip each on PostgreSQL). With `evidence`, the evidence facts too, taking what
/// it can of the sentences from `evidence`'s [`KnownSentences`].
pub fn facts(
    conn: &Connection,
    kind: &str,
    claim_ids: &[i64],
    evidence: Option<&KnownSentences>,
) -> Result<HashMap<i64, ClaimFacts>> {
    let mut out: HashMap<i64, ClaimFacts> = claim_ids
        .iter()
        .map(|&id| (id, ClaimFacts::default()))
        .collect();
    for (claim, state) in task_states(conn, kind, claim_ids)? {
        if let Some(f) = out.get_mut(&claim) {
            f.task = Some(state);
        }
    }
    let Some(known) = evidence else {
        return Ok(out);
    };
    if claim_ids.is_empty() {
        return Ok(out);
    }
    candidate_lengths(conn, claim_ids, known, &mut out)?;
    let documents = families(conn, claim_ids, &mut out)?;
    let texts = document_texts(conn, &documents, known)?;
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

/// `each` of the texts of sentences `ids`, by id: for the few that [`KnownSentences`]
/// lacks.
fn unknown_texts<T>(
    conn: &Connection,
    ids: &[i64],
    each: impl Fn(&str) -> T,
) -> Result<HashMap<i64, T>> {
    let mut out = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(1000) {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT id, text FROM sentences WHERE id IN ({})",
            placeholders(1, chunk.len())
        ))?;
        for row in stmt.query_map(as_params(chunk).as_slice(), |r| {
            Ok((r.get::<_, i64>(0)?, each(text_at(r, 1)?)))
        })? {
            let (id, value) = row?;
            out.insert(id, value);
        }
    }
    Ok(out)
}

/// Each claim's count of candidates and their lengths in characters.
fn candidate_lengths(
    conn: &Connection,
    claim_ids: &[i64],
    known: &KnownSentences,
    out: &mut HashMap<i64, ClaimFacts>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT claim_id, sentence_id FROM candidates WHERE claim_id IN ({})",
        placeholders(1, claim_ids.len())
    ))?;
    let pairs = stmt
        .query_map(as_params(claim_ids).as_slice(), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })?
        .collect::<crate::db::Result<Vec<_>>>()?;
    // A candidate is a donor unless it was ranked after the donors were read.
    let unknown: Vec<i64> = pairs
        .iter()
        .filter(|(_, s)| known.at(*s).is_none())
        .map(|(_, s)| *s)
        .collect();
    let read = unknown_texts(conn, &unknown, |t| t.chars().count())?;
    for (claim, sentence) in pairs {
        let length = match known.at(sentence) {
            Some(i) => known.chars[i],
            // As the join with the sentences did, a candidate without a sentence is none.
            None => match read.get(&sentence) {
                Some(&length) => length,
                None => continue,
            },
        };
        if let Some(f) = out.get_mut(&claim) {
            f.candidates += 1;
            f.candidate_lengths.push(length);
        }
    }
    Ok(())
}

/// Each claim's family documents: its own, its children's and its parent's. Gives every
/// document named, ascending.
fn families(
    conn: &Connection,
    claim_ids: &[i64],
    out: &mut HashMap<i64, ClaimFacts>,
) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT k.id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.id
         WHERE k.id IN ({l})
         UNION SELECT k.parent_id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.id
         WHERE k.parent_id IN ({l})
         UNION SELECT k.id, cd.document_id FROM claims k JOIN claim_documents cd ON cd.claim_id = k.parent_id
         WHERE k.id IN ({l})",
        l = placeholders(1, claim_ids.len())
    ))?;
    let mut documents: HashSet<i64> = HashSet::new();
    for row in stmt.query_map(as_params(claim_ids).as_slice(), |r| {
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
    Ok(documents)
}

/// The [`text_hash`] of every sentence of `documents`, by document. The sentences' ids
/// come from the (document, position) index alone; only the texts `known` lacks are read.
fn document_texts(
    conn: &Connection,
    documents: &[i64],
    known: &KnownSentences,
) -> Result<HashMap<i64, Vec<u64>>> {
    let mut texts: HashMap<i64, Vec<u64>> = HashMap::with_capacity(documents.len());
    let mut unknown: Vec<(i64, i64)> = Vec::new();
    for chunk in documents.chunks(1000) {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT document_id, id FROM sentences WHERE document_id IN ({})",
            placeholders(1, chunk.len())
        ))?;
        for row in stmt.query_map(as_params(chunk).as_slice(), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })? {
            let (document, sentence) = row?;
            match known.at(sentence) {
                Some(i) => texts.entry(document).or_default().push(known.hashes[i]),
                None => unknown.push((document, sentence)),
            }
        }
    }
    let ids: Vec<i64> = unknown.iter().map(|(_, s)| *s).collect();
    let read = unknown_texts(conn, &ids, text_hash)?;
    for (document, sentence) in unknown {
        if let Some(&hash) = read.get(&sentence) {
            texts.entry(document).or_default().push(hash);
        }
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{insert_new, insert_new_many, NewTask};
    use crate::{claims, documents, NewCandidate, NewClaim, Store};
    use factdesk_core::task::TaskKind;

    fn must<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// Three documents of four sentences (one text in two of them) and six claims: claim
    /// `k` links document `k % 3` and has its first `k % 4` sentences as candidates; claim
    /// 4's parent is claim 2.
    fn project(dir: &std::path::Path) -> (Store, Vec<i64>, Vec<i64>) {
        let mut store = must(Store::create(&dir.join("p.fdesk"), "p", 0));
        let tx = must(store.transaction());
        let mut documents = Vec::new();
        let mut sentences = Vec::new();
        for d in 0..3 {
            let texts = [
                format!("First of {d}."),
                "Shared.".into(),
                format!("Third of {d}."),
                format!("Last sentence of document {d}."),
            ];
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (id, ids) = must(documents::insert_bare(&tx, &format!("d{d}"), &texts));
            documents.push(id);
            sentences.push(ids);
        }
        let mut ids: Vec<i64> = Vec::new();
        for k in 0..6 {
            let ext_id = format!("c{k}");
            let claim = NewClaim {
                ext_id: &ext_id,
                text: "A claim.",
                context: None,
                label: None,
                source_url: None,
                parent_id: (k == 4).then(|| ids[2]),
                metadata: "{}",
                hash: &ext_id,
                import_id: None,
                created_at: 0,
            };
            let id = must(claims::insert(&tx, &claim));
            must(claims::link_document(&tx, id, documents[k % 3]));
            let rows: Vec<NewCandidate<'_>> = sentences[k % 3][..k % 4]
                .iter()
                .enumerate()
                .map(|(i, &sentence_id)| NewCandidate {
                    rank: i as u32 + 1,
                    sentence_id,
                    ranker: "bm25",
                    score: 1.0,
                    scores: Default::default(),
                    placed_by: String::new(),
                })
                .collect();
            must(crate::candidates::replace(&tx, id, &rows));
            ids.push(id);
        }
        must(tx.commit());
        (store, ids, sentences.concat())
    }

    /// What is taken from known sentences is what reading them gives: with every other
    /// sentence known, and with none.
    #[test]
    fn facts_from_known_sentences_are_the_facts_read_whole() {
        let dir = must(tempfile::tempdir());
        let (store, claims, sentences) = project(dir.path());
        let donors: Vec<Donor> = must(donors(store.conn()))
            .into_iter()
            .filter(|d| {
                sentences
                    .iter()
                    .position(|&s| s == d.sentence_id)
                    .is_some_and(|i| i % 2 == 0)
            })
            .collect();
        assert!(!donors.is_empty());
        let known = KnownSentences::of(&donors);
        let some = must(facts(store.conn(), "evidence", &claims, Some(&known)));
        let none = must(facts(
            store.conn(),
            "evidence",
            &claims,
            Some(&KnownSentences::default()),
        ));
        for id in &claims {
            let (a, b) = (&some[id], &none[id]);
            assert_eq!(
                (a.candidates, &a.family, &a.family_texts),
                (b.candidates, &b.family, &b.family_texts)
            );
            let sorted = |v: &[usize]| {
                let mut v = v.to_vec();
                v.sort_unstable();
                v
            };
            assert_eq!(sorted(&a.candidate_lengths), sorted(&b.candidate_lengths));
        }
        // Claim 2's family holds claim 4's document, and the reverse.
        assert_eq!(some[&claims[2]].family.len(), 2);
        assert_eq!(some[&claims[4]].family, some[&claims[2]].family);
        // "Shared." is in two documents: one hash for both.
        assert_eq!(some[&claims[2]].family_texts.len(), 7);
    }

    /// Many tasks written at once get the ids, and the rows, that one at a time gives.
    #[test]
    fn many_tasks_at_once_are_the_tasks_one_at_a_time() {
        let (one, many) = (must(tempfile::tempdir()), must(tempfile::tempdir()));
        let (mut one, claims, _) = project(one.path());
        let (mut many, _, _) = project(many.path());
        let tasks: Vec<NewTask> = claims
            .iter()
            .map(|&claim_id| NewTask {
                kind: TaskKind::Evidence,
                claim_id,
                overlap: 2,
                trick_slot: Some(claim_id as u32 % 3),
                shuffle_key: (claim_id * 7919) % 101,
                created_at: 5,
            })
            .collect();
        let tx = must(one.transaction());
        let each: Vec<i64> = tasks.iter().map(|t| must(insert_new(&tx, t))).collect();
        must(tx.commit());
        let tx = must(many.transaction());
        let at_once = must(insert_new_many(&tx, &tasks));
        must(set_many(&tx, &[(at_once[0], 1), (at_once[1], 2)]));
        must(set_many(&tx, &[(at_once[0], 3)]));
        must(tx.commit());
        assert_eq!(each, at_once);
        let rows = |s: &Store| {
            let mut stmt = must(s.conn().prepare("SELECT id, kind, claim_id, overlap, trick_slot, shuffle_key, created_at FROM tasks ORDER BY id"));
            let rows = must(stmt.query_map([], |r| {
                Ok((0..7)
                    .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).ok()))
                    .collect::<Vec<_>>())
            }));
            must(rows.collect::<crate::db::Result<Vec<_>>>())
        };
        assert_eq!(rows(&one), rows(&many));
        // An earlier trick is kept.
        let trick = must(many.conn().query_row(
            "SELECT sentence_id FROM task_tricks WHERE task_id = ?1",
            [at_once[0]],
            |r| r.get::<_, i64>(0),
        ));
        assert_eq!(trick, 1);
    }
}
