//! The connection every per-table function takes, over either engine: an embedded SQLite
//! file or a PostgreSQL database.
//!
//! It mirrors the few rusqlite calls the table modules make (execute, query_row,
//! prepare/query_map, optional, last_insert_rowid), so a module is written once. On SQLite
//! each call is rusqlite's own, with rusqlite's own parameter binding and value conversion,
//! so a project file behaves exactly as before. On PostgreSQL the statement's `?N`
//! placeholders and the few SQLite-only spellings are translated once per statement (see
//! [`pg`]), parameters travel with the types their values have, and each column is read
//! back as the SQLite value it would have been, then converted by rusqlite's own rules.

mod pg;
mod pg_copy;
mod pg_value;

pub use pg::PgConn;
pub use pg_copy::CopyRow;

use std::fmt;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which engine holds a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// A failure reported by the engine, or a value that did not convert.
#[derive(Debug)]
pub enum Error {
    /// From rusqlite, and value conversions on either engine (they are rusqlite's).
    Sqlite(rusqlite::Error),
    Postgres(postgres::Error),
    /// A store error raised inside a row mapping (see `typed`).
    Carried(Box<crate::Error>),
    /// A statement found no row where one was required.
    NoRows,
    /// A PostgreSQL transaction that could not be committed, or a value it cannot take.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Sqlite(e) => e.fmt(f),
            Error::Postgres(e) => match (e.as_db_error(), std::error::Error::source(e)) {
                (Some(db), _) => f.write_str(db.message()),
                (None, Some(cause)) => write!(f, "{e}: {cause}"),
                (None, None) => e.fmt(f),
            },
            Error::Carried(e) => e.fmt(f),
            Error::NoRows => rusqlite::Error::QueryReturnedNoRows.fmt(f),
            Error::Failed(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        match e {
            rusqlite::Error::QueryReturnedNoRows => Error::NoRows,
            e => Error::Sqlite(e),
        }
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Error {
        Error::Postgres(e)
    }
}

/// `Ok(None)` for a statement that found no row, as rusqlite's extension of that name.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(Error::NoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A statement's parameters: rusqlite's values, bound positionally from `?1`.
pub trait Params {
    fn with_values<R>(self, f: impl FnOnce(&[&dyn rusqlite::ToSql]) -> R) -> R;
}

impl Params for &[&dyn rusqlite::ToSql] {
    fn with_values<R>(self, f: impl FnOnce(&[&dyn rusqlite::ToSql]) -> R) -> R {
        f(self)
    }
}

impl Params for [&dyn rusqlite::ToSql; 0] {
    fn with_values<R>(self, f: impl FnOnce(&[&dyn rusqlite::ToSql]) -> R) -> R {
        f(&[])
    }
}

macro_rules! array_params {
    ($($n:literal),*) => {$(
        impl<T: rusqlite::ToSql> Params for [T; $n] {
            fn with_values<R>(self, f: impl FnOnce(&[&dyn rusqlite::ToSql]) -> R) -> R {
                let refs: Vec<&dyn rusqlite::ToSql> =
                    self.iter().map(|v| v as &dyn rusqlite::ToSql).collect();
                f(&refs)
            }
        }
    )*};
}
array_params!(1, 2, 3, 4, 5, 6, 7, 8);

/// Parameters from an iterator, as rusqlite's function of that name.
#[derive(Debug)]
pub struct ParamsFromIter<I>(I);

pub fn params_from_iter<I>(iter: I) -> ParamsFromIter<I>
where
    I: IntoIterator,
    I::Item: rusqlite::ToSql,
{
    ParamsFromIter(iter)
}

impl<I> Params for ParamsFromIter<I>
where
    I: IntoIterator,
    I::Item: rusqlite::ToSql,
{
    fn with_values<R>(self, f: impl FnOnce(&[&dyn rusqlite::ToSql]) -> R) -> R {
        let owned: Vec<I::Item> = self.0.into_iter().collect();
        let refs: Vec<&dyn rusqlite::ToSql> =
            owned.iter().map(|v| v as &dyn rusqlite::ToSql).collect();
        f(&refs)
    }
}

/// rusqlite's macro of the same name, for this module's [`Params`].
#[macro_export]
macro_rules! params {
    () => {
        &[] as &[&dyn rusqlite::ToSql]
    };
    ($($param:expr),+ $(,)?) => {
        &[$(&$param as &dyn rusqlite::ToSql),+] as &[&dyn rusqlite::ToSql]
    };
}

/// An open connection to a project's database.
#[derive(Debug)]
pub enum Connection {
    Sqlite(rusqlite::Connection),
    Postgres(Box<PgConn>),
}

impl Connection {
    pub fn engine(&self) -> Engine {
        match self {
            Connection::Sqlite(_) => Engine::Sqlite,
            Connection::Postgres(_) => Engine::Postgres,
        }
    }

    /// The PostgreSQL connection while its transaction buffers inserted rows for COPY
    /// (see [`Tx::bulk_writes`](crate::Tx::bulk_writes)): the table functions that
    /// support it then stage their rows there.
    pub(crate) fn copying(&self) -> Option<&PgConn> {
        match self {
            Connection::Postgres(c) if c.is_copying() => Some(c),
            _ => None,
        }
    }

    /// Round trips this connection made to a PostgreSQL server since it opened (`None`
    /// on a file, whose statements are calls within the process): what tests and benches
    /// count a use case's cost in.
    pub fn round_trips(&self) -> Option<u64> {
        match self {
            Connection::Sqlite(_) => None,
            Connection::Postgres(c) => Some(c.round_trips()),
        }
    }

    /// The SQLite connection, for what only a file has (pragmas, integrity check).
    pub(crate) fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match self {
            Connection::Sqlite(c) => Some(c),
            Connection::Postgres(_) => None,
        }
    }

    /// The SQLite connection, or an error naming what needs one.
    pub(crate) fn sqlite_only(&self, what: &str) -> Result<&rusqlite::Connection> {
        self.sqlite()
            .ok_or_else(|| Error::Failed(format!("{what} needs a project file")))
    }

    pub(crate) fn execute<P: Params>(&self, sql: &str, params: P) -> Result<usize> {
        match self {
            Connection::Sqlite(c) => {
                params.with_values(|v| Ok(c.execute(sql, rusqlite::params_from_iter(v.iter()))?))
            }
            Connection::Postgres(c) => params.with_values(|v| c.execute(sql, v)),
        }
    }

    pub(crate) fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        self.prepare(sql)?.query_row(params, f)
    }

    pub(crate) fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement(match self {
            Connection::Sqlite(c) => Inner::Sqlite(c.prepare(sql)?),
            Connection::Postgres(c) => Inner::Postgres(c.as_ref(), c.statement(sql)),
        }))
    }

    /// A statement kept prepared for the life of the connection.
    pub(crate) fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        Ok(Statement(match self {
            Connection::Sqlite(c) => Inner::SqliteCached(c.prepare_cached(sql)?),
            Connection::Postgres(c) => Inner::Postgres(c.as_ref(), c.statement(sql)),
        }))
    }

    /// The id of the row the last INSERT on this connection added.
    pub(crate) fn last_insert_rowid(&self) -> Result<i64> {
        match self {
            Connection::Sqlite(c) => Ok(c.last_insert_rowid()),
            Connection::Postgres(c) => c.last_insert_id(),
        }
    }

    /// Runs several statements, without parameters.
    pub(crate) fn execute_batch(&self, sql: &str) -> Result<()> {
        match self {
            Connection::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Connection::Postgres(c) => c.batch(sql),
        }
    }
}

/// A prepared statement.
pub struct Statement<'c>(Inner<'c>);

impl fmt::Debug for Statement<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Statement")
    }
}

enum Inner<'c> {
    Sqlite(rusqlite::Statement<'c>),
    SqliteCached(rusqlite::CachedStatement<'c>),
    Postgres(&'c PgConn, std::sync::Arc<pg::Translated>),
}

impl<'c> Statement<'c> {
    fn sqlite(&mut self) -> Option<&mut rusqlite::Statement<'c>> {
        match &mut self.0 {
            Inner::Sqlite(s) => Some(s),
            Inner::SqliteCached(s) => Some(s),
            Inner::Postgres(..) => None,
        }
    }

    pub fn parameter_count(&self) -> usize {
        match &self.0 {
            Inner::Sqlite(s) => s.parameter_count(),
            Inner::SqliteCached(s) => s.parameter_count(),
            Inner::Postgres(_, t) => t.parameters,
        }
    }

    pub fn execute<P: Params>(&mut self, params: P) -> Result<usize> {
        if let Inner::Postgres(c, t) = &self.0 {
            return params.with_values(|v| c.execute_translated(t, v));
        }
        let Some(s) = self.sqlite() else {
            return Err(Error::NoRows);
        };
        params.with_values(|v| Ok(s.execute(rusqlite::params_from_iter(v.iter()))?))
    }

    pub fn query_row<T, P, F>(&mut self, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        let mut rows = self.query(params)?;
        match rows.next()? {
            Some(r) => f(&r),
            None => Err(Error::NoRows),
        }
    }

    pub fn query<P: Params>(&mut self, params: P) -> Result<Rows<'_>> {
        if let Inner::Postgres(c, t) = &self.0 {
            let rows = params.with_values(|v| c.query_translated(t, v))?;
            return Ok(Rows(RowsInner::Postgres(rows, 0)));
        }
        let Some(s) = self.sqlite() else {
            return Err(Error::NoRows);
        };
        let rows = params.with_values(|v| s.query(rusqlite::params_from_iter(v.iter())))?;
        Ok(Rows(RowsInner::Sqlite(rows)))
    }

    pub fn query_map<T, P, F>(&mut self, params: P, f: F) -> Result<MappedRows<'_, F>>
    where
        P: Params,
        F: FnMut(&Row<'_>) -> Result<T>,
    {
        Ok(MappedRows {
            rows: self.query(params)?,
            f,
        })
    }
}

/// The rows a query returns, read one at a time.
pub struct Rows<'s>(RowsInner<'s>);

enum RowsInner<'s> {
    Sqlite(rusqlite::Rows<'s>),
    Postgres(Vec<postgres::Row>, usize),
}

impl fmt::Debug for Rows<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Rows")
    }
}

impl Rows<'_> {
    #[allow(clippy::should_implement_trait)] // rows borrow from the cursor: not an iterator
    pub fn next(&mut self) -> Result<Option<Row<'_>>> {
        match &mut self.0 {
            RowsInner::Sqlite(rows) => Ok(rows.next()?.map(Row::Sqlite)),
            RowsInner::Postgres(rows, at) => {
                let row = rows.get(*at);
                *at += 1;
                Ok(row.map(Row::Postgres))
            }
        }
    }
}

/// Rows mapped through a function, as rusqlite's `query_map` returns them.
pub struct MappedRows<'s, F> {
    rows: Rows<'s>,
    f: F,
}

impl<F> fmt::Debug for MappedRows<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MappedRows")
    }
}

impl<T, F> Iterator for MappedRows<'_, F>
where
    F: FnMut(&Row<'_>) -> Result<T>,
{
    type Item = Result<T>;
    fn next(&mut self) -> Option<Result<T>> {
        let f = &mut self.f;
        match self.rows.next() {
            Ok(Some(r)) => Some(f(&r)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// A column's position, from 0.
pub trait RowIndex {
    fn index(self) -> usize;
}

impl RowIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// One row of a result.
#[derive(Debug)]
pub enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

impl Row<'_> {
    /// The value in column `idx` (from 0), converted by rusqlite's rules on either engine.
    pub fn get<I: RowIndex, T: rusqlite::types::FromSql>(&self, idx: I) -> Result<T> {
        let idx = idx.index();
        match self {
            Row::Sqlite(r) => Ok(r.get(idx)?),
            Row::Postgres(r) => pg_value::get(r, idx),
        }
    }

    /// How many columns the row has.
    #[cfg(any(test, feature = "raw-sql"))]
    pub fn column_count(&self) -> usize {
        match self {
            Row::Sqlite(r) => r.as_ref().column_count(),
            Row::Postgres(r) => r.len(),
        }
    }

    /// The name of column `idx`.
    #[cfg(any(test, feature = "raw-sql"))]
    pub fn column_name(&self, idx: usize) -> Option<String> {
        match self {
            Row::Sqlite(r) => r.as_ref().column_name(idx).ok().map(str::to_string),
            Row::Postgres(r) => r.columns().get(idx).map(|c| c.name().to_string()),
        }
    }

    /// The raw value in column `idx`.
    pub fn get_ref(&self, idx: usize) -> Result<rusqlite::types::ValueRef<'_>> {
        match self {
            Row::Sqlite(r) => Ok(r.get_ref(idx)?),
            Row::Postgres(r) => pg_value::get_ref(r, idx),
        }
    }
}
