//! The Factdesk project file.
//!
//! One SQLite file per project (`*.fdesk`), opened with WAL, `synchronous=FULL` and foreign
//! keys on. The schema is embedded and migrated in one transaction; a file written by a
//! newer Factdesk is refused rather than guessed at. Each table has its own module with
//! typed reads and writes; nothing outside this crate writes SQL.

pub mod annotations;
pub mod annotators;
pub mod assignments;
mod candidates;
mod claims;
mod counts;
pub mod decisions;
mod documents;
mod error;
pub mod feed;
mod index;
mod migrate;
pub mod pack_file;
pub mod pack_store;
mod project;
pub mod reviews;
pub mod tasks;

pub use candidates::{CandidateRow, NewCandidate};
pub use claims::{ClaimRow, NewClaim};
pub use counts::Counts;
pub use documents::{DocumentRow, NewDocument, NewSentence, SentenceRow};
pub use error::{Error, Result};
pub use index::{index_dir, Hit, HitKind, IndexBatch, SearchIndex};
pub use migrate::SCHEMA_VERSION;
pub use project::ProjectRow;

use rusqlite::{Connection, OpenFlags, Transaction};
use std::path::{Path, PathBuf};

/// Marks a SQLite file as a Factdesk project (`PRAGMA application_id`, "FDES").
const APPLICATION_ID: i64 = 0x4644_4553;

/// An open project file.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Creates a new, empty project file at `path`. Refuses to overwrite anything.
    pub fn create(path: &Path, name: &str, now_ms: i64) -> Result<Store> {
        if path.exists() {
            return Err(Error::AlreadyExists(path.to_path_buf()));
        }
        let conn = Connection::open(path).map_err(|e| Error::open(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure()?;
        let tx = store.conn.transaction()?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        migrate::apply(&tx, path)?;
        project::insert(&tx, name, now_ms)?;
        tx.commit()?;
        Ok(store)
    }

    /// Opens an existing project file, migrating it to the current schema if it is older.
    pub fn open(path: &Path) -> Result<Store> {
        if !path.is_file() {
            return Err(Error::NotFound(path.to_path_buf()));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::open(path, e))?;
        let app_id: i64 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .map_err(|e| Error::open(path, e))?;
        if app_id != APPLICATION_ID {
            return Err(Error::NotAProject(path.to_path_buf()));
        }
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure()?;
        let tx = store.conn.transaction()?;
        migrate::apply(&tx, path)?;
        tx.commit()?;
        Ok(store)
    }

    fn configure(&mut self) -> Result<()> {
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        self.conn.pragma_update(None, "synchronous", "FULL")?;
        self.conn.pragma_update(None, "foreign_keys", true)?;
        self.conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a write transaction. Everything a use case writes goes through one, so a
    /// crash leaves either all of it or none.
    pub fn transaction(&mut self) -> Result<Transaction<'_>> {
        Ok(self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn project(&self) -> Result<ProjectRow> {
        project::get(&self.conn)
    }

    pub fn counts(&self) -> Result<Counts> {
        counts::get(&self.conn)
    }

    /// Runs SQLite's own consistency check; `Ok(())` when it reports "ok".
    pub fn integrity_check(&self) -> Result<()> {
        let report: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))?;
        if report == "ok" {
            Ok(())
        } else {
            Err(Error::Corrupt(report))
        }
    }
}

pub mod tx {
    //! Writes that take part in a caller's transaction.
    pub use crate::candidates::replace as replace_candidates;
    pub use crate::claims::{
        copy_documents, find_by_ext_id as find_claim, insert as insert_claim, link_document,
        mark_written, set_refutation_state, written_in,
    };
    pub use crate::documents::{find_by_ext_id as find_document, insert as insert_document};
    pub use crate::project::{finish_import, record_import, secret, set_settings};
}

impl Store {
    pub fn claim(&self, id: i64) -> Result<Option<ClaimRow>> {
        claims::get(&self.conn, id)
    }

    pub fn claim_by_ext_id(&self, ext_id: &str) -> Result<Option<ClaimRow>> {
        claims::get_by_ext_id(&self.conn, ext_id)
    }

    /// Claims in import order, `limit` at a time.
    pub fn claims_page(&self, offset: u64, limit: u64) -> Result<Vec<ClaimRow>> {
        claims::page(&self.conn, offset, limit)
    }

    /// The refutations written for or imported with a claim.
    pub fn claim_children(&self, parent_id: i64) -> Result<Vec<ClaimRow>> {
        claims::children(&self.conn, parent_id)
    }

    /// Claims that refute no other claim, in import order.
    pub fn root_claims(&self) -> Result<Vec<ClaimRow>> {
        claims::roots(&self.conn)
    }

    /// How many written refutations are in each state.
    pub fn refutation_states(&self) -> Result<Vec<(factdesk_core::claim::RefutationState, u64)>> {
        claims::refutation_states(&self.conn)
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

    pub fn sentence(&self, id: i64) -> Result<Option<SentenceRow>> {
        documents::sentence(&self.conn, id)
    }
}
