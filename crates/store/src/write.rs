//! A write transaction as the rest of Factdesk sees it: the connection every table
//! function takes, and a commit whose error is the store's own, so no caller names a
//! database driver.

use crate::db::Connection;
use crate::Result;
use std::ops::Deref;

/// A write transaction taken at once (SQLite: BEGIN IMMEDIATE; PostgreSQL: BEGIN and the
/// project's write lock); dropped without [`Tx::commit`], it rolls back.
#[derive(Debug)]
pub struct Tx<'a> {
    conn: &'a Connection,
    open: bool,
}

impl<'a> Tx<'a> {
    pub(crate) fn begin(conn: &'a mut Connection) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin()?,
        }
        Ok(Tx { conn, open: true })
    }

    /// A decision of one annotator (SQLite: BEGIN IMMEDIATE, as [`Tx::begin`];
    /// PostgreSQL: the write lock shared with other decisions and the annotator's row).
    pub(crate) fn begin_decision(conn: &'a mut Connection, annotator_id: i64) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Connection::Postgres(c) => c.begin_decision(annotator_id)?,
        }
        Ok(Tx { conn, open: true })
    }

    /// On SQLite, a transaction that takes its write lock only when it first writes
    /// (BEGIN DEFERRED), as opening a file has always done.
    pub(crate) fn begin_deferred(conn: &'a mut Connection) -> Result<Tx<'a>> {
        match &*conn {
            Connection::Sqlite(c) => c.execute_batch("BEGIN DEFERRED")?,
            Connection::Postgres(c) => c.begin()?,
        }
        Ok(Tx { conn, open: true })
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

    /// Makes everything written in the transaction durable.
    pub fn commit(mut self) -> Result<()> {
        match self.conn {
            Connection::Sqlite(c) => c.execute_batch("COMMIT")?,
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
        if !self.open {
            return;
        }
        // As rusqlite's transaction does: nothing to undo once SQLite has ended it.
        let _ = match self.conn {
            Connection::Sqlite(c) if c.is_autocommit() => Ok(()),
            Connection::Sqlite(c) => c.execute_batch("ROLLBACK").map_err(Into::into),
            Connection::Postgres(c) => c.rollback(),
        };
    }
}

impl Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
    }
}
