//! Reading a returned pack as hostile input. The annotator owns the file and can rewrite
//! anything in it, so a merge reads it in three steps, each bounded, before the project is
//! touched: the schema must be exactly the one a pack is written with (the same tables,
//! columns, types, indexes and triggers, nothing more: a view or trigger could make a read
//! run forever), the rows it reads are capped, and every read stops at a deadline.

use crate::db::Connection;
use crate::pack_store::{self, PackAnswerRow, PackFile};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How much a merge reads of one pack at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Reading the whole pack stops after this long.
    pub deadline: Duration,
    /// Rows of `items`, `passages` and `answers`, each.
    pub rows: u64,
    /// Bytes of text read in all.
    pub bytes: u64,
}

impl Default for Bounds {
    /// A pack Factdesk writes holds at most a few thousand items, a few passages each, and
    /// reads in well under a second: these leave it room a hundredfold.
    fn default() -> Bounds {
        Bounds {
            deadline: Duration::from_secs(10),
            rows: 1_000_000,
            bytes: 512 * 1024 * 1024,
        }
    }
}

/// What a returned pack holds, read within [`Bounds`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnedRows {
    /// The manifest's text and signature, if it has one.
    pub manifest: Option<(String, String)>,
    /// The issued rows, as [`pack_store::issued_rows`] gives them for the digest.
    pub issued: Vec<String>,
    /// The well-typed answers in the order they were made.
    pub answers: Vec<PackAnswerRow>,
    /// The answers whose columns hold the wrong type: (id, what is wrong).
    pub malformed: Vec<(String, String)>,
}

/// Why a returned pack was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file breaks a rule every pack Factdesk writes keeps; says what is wrong.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] crate::Error),
}

/// Reads the pack at `path` within `bounds`, without writing a byte of it (see
/// [`PackFile::open_read_only`]).
pub fn read(path: &Path, bounds: &Bounds) -> Result<ReturnedRows, ReadError> {
    let pack = PackFile::open_read_only(path)?;
    let raw = pack
        .conn()
        .sqlite_only("a pack")
        .map_err(crate::Error::from)?;
    let watch = Watchdog::start(raw.get_interrupt_handle(), bounds.deadline);
    let read = read_rows(pack.conn(), bounds);
    if watch.stop() {
        return Err(ReadError::Refused(format!(
            "reading it took longer than {} seconds, far longer than any pack Factdesk writes",
            bounds.deadline.as_secs_f64()
        )));
    }
    read
}

fn read_rows(conn: &Connection, bounds: &Bounds) -> Result<ReturnedRows, ReadError> {
    check_schema(conn)?;
    for table in ["items", "passages", "answers"] {
        let rows: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT ?1)"),
                [bounds.rows as i64 + 1],
                |r| r.get(0),
            )
            .map_err(crate::Error::from)?;
        if rows as u64 > bounds.rows {
            return Err(ReadError::Refused(format!(
                "its {table} table holds more than {} rows, more than any pack Factdesk writes",
                bounds.rows
            )));
        }
    }
    let manifest = pack_store::manifest(conn)?;
    let issued = pack_store::issued_rows(conn)?;
    let answers = pack_store::answers(conn)?;
    let malformed = pack_store::malformed_answers(conn)?;
    let bytes: usize = manifest.as_ref().map_or(0, |(m, s)| m.len() + s.len())
        + issued.iter().map(String::len).sum::<usize>()
        + answers
            .iter()
            .map(|a| a.uuid.len() + a.answer.len())
            .sum::<usize>();
    if bytes as u64 > bounds.bytes {
        return Err(ReadError::Refused(format!(
            "it holds more than {} MiB of text, more than any pack Factdesk writes",
            bounds.bytes / (1024 * 1024)
        )));
    }
    Ok(ReturnedRows {
        manifest,
        issued,
        answers,
        malformed,
    })
}

/// One entry of `sqlite_master`: type, name, table and the SQL that made it.
type SchemaEntry = (String, String, String, Option<String>);

fn schema_of(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<SchemaEntry>> {
    let mut stmt =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    rows.collect()
}

/// The schema a pack is written with, as SQLite records it.
fn written_schema() -> Result<Vec<SchemaEntry>, ReadError> {
    let conn = rusqlite::Connection::open_in_memory().map_err(crate::Error::from)?;
    conn.execute_batch(pack_store::SCHEMA)
        .map_err(crate::Error::from)?;
    Ok(schema_of(&conn).map_err(crate::Error::from)?)
}

/// Refuses a pack whose schema is not exactly the one Factdesk writes, naming each
/// difference. Reading `sqlite_master` runs none of the pack's own code.
fn check_schema(conn: &Connection) -> Result<(), ReadError> {
    let raw = conn.sqlite_only("a pack").map_err(crate::Error::from)?;
    let found = schema_of(raw).map_err(crate::Error::from)?;
    let written = written_schema()?;
    let mut wrong = Vec::new();
    for (kind, name, table, sql) in &found {
        match written.iter().find(|w| &w.1 == name) {
            None => wrong.push(format!(
                "it holds a {kind} {name:?} (on {table:?}) that Factdesk never writes in a pack"
            )),
            Some(w) if &w.0 != kind => wrong.push(format!(
                "its {name:?} is a {kind} where Factdesk writes a {}",
                w.0
            )),
            Some(w) if (&w.2, &w.3) != (table, sql) => wrong.push(format!(
                "its {kind} {name:?} is not as Factdesk writes it (its columns, types or rules were changed)"
            )),
            Some(_) => {}
        }
    }
    for (kind, name, _, _) in &written {
        if !found.iter().any(|f| &f.1 == name) {
            wrong.push(format!("it lacks the {kind} {name:?} every pack has"));
        }
    }
    if wrong.is_empty() {
        return Ok(());
    }
    let more = wrong.len().saturating_sub(3);
    wrong.truncate(3);
    let mut why = format!(
        "its schema is not the one Factdesk writes: {}",
        wrong.join("; ")
    );
    if more > 0 {
        why.push_str(&format!("; and {more} more"));
    }
    Err(ReadError::Refused(why))
}

/// Interrupts every statement on a connection once a deadline has passed, until stopped.
struct Watchdog {
    stop: mpsc::Sender<()>,
    expired: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Watchdog {
    fn start(handle: rusqlite::InterruptHandle, deadline: Duration) -> Watchdog {
        let (stop, stopped) = mpsc::channel::<()>();
        let expired = Arc::new(AtomicBool::new(false));
        let flag = expired.clone();
        let thread = std::thread::spawn(move || {
            if stopped.recv_timeout(deadline) != Err(mpsc::RecvTimeoutError::Timeout) {
                return;
            }
            flag.store(true, Ordering::SeqCst);
            // SQLite forgets an interrupt when no statement is running, so a statement
            // begun after this one would run on: keep interrupting until the reader stops.
            loop {
                handle.interrupt();
                match stopped.recv_timeout(Duration::from_millis(10)) {
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    _ => return,
                }
            }
        });
        Watchdog {
            stop,
            expired,
            thread,
        }
    }

    /// Stops watching; whether the deadline had passed.
    fn stop(self) -> bool {
        drop(self.stop);
        let _ = self.thread.join();
        self.expired.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// A statement that never ends on a watched connection is stopped at the deadline,
    /// and so is one begun after it.
    #[test]
    fn a_read_that_never_ends_is_stopped_at_the_deadline() {
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let conn = ok(rusqlite::Connection::open_in_memory());
            let watch = Watchdog::start(conn.get_interrupt_handle(), Duration::from_millis(200));
            let forever = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n";
            let first = conn.query_row(forever, [], |r| r.get::<_, i64>(0)).is_err();
            let second = conn.query_row(forever, [], |r| r.get::<_, i64>(0)).is_err();
            let _ = done.send((first, second, watch.stop()));
        });
        let outcome = finished
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the read was not stopped"));
        assert_eq!(outcome, (true, true, true));
    }

    /// A pack just written has exactly the schema a merge expects.
    #[test]
    fn a_fresh_pack_has_the_written_schema() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        let pack = ok(PackFile::create(&path));
        ok(check_schema(pack.conn()).map_err(|e| e.to_string()));
    }
}
