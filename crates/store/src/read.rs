//! The project as something to read: the handle every table function's reads take.
//!
//! A [`Read`] is the store's connection seen from outside this crate: it can be handed to
//! the table functions that read, and to nothing that writes, and it runs no SQL of its
//! own. Writes take a [`Tx`](crate::Tx), which derefs to a `Read`, so a use case reads
//! what its own transaction wrote and cannot write outside one. While a `Tx` is open the
//! store is borrowed by it, so the compiler refuses a read that would bypass it.
//!
//! Reads take the store's `Read`, or a transaction's, which sees its own writes:
//!
//! ```no_run
//! # fn f(store: &mut factdesk_store::Store) -> factdesk_store::Result<()> {
//! use factdesk_store::annotators;
//! let _people = annotators::list(store.read())?;
//! let tx = store.transaction()?;
//! annotators::set_counted(&tx, 1, false)?;
//! let _as_written = annotators::list(&tx)?;
//! tx.commit()
//! # }
//! ```
//!
//! A write refuses a `Read`:
//!
//! ```compile_fail
//! # fn f(store: &mut factdesk_store::Store) -> factdesk_store::Result<()> {
//! factdesk_store::annotators::set_counted(store.read(), 1, false)
//! # }
//! ```
//!
//! A read past an open transaction is refused (the transaction holds the store):
//!
//! ```compile_fail
//! # fn f(store: &mut factdesk_store::Store) -> factdesk_store::Result<()> {
//! use factdesk_store::annotators;
//! let tx = store.transaction()?;
//! annotators::set_counted(&tx, 1, false)?;
//! let _stale = annotators::list(store.read())?;
//! tx.commit()
//! # }
//! ```
//!
//! And a `Read` runs no SQL of its own:
//!
//! ```compile_fail
//! # fn f(store: &factdesk_store::Store) {
//! let _ = store.read().execute("DELETE FROM annotators", []);
//! # }
//! ```

use crate::db::Connection;
use crate::Result;
use std::ops::Deref;

/// The project's connection, to read through (see the module doc).
#[derive(Debug)]
pub struct Read(pub(crate) Connection);

impl Read {
    /// Which engine holds the project.
    pub fn engine(&self) -> crate::Engine {
        self.0.engine()
    }

    /// Round trips to a PostgreSQL server since the connection opened (`None` on a file):
    /// what tests and benches count a use case's cost in.
    pub fn round_trips(&self) -> Option<u64> {
        self.0.round_trips()
    }

    /// The project file a raw SQLite connection has open, read as the table functions
    /// read it: for tests that damage or age a file behind the store's back.
    #[cfg(feature = "raw-sql")]
    pub fn of_sqlite(conn: rusqlite::Connection) -> Read {
        Read(Connection::Sqlite(conn))
    }
}

/// SQL run on a project past its table functions: what tests and benches use to read or
/// damage a project behind the store's back (feature `raw-sql`, which no front end
/// enables). A [`Tx`](crate::Tx) derefs to a [`Read`], so it runs through a transaction too.
#[cfg(feature = "raw-sql")]
pub trait RawSql {
    fn execute<P: crate::db::Params>(&self, sql: &str, params: P) -> crate::db::Result<usize>;
    fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> crate::db::Result<T>
    where
        P: crate::db::Params,
        F: FnOnce(&crate::db::Row<'_>) -> crate::db::Result<T>;
    fn prepare(&self, sql: &str) -> crate::db::Result<crate::db::Statement<'_>>;
    fn execute_batch(&self, sql: &str) -> crate::db::Result<()>;
}

#[cfg(feature = "raw-sql")]
impl RawSql for Read {
    fn execute<P: crate::db::Params>(&self, sql: &str, params: P) -> crate::db::Result<usize> {
        self.0.execute(sql, params)
    }

    fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> crate::db::Result<T>
    where
        P: crate::db::Params,
        F: FnOnce(&crate::db::Row<'_>) -> crate::db::Result<T>,
    {
        self.0.query_row(sql, params, f)
    }

    fn prepare(&self, sql: &str) -> crate::db::Result<crate::db::Statement<'_>> {
        self.0.prepare(sql)
    }

    fn execute_batch(&self, sql: &str) -> crate::db::Result<()> {
        self.0.execute_batch(sql)
    }
}

/// The table functions run their SQL through the connection; outside this crate its
/// SQL methods cannot be reached (they are the crate's own), and its type has no name.
impl Deref for Read {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}

/// A read transaction from [`Store::read_snapshot`](crate::Store::read_snapshot); reads
/// through it as through the store's [`Read`].
#[derive(Debug)]
pub struct Snapshot<'a> {
    read: &'a Read,
    open: bool,
}

impl<'a> Snapshot<'a> {
    /// A read transaction on a file (each read stands alone on PostgreSQL).
    pub(crate) fn begin(read: &'a Read) -> Result<Snapshot<'a>> {
        let open = read.0.sqlite().is_some();
        if open {
            read.0.execute_batch("BEGIN")?;
        }
        Ok(Snapshot { read, open })
    }
}

impl Deref for Snapshot<'_> {
    type Target = Read;
    fn deref(&self) -> &Read {
        self.read
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing was written, so ending the read cannot lose anything.
            if let Err(e) = self.read.0.execute_batch("ROLLBACK") {
                tracing::warn!("ending a read snapshot: {e}");
            }
        }
    }
}
