//! The `task_tricks` table: which real sentence an evidence task shows as its trick when
//! the project's guideline asks for sentences that support or refute.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::key_hash::KeyHasher;
use factdesk_core::task::TaskKind;
use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

mod corpus;
pub use corpus::{Corpus, Families};

/// A sentence that may serve as a claim's trick: any sentence of the project. Its text is
/// not kept: what a run needs of it is read as the rows go by ([`each_donor`]), so half a
/// million sentences cost no copy of their texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Donor {
    pub sentence_id: i64,
    pub document_id: i64,
    /// Length in characters.
    pub chars: usize,
    /// The [`text_hash`] of its text.
    pub text_hash: u64,
    /// How many claims' items show it as an option, and how many show it at all (as an
    /// option or beside one in a passage), as the api reckons them from [`candidates`]
    /// (0 until it has).
    pub options: u32,
    pub shown: u32,
}

impl Donor {
    pub fn of(sentence_id: i64, document_id: i64, text: &str) -> Donor {
        Donor {
            sentence_id,
            document_id,
            chars: text.chars().count(),
            text_hash: text_hash(text),
            options: 0,
            shown: 0,
        }
    }
}

/// Calls `each` with every sentence of the project once, in id order, and its text. A
/// trick is drawn among them (see `trick_search` in the api).
pub fn each_donor(conn: &Read, mut each: impl FnMut(Donor, &str)) -> Result<()> {
    let mut stmt = conn.prepare("SELECT id, document_id, text FROM sentences ORDER BY id")?;
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

/// A claim's candidate: (claim, sentence, whether the claim gets evidence items: a
/// claim without a parent, any claim when `children` is set, and a claim that has an
/// evidence task). Ordered by claim.
pub type RankedSentence = (i64, i64, bool);

/// Every candidate of every claim, as [`RankedSentence`]s.
pub fn candidates(conn: &Read, children: bool) -> Result<Vec<RankedSentence>> {
    let mut stmt = conn.prepare(
        "SELECT k.claim_id, k.sentence_id,
                c.parent_id IS NULL OR ?1 <> 0 OR EXISTS (
                    SELECT 1 FROM tasks t WHERE t.kind = 'evidence' AND t.claim_id = k.claim_id)
         FROM candidates k JOIN claims c ON c.id = k.claim_id ORDER BY k.claim_id, k.rank",
    )?;
    let rows = stmt.query_map(params![i64::from(children)], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// [`each_donor`]'s donors.
pub fn donors(conn: &Read) -> Result<Vec<Donor>> {
    let mut out = Vec::new();
    each_donor(conn, |d, _| out.push(d))?;
    Ok(out)
}

/// Every sentence some task shows as its trick: a run draws new tricks among the others
/// where it can, so that no text is two items' trick.
pub fn trick_sentences(conn: &Read) -> Result<HashSet<i64>> {
    let mut stmt = conn.prepare("SELECT DISTINCT sentence_id FROM task_tricks")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Which of the texts `hashes` (see [`text_hash`]) passages leave out: the texts of
/// tricks chosen to be shown in no other item's passage.
pub fn left_out_of(conn: &Read, hashes: &[u64]) -> Result<HashSet<u64>> {
    let mut out = HashSet::new();
    for chunk in hashes.chunks(500) {
        let values: Vec<i64> = chunk.iter().map(|&h| h as i64).collect();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT DISTINCT text_hash FROM task_tricks WHERE left_out = 1 AND text_hash IN ({})",
            placeholders(1, values.len())
        ))?;
        let rows = stmt.query_map(as_params(&values).as_slice(), |r| r.get::<_, i64>(0))?;
        for h in rows {
            out.insert(h? as u64);
        }
    }
    Ok(out)
}

/// A task's trick as a run chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewTrick {
    pub task_id: i64,
    pub sentence_id: i64,
    /// The [`text_hash`] of the sentence's text.
    pub text_hash: u64,
    /// Whether passages leave out every sentence of its text ([`left_out_of`]).
    pub left_out: bool,
    /// Whether other items show its text otherwise than the item's real options.
    pub unlike: bool,
}

/// The values of `t`, as a row of `task_tricks` in [`TRICK_COLUMNS`]' order: integers,
/// so a row costs no allocation.
fn trick_values(t: &NewTrick) -> [rusqlite::types::Value; 5] {
    use rusqlite::types::Value::Integer;
    [
        Integer(t.task_id),
        Integer(t.sentence_id),
        // The hash's bits as a signed integer, which both engines store.
        Integer(t.text_hash as i64),
        Integer(i64::from(t.left_out)),
        Integer(i64::from(t.unlike)),
    ]
}

const TRICK_COLUMNS: &str = "task_id, sentence_id, text_hash, left_out, unlike";

/// Records `t`, keeping a task's earlier choice.
pub fn set(conn: &crate::Tx<'_>, t: &NewTrick) -> Result<()> {
    let values = trick_values(t);
    let refs: Vec<&dyn rusqlite::ToSql> =
        values.iter().map(|v| v as &dyn rusqlite::ToSql).collect();
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let row = crate::db::CopyRow {
            table: "task_tricks",
            columns: TRICK_COLUMNS,
            ignore_conflicts: true,
        };
        return Ok(pg.stage(row, refs.as_slice())?);
    }
    conn.prepare_cached(&format!(
        "INSERT OR IGNORE INTO task_tricks ({TRICK_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5)"
    ))?
    .execute(refs.as_slice())?;
    Ok(())
}

/// [`set`] for each of `tricks`. On a file a statement writes up to
/// [`crate::tasks::ROWS_A_STATEMENT`] rows.
pub fn set_many(conn: &crate::Tx<'_>, tricks: &[NewTrick]) -> Result<()> {
    if conn.sqlite().is_none() {
        return tricks.iter().try_for_each(|t| set(conn, t));
    }
    for batch in tricks.chunks(crate::tasks::ROWS_A_STATEMENT) {
        let rows = (0..batch.len())
            .map(|i| {
                let p = 5 * i;
                format!(
                    "(?{}, ?{}, ?{}, ?{}, ?{})",
                    p + 1,
                    p + 2,
                    p + 3,
                    p + 4,
                    p + 5
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let values: Vec<_> = batch.iter().flat_map(trick_values).collect();
        let refs: Vec<&dyn rusqlite::ToSql> =
            values.iter().map(|v| v as &dyn rusqlite::ToSql).collect();
        conn.prepare_cached(&format!(
            "INSERT OR IGNORE INTO task_tricks ({TRICK_COLUMNS}) VALUES {rows}"
        ))?
        .execute(refs.as_slice())?;
    }
    Ok(())
}

/// How many evidence tasks of the project show a trick that other items show otherwise
/// than the item's real options.
pub fn unlike_options(conn: &Read) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM task_tricks WHERE unlike = 1",
        [],
        |r| r.get(0),
    )?)
}

/// The id of the `kind` task of `claim_id`, if there is one.
pub fn task_of(conn: &Read, kind: &str, claim_id: i64) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT id FROM tasks WHERE kind = ?1 AND claim_id = ?2")?
        .query_row(params![kind, claim_id], |r| r.get(0))
        .optional()?)
}

/// How many evidence tasks the project has.
pub fn evidence_tasks(conn: &Read) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM tasks WHERE kind = 'evidence'",
        [],
        |r| r.get(0),
    )?)
}

/// How many evidence answers the project holds, superseded ones included.
pub fn evidence_answers(conn: &Read) -> Result<u64> {
    answers_of_kind(conn, TaskKind::Evidence)
}

/// How many answers (superseded ones too) tasks of `kind` hold.
pub fn answers_of_kind(conn: &Read, kind: TaskKind) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE t.kind = ?1",
        crate::params![kind.as_str()],
        |r| r.get(0),
    )?)
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
    /// Evidence only: the documents of the claim's family (its own, its children's and
    /// its parent's), ascending.
    pub family: Vec<i64>,
    /// Evidence only: the [`text_hash`] of every sentence of those documents.
    pub family_texts: HashSet<u64>,
    /// Evidence only: the length in characters of each candidate's text.
    pub candidate_lengths: Vec<usize>,
    /// Evidence only: for each candidate, as `candidate_lengths`, how many other claims'
    /// items show it as an option, and how many in a passage only (see [`Donor`]).
    pub candidate_elsewhere: Vec<(u32, u32)>,
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
pub fn task_states(conn: &Read, kind: &str, claim_ids: &[i64]) -> Result<HashMap<i64, TaskState>> {
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

/// [`ClaimFacts`] of many claims: their tasks in one read (a claim's own read costs a
/// round trip on PostgreSQL) and, with a run's [`Corpus`], their evidence facts.
pub fn facts(
    conn: &Read,
    kind: &str,
    claim_ids: &[i64],
    evidence: Option<&Corpus<'_>>,
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
    if let Some(corpus) = evidence {
        for (&claim, f) in &mut out {
            corpus.fill(claim, f);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "tricks_tests.rs"]
mod tests;
