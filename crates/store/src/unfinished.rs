//! Imports into a live project, which write in several transactions so that answers
//! never wait for a whole import: the mark of one still writing, the lock that tells a
//! running one from a killed one, and the removal of a killed or stopped one's rows.
//!
//! An unfinished import's claims get no task (`tasks::eligible_claims`), so nobody is
//! given a claim before its candidates are written; its rows are removed by the import
//! itself when it fails or is cancelled, and otherwise by the next import or opening of
//! the project once nobody holds the import lock (the process was killed).

use crate::db::{Engine, OptionalExtension};
use crate::{params, Access, Read, Result, Store, Tx};
use std::collections::HashSet;

/// `imports.rows_added` of an import still writing; its finish sets the real count.
pub const UNFINISHED: i64 = -1;

/// The session-level advisory lock an import holds on PostgreSQL while it writes (the
/// write lock of `db::pg` is another key, held per transaction).
const IMPORT_LOCK: i64 = 0x4644_494d;

/// Rows removed in one transaction, so answers wait for a part of the removal only.
const CHUNK: usize = 1000;

/// Records an import that is about to write in several transactions; returns its id.
pub fn record(
    conn: &crate::Tx<'_>,
    file: &str,
    preset: &str,
    rows_seen: u64,
    now_ms: i64,
) -> Result<i64> {
    crate::project::insert_import(conn, file, preset, UNFINISHED, rows_seen, now_ms)
}

/// The unfinished imports, oldest first.
pub fn list(conn: &Read) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM imports WHERE rows_added < 0 ORDER BY id")?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The highest claim and sentence ids, to tell later rows apart.
pub fn highest_ids(conn: &Read) -> Result<(i64, i64)> {
    Ok(conn.query_row(
        "SELECT (SELECT coalesce(max(id), 0) FROM claims), (SELECT coalesce(max(id), 0) FROM sentences)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Claims after `after` that import `import_id` did not write (written refutations
/// committed between its transactions): (id, text).
pub fn other_claims_since(conn: &Read, after: i64, import_id: i64) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare(
        "SELECT id, text FROM claims WHERE id > ?1 AND (import_id IS NULL OR import_id <> ?2) ORDER BY id",
    )?;
    let rows = stmt.query_map(params![after, import_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Sentences after `after` that import `import_id` did not write: (id, document, text).
pub fn other_sentences_since(
    conn: &Read,
    after: i64,
    import_id: i64,
) -> Result<Vec<(i64, i64, String)>> {
    let mut stmt = conn.prepare(
        "SELECT s.id, s.document_id, s.text FROM sentences s JOIN documents d ON d.id = s.document_id
         WHERE s.id > ?1 AND (d.import_id IS NULL OR d.import_id <> ?2) ORDER BY s.id",
    )?;
    let rows = stmt.query_map(params![after, import_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The rows of `documents` or `claims` under these external ids, in one read: (external
/// id, row id, content hash). An import looks its rows up this way before writing.
pub fn find_by_ext_ids(
    conn: &Read,
    table: Imported,
    ext_ids: &[&str],
) -> Result<Vec<(String, i64, String)>> {
    if ext_ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = serde_json::to_string(ext_ids)?;
    let texts_in = match conn.engine() {
        Engine::Sqlite => "SELECT value FROM json_each(?1)",
        Engine::Postgres => "SELECT value FROM jsonb_array_elements_text(CAST(?1 AS jsonb))",
    };
    let table = match table {
        Imported::Documents => "documents",
        Imported::Claims => "claims",
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT ext_id, id, hash FROM {table} WHERE ext_id IN ({texts_in})"
    ))?;
    let rows = stmt.query_map([&list], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The tables whose rows [`find_by_ext_ids`] finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    Documents,
    Claims,
}

/// How many claims and sentences have ids above `after` (claims, sentences).
pub fn count_since(conn: &Read, after: (i64, i64)) -> Result<(u64, u64)> {
    Ok(conn.query_row(
        "SELECT (SELECT count(*) FROM claims WHERE id > ?1), (SELECT count(*) FROM sentences WHERE id > ?2)",
        params![after.0, after.1],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
    )?)
}

/// Held while an import writes in several transactions. A file's lock is a `flock` on
/// `<project>-import` (beside the project, not in its index folder, which a rebuild
/// deletes); a database's, a session-level advisory lock. Both end with the process.
#[derive(Debug)]
pub struct ImportLock {
    _file: Option<std::fs::File>,
}

impl Store {
    /// Takes the import lock without waiting; `None` when another import holds it.
    pub fn try_lock_imports(&self) -> Result<Option<ImportLock>> {
        match self.engine() {
            Engine::Postgres => {
                let held: i64 = self.read().query_row(
                    "SELECT CASE WHEN pg_try_advisory_lock(?1) THEN 1 ELSE 0 END",
                    params![IMPORT_LOCK],
                    |r| r.get(0),
                )?;
                Ok((held == 1).then_some(ImportLock { _file: None }))
            }
            Engine::Sqlite => {
                let path = crate::file::sibling(self.path(), "-import");
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&path)
                    .map_err(|source| crate::Error::Unreadable {
                        path: path.clone(),
                        source,
                    })?;
                match file.try_lock() {
                    Ok(()) => Ok(Some(ImportLock { _file: Some(file) })),
                    Err(std::fs::TryLockError::WouldBlock) => Ok(None),
                    Err(std::fs::TryLockError::Error(source)) => {
                        Err(crate::Error::Unreadable { path, source })
                    }
                }
            }
        }
    }

    /// Gives the import lock back (a file's goes with its handle).
    pub fn unlock_imports(&self, lock: ImportLock) -> Result<()> {
        if lock._file.is_none() && self.engine() == Engine::Postgres {
            self.read().query_row(
                "SELECT CASE WHEN pg_advisory_unlock(?1) THEN 1 ELSE 0 END",
                params![IMPORT_LOCK],
                |r| r.get::<_, i64>(0),
            )?;
        }
        Ok(())
    }
}

/// What removing an unfinished import did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    pub claims: u64,
    pub documents: u64,
    /// Claims left because something else refers to them (a task, a prediction, a
    /// refutation not of the import): the import stays unfinished, its claims hidden.
    pub kept_claims: u64,
}

/// Removes the rows of every unfinished import when no import is running (nobody holds
/// the import lock): what a killed import left. A no-op, one small read, when there are
/// none; nothing on a project open read-only.
pub fn remove_dead(store: &mut Store) -> Result<Removed> {
    if store.access() == Access::ReadOnly || list(store.read())?.is_empty() {
        return Ok(Removed::default());
    }
    let Some(lock) = store.try_lock_imports()? else {
        return Ok(Removed::default());
    };
    let removed = remove_all_under_lock(store);
    let unlocked = store.unlock_imports(lock);
    let removed = removed?;
    unlocked?;
    Ok(removed)
}

/// [`remove_dead`] for the holder of the import lock.
pub fn remove_all_under_lock(store: &mut Store) -> Result<Removed> {
    let mut all = Removed::default();
    for id in list(store.read())? {
        let r = remove(store, id)?;
        all.claims += r.claims;
        all.documents += r.documents;
        all.kept_claims += r.kept_claims;
    }
    if all.kept_claims > 0 {
        tracing::warn!(
            claims = all.kept_claims,
            "claims of an unfinished import are kept hidden: a task, prediction or refutation refers to them"
        );
    }
    Ok(all)
}

/// Removes the rows of unfinished import `import_id` (claims with their links and
/// candidates, then the documents and sentences nothing else refers to), a chunk at a
/// time, each chunk a transaction of its own; then the import's row, or, when documents
/// stay, marks it finished.
///
/// `tasks.claim_id`, `candidates.sentence_id` and `task_tricks.sentence_id` have no index
/// of their own, so the database's check of each deleted row's references reads the
/// whole child table (minutes for a large import). On a file each chunk's references are
/// checked set-wise inside its transaction instead, with the row-by-row check off for it;
/// PostgreSQL keeps its check (turning it off needs a superuser), and a chunk there is a
/// few rows, so an answer still waits for one short transaction.
pub fn remove(store: &mut Store, import_id: i64) -> Result<Removed> {
    let mut removed = Removed::default();
    let (claim_chunk, document_chunk) = match store.engine() {
        Engine::Sqlite => (CHUNK, CHUNK),
        Engine::Postgres => (PG_CLAIMS, PG_DOCUMENTS),
    };
    // Highest ids first: a refutation imported with its claim comes after it, so a kept
    // refutation keeps its claim before that claim's chunk.
    let claims = ids_of(store.read(), "claims", import_id)?;
    let (gone, kept_claims) = remove_in_chunks(
        store,
        &claims,
        claim_chunk,
        |tx, list| referenced_claims(tx, import_id, list),
        &[
            "DELETE FROM candidates WHERE claim_id IN ({ids})",
            "DELETE FROM claim_documents WHERE claim_id IN ({ids})",
            "DELETE FROM claims WHERE id IN ({ids})",
        ],
    )?;
    removed.claims = gone;
    removed.kept_claims = kept_claims;
    let kept_documents = referenced_documents(store.read(), import_id)?;
    let documents: Vec<i64> = ids_of(store.read(), "documents", import_id)?
        .into_iter()
        .filter(|id| !kept_documents.contains(id))
        .collect();
    // A trick chosen since the first look (`tasks` beside this removal) keeps its
    // document; links and candidates come only from claims, which an import's documents
    // get from its own claims (removed above) or a later import (which removes this first).
    let (gone, now_kept) = remove_in_chunks(
        store,
        &documents,
        document_chunk,
        tricks_among,
        &[
            "DELETE FROM sentences WHERE document_id IN ({ids})",
            "DELETE FROM documents WHERE id IN ({ids})",
        ],
    )?;
    removed.documents = gone;
    let documents_kept = kept_documents.len() as u64 + now_kept;
    let tx = store.transaction()?;
    if kept_claims == 0 && documents_kept == 0 {
        tx.execute("DELETE FROM imports WHERE id = ?1", [import_id])?;
    } else if kept_claims == 0 {
        // Documents another claim or a task's trick uses stay, as part of the project.
        tx.execute(
            "UPDATE imports SET rows_added = ?1 WHERE id = ?2",
            params![documents_kept as i64, import_id],
        )?;
    }
    tx.commit()?;
    Ok(removed)
}

/// Deletes `ids` `chunk` at a time, each chunk in a transaction of its own (`unchecked`):
/// in each, the ids `kept` finds referred to (given a JSON array of the chunk's ids), or
/// found so in an earlier chunk, stay and `deletes` (each with `{ids}` for the list)
/// remove the others. Returns how many went and how many stayed.
fn remove_in_chunks(
    store: &mut Store,
    ids: &[i64],
    chunk: usize,
    kept: impl Fn(&Read, &str) -> Result<HashSet<i64>>,
    deletes: &[&str],
) -> Result<(u64, u64)> {
    let (mut gone, mut stayed) = (0, 0);
    // What the checks kept so far, across chunks: a claim's check keeps its parent too,
    // which comes in a later chunk (highest ids first) and must not be deleted there.
    let mut held = HashSet::new();
    for part in ids.chunks(chunk) {
        let kept_here = unchecked(store, |tx| {
            let list = serde_json::to_string(part)?;
            held.extend(kept(tx, &list)?);
            let doomed: Vec<i64> = part
                .iter()
                .copied()
                .filter(|id| !held.contains(id))
                .collect();
            let list = serde_json::to_string(&doomed)?;
            let ids_in = crate::evidence::id_list(tx);
            for sql in deletes {
                tx.execute(&sql.replace("{ids}", ids_in), [&list])?;
            }
            Ok((part.len() - doomed.len()) as u64)
        })?;
        gone += part.len() as u64 - kept_here;
        stayed += kept_here;
    }
    Ok((gone, stayed))
}

/// Rows a removal deletes per transaction on PostgreSQL, whose check of each deleted
/// row reads `tasks` (a claim) or `candidates` (a document's sentences) whole.
const PG_CLAIMS: usize = 50;
const PG_DOCUMENTS: usize = 2;

/// Runs `work` in a transaction of its own; on a file, without SQLite's row-by-row check
/// of references (`work` checks them set-wise in the same transaction, which no other
/// writer can enter), turned on again afterwards whatever happened.
fn unchecked<T>(store: &mut Store, work: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
    let file = store.engine() == Engine::Sqlite;
    if file {
        store.read().execute_batch("PRAGMA foreign_keys = OFF")?;
    }
    let done = (|| {
        let tx = store.transaction()?;
        let out = work(&tx)?;
        tx.commit()?;
        Ok(out)
    })();
    if file {
        store.read().execute_batch("PRAGMA foreign_keys = ON")?;
    }
    store.yield_to_writers();
    done
}

/// The documents among `list` (a JSON array of ids) one of whose sentences is a task's
/// trick.
fn tricks_among(conn: &Read, list: &str) -> Result<HashSet<i64>> {
    let ids_in = crate::evidence::id_list(conn);
    let mut stmt = conn.prepare(&format!(
        "SELECT DISTINCT s.document_id FROM task_tricks t JOIN sentences s ON s.id = t.sentence_id
         WHERE s.document_id IN ({ids_in})"
    ))?;
    let rows = stmt.query_map([list], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The row ids of a table's rows written by an import, highest first.
fn ids_of(conn: &Read, table: &str, import_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT id FROM {table} WHERE import_id = ?1 ORDER BY id DESC"
    ))?;
    let rows = stmt.query_map([import_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The import's claims among `among` (a JSON array of ids) that rows outside it refer to
/// (a task, a prediction, a refutation of another origin), with the claims these refute,
/// which must stay with them. Each child table is read once (`IN`), not once per claim.
fn referenced_claims(conn: &Read, import_id: i64, among: &str) -> Result<HashSet<i64>> {
    let ids_in = crate::evidence::id_list(conn).replace("?1", "?2");
    let mut stmt = conn.prepare(&format!(
        "SELECT c.id, c.parent_id FROM claims c WHERE c.import_id = ?1 AND c.id IN ({ids_in}) AND (
            c.id IN (SELECT claim_id FROM tasks)
            OR EXISTS (SELECT 1 FROM claims k WHERE k.parent_id = c.id AND (k.import_id IS NULL OR k.import_id <> ?1))
            OR c.id IN (SELECT claim_id FROM predictions)
            OR c.id IN (SELECT counter_claim_id FROM predictions WHERE counter_claim_id IS NOT NULL))"
    ))?;
    let rows: Vec<(i64, Option<i64>)> = stmt
        .query_map(params![import_id, among], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<crate::db::Result<_>>()?;
    let mut kept = HashSet::new();
    for (id, parent) in rows {
        kept.insert(id);
        kept.extend(parent);
    }
    Ok(kept)
}

/// The import's documents that something left in the project uses: a claim's link, or
/// a sentence that is a candidate or a task's trick.
fn referenced_documents(conn: &Read, import_id: i64) -> Result<HashSet<i64>> {
    let mut stmt = conn.prepare(
        "SELECT cd.document_id FROM claim_documents cd JOIN documents d ON d.id = cd.document_id
           WHERE d.import_id = ?1
         UNION SELECT s.document_id FROM candidates k JOIN sentences s ON s.id = k.sentence_id
           JOIN documents d ON d.id = s.document_id WHERE d.import_id = ?1
         UNION SELECT s.document_id FROM task_tricks t JOIN sentences s ON s.id = t.sentence_id
           JOIN documents d ON d.id = s.document_id WHERE d.import_id = ?1",
    )?;
    let rows = stmt.query_map([import_id], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Whether import `import_id` is unfinished.
pub fn is_unfinished(conn: &Read, import_id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT rows_added FROM imports WHERE id = ?1",
            [import_id],
            |r| r.get::<_, i64>(0),
        )
        .optional()?
        .is_some_and(|n| n < 0))
}
