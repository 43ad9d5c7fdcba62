//! A write transaction as the rest of Factdesk sees it: the connection every table
//! function takes, and a commit whose error is the store's own, so no caller names a
//! database driver.

use crate::db::Connection;
use crate::Result;
use rusqlite::OptionalExtension;
use std::ops::Deref;

/// A write transaction taken at once (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN and the
/// project's write lock); dropped without [`Tx::commit`], it rolls back.
#[derive(Debug)]
pub struct Tx<'a> {
    conn: &'a Connection,
    open: bool,
    /// SQLite only: the tables whose references are checked all at once before the
    /// commit rather than row by row (see [`Tx::begin_bulk`]).
    references_at_commit: Option<&'static [&'static str]>,
    /// SQLite only: the transaction writes through a rollback journal, and the file goes
    /// back to WAL when it ends (see [`Tx::begin_bulk`]).
    rollback_journal: bool,
}

impl<'a> Tx<'a> {
    /// The transaction just begun on `conn`.
    fn opened(
        conn: &'a Connection,
        references_at_commit: Option<&'static [&'static str]>,
    ) -> Tx<'a> {
        Tx {
            conn,
            open: true,
            references_at_commit,
            rollback_journal: false,
        }
    }

    pub(crate) fn begin(conn: &'a mut Connection) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin()?,
        }
        Ok(Tx::opened(conn, None))
    }

    /// A decision of one annotator (SQLite: BEGIN IMMEDIATE, as [`Tx::begin`];
    /// PostgreSQL: the write lock shared with other decisions and the annotator's row).
    pub(crate) fn begin_decision(conn: &'a mut Connection, annotator_id: i64) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin_decision(annotator_id)?,
        }
        Ok(Tx::opened(conn, None))
    }

    /// On SQLite, a transaction that takes its write lock only when it first writes
    /// (BEGIN DEFERRED), as opening a file has always done.
    pub(crate) fn begin_deferred(conn: &'a mut Connection) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN DEFERRED")?,
            Connection::Postgres(c) => c.begin()?,
        }
        Ok(Tx::opened(conn, None))
    }

    /// Declares a bulk write (an import, creating tasks): on PostgreSQL the rows the table
    /// functions insert from now on are sent with COPY, a batch at a time, before any
    /// other statement of the transaction runs and before the commit, so every statement
    /// still sees every row written before it. Nothing changes on SQLite, whose inserts
    /// are calls within the process.
    pub fn bulk_writes(&self) -> Result<()> {
        match self.conn {
            Connection::Sqlite(_) => Ok(()),
            Connection::Postgres(c) => Ok(c.start_copying()?),
        }
    }

    /// A write transaction for bulk writes (a new project's first import). On SQLite the
    /// foreign keys of `tables` are checked once, over those whole tables, before the
    /// commit, instead of one lookup per written row: the same guarantee for rows written
    /// into them (nothing is committed that refers to a missing row), for about a fifth
    /// of an import's writing time. Only this connection is affected, and only until the
    /// transaction ends. It is for inserting rows into `tables`: a delete of a row that
    /// other tables refer to is not checked, and `ON DELETE` actions do not run. The
    /// check reads the whole of each table, so it suits a project whose rows are mostly
    /// this transaction's.
    ///
    /// When no other connection has the file open, the transaction also writes through
    /// SQLite's rollback journal rather than the WAL, and the file returns to WAL when the
    /// transaction ends. Pages new to the file are then written into it once, where the
    /// WAL writes each twice (into the log, and again when the checkpoint copies it in):
    /// an import's hundreds of megabytes. A crash is undone from the journal when the file
    /// is next opened, as a crash in WAL is undone from the log. Other connections cannot
    /// read the file meanwhile; they wait, as for any write lock.
    pub(crate) fn begin_bulk(
        conn: &'a mut Connection,
        tables: &'static [&'static str],
    ) -> Result<Tx<'a>> {
        let Connection::Sqlite(c) = &*conn else {
            return Tx::begin(conn);
        };
        let rollback_journal = leave_wal(c);
        let begun = c
            .pragma_update(None, "foreign_keys", false)
            .and_then(|()| c.execute_batch("BEGIN IMMEDIATE"));
        if let Err(e) = begun {
            let _ = c.pragma_update(None, "foreign_keys", true);
            if rollback_journal {
                back_to_wal(c);
            }
            return Err(e.into());
        }
        let mut tx = Tx::opened(conn, Some(tables));
        tx.rollback_journal = rollback_journal;
        Ok(tx)
    }

    /// Makes everything written in the transaction durable.
    pub fn commit(mut self) -> Result<()> {
        match self.conn {
            Connection::Sqlite(c) => {
                if let Some(tables) = self.references_at_commit {
                    check_references(c, tables)?;
                }
                c.execute_batch("COMMIT")?
            }
            Connection::Postgres(c) => {
                // PostgreSQL ends the transaction whether or not the commit succeeds.
                self.open = false;
                c.commit()?
            }
        }
        self.open = false;
        Ok(())
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // As rusqlite's transaction does: nothing to undo once SQLite has ended it.
            let _ = match self.conn {
                Connection::Sqlite(c) if c.is_autocommit() => Ok(()),
                Connection::Sqlite(c) => c.execute_batch("ROLLBACK").map_err(Into::into),
                Connection::Postgres(c) => c.rollback(),
            };
        }
        // Committed or not, the connection checks each row's references again.
        if let (Connection::Sqlite(c), Some(_)) = (self.conn, self.references_at_commit) {
            if let Err(e) = c.pragma_update(None, "foreign_keys", true) {
                tracing::error!("could not turn foreign keys back on after a bulk write: {e}");
            }
            if self.rollback_journal {
                back_to_wal(c);
            }
        }
    }
}

/// Switches `c`'s file from WAL to a rollback journal, if no other connection has it
/// open; false (and still WAL) otherwise.
fn leave_wal(c: &rusqlite::Connection) -> bool {
    // SQLite refuses the switch while another connection is open; waiting for it to
    // close would only delay the import, which then runs in WAL.
    if c.busy_timeout(std::time::Duration::ZERO).is_err() {
        return false;
    }
    let mode = c.query_row("PRAGMA journal_mode=DELETE", [], |r| r.get::<_, String>(0));
    if let Err(e) = c.busy_timeout(crate::BUSY_TIMEOUT) {
        tracing::warn!("could not restore the busy timeout: {e}");
    }
    matches!(mode.as_deref(), Ok("delete"))
}

/// Switches `c`'s file back to WAL after a bulk write. Should that fail (another
/// connection came meanwhile), the file stays in rollback mode until it is next opened,
/// which sets WAL again.
fn back_to_wal(c: &rusqlite::Connection) {
    match c.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)) {
        Ok(mode) if mode == "wal" => {}
        Ok(mode) => tracing::warn!("the project stays in journal mode {mode} until reopened"),
        Err(e) => tracing::warn!("the project stays in rollback mode until reopened: {e}"),
    }
}

/// Fails, naming the first row found, if a row of `tables` refers to a row that is not
/// there.
fn check_references(c: &rusqlite::Connection, tables: &[&str]) -> Result<()> {
    for table in tables {
        let missing: Option<(String, Option<i64>, String)> = c
            .query_row(
                "SELECT \"table\", rowid, parent FROM pragma_foreign_key_check(?1) LIMIT 1",
                [table],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((table, rowid, parent)) = missing {
            return Err(crate::Error::BadValue {
                row: match rowid {
                    Some(id) => format!("{table} row {id}"),
                    None => format!("a {table} row"),
                },
                reason: format!(
                    "refers to a {parent} row that does not exist (the project file is damaged, or this is a bug); nothing was written"
                ),
            });
        }
    }
    Ok(())
}

impl Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}

#[cfg(test)]
mod tests {
    use crate::db::Connection;
    use crate::Store;

    fn foreign_keys(conn: &Connection) -> bool {
        conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn sentence_to(conn: &Connection, document_id: i64) -> crate::db::Result<usize> {
        conn.execute(
            "INSERT INTO sentences (document_id, idx, start_char, end_char, text) VALUES (?1, 0, 0, 1, 'x')",
            [document_id],
        )
    }

    fn document(conn: &Connection) {
        conn.execute(
            "INSERT INTO documents (id, ext_id, text, hash) VALUES (1, 'd1', 'x', 'h')",
            [],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }

    fn sentences(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM sentences", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn bulk(store: &mut Store) -> crate::Tx<'_> {
        store
            .bulk_transaction(&["sentences"])
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A bulk write of a document and one sentence, committed.
    fn commit_a_sentence(store: &mut Store) {
        let tx = bulk(store);
        document(&tx);
        sentence_to(&tx, 1).unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
    }

    fn journal_mode(conn: &Connection) -> String {
        conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Alone on its file, a bulk transaction writes through a rollback journal and the
    /// file is back in WAL when it ends, committed or not; with another connection open
    /// (the app's reader, a second process) it stays in WAL and still writes.
    #[test]
    fn a_bulk_write_alone_on_its_file_leaves_wal_only_while_it_lasts() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.fdesk");
        let mut store = Store::create(&path, "p", 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(journal_mode(store.conn()), "wal");
        let tx = bulk(&mut store);
        document(&tx);
        assert_eq!(journal_mode(&tx), "delete");
        drop(tx);
        assert_eq!(journal_mode(store.conn()), "wal");
        assert_eq!(sentences(store.conn()), 0);

        commit_a_sentence(&mut store);
        assert_eq!(journal_mode(store.conn()), "wal");
        assert_eq!(sentences(store.conn()), 1);

        let other = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let read = |c: &rusqlite::Connection| -> i64 {
            c.query_row("SELECT count(*) FROM sentences", [], |r| r.get(0))
                .unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(read(&other), 1);
        let tx = bulk(&mut store);
        assert_eq!(journal_mode(&tx), "wal");
        tx.execute(
            "INSERT INTO sentences (document_id, idx, start_char, end_char, text) VALUES (1, 1, 0, 1, 'y')",
            [],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&other), 1, "the other connection still reads, in WAL");
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&other), 2);
        assert_eq!(journal_mode(store.conn()), "wal");
    }

    /// Opening a project while a first import holds the whole file waits for it, and
    /// then says the project is busy, as a transient error, rather than "database is
    /// locked".
    #[test]
    fn opening_during_a_first_import_says_the_project_is_busy() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.fdesk");
        let mut store = Store::create(&path, "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let tx = bulk(&mut store);
        // As an import does once SQLite spills its cache into the file.
        tx.execute_batch("PRAGMA locking_mode = EXCLUSIVE")
            .unwrap_or_else(|e| panic!("{e}"));
        document(&tx);
        tx.query_row("PRAGMA schema_version", [], |r| r.get::<_, i64>(0))
            .unwrap_or_else(|e| panic!("{e}"));
        let error = Store::open(&path).err().unwrap_or_else(|| panic!("opened"));
        assert!(matches!(error, crate::Error::Busy(_)), "{error:?}");
        assert!(error.is_transient());
        assert!(error.to_string().contains("is busy"), "{error}");
        drop(tx);
    }

    /// A bulk transaction checks references once, at its commit: a row pointing at a
    /// missing row fails the commit, names the tables, and leaves nothing written; after
    /// it, committed or not, the connection checks every row again.
    #[test]
    fn a_bulk_write_refusing_a_missing_reference_at_commit_writes_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        assert!(foreign_keys(store.conn()));
        let tx = bulk(&mut store);
        assert!(!foreign_keys(&tx));
        document(&tx);
        sentence_to(&tx, 42).unwrap_or_else(|e| panic!("taken row by row: {e}"));
        let error = tx.commit().err().unwrap_or_else(|| panic!("committed"));
        let message = error.to_string();
        assert!(
            message.contains("sentences row") && message.contains("documents"),
            "{message}"
        );
        assert_eq!(sentences(store.conn()), 0);
        assert!(foreign_keys(store.conn()));
        assert!(
            sentence_to(store.conn(), 42).is_err(),
            "checked row by row again"
        );

        // Dropped without a commit: rolled back, and checking row by row again.
        let tx = bulk(&mut store);
        document(&tx);
        drop(tx);
        assert!(foreign_keys(store.conn()));

        commit_a_sentence(&mut store);
        assert_eq!(sentences(store.conn()), 1);
        assert!(foreign_keys(store.conn()));
        assert!(
            sentence_to(store.conn(), 42).is_err(),
            "checked row by row again"
        );
    }
}
