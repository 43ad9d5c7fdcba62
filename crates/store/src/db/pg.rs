//! The PostgreSQL side of [`super::Connection`]: statements written for SQLite, translated
//! once each, prepared with the types their parameters' values have, run in write
//! transactions that take the project's write lock first: whole (the lead's bulk changes)
//! or shared (one annotator's decisions, which row locks order among themselves).

use super::pg_value::PgParam;
use super::{Error, Result};
use postgres::error::SqlState;
use postgres::types::Type;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Every write transaction takes this transaction-scoped advisory lock first. A change
/// that spans the project (settings, task creation, adjudication, packs, import,
/// migrations) takes it whole, so it runs alone as on SQLite (BEGIN IMMEDIATE) and sees
/// every earlier write committed. An annotator's decision (next, skip, an answer) takes
/// it shared: decisions run side by side, each holding its annotator's row and the task
/// rows it decides on (see `tasks::lock`), and wait only for a project-wide change.
/// Readers are never blocked.
const WRITE_LOCK: i64 = 0x4644_4553;

/// Prepared statements kept per connection, past which the cache starts afresh (statements
/// with a list of `?` of varying length would otherwise grow it without bound).
const CACHE_LIMIT: usize = 512;

/// A statement in PostgreSQL's dialect.
#[derive(Debug)]
pub(crate) struct Translated {
    pub(crate) sql: String,
    pub(crate) parameters: usize,
}

/// A connection to a PostgreSQL project database.
pub struct PgConn {
    pub(super) client: RefCell<postgres::Client>,
    /// What it connected with, for a listener of its own (`crate::listen`).
    config: postgres::Config,
    /// Rows buffered for COPY (see `pg_copy`), while a bulk write is under way.
    pub(super) copying: RefCell<Option<super::pg_copy::Copying>>,
    translated: RefCell<HashMap<String, Arc<Translated>>>,
    prepared: RefCell<HashMap<(String, Vec<u32>), postgres::Statement>>,
    in_transaction: Cell<bool>,
    /// Round trips to the server so far (statements, batches, COPYs), for measuring what
    /// a use case costs.
    round_trips: Cell<u64>,
    failed: Cell<bool>,
    /// The current transaction was aborted by PostgreSQL to break a deadlock or a
    /// serialization conflict: running the same decision again can succeed.
    conflicted: Cell<bool>,
}

impl fmt::Debug for PgConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PgConn")
    }
}

impl PgConn {
    /// Connects to the database a URL names. A URL without a password takes PGPASSWORD's,
    /// as PostgreSQL's own tools do, so no password need appear on a command line.
    pub fn connect(url: &str) -> Result<PgConn> {
        let mut config: postgres::Config = url.parse()?;
        if config.get_password().is_none() {
            if let Some(password) = std::env::var_os("PGPASSWORD") {
                config.password(password.as_encoded_bytes());
            }
        }
        let client = config.connect(postgres::NoTls)?;
        Ok(PgConn {
            client: RefCell::new(client),
            config,
            copying: RefCell::default(),
            translated: RefCell::default(),
            prepared: RefCell::default(),
            in_transaction: Cell::new(false),
            round_trips: Cell::new(0),
            failed: Cell::new(false),
            conflicted: Cell::new(false),
        })
    }

    /// The settings it connected with (the password taken from PGPASSWORD included).
    pub(crate) fn config(&self) -> &postgres::Config {
        &self.config
    }

    pub(crate) fn statement(&self, sql: &str) -> Arc<Translated> {
        if let Some(t) = self.translated.borrow().get(sql) {
            return t.clone();
        }
        let t = Arc::new(translate(sql));
        let mut cache = self.translated.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(sql.to_string(), t.clone());
        t
    }

    /// Round trips to the server since the connection opened (preparing a statement the
    /// connection had not prepared yet counts as one more).
    pub(crate) fn round_trips(&self) -> u64 {
        self.round_trips.get()
    }

    pub(super) fn count_trip(&self) {
        self.round_trips.set(self.round_trips.get() + 1);
    }

    pub(super) fn in_transaction(&self) -> bool {
        self.in_transaction.get()
    }

    /// A failure of a statement of the transaction, as `fail`, for `pg_copy`.
    pub(super) fn failing(&self, e: postgres::Error) -> Error {
        self.fail(e)
    }

    /// A failure outside PostgreSQL (sending a COPY's data) that ends the transaction.
    pub(super) fn failed_with(&self, message: String) -> Error {
        if self.in_transaction.get() {
            self.failed.set(true);
        }
        Error::Failed(message)
    }

    /// Runs a statement without translation and without sending buffered rows first.
    pub(super) fn raw_query(&self, sql: &str) -> Result<Vec<postgres::Row>> {
        self.count_trip();
        self.client
            .borrow_mut()
            .query(sql, &[])
            .map_err(|e| self.fail(e))
    }

    /// As `raw_query`, with parameters, for a statement that returns no rows.
    pub(super) fn raw_execute(
        &self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64> {
        self.count_trip();
        self.client
            .borrow_mut()
            .execute(sql, params)
            .map_err(|e| self.fail(e))
    }

    /// As `batch`, without sending buffered rows first.
    pub(super) fn raw_batch(&self, sql: &str) -> Result<()> {
        self.count_trip();
        self.client
            .borrow_mut()
            .batch_execute(sql)
            .map_err(|e| self.fail(e))
    }

    fn fail(&self, e: postgres::Error) -> Error {
        if self.in_transaction.get() {
            self.failed.set(true);
        }
        if e.code().is_some_and(|c| {
            *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
        }) {
            self.conflicted.set(true);
        }
        Error::Postgres(e)
    }

    fn prepared(&self, t: &Translated, params: &[PgParam]) -> Result<postgres::Statement> {
        let types: Vec<Type> = params.iter().map(PgParam::declared_type).collect();
        let key = (
            t.sql.clone(),
            types.iter().map(Type::oid).collect::<Vec<u32>>(),
        );
        if let Some(s) = self.prepared.borrow().get(&key) {
            return Ok(s.clone());
        }
        let stmt = self.prepare_typed(&t.sql, &types)?;
        let mut cache = self.prepared.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(key, stmt.clone());
        Ok(stmt)
    }

    /// Prepares with the parameters' types; a NULL parameter whose type the server cannot
    /// tell (`?3 IS NULL OR id = ?3`) is taken as BIGINT, else as TEXT. Inside a
    /// transaction the attempts run under a savepoint, since a failed one would end it.
    fn prepare_typed(&self, sql: &str, types: &[Type]) -> Result<postgres::Statement> {
        let unspecified = types.iter().any(|t| t.oid() == 0);
        let guarded = unspecified && self.in_transaction.get();
        if guarded {
            self.batch("SAVEPOINT factdesk_prepare")?;
        }
        self.count_trip();
        let first = self.client.borrow_mut().prepare_typed(sql, types);
        let outcome = match first {
            Err(e) if unspecified && e.code() == Some(&SqlState::AMBIGUOUS_PARAMETER) => {
                let mut retried = Err(e);
                for fallback in [Type::INT8, Type::TEXT] {
                    if guarded {
                        self.batch("ROLLBACK TO SAVEPOINT factdesk_prepare")?;
                    }
                    let retyped: Vec<Type> = types
                        .iter()
                        .map(|t| {
                            if t.oid() == 0 {
                                fallback.clone()
                            } else {
                                t.clone()
                            }
                        })
                        .collect();
                    // On failure the first error stays: it says best what went wrong.
                    if let Ok(stmt) = self.client.borrow_mut().prepare_typed(sql, &retyped) {
                        retried = Ok(stmt);
                        break;
                    }
                }
                retried
            }
            other => other,
        };
        match outcome {
            Ok(stmt) => {
                if guarded {
                    self.batch("RELEASE SAVEPOINT factdesk_prepare")?;
                }
                Ok(stmt)
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    fn bind(values: &[&dyn rusqlite::ToSql], t: &Translated) -> Result<Vec<PgParam>> {
        if values.len() != t.parameters {
            return Err(Error::Sqlite(rusqlite::Error::InvalidParameterCount(
                values.len(),
                t.parameters,
            )));
        }
        values.iter().map(|v| PgParam::from_value(*v)).collect()
    }

    pub(crate) fn execute_translated(
        &self,
        t: &Translated,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<usize> {
        self.flush_copies()?;
        let params = Self::bind(values, t)?;
        let stmt = self.prepared(t, &params)?;
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
            params.iter().map(|p| p as _).collect();
        self.count_trip();
        let n = self
            .client
            .borrow_mut()
            .execute(&stmt, &refs)
            .map_err(|e| self.fail(e))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub(crate) fn query_translated(
        &self,
        t: &Translated,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<postgres::Row>> {
        self.flush_copies()?;
        let params = Self::bind(values, t)?;
        let stmt = self.prepared(t, &params)?;
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
            params.iter().map(|p| p as _).collect();
        self.count_trip();
        self.client
            .borrow_mut()
            .query(&stmt, &refs)
            .map_err(|e| self.fail(e))
    }

    pub(crate) fn execute(&self, sql: &str, values: &[&dyn rusqlite::ToSql]) -> Result<usize> {
        self.execute_translated(&self.statement(sql), values)
    }

    pub(crate) fn batch(&self, sql: &str) -> Result<()> {
        self.flush_copies()?;
        self.raw_batch(sql)
    }

    /// The id the last INSERT on this connection drew from a sequence.
    pub(crate) fn last_insert_id(&self) -> Result<i64> {
        self.flush_copies()?;
        self.count_trip();
        let row = self
            .client
            .borrow_mut()
            .query_one("SELECT lastval()", &[])
            .map_err(|e| self.fail(e))?;
        row.try_get(0).map_err(|e| self.fail(e))
    }

    /// Starts a write transaction holding the project's write lock alone.
    pub(crate) fn begin(&self) -> Result<()> {
        self.begin_with(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"
        ))
    }

    /// Starts a decision of one annotator: the write lock shared with other decisions,
    /// and the annotator's row held, so one person's decisions follow one another. In
    /// one round trip (the id is a number, written into the statement).
    ///
    /// A decision's statements look rows up by task, person or claim, never more: they
    /// are planned without sequential scans. A statement prepared on a new project is
    /// planned once for good (PostgreSQL's generic plan) while `assignments` is nearly
    /// empty, and a scan of it per open task looked at then stays the plan as the table
    /// grows, until the next ANALYZE: at 2,600 reservations that made finding an open task
    /// take 12 ms instead of under one.
    pub(crate) fn begin_decision(&self, annotator_id: i64) -> Result<()> {
        self.begin_with(&format!(
            "BEGIN; SET LOCAL enable_seqscan = off;
             SELECT pg_advisory_xact_lock_shared({WRITE_LOCK});
             SELECT 1 FROM annotators WHERE id = {annotator_id} FOR NO KEY UPDATE"
        ))
    }

    /// Whether the last transaction begun was aborted by a deadlock or a serialization
    /// conflict.
    pub(crate) fn conflicted(&self) -> bool {
        self.conflicted.get()
    }

    fn begin_with(&self, sql: &str) -> Result<()> {
        self.stop_copying();
        let begun = self.batch(sql);
        if let Err(e) = begun {
            // Leave no half-begun transaction on the connection for the next caller.
            let _ = self.batch("ROLLBACK");
            return Err(e);
        }
        self.in_transaction.set(true);
        self.failed.set(false);
        self.conflicted.set(false);
        Ok(())
    }

    /// Commits; a transaction in which a statement failed is rolled back instead (PostgreSQL
    /// would do so quietly) and reported.
    pub(crate) fn commit(&self) -> Result<()> {
        let sent = match self.failed.get() {
            true => Ok(()),
            false => self.flush_copies().and_then(|()| self.return_unused_ids()),
        };
        let copied = self.copied_tables();
        self.stop_copying();
        self.in_transaction.set(false);
        if let Err(e) = sent {
            self.raw_batch("ROLLBACK")?;
            return Err(e);
        }
        if self.failed.get() {
            self.batch("ROLLBACK")?;
            return Err(Error::Failed(
                "a statement of the transaction failed; nothing was written".into(),
            ));
        }
        self.batch("COMMIT")?;
        self.analyze(&copied);
        Ok(())
    }

    pub(crate) fn rollback(&self) -> Result<()> {
        self.stop_copying();
        self.in_transaction.set(false);
        self.batch("ROLLBACK")
    }
}

/// SQLite's spelling to PostgreSQL's: `?N` and `?` placeholders become `$N`, `INSERT OR
/// IGNORE` an `ON CONFLICT DO NOTHING`, `LIKE` (ASCII case-insensitive in SQLite) `ILIKE`.
/// Text inside quotes is left alone.
pub(crate) fn translate(sql: &str) -> Translated {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut parameters = 0usize;
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                out.push(c);
            }
            '?' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                let n = digits.parse().unwrap_or(parameters + 1);
                parameters = parameters.max(n);
                out.push('$');
                out.push_str(&n.to_string());
            }
            c => out.push(c),
        }
    }
    let mut sql = out
        .replace(" LIKE ", " ILIKE ")
        .replace("ifnull(", "coalesce(");
    if sql.contains("INSERT OR IGNORE INTO") {
        sql = sql.replace("INSERT OR IGNORE INTO", "INSERT INTO");
        let end = sql.trim_end().trim_end_matches(';').len();
        sql.truncate(end);
        match sql.find(" RETURNING ") {
            Some(at) => sql.insert_str(at, " ON CONFLICT DO NOTHING"),
            None => sql.push_str(" ON CONFLICT DO NOTHING"),
        }
    }
    Translated { sql, parameters }
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn placeholders_and_sqlite_spellings_are_translated_outside_quotes() {
        let t = translate("SELECT '?1', x FROM t WHERE a = ?2 AND b LIKE ?1 AND c IN (?, ?)");
        assert_eq!(
            t.sql,
            "SELECT '?1', x FROM t WHERE a = $2 AND b ILIKE $1 AND c IN ($3, $4)"
        );
        assert_eq!(t.parameters, 4);
        let t = translate("INSERT OR IGNORE INTO t (a) VALUES (?1)");
        assert_eq!(
            t.sql,
            "INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING"
        );
    }
}
