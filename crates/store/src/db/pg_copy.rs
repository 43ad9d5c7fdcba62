//! Bulk writes on PostgreSQL: the rows an import or a task creation adds by the hundred
//! thousand are sent with COPY, not one INSERT (and one round trip) each.
//!
//! A write transaction turns this on with [`PgConn::start_copying`]. The table functions
//! that support it (documents, sentences, claims, their links, candidates, tasks, tricks)
//! then take each new row's id from the table's own sequence, reserved a block at a time,
//! and add the row to a buffer per table instead of inserting it. The buffers are sent,
//! each table after those its rows refer to,
//! before any other statement runs on the connection, when they grow large, and before
//! the commit: every statement therefore sees every row written before it, as with
//! INSERTs, and constraints and triggers check each row as they would an INSERT's. Rows
//! whose insert ignored conflicts (`INSERT OR IGNORE`) go through a temporary table and
//! one `INSERT … SELECT … ON CONFLICT DO NOTHING`.

use super::pg::PgConn;
use super::{Error, Result};
use rusqlite::types::{ToSqlOutput, ValueRef};
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::io::Write;

/// Ids reserved from a table's sequence in one round trip.
const ID_BLOCK: i64 = 4096;

/// The tables bulk writes fill, each after the ones its rows refer to: buffers are sent
/// in this order (the order they were first written in is not enough: after a flush a
/// document's last sentences may be buffered before the next document).
const ORDER: [&str; 9] = [
    "documents",
    "sentences",
    "claims",
    "pair_texts",
    "control_answers",
    "claim_documents",
    "candidates",
    "tasks",
    "task_tricks",
];

/// Buffered bytes past which the buffers are sent at once, to bound memory; small in
/// debug builds, so the tests' imports cross several flushes.
const FLUSH_BYTES: usize = if cfg!(debug_assertions) {
    16 << 10
} else {
    32 << 20
};

/// What a transaction has buffered and not yet sent.
#[derive(Debug, Default)]
pub(crate) struct Copying {
    staged: Vec<Staged>,
    ids: HashMap<&'static str, VecDeque<i64>>,
    bytes: usize,
    /// The tables rows were sent to: their planner statistics are refreshed after commit.
    sent_to: BTreeSet<&'static str>,
}

/// One table's buffered rows, in COPY's text format.
#[derive(Debug)]
struct Staged {
    table: &'static str,
    columns: &'static str,
    ignore_conflicts: bool,
    /// Rows of `table` whose `column` is one of these are deleted before the copy: the
    /// buffered rows replace them.
    replacing: Option<(&'static str, HashSet<i64>)>,
    data: Vec<u8>,
    rows: usize,
}

/// A row's place in the buffers.
#[derive(Debug, Clone, Copy)]
pub struct CopyRow {
    pub table: &'static str,
    /// The columns the values fill, in order, comma-separated.
    pub columns: &'static str,
    /// As `INSERT OR IGNORE`: a row that breaks a unique constraint is dropped.
    pub ignore_conflicts: bool,
}

impl PgConn {
    /// Buffers the rows the table functions insert until the end of this transaction or
    /// the next other statement, and sends them with COPY (see the module's comment).
    pub(crate) fn start_copying(&self) -> Result<()> {
        if !self.in_transaction() {
            return Err(Error::Failed("bulk writes need a write transaction".into()));
        }
        // A bulk transaction grows its tables from nothing: a cached generic plan, made
        // while a table looked empty, would scan it whole on every later call (task
        // creation on 300,000 claims ran for over half an hour). Plan each call afresh.
        self.raw_batch("SET LOCAL plan_cache_mode = force_custom_plan")?;
        *self.copying.borrow_mut() = Some(Copying::default());
        Ok(())
    }

    /// The tables this transaction's bulk writes have sent rows to so far.
    pub(crate) fn copied_tables(&self) -> Vec<&'static str> {
        self.copying
            .borrow()
            .as_ref()
            .map(|c| c.sent_to.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Refreshes the planner's statistics of `tables` after a bulk write committed. A
    /// table filled in one transaction keeps the statistics of before (none, for a new
    /// project) until autovacuum comes by, and with them the planner sorts every open task
    /// to serve the first one (3 s per `next` on 300,000 tasks). The rows are committed
    /// whatever happens here, so a failure is logged, not returned.
    pub(crate) fn analyze(&self, tables: &[&'static str]) {
        if tables.is_empty() {
            return;
        }
        if let Err(e) = self.raw_batch(&format!("ANALYZE {}", tables.join(", "))) {
            tracing::warn!(error = %e, "refreshing the planner's statistics after a bulk write failed");
        }
    }

    /// Whether rows are being buffered for COPY.
    pub(crate) fn is_copying(&self) -> bool {
        self.copying.borrow().is_some()
    }

    /// Ends buffering, dropping whatever was not sent (the transaction is ending).
    pub(crate) fn stop_copying(&self) {
        self.copying.borrow_mut().take();
    }

    /// A new id from `table`'s `id` sequence, as its INSERT would have drawn.
    pub(crate) fn reserve_id(&self, table: &'static str) -> Result<i64> {
        let mut copying = self.copying.borrow_mut();
        let Some(copying) = copying.as_mut() else {
            return Err(Error::Failed("no bulk write under way".into()));
        };
        let ids = copying.ids.entry(table).or_default();
        if ids.is_empty() {
            let sql = format!(
                "SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, {ID_BLOCK})"
            );
            let rows = self.raw_query(&sql)?;
            for r in rows {
                ids.push_back(r.try_get(0).map_err(|e| self.failing(e))?);
            }
        }
        ids.pop_front()
            .ok_or_else(|| Error::Failed(format!("no id left in the sequence of {table}")))
    }

    /// Buffers one row.
    pub(crate) fn stage(&self, row: CopyRow, values: &[&dyn rusqlite::ToSql]) -> Result<()> {
        self.stage_replacing(row, None, values)
    }

    /// Buffers one row that replaces, with the others buffered under the same key, the
    /// table's rows whose `column` is `key` (`DELETE … WHERE column = key`, then insert).
    pub(crate) fn stage_replacing(
        &self,
        row: CopyRow,
        replacing: Option<(&'static str, i64)>,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<()> {
        if !ORDER.contains(&row.table) {
            return Err(Error::Failed(format!(
                "{} is not written in bulk",
                row.table
            )));
        }
        let mut line = Vec::with_capacity(128);
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                line.push(b'\t');
            }
            encode(&mut line, *v)?;
        }
        line.push(b'\n');
        {
            let mut copying = self.copying.borrow_mut();
            let Some(copying) = copying.as_mut() else {
                return Err(Error::Failed("no bulk write under way".into()));
            };
            let at = match copying.staged.iter().position(|s| {
                s.table == row.table
                    && s.columns == row.columns
                    && s.ignore_conflicts == row.ignore_conflicts
            }) {
                Some(at) => at,
                None => {
                    copying.staged.push(Staged {
                        table: row.table,
                        columns: row.columns,
                        ignore_conflicts: row.ignore_conflicts,
                        replacing: None,
                        data: Vec::new(),
                        rows: 0,
                    });
                    copying.staged.len() - 1
                }
            };
            let staged = &mut copying.staged[at];
            if let Some((column, key)) = replacing {
                let keys = staged
                    .replacing
                    .get_or_insert_with(|| (column, HashSet::new()));
                keys.1.insert(key);
            }
            staged.data.extend_from_slice(&line);
            staged.rows += 1;
            copying.bytes += line.len();
        }
        Ok(())
    }

    /// Sends the buffers once they pass [`FLUSH_BYTES`]. Called by a table function
    /// before it stages a row or a group of rows, never within a group: rows replacing a
    /// key must go out together, after the one DELETE of that key.
    pub(crate) fn flush_if_full(&self) -> Result<()> {
        let full = self
            .copying
            .borrow()
            .as_ref()
            .is_some_and(|c| c.bytes >= FLUSH_BYTES);
        match full {
            true => self.flush_copies(),
            false => Ok(()),
        }
    }

    /// Whether rows replacing `key` are already buffered: a second replacement of the
    /// same key must follow the first one's rows, so the buffers are sent first.
    pub(crate) fn replacing_pending(&self, table: &'static str, key: i64) -> bool {
        self.copying.borrow().as_ref().is_some_and(|c| {
            c.staged.iter().any(|s| {
                s.table == table
                    && s.replacing
                        .as_ref()
                        .is_some_and(|(_, keys)| keys.contains(&key))
            })
        })
    }

    /// Sends every buffered row, table by table in the order they were first written.
    pub(crate) fn flush_copies(&self) -> Result<()> {
        let staged = {
            let mut copying = self.copying.borrow_mut();
            match copying.as_mut() {
                Some(c) if c.bytes > 0 || !c.staged.is_empty() => {
                    c.bytes = 0;
                    std::mem::take(&mut c.staged)
                }
                _ => return Ok(()),
            }
        };
        let mut staged: Vec<Staged> = staged.into_iter().filter(|s| s.rows > 0).collect();
        staged.sort_by_key(|s| {
            ORDER
                .iter()
                .position(|t| *t == s.table)
                .unwrap_or(ORDER.len())
        });
        for s in staged {
            self.send(s)?;
        }
        Ok(())
    }

    /// Gives back the ids reserved and not used, so the next row's id follows the last
    /// one written (claim numbers stay without gaps, as on SQLite). Only when nobody drew
    /// from the sequence after this transaction's last block; bulk writes run under the
    /// project's exclusive lock, so nobody else draws from these tables' sequences meanwhile.
    pub(crate) fn return_unused_ids(&self) -> Result<()> {
        let unused: Vec<(&'static str, i64, i64)> = {
            let copying = self.copying.borrow();
            let Some(copying) = copying.as_ref() else {
                return Ok(());
            };
            copying
                .ids
                .iter()
                .filter_map(|(table, ids)| Some((*table, *ids.front()?, *ids.back()?)))
                .collect()
        };
        for (table, first, last) in unused {
            let sql = format!(
                "SELECT setval(s, {first}, false) FROM \
                 (SELECT pg_get_serial_sequence('{table}', 'id')::regclass AS s) q \
                 WHERE pg_sequence_last_value(s) = {last}"
            );
            self.raw_query(&sql)?;
        }
        Ok(())
    }

    fn send(&self, s: Staged) -> Result<()> {
        if let Some(c) = self.copying.borrow_mut().as_mut() {
            c.sent_to.insert(s.table);
        }
        if let Some((column, keys)) = &s.replacing {
            let keys: Vec<i64> = keys.iter().copied().collect();
            let sql = format!("DELETE FROM {} WHERE {column} = ANY($1)", s.table);
            self.raw_execute(&sql, &[&keys])?;
        }
        let target = if s.ignore_conflicts {
            let temp = format!("factdesk_copy_{}", s.table);
            self.raw_batch(&format!(
                "CREATE TEMP TABLE IF NOT EXISTS {temp} ON COMMIT DROP AS
                     SELECT {cols} FROM {table} WITH NO DATA;
                 TRUNCATE {temp}",
                cols = s.columns,
                table = s.table
            ))?;
            temp
        } else {
            s.table.to_string()
        };
        self.raw_copy(
            &format!("COPY {target} ({}) FROM STDIN", s.columns),
            &s.data,
        )?;
        if s.ignore_conflicts {
            self.raw_batch(&format!(
                "INSERT INTO {table} ({cols}) SELECT {cols} FROM {target} ON CONFLICT DO NOTHING",
                table = s.table,
                cols = s.columns
            ))?;
        }
        Ok(())
    }

    fn raw_copy(&self, sql: &str, data: &[u8]) -> Result<()> {
        self.count_trip();
        let mut client = self.client.borrow_mut();
        let mut writer = client.copy_in(sql).map_err(|e| self.failing(e))?;
        if let Err(e) = writer.write_all(data) {
            return Err(self.failed_with(format!("sending rows to PostgreSQL: {e}")));
        }
        writer.finish().map_err(|e| self.failing(e))?;
        Ok(())
    }
}

/// One value in COPY's text format: `\N` for NULL, text with backslash, tab, newline and
/// carriage return escaped, bytes as `\\x` and hex.
fn encode(out: &mut Vec<u8>, v: &dyn rusqlite::ToSql) -> Result<()> {
    let value = v.to_sql()?;
    let r = match &value {
        ToSqlOutput::Borrowed(r) => *r,
        ToSqlOutput::Owned(v) => ValueRef::from(v),
        _ => return Err(Error::Failed("a value PostgreSQL cannot take".into())),
    };
    match r {
        ValueRef::Null => out.extend_from_slice(b"\\N"),
        ValueRef::Integer(i) => out.extend_from_slice(i.to_string().as_bytes()),
        ValueRef::Real(f) if f.is_nan() => out.extend_from_slice(b"NaN"),
        ValueRef::Real(f) if f.is_infinite() && f > 0.0 => out.extend_from_slice(b"Infinity"),
        ValueRef::Real(f) if f.is_infinite() => out.extend_from_slice(b"-Infinity"),
        // Rust writes the shortest text that reads back as the same double.
        ValueRef::Real(f) => out.extend_from_slice(f.to_string().as_bytes()),
        ValueRef::Text(t) => {
            if std::str::from_utf8(t).is_err() {
                return Err(Error::Failed("text that is not UTF-8".into()));
            }
            for &b in t {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    // PostgreSQL text cannot hold NUL; an INSERT would be refused too.
                    0 => return Err(Error::Failed("text with a NUL character".into())),
                    b => out.push(b),
                }
            }
        }
        ValueRef::Blob(b) => {
            out.extend_from_slice(b"\\\\x");
            for byte in b {
                out.extend_from_slice(format!("{byte:02x}").as_bytes());
            }
        }
    }
    Ok(())
}

/// A value as COPY's text format writes it.
#[cfg(test)]
fn encoded(v: rusqlite::types::Value) -> String {
    let mut out = Vec::new();
    encode(&mut out, &v).unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::encoded;
    use rusqlite::types::Value;

    #[test]
    fn values_are_escaped_for_copy_text() {
        assert_eq!(encoded(Value::Null), "\\N");
        assert_eq!(encoded(Value::Integer(-42)), "-42");
        assert_eq!(encoded(Value::Real(0.1)), "0.1");
        assert_eq!(encoded(Value::Real(f64::NEG_INFINITY)), "-Infinity");
        assert_eq!(
            encoded(Value::Text("a\\b\tc\nd\re \\N".into())),
            "a\\\\b\\tc\\nd\\re \\\\N"
        );
        assert_eq!(encoded(Value::Blob(vec![0, 255])), "\\\\x00ff");
    }
}
