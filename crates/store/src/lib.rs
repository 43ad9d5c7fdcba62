//! The Factdesk project store.
//!
//! One SQLite file per project (`*.fdesk`), opened with WAL, `synchronous=FULL` and foreign
//! keys on; or, for a team, one PostgreSQL database per project (a `postgres://` URL, see
//! [`ProjectLocation`]). The schema is embedded and migrated in one transaction; a project
//! written by a newer Factdesk is refused rather than guessed at. Each table has its own
//! module with typed reads and writes over [`Connection`], which speaks to either engine;
//! nothing outside this crate writes SQL.

pub mod annotations;
pub mod annotators;
pub mod assignments;
pub mod audit;
pub mod beside;
mod bm25;
mod bm25_counts;
mod bm25_terms;
mod candidates;
mod claims;
mod counts;
mod db;
pub mod decisions;
mod documents;
pub mod embeddings;
mod error;
mod evidence;
pub mod feed;
mod file;
mod index;
mod index_lock;
mod index_rows;
mod index_search;
mod index_stamp;
mod index_tokens;
pub mod listen;
mod location;
mod migrate;
pub mod pack_file;
pub mod pack_returned;
pub mod pack_store;
pub mod predictions;
pub mod problems;
mod project;
pub mod raw_answers;
mod read;
pub mod reviews;
pub mod serving;
pub mod sign_in;
pub mod studies;
pub mod task_samples;
pub mod tasks;
mod transient;
pub mod tricks;
mod typed;
pub mod unfinished;
mod write;

pub use bm25::{
    claim_words, claim_words_of_tokens, Bm25Corpus, Bm25Params, ClaimTerms, ClaimWordCounts,
    SentenceTerms,
};
pub use bm25_counts::TextCounts;
pub use candidates::{CandidateRow, NewCandidate, RankerScores};
pub use claims::{ClaimRow, ListedClaim, NewClaim, Standing};
pub use counts::Counts;
pub use db::Engine;
pub use documents::{DocumentRow, NewDocument, NewSentence, SentenceRow};
pub use error::{Error, Result};
pub use file::{is_project_file, sibling, writable, Access};
pub use index::{index_dir, Hit, HitKind, IndexBatch, IndexStamp, SearchIndex};
pub use index_search::{ClaimsShown, Ranking, SearchQuery};
pub use listen::AnswerListener;
pub use location::ProjectLocation;
pub use migrate::SCHEMA_VERSION;
pub use project::ProjectRow;
#[cfg(feature = "raw-sql")]
pub use read::RawSql;
/// What every per-table function's reads take (a [`Tx`] derefs to one): nothing outside
/// this crate names a database driver or runs SQL.
pub use read::{Read, Snapshot};
pub use write::Tx;

use crate::db::Connection;
use file::APPLICATION_ID;
use rusqlite::OpenFlags;
use std::path::{Path, PathBuf};

/// How long a connection waits for another one's lock before it gives up.
pub(crate) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// How often a waiting connection tries the lock again.
const BUSY_RETRY: std::time::Duration = std::time::Duration::from_millis(1);

/// Makes `conn` wait up to [`BUSY_TIMEOUT`] for another connection's lock, trying again
/// every millisecond. SQLite's own wait tries less and less often (every 100 ms after the
/// first 0.2 s), so a submit waiting beside a lead's long command that commits in short
/// transactions one after the other would miss every gap between them and wait for the
/// whole command; trying every millisecond it takes the first gap.
pub(crate) fn wait_when_busy(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    fn again(tries: i32) -> bool {
        let waited = BUSY_RETRY * u32::try_from(tries).unwrap_or(0);
        if waited >= BUSY_TIMEOUT {
            return false;
        }
        std::thread::sleep(BUSY_RETRY);
        true
    }
    conn.busy_handler(Some(again))
}

/// How a project file's connection writes: every commit waits for the disk, the log is
/// copied back into the file every 1,000 pages, 2 MiB of pages are kept and pages are
/// read with system calls (SQLite's own defaults, set again when a long run ends).
const WRITING_ALONE: &str = "PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 1000; PRAGMA cache_size = -2000; PRAGMA mmap_size = 0";
/// How it writes within a long run ([`Store::set_long_run`]): the file is also mapped
/// into memory, so the run's reads of whole tables copy no page (a tenth of the CPU of
/// creating 100,000 evidence tasks went to copying pages out of the kernel).
const WRITING_A_LONG_RUN: &str = "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = -65536; PRAGMA mmap_size = 4294967296";

/// How many times a decision PostgreSQL aborted to break a deadlock is run again before
/// its caller is told to retry later.
pub const DECISION_RETRIES: u32 = 3;

/// An open project.
#[derive(Debug)]
pub struct Store {
    conn: Read,
    path: PathBuf,
    access: Access,
}

impl Store {
    /// Creates a new, empty project at `location`: a file, or the schema in an empty
    /// PostgreSQL database.
    pub fn create_at(location: &ProjectLocation, name: &str, now_ms: i64) -> Result<Store> {
        match location {
            ProjectLocation::File(path) => Store::create(path, name, now_ms),
            ProjectLocation::Postgres(url) => location::create_postgres(url, name, now_ms),
        }
    }

    /// Opens an existing project at `location`, first removing what an import killed
    /// midway left (see [`unfinished`]).
    pub fn open_at(location: &ProjectLocation) -> Result<Store> {
        let mut store = match location {
            ProjectLocation::File(path) => Store::open(path)?,
            ProjectLocation::Postgres(url) => location::open_postgres(url)?,
        };
        // Its rows are hidden from annotators meanwhile, so a failure here only delays it.
        if let Err(e) = unfinished::remove_dead(&mut store) {
            tracing::warn!("removing the rows of an import that did not finish: {e}");
        }
        Ok(store)
    }

    /// Which engine holds the project.
    pub fn engine(&self) -> Engine {
        self.conn.engine()
    }

    /// Where the search index of this project lives: beside a file, or for a database in
    /// the user's cache, by project id.
    pub fn index_dir(&self) -> Result<PathBuf> {
        match self.conn.engine() {
            Engine::Sqlite => Ok(index_dir(&self.path)),
            Engine::Postgres => Ok(location::cached_index_dir(&self.project()?.id)),
        }
    }

    /// Creates a new, empty project file at `path`. Refuses to overwrite anything.
    pub fn create(path: &Path, name: &str, now_ms: i64) -> Result<Store> {
        if path.exists() {
            return Err(Error::AlreadyExists(path.to_path_buf()));
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| Error::open(path, e))?;
        let mut store = Store {
            conn: Read(db::Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            access: Access::ReadWrite,
        };
        store.configure()?;
        let tx = Tx::begin_deferred(&mut store.conn)?;
        tx.sqlite_only("a project file")?
            .pragma_update(None, "application_id", APPLICATION_ID)?;
        migrate::apply(&tx, path)?;
        project::insert(&tx, name, now_ms)?;
        tx.commit()?;
        Ok(store)
    }

    /// Opens an existing project file: read-write (migrating an older schema) when the file
    /// and its folder are writable, read-only otherwise.
    pub fn open(path: &Path) -> Result<Store> {
        let access = if file::writable(path) {
            Access::ReadWrite
        } else {
            Access::ReadOnly
        };
        Store::open_with(path, access)
    }

    /// Opens an existing project file as asked. Nothing is written before the file is
    /// known to be a Factdesk project this version can read.
    pub fn open_with(path: &Path, access: Access) -> Result<Store> {
        file::check_header(path, SCHEMA_VERSION)?;
        if access == Access::ReadOnly {
            return Store::open_read_only(path);
        }
        if file::wal_has_changes(path) {
            // The header may predate the log: ask SQLite, through a connection that never
            // checkpoints a foreign file's log into it on closing.
            if let Ok(probe) = read_only_connection(path, "mode=ro") {
                check_version(identify(&probe, path)?, path)?;
            }
        }
        let conn = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::open(path, e))?;
        // SQLite quietly opens a file it may not write read-only.
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            drop(conn);
            return Store::open_read_only(path);
        }
        check_version(identify(&conn, path)?, path)?;
        let mut store = Store {
            conn: Read(db::Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            access: Access::ReadWrite,
        };
        store.configure()?;
        let tx = Tx::begin_deferred(&mut store.conn)?;
        migrate::apply(&tx, path)?;
        tx.commit()?;
        Ok(store)
    }

    /// Reads without writing anything: no journal switch, no migration. Without pending
    /// changes in a write-ahead log the file is opened immutable, which needs no lock or
    /// shared-memory file, so it reads from read-only folders and media.
    fn open_read_only(path: &Path) -> Result<Store> {
        let logged = file::wal_has_changes(path);
        let query = if logged { "mode=ro" } else { "immutable=1" };
        let opened = read_only_connection(path, query)
            .and_then(|conn| identify(&conn, path).map(|version| (conn, version)));
        let (conn, version) = match opened {
            // Reading a log needs its -shm file, which a read-only folder cannot hold.
            Err(Error::Open { .. }) if logged && !file::sibling(path, "-shm").exists() => {
                return Err(Error::ReadOnlyWithLog(path.to_path_buf()));
            }
            other => other?,
        };
        if version != SCHEMA_VERSION {
            return Err(if version > SCHEMA_VERSION {
                Error::NewerSchema {
                    path: path.to_path_buf(),
                    found: version,
                    supported: SCHEMA_VERSION,
                }
            } else {
                Error::NeedsUpgrade {
                    path: path.to_path_buf(),
                    found: version,
                    supported: SCHEMA_VERSION,
                }
            });
        }
        Store::reading_through(conn, path)
    }

    /// A store that only reads, through `conn`.
    fn reading_through(conn: rusqlite::Connection, path: &Path) -> Result<Store> {
        conn.pragma_update(None, "query_only", true)?;
        // A file opened read-only may come from someone else (a returned pack): its
        // schema's triggers and views get no say in what runs.
        conn.pragma_update(None, "trusted_schema", false)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        Ok(Store {
            conn: Read(db::Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            access: Access::ReadOnly,
        })
    }

    /// A second connection to this project's file, to read beside this one on another
    /// thread; `None` on PostgreSQL. It only reads, through SQLite's read-only mode (never
    /// opened immutable while this connection may write: a checkpoint could then change
    /// pages under it), and like every read-only opening it trusts nothing in the schema.
    pub fn reader(&self) -> Result<Option<Store>> {
        if self.conn.sqlite().is_none() {
            return Ok(None);
        }
        if self.access == Access::ReadOnly {
            return Store::open_read_only(&self.path).map(Some);
        }
        let conn = read_only_connection(&self.path, "mode=ro")?;
        check_version(identify(&conn, &self.path)?, &self.path)?;
        wait_when_busy(&conn)?;
        // It reads whole tables beside a long run: mapped, as the run's are.
        conn.execute_batch("PRAGMA mmap_size = 4294967296")?;
        Store::reading_through(conn, &self.path).map(Some)
    }

    /// How this file is open.
    pub fn access(&self) -> Access {
        self.access
    }

    /// Fails, naming the file, when it is open read-only.
    pub fn require_writable(&self) -> Result<()> {
        match self.access {
            Access::ReadWrite => Ok(()),
            Access::ReadOnly => Err(Error::ReadOnly(self.path.clone())),
        }
    }

    fn configure(&mut self) -> Result<()> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(());
        };
        // First, so that opening waits for a connection that holds the file whole.
        wait_when_busy(conn)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseBusy) => Error::Busy(self.path.clone()),
                _ => Error::from(e),
            })?;
        conn.execute_batch(WRITING_ALONE)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A connection of its own that hears every commit of an answer to this project,
    /// from any process ([`listen`]); `None` for a file, whose writes a watcher sees.
    pub fn answer_listener(&self) -> Result<Option<AnswerListener>> {
        listen::listener(&self.conn, &self.path)
    }

    /// Starts (`true`) or ends a long run of transactions that can be run again, such
    /// as creating tasks chunk by chunk. Within it a commit does not wait for the disk: a
    /// crash or a power cut keeps or loses whole transactions, never part of one (the
    /// latest ones may be lost, not the answers others committed, which wait for the disk
    /// as ever), and the run's last commit, made after it ends, puts every earlier one on
    /// disk with it. On a file the log is not copied back into it until then either
    /// (every 1,000 pages, SQLite's default, a commit copied back the pages each chunk
    /// rewrites), and the connection keeps 64 MiB of pages rather than 2 (the run's
    /// writes spilled pages to the log before each commit). Not for an import: the
    /// project file alone must stay whole while it writes (tests/cli import_kill).
    pub fn set_long_run(&self, on: bool) -> Result<()> {
        let sql = match (self.conn.engine(), on) {
            (Engine::Sqlite, false) => WRITING_ALONE,
            (Engine::Sqlite, true) => WRITING_A_LONG_RUN,
            (Engine::Postgres, false) => "SET synchronous_commit = on",
            (Engine::Postgres, true) => "SET synchronous_commit = off",
        };
        self.conn.execute_batch(sql)?;
        Ok(())
    }

    /// Between two transactions of a long run, lets a write that waits for this one's
    /// lock take it first: on a file, one pause of two of the waiter's tries (see
    /// [`wait_when_busy`]); PostgreSQL queues waiting writers on its own.
    pub fn yield_to_writers(&self) {
        if self.conn.sqlite().is_some() {
            std::thread::sleep(2 * BUSY_RETRY);
        }
    }

    /// Starts a write transaction. Everything a use case writes goes through one, so a
    /// crash leaves either all of it or none.
    pub fn transaction(&mut self) -> Result<Tx<'_>> {
        self.require_writable()?;
        Tx::begin(&mut self.conn)
    }

    /// Starts a write transaction for bulk inserts into `tables` (a new project's first
    /// import): as [`Store::transaction`], but on a file the references of those tables
    /// are checked once, before the commit, rather than row by row (see `Tx::begin_bulk`).
    pub fn bulk_transaction(&mut self, tables: &'static [&'static str]) -> Result<Tx<'_>> {
        self.require_writable()?;
        Tx::begin_bulk(&mut self.conn, tables)
    }

    /// Starts the write transaction of one annotator's decision (taking an item, skipping
    /// it, answering it). On a file it is [`Store::transaction`]. On PostgreSQL decisions
    /// run side by side: each holds the annotator's row, and must hold every task it
    /// decides on with [`tasks::lock`] or [`tasks::hold_if_room`] before reading its
    /// room; a project-wide [`Store::transaction`] waits for them and they for it.
    pub fn decision(&mut self, annotator_id: i64) -> Result<Tx<'_>> {
        self.require_writable()?;
        Tx::begin_decision(&mut self.conn, annotator_id)
    }

    /// Whether the last write transaction was aborted by PostgreSQL to break a deadlock
    /// (or a serialization conflict) between decisions: the same decision may be run
    /// again, and [`DECISION_RETRIES`] bounds how often. Never on a file.
    pub fn aborted_by_conflict(&self) -> bool {
        match &self.conn.0 {
            Connection::Postgres(c) => c.conflicted(),
            Connection::Sqlite(_) => false,
        }
    }

    /// The project to read through, outside any transaction: each read stands alone.
    pub fn read(&self) -> &Read {
        &self.conn
    }

    /// A mark that changes whenever the project may have changed: another connection
    /// committed (SQLite's `data_version`) or this one changed rows (its total changes).
    /// `None` on PostgreSQL, which has no such cheap mark: every caller then rereads.
    pub fn change_mark(&self) -> Result<Option<(i64, u64)>> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(None);
        };
        let version: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        Ok(Some((version, conn.total_changes())))
    }

    /// A read transaction on a file: reads through it see one state of the project, and
    /// many small reads take the file's lock and check its log once rather than once each.
    /// Ends when dropped; it writes nothing. On PostgreSQL each read stands alone.
    pub fn read_snapshot(&self) -> Result<Snapshot<'_>> {
        Snapshot::begin(&self.conn)
    }

    pub fn project(&self) -> Result<ProjectRow> {
        project::get(&self.conn)
    }

    pub fn counts(&self) -> Result<Counts> {
        counts::get(&self.conn)
    }

    /// Runs SQLite's own consistency check; `Ok(())` when it reports "ok". A PostgreSQL
    /// database checks its own pages as it reads them: there it only answers a query.
    pub fn integrity_check(&self) -> Result<()> {
        let sql = match self.conn.engine() {
            Engine::Sqlite => "PRAGMA integrity_check",
            Engine::Postgres => "SELECT 'ok'",
        };
        let report: String = self.conn.query_row(sql, [], |r| r.get(0))?;
        if report == "ok" {
            Ok(())
        } else {
            Err(Error::Corrupt(report))
        }
    }
}

fn read_only_connection(path: &Path, query: &str) -> Result<rusqlite::Connection> {
    rusqlite::Connection::open_with_flags(
        file::uri(path, query)?,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| Error::open(path, e))
}

/// Refuses a schema newer than this build's.
fn check_version(version: i64, path: &Path) -> Result<()> {
    if version > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// The schema version of an open file, after checking it is a Factdesk project.
fn identify(conn: &rusqlite::Connection, path: &Path) -> Result<i64> {
    let app_id: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(|e| Error::open(path, e))?;
    if app_id != APPLICATION_ID {
        return Err(Error::NotAProject(path.to_path_buf()));
    }
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

pub mod tx {
    //! Writes that take part in a caller's transaction.
    pub use crate::candidates::{
        claim_document_ids, claim_document_links, claims_to_rank, count as candidate_count,
        document_sentences, replace as replace_candidates, replace_many as replace_many_candidates,
        seen_among, seen_claims, sentences_of_documents,
    };
    pub use crate::claims::{
        any as any_claims, copy_documents, find_by_ext_id as find_claim, insert as insert_claim,
        link_document, mark_written, set_refutation_state, written_in,
    };
    pub use crate::documents::{
        any as any_documents, find_by_ext_id as find_document, insert as insert_document,
    };
    pub use crate::project::{finish_import, record_import, secret, set_settings, settings};
}

impl Store {
    /// The second text of the imported pair a claim row holds, if it is one.
    pub fn pair_text(&self, claim_id: i64) -> Result<Option<String>> {
        beside::of(&self.conn, beside::Beside::PairText, claim_id)
    }

    /// Every imported pair's second text, by claim row id.
    pub fn pair_texts(&self) -> Result<std::collections::HashMap<i64, String>> {
        beside::all(&self.conn, beside::Beside::PairText)
    }

    /// A control item's known answers (JSON), if the claim is one.
    pub fn control_answers(&self, claim_id: i64) -> Result<Option<String>> {
        beside::of(&self.conn, beside::Beside::Control, claim_id)
    }

    /// Every control item's known answers (JSON), by claim row id.
    pub fn all_control_answers(&self) -> Result<std::collections::HashMap<i64, String>> {
        beside::all(&self.conn, beside::Beside::Control)
    }

    pub fn document(&self, id: i64) -> Result<Option<DocumentRow>> {
        documents::get(&self.conn, id)
    }

    /// Claims with documents to rank; with `only_unranked`, those without candidates.
    pub fn claims_to_rank(&self, only_unranked: bool) -> Result<Vec<(i64, String)>> {
        candidates::claims_to_rank(&self.conn, only_unranked)
    }

    pub fn claim_document_ids(&self, claim_id: i64) -> Result<Vec<i64>> {
        candidates::claim_document_ids(&self.conn, claim_id)
    }

    /// (id, text) of the sentences of the given documents.
    pub fn document_sentences(&self, document_ids: &[i64]) -> Result<Vec<(i64, String)>> {
        candidates::document_sentences(&self.conn, document_ids)
    }

    pub fn candidates(&self, claim_id: i64) -> Result<Vec<CandidateRow>> {
        candidates::of_claim(&self.conn, claim_id)
    }

    /// The sentences with these ids (in no particular order; unknown ids are left out),
    /// in one read.
    pub fn sentences(&self, ids: &[i64]) -> Result<Vec<SentenceRow>> {
        evidence::sentences(&self.conn, ids)
    }

    pub fn sentence(&self, id: i64) -> Result<Option<SentenceRow>> {
        documents::sentence(&self.conn, id)
    }
}
