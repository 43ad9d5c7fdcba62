//! Reading a returned pack as hostile input. The annotator owns the file and can rewrite
//! anything in it, so a merge reads it in steps, each bounded, before the project is
//! touched: the schema must be exactly the one a pack is written with (the same tables,
//! columns, types, indexes and triggers, nothing more: a view or trigger could make a read
//! run forever); then the manifest, and what the pack holds is measured without loading a
//! value (SQLite takes a text's size from its row's header, `octet_length`), so the caller
//! refuses a pack far larger than its manifest allows before any of its bulk is read; the
//! issued rows are hashed one at a time, never held; and every read stops at a deadline.

use crate::pack_store::{self, PackAnswerRow, PackFile, PackProblemRow, PROBLEMS_VERSION};
use crate::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

mod lines;
mod schema_page;

/// How much a merge reads of one pack at most, whatever its manifest says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Reading the whole pack stops after this long.
    pub deadline: Duration,
    /// Rows of `items`, `passages`, `answers` and `problems`, each.
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

/// What a returned pack holds, measured without reading any value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Census {
    /// The file's size.
    pub file_bytes: u64,
    /// Rows of each table.
    pub items: u64,
    pub passages: u64,
    pub answers: u64,
    /// Bytes of the issued text (see [`issued_bytes`]).
    pub issued_bytes: u64,
    /// Bytes of the answers' text (id, answer, what it supersedes), in all...
    pub answer_bytes: u64,
    /// ...and in the largest answer.
    pub largest_answer: u64,
    /// Reports of problems (none in a pack older than [`PROBLEMS_VERSION`]), the bytes of
    /// their text in all, and in the largest.
    pub problems: u64,
    pub problem_bytes: u64,
    pub largest_problem: u64,
}

impl Census {
    /// Rows of the tables together.
    pub fn rows(&self) -> u64 {
        self.items + self.passages + self.answers + self.problems
    }
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

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> ReadError {
        ReadError::Store(e.into())
    }
}

impl From<crate::db::Error> for ReadError {
    fn from(e: crate::db::Error) -> ReadError {
        ReadError::Store(e.into())
    }
}

/// The bytes of a pack's issued text, as SQLite stores it: its items' kinds and items, its
/// passages' option ids and passages. A pack's manifest signs it, so a merge refuses a
/// pack whose issued rows changed size before it reads them.
pub fn issued_bytes(conn: &Read) -> crate::Result<u64> {
    let bytes: i64 = conn.query_row(
        "SELECT (SELECT coalesce(sum(octet_length(kind) + octet_length(item)), 0) FROM items)
              + (SELECT coalesce(sum(octet_length(option_id) + octet_length(passage)), 0) FROM passages)",
        [],
        |r| r.get(0),
    )?;
    Ok(bytes.max(0) as u64)
}

/// Opens the pack at `path` without writing a byte of it (see
/// [`PackFile::open_read_only`]), checks its schema, and hands it to `read`, every read
/// under `bounds.deadline`.
pub fn read<T, E: From<ReadError>>(
    path: &Path,
    bounds: &Bounds,
    read: impl FnOnce(&Reader<'_>) -> Result<T, E>,
) -> Result<T, E> {
    // The schema is checked from the file's bytes first, so SQLite never parses one it
    // did not write (see schema_page). Only a file whose header says it is a pack: a
    // file handle of our own on a database this process holds open (a project file
    // given by mistake) would drop that connection's locks when closed, and opening it
    // as a pack below refuses it with a clearer reason.
    if pack_store::is_pack(path) {
        let found = schema_page::entries(path)
            .map_err(|why| ReadError::Refused(format!("its schema {why}")))?;
        if let Some((version, found)) = found {
            if (1..=pack_store::PACK_VERSION).contains(&version) {
                same_schema(&found, &written_schema(version)?)?;
            }
        }
    }
    let pack = PackFile::open_read_only(path).map_err(ReadError::from)?;
    let raw = pack.read().sqlite_only("a pack").map_err(ReadError::from)?;
    let file_bytes = std::fs::metadata(path)
        .map_err(|source| {
            ReadError::Store(crate::Error::Unreadable {
                path: path.to_path_buf(),
                source,
            })
        })?
        .len();
    let watch = Watchdog::start(raw.get_interrupt_handle(), bounds.deadline);
    let reader = Reader {
        conn: pack.read(),
        raw,
        bounds,
        file_bytes,
        version: pack.version(),
        expired: &watch.expired,
    };
    let done = check_schema(pack.read(), pack.version())
        .map_err(E::from)
        .and_then(|()| read(&reader));
    if watch.stop() {
        return Err(E::from(ReadError::Refused(format!(
            "reading it took longer than {} seconds, far longer than any pack Factdesk writes",
            bounds.deadline.as_secs_f64()
        ))));
    }
    done
}

/// A returned pack whose schema is the one Factdesk writes, to read within bounds.
#[derive(Debug)]
pub struct Reader<'a> {
    conn: &'a Read,
    raw: &'a rusqlite::Connection,
    bounds: &'a Bounds,
    file_bytes: u64,
    /// The pack's layout: which tables it has.
    version: i64,
    expired: &'a AtomicBool,
}

impl Reader<'_> {
    /// The manifest's text and its signature, if the pack has one; refused unread when
    /// longer than the manifest of a pack of `bounds.rows` items.
    pub fn manifest(&self) -> Result<Option<(String, String)>, ReadError> {
        use rusqlite::OptionalExtension;
        let size: Option<Option<i64>> = self
            .raw
            .query_row(
                "SELECT octet_length(manifest) + octet_length(signature) FROM manifest LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        // An item's id and its comma take 17 bytes at most; the rest a few hundred.
        let most = 4096 + 24 * self.bounds.rows;
        if let Some(Some(size)) = size.filter(|s| s.unwrap_or(0) as u64 > most) {
            return Err(ReadError::Refused(format!(
                "its manifest holds {size} bytes, more than the manifest of any pack Factdesk writes ({most} at most)"
            )));
        }
        Ok(pack_store::manifest(self.conn)?)
    }

    /// What the pack holds, measured without reading a value; refused past `bounds`.
    pub fn census(&self) -> Result<Census, ReadError> {
        let mut rows = [0u64; 4];
        let tables: &[&str] = if self.has_problems() {
            &["items", "passages", "answers", "problems"]
        } else {
            &["items", "passages", "answers"]
        };
        for (table, count) in tables.iter().zip(&mut rows) {
            let found: i64 = self.raw.query_row(
                &format!("SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT ?1)"),
                [self.bounds.rows as i64 + 1],
                |r| r.get(0),
            )?;
            *count = found.max(0) as u64;
            if *count > self.bounds.rows {
                return Err(ReadError::Refused(format!(
                    "its {table} table holds more than {} rows, more than any pack Factdesk writes",
                    self.bounds.rows
                )));
            }
        }
        let (answer_bytes, largest_answer): (i64, i64) = self.raw.query_row(
            "SELECT coalesce(sum(octet_length(uuid) + octet_length(answer) + coalesce(octet_length(supersedes), 0)), 0),
                    coalesce(max(octet_length(uuid) + octet_length(answer) + coalesce(octet_length(supersedes), 0)), 0)
             FROM answers",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (problem_bytes, largest_problem): (i64, i64) = if self.has_problems() {
            self.raw.query_row(
                "SELECT coalesce(sum(octet_length(text)), 0), coalesce(max(octet_length(text)), 0) FROM problems",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
        } else {
            (0, 0)
        };
        let census = Census {
            file_bytes: self.file_bytes,
            items: rows[0],
            passages: rows[1],
            answers: rows[2],
            issued_bytes: issued_bytes(self.conn)?,
            answer_bytes: answer_bytes.max(0) as u64,
            largest_answer: largest_answer.max(0) as u64,
            problems: rows[3],
            problem_bytes: problem_bytes.max(0) as u64,
            largest_problem: largest_problem.max(0) as u64,
        };
        let text = census.issued_bytes.saturating_add(census.answer_bytes);
        if text.saturating_add(census.problem_bytes) > self.bounds.bytes {
            return Err(ReadError::Refused(format!(
                "it holds more than {} MiB of text, more than any pack Factdesk writes",
                self.bounds.bytes / (1024 * 1024)
            )));
        }
        Ok(census)
    }

    /// Hands `each` the issued rows as [`pack_store::issued_rows`] writes them, each line
    /// followed by a newline (the bytes a pack's digest is taken over), a buffer at a time
    /// (see [`lines`]).
    pub fn issued(&self, each: &mut dyn FnMut(&[u8])) -> Result<(), ReadError> {
        let tables = [
            (
                "[\"item\"",
                "SELECT position, task_id, kind, item FROM items ORDER BY position",
            ),
            (
                "[\"passage\"",
                "SELECT task_id, option_id, passage FROM passages ORDER BY task_id, option_id",
            ),
        ];
        let mut lines = lines::Lines::new(each, self.expired);
        for (head, sql) in tables {
            let mut stmt = self.raw.prepare(sql)?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                lines.row(head, row)?;
            }
        }
        lines.flush();
        Ok(())
    }

    /// The well-typed answers in the order they were made, and the others with what is
    /// wrong with each.
    pub fn answers(&self) -> Result<AnswerRows, ReadError> {
        Ok((
            pack_store::answers(self.conn)?,
            pack_store::malformed_answers(self.conn)?,
        ))
    }

    /// Whether the pack's layout has the `problems` table.
    fn has_problems(&self) -> bool {
        self.version >= PROBLEMS_VERSION
    }

    /// The problems its holder reported, in the order they were made (none in an older
    /// pack); refused at the first row whose columns hold the wrong type of value,
    /// naming its row and column.
    pub fn problems(&self) -> Result<Vec<PackProblemRow>, ReadError> {
        if !self.has_problems() {
            return Ok(Vec::new());
        }
        if let Some((seq, column, what)) = pack_store::malformed_problem(self.conn)? {
            return Err(ReadError::Refused(format!(
                "its problems table, row {seq}, field {column}: {what}"
            )));
        }
        Ok(pack_store::problems(self.conn)?)
    }
}

/// A pack's answers as read: the well-typed ones, and the others as (id, what is wrong).
pub type AnswerRows = (Vec<PackAnswerRow>, Vec<(String, String)>);

/// One entry of `sqlite_master`: type, name, table and the SQL that made it.
type SchemaEntry = (String, String, String, Option<String>);

fn schema_of(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<SchemaEntry>> {
    let mut stmt =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
    rows.collect()
}

/// The schema a pack of `version` is written with, as SQLite records it.
fn written_schema(version: i64) -> Result<Vec<SchemaEntry>, ReadError> {
    let conn = rusqlite::Connection::open_in_memory().map_err(crate::Error::from)?;
    conn.execute_batch(&pack_store::schema(version))
        .map_err(crate::Error::from)?;
    Ok(schema_of(&conn).map_err(crate::Error::from)?)
}

/// Refuses a pack whose schema is not exactly the one Factdesk writes for its version,
/// naming each difference. Reading `sqlite_master` runs none of the pack's own code.
fn check_schema(conn: &Read, version: i64) -> Result<(), ReadError> {
    let raw = conn.sqlite_only("a pack").map_err(crate::Error::from)?;
    let found = schema_of(raw).map_err(crate::Error::from)?;
    same_schema(&found, &written_schema(version)?)
}

/// Refuses `found` unless it holds exactly the `written` entries, naming the differences.
fn same_schema(found: &[SchemaEntry], written: &[SchemaEntry]) -> Result<(), ReadError> {
    let mut wrong = Vec::new();
    for (kind, name, table, sql) in found {
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
    for (kind, name, _, _) in written {
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

    /// The census counts rows and bytes as they are.
    #[test]
    fn the_census_counts_rows_and_bytes() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        let mut pack = ok(PackFile::create(&path));
        let tx = ok(pack.transaction());
        let row = pack_store::PackItemRow {
            position: 1,
            task_id: 7,
            kind: factdesk_core::task::TaskKind::Label,
            item: "x".repeat(10_000),
        };
        ok(pack_store::insert_item(&tx, &row));
        ok(pack_store::insert_passage(&tx, 7, "o1", "ab"));
        for (uuid, answer) in [("u1", "y".repeat(5000)), ("u2", "{}".to_string())] {
            let a = PackAnswerRow {
                seq: 0,
                uuid: uuid.into(),
                task_id: 7,
                answer,
                created_at: 1,
                supersedes: None,
            };
            ok(pack_store::insert_answer(&tx, &a));
        }
        ok(tx.commit());
        drop(pack);
        let census = ok(read(&path, &Bounds::default(), |r| r.census()));
        let file_bytes = ok(std::fs::metadata(&path)).len();
        let expected = Census {
            file_bytes,
            items: 1,
            passages: 1,
            answers: 2,
            issued_bytes: 5 + 10_000 + 2 + 2,
            answer_bytes: 2 + 5000 + 2 + 2,
            largest_answer: 5002,
            ..Census::default()
        };
        assert_eq!(census, expected);
    }

    /// A pack just written has exactly the schema a merge expects.
    #[test]
    fn a_fresh_pack_has_the_written_schema() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        let pack = ok(PackFile::create(&path));
        ok(check_schema(pack.read(), pack.version()).map_err(|e| e.to_string()));
    }

    fn an_item(task_id: i64) -> pack_store::PackItemRow {
        pack_store::PackItemRow {
            position: 1,
            task_id,
            kind: factdesk_core::task::TaskKind::Label,
            item: "{}".into(),
        }
    }

    /// A pack of version 1 (before reports) is read as it is, with no reports; opened
    /// to work in, it gains the table and reads as a pack of today.
    #[test]
    fn a_pack_of_version_1_is_read_as_it_is_and_upgraded_when_opened_to_work() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("old.fdpack");
        drop(ok(PackFile::create(&path)));
        let raw = ok(rusqlite::Connection::open(&path));
        ok(raw.execute_batch(
            "DROP TRIGGER problems_kept; DROP TRIGGER problems_not_deleted; DROP TABLE problems;
             PRAGMA user_version = 1;",
        ));
        drop(raw);
        let (census, problems) = ok(read(&path, &Bounds::default(), |r| {
            Ok::<_, ReadError>((r.census()?, r.problems()?))
        }));
        assert_eq!((census.problems, problems.len()), (0, 0));
        let mut pack = ok(PackFile::open(&path));
        assert_eq!(pack.version(), pack_store::PACK_VERSION);
        let tx = ok(pack.transaction());
        ok(pack_store::insert_item(&tx, &an_item(7)));
        ok(pack_store::insert_problem(&tx, 7, "cut off", 1));
        ok(tx.commit());
        drop(pack);
        let problems = ok(read(&path, &Bounds::default(), |r| r.problems()));
        assert_eq!(problems.len(), 1);
    }

    /// A report whose text is not text is refused naming its table, row and column.
    #[test]
    fn a_report_of_the_wrong_type_is_refused_by_row_and_field() {
        let dir = ok(tempfile::tempdir());
        let path = dir.path().join("a.fdpack");
        let mut pack = ok(PackFile::create(&path));
        let tx = ok(pack.transaction());
        ok(pack_store::insert_item(&tx, &an_item(7)));
        ok(pack_store::insert_problem(&tx, 7, "fine", 1));
        ok(tx.commit());
        ok(pack.read().execute_batch(
            "INSERT INTO problems (task_id, text, created_at) VALUES (7, x'00ff', 2)",
        ));
        drop(pack);
        let err = read(&path, &Bounds::default(), |r| r.problems())
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("its problems table, row 2, field text: it is blob where text belongs")
        );
    }
}
