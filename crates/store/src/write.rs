//! A write transaction as the rest of Factdesk sees it: the connection every table
//! function takes, and a commit whose error is the store's own, so no caller names a
//! database driver.

use crate::db::Connection;
use crate::Read;
use crate::Result;
use rusqlite::OptionalExtension;
use std::ops::Deref;

/// A write transaction taken at once (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN and the
/// project's write lock); dropped without [`Tx::commit`], it rolls back.
#[derive(Debug)]
pub struct Tx<'a> {
    conn: &'a Read,
    open: bool,
    /// SQLite only: the tables whose references are checked all at once before the
    /// commit rather than row by row (see [`Tx::begin_bulk`]).
    references_at_commit: Option<&'static [&'static str]>,
}

impl<'a> Tx<'a> {
    /// The transaction just begun on `conn`.
    fn opened(conn: &'a Read, references_at_commit: Option<&'static [&'static str]>) -> Tx<'a> {
        Tx {
            conn,
            open: true,
            references_at_commit,
        }
    }

    pub(crate) fn begin(conn: &'a mut Read) -> Result<Tx<'a>> {
        match &conn.0 {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin()?,
        }
        Ok(Tx::opened(conn, None))
    }

    /// A decision of one annotator (SQLite: BEGIN IMMEDIATE, as [`Tx::begin`];
    /// PostgreSQL: the write lock shared with other decisions and the annotator's row).
    pub(crate) fn begin_decision(conn: &'a mut Read, annotator_id: i64) -> Result<Tx<'a>> {
        match &conn.0 {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin_decision(annotator_id)?,
        }
        Ok(Tx::opened(conn, None))
    }

    /// On SQLite, a transaction that takes its write lock only when it first writes
    /// (BEGIN DEFERRED), as opening a file has always done.
    pub(crate) fn begin_deferred(conn: &'a mut Read) -> Result<Tx<'a>> {
        match &conn.0 {
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
        match &self.conn.0 {
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
    /// The file stays in WAL: a first import through SQLite's rollback journal would
    /// write its pages once instead of twice, but until its commit the project file alone
    /// (copied, synced, or opened read-only without its journal) would read as damaged
    /// (docs/performance.md, session 11).
    pub(crate) fn begin_bulk(
        conn: &'a mut Read,
        tables: &'static [&'static str],
    ) -> Result<Tx<'a>> {
        let Connection::Sqlite(c) = &conn.0 else {
            return Tx::begin(conn);
        };
        c.pragma_update(None, "foreign_keys", false)?;
        if let Err(e) = c.execute_batch("BEGIN IMMEDIATE") {
            let _ = c.pragma_update(None, "foreign_keys", true);
            return Err(e.into());
        }
        Ok(Tx::opened(conn, Some(tables)))
    }

    /// Makes everything written in the transaction durable.
    pub fn commit(mut self) -> Result<()> {
        match &self.conn.0 {
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
            let _ = match &self.conn.0 {
                Connection::Sqlite(c) if c.is_autocommit() => Ok(()),
                Connection::Sqlite(c) => c.execute_batch("ROLLBACK").map_err(Into::into),
                Connection::Postgres(c) => c.rollback(),
            };
        }
        // Committed or not, the connection checks each row's references again.
        if let (Connection::Sqlite(c), Some(_)) = (&self.conn.0, self.references_at_commit) {
            if let Err(e) = c.pragma_update(None, "foreign_keys", true) {
                tracing::error!("could not turn foreign keys back on after a bulk write: {e}");
            }
        }
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
    type Target = Read;
    fn deref(&self) -> &Read {
        self.conn
    }
}

#[cfg(test)]
mod tests {
    use crate::Read;
    use crate::Store;

    fn foreign_keys(conn: &Read) -> bool {
        conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn sentence_to(conn: &Read, document_id: i64) -> crate::db::Result<usize> {
        conn.execute(
            "INSERT INTO sentences (document_id, idx, start_char, end_char, text) VALUES (?1, 0, 0, 1, 'x')",
            [document_id],
        )
    }

    fn document(conn: &Read) {
        conn.execute(
            "INSERT INTO documents (id, ext_id, text, hash) VALUES (1, 'd1', 'x', 'h')",
            [],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }

    fn sentences(conn: &Read) -> i64 {
        conn.query_row("SELECT count(*) FROM sentences", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn bulk(store: &mut Store) -> crate::Tx<'_> {
        store
            .bulk_transaction(&["sentences"])
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Opening a project that another connection holds whole waits for it, then says the
    /// project is busy, as a transient error, rather than "database is locked".
    #[test]
    fn opening_a_project_held_whole_says_it_is_busy() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.fdesk");
        drop(Store::create(&path, "p", 0).unwrap_or_else(|e| panic!("{e}")));
        let holder = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        // SQLite's exclusive locking mode keeps the file's lock after the transaction.
        holder
            .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
            .unwrap_or_else(|e| panic!("{e}"));
        let error = Store::open(&path).err().unwrap_or_else(|| panic!("opened"));
        assert!(matches!(error, crate::Error::Busy(_)), "{error:?}");
        assert!(error.is_transient());
        assert!(error.to_string().contains("is busy"), "{error}");
        drop(holder);
        Store::open(&path).unwrap_or_else(|e| panic!("{e}"));
    }

    /// A bulk transaction checks references once, at its commit: a row pointing at a
    /// missing row fails the commit, names the tables, and leaves nothing written; after
    /// it, committed or not, the connection checks every row again.
    #[test]
    fn a_bulk_write_refusing_a_missing_reference_at_commit_writes_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        assert!(foreign_keys(store.read()));
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
        assert_eq!(sentences(store.read()), 0);
        assert!(foreign_keys(store.read()));
        assert!(
            sentence_to(store.read(), 42).is_err(),
            "checked row by row again"
        );

        // Dropped without a commit: rolled back, and checking row by row again.
        let tx = bulk(&mut store);
        document(&tx);
        drop(tx);
        assert!(foreign_keys(store.read()));

        let tx = bulk(&mut store);
        document(&tx);
        sentence_to(&tx, 1).unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sentences(store.read()), 1);
        assert!(foreign_keys(store.read()));
        assert!(
            sentence_to(store.read(), 42).is_err(),
            "checked row by row again"
        );
    }
}
