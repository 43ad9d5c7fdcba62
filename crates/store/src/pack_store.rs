//! The pack file (`*.fdpack`): one annotator's share of the work, as their screens
//! receive it, and the answers made on it.
//!
//! A pack is not a project: it has its own application id and version, and only these
//! tables: `manifest` (the signed manifest), `items` (each item as the screen gets it),
//! `passages` ("show in document" for each option), `answers` (append-only, an edit
//! supersedes) and, from version 2, `problems` (the problems its holder reported, one an
//! item at most). It keeps SQLite's rollback journal rather than WAL, so every committed
//! answer is in the one file and a merge can read it without writing anything.

use crate::db::{Connection, OptionalExtension};
use crate::params;
use crate::Read;
use crate::{Error, Result};
use factdesk_core::task::TaskKind;
use rusqlite::OpenFlags;
use std::path::{Path, PathBuf};

/// Marks a SQLite file as a Factdesk pack (`PRAGMA application_id`, "FDPK").
const PACK_APPLICATION_ID: i64 = 0x4644_504B;
/// The pack layout this build writes (`PRAGMA user_version`); it reads this and older.
pub const PACK_VERSION: i64 = 2;
/// The first layout with the `problems` table: a pack of version 1 is upgraded when its
/// holder opens it to work, and merged as it is.
pub const PROBLEMS_VERSION: i64 = 2;

pub(crate) const SCHEMA: &str = "
CREATE TABLE manifest (manifest TEXT NOT NULL, signature TEXT NOT NULL);
CREATE TABLE items (
    position INTEGER PRIMARY KEY,
    task_id  INTEGER NOT NULL UNIQUE,
    kind     TEXT NOT NULL,
    item     TEXT NOT NULL
);
CREATE TABLE passages (
    task_id   INTEGER NOT NULL REFERENCES items(task_id),
    option_id TEXT NOT NULL,
    passage   TEXT NOT NULL,
    PRIMARY KEY (task_id, option_id)
);
CREATE TABLE answers (
    seq        INTEGER PRIMARY KEY,
    uuid       TEXT NOT NULL UNIQUE,
    task_id    INTEGER NOT NULL REFERENCES items(task_id),
    answer     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    supersedes TEXT REFERENCES answers(uuid)
);
CREATE TRIGGER answers_kept BEFORE UPDATE ON answers BEGIN SELECT RAISE(ABORT, 'answers are never changed'); END;
CREATE TRIGGER answers_not_deleted BEFORE DELETE ON answers BEGIN SELECT RAISE(ABORT, 'answers are never deleted'); END;
";

/// What version 2 adds to [`SCHEMA`]: the problems the holder reported, kept like answers.
/// One an item is the pack session's rule, checked again on merge (no unique index: a
/// merge reads what the file holds, whatever an index says).
pub(crate) const PROBLEMS_SCHEMA: &str = "
CREATE TABLE problems (
    seq        INTEGER PRIMARY KEY,
    task_id    INTEGER NOT NULL REFERENCES items(task_id),
    text       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TRIGGER problems_kept BEFORE UPDATE ON problems BEGIN SELECT RAISE(ABORT, 'reports are never changed'); END;
CREATE TRIGGER problems_not_deleted BEFORE DELETE ON problems BEGIN SELECT RAISE(ABORT, 'reports are never deleted'); END;
";

/// The schema a pack of `version` is written with.
pub(crate) fn schema(version: i64) -> String {
    if version >= PROBLEMS_VERSION {
        format!("{SCHEMA}{PROBLEMS_SCHEMA}")
    } else {
        SCHEMA.to_string()
    }
}

/// An open pack file.
#[derive(Debug)]
pub struct PackFile {
    conn: Read,
    path: PathBuf,
    /// Its layout (`PRAGMA user_version`), at most [`PACK_VERSION`].
    version: i64,
}

/// One item row: its place in the pack, its (opaque) task id, kind and the item's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackItemRow {
    pub position: i64,
    pub task_id: i64,
    pub kind: TaskKind,
    pub item: String,
}

/// One answer made in the pack, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackAnswerRow {
    pub seq: i64,
    pub uuid: String,
    pub task_id: i64,
    pub answer: String,
    pub created_at: i64,
    pub supersedes: Option<String>,
}

/// A problem the holder reported on an item, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackProblemRow {
    pub seq: i64,
    pub task_id: i64,
    pub text: String,
    pub created_at: i64,
}

/// Whether the file at `path` says it is a pack (its header's application id), read
/// from the bytes without opening it as a database.
pub fn is_pack(path: &Path) -> bool {
    // Through SQLite, never a file handle of our own (see `file::header`).
    matches!(crate::file::header(path), Ok(Some(h)) if h.application_id == PACK_APPLICATION_ID)
}

/// Whether the file's header says it uses a write-ahead log.
fn wal_header(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| header[18] == 2 || header[19] == 2)
}

impl PackFile {
    /// Creates an empty pack at `path`; refuses to overwrite anything.
    pub fn create(path: &Path) -> Result<PackFile> {
        if path.exists() {
            return Err(Error::AlreadyExists(path.to_path_buf()));
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| Error::open(path, e))?;
        let mut pack = PackFile {
            conn: Read(Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            version: PACK_VERSION,
        };
        pack.configure()?;
        let tx = pack.transaction()?;
        let raw = tx.sqlite_only("a pack")?;
        raw.pragma_update(None, "application_id", PACK_APPLICATION_ID)?;
        raw.pragma_update(None, "user_version", PACK_VERSION)?;
        tx.execute_batch(&schema(PACK_VERSION))?;
        tx.commit()?;
        Ok(pack)
    }

    /// Opens a pack to work in (the annotator's app). Checks what the file is from its
    /// header before SQLite writes anything; a pack of an older layout is brought to
    /// this one (its issued rows, which the manifest signs, are left as they are).
    pub fn open(path: &Path) -> Result<PackFile> {
        check_header(path)?;
        let conn = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::open(path, e))?;
        let mut pack = PackFile {
            conn: Read(Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            version: PACK_VERSION,
        };
        pack.version = pack.check_version()?;
        pack.configure()?;
        if pack.version < PROBLEMS_VERSION {
            let tx = pack.transaction()?;
            tx.execute_batch(PROBLEMS_SCHEMA)?;
            tx.sqlite_only("a pack")?
                .pragma_update(None, "user_version", PROBLEMS_VERSION)?;
            tx.commit()?;
            pack.version = PROBLEMS_VERSION;
        }
        Ok(pack)
    }

    /// Opens a returned pack to read only: immutable, so SQLite neither locks nor
    /// journals nor writes anything, and with schema code untrusted (the annotator owns
    /// the file and could have added triggers or views).
    pub fn open_read_only(path: &Path) -> Result<PackFile> {
        check_header(path)?;
        // Changes in a journal or in a write-ahead log (another program may have opened
        // the pack in WAL mode) are not in the file an immutable read sees: refuse
        // rather than merge a pack that looks unanswered.
        for side in ["-journal", "-wal"] {
            let file = PathBuf::from(format!("{}{side}", path.display()));
            if std::fs::metadata(&file).is_ok_and(|m| m.len() > 0) {
                return Err(Error::UnfinishedWrite(path.to_path_buf()));
            }
        }
        // A pack switched to a write-ahead log may have left its answers in a -wal file
        // that did not travel with it (bytes 18 and 19 of the header say 2 for WAL). No
        // SQLite connection of this process holds a returned pack, so reading the bytes
        // ourselves drops no lock.
        if wal_header(path) {
            return Err(Error::UnfinishedWrite(path.to_path_buf()));
        }
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let conn = rusqlite::Connection::open_with_flags(
            &uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_URI
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::open(path, e))?;
        conn.pragma_update(None, "trusted_schema", false)?;
        conn.pragma_update(None, "query_only", true)?;
        let mut pack = PackFile {
            conn: Read(Connection::Sqlite(conn)),
            path: path.to_path_buf(),
            version: PACK_VERSION,
        };
        pack.version = pack.check_version()?;
        Ok(pack)
    }

    /// The pack's layout, refused when newer than this build's.
    fn check_version(&self) -> Result<i64> {
        let found: i64 = self
            .raw()?
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| Error::open(&self.path, e))?;
        if found > PACK_VERSION {
            return Err(Error::NewerPack {
                path: self.path.clone(),
                found,
                supported: PACK_VERSION,
            });
        }
        Ok(found)
    }

    /// The pack's layout (`PRAGMA user_version`): older packs lack the `problems` table.
    pub fn version(&self) -> i64 {
        self.version
    }

    fn raw(&self) -> Result<&rusqlite::Connection> {
        Ok(self.conn.sqlite_only("a pack")?)
    }

    fn configure(&mut self) -> Result<()> {
        // Every answer in the one file, even if another program switched the pack to a
        // write-ahead log (switching back folds the log in).
        self.raw()?.pragma_update(None, "journal_mode", "DELETE")?;
        self.raw()?.pragma_update(None, "synchronous", "FULL")?;
        // Pages SQLite frees (when it moves rows between pages) are zeroed, so the file
        // holds one copy of each row: what a reader of its bytes sees is what it holds.
        self.raw()?.pragma_update(None, "secure_delete", true)?;
        self.raw()?.pragma_update(None, "foreign_keys", true)?;
        self.raw()?.pragma_update(None, "trusted_schema", false)?;
        crate::wait_when_busy(self.raw()?)?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pack to read through.
    pub fn read(&self) -> &Read {
        &self.conn
    }

    /// A write transaction, taken at once (BEGIN IMMEDIATE).
    pub fn transaction(&mut self) -> Result<crate::Tx<'_>> {
        crate::Tx::begin(&mut self.conn)
    }
}

/// Refuses anything whose header is not a pack's, reading bytes only.
fn check_header(path: &Path) -> Result<()> {
    if !path.is_file() {
        return Err(Error::NotFound(path.to_path_buf()));
    }
    if !is_pack(path) {
        return Err(Error::NotAPack(path.to_path_buf()));
    }
    Ok(())
}

/// A path written for a `file:` URI: `?`, `#` and `%` escaped.
fn uri_path(path: &Path) -> String {
    let full = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for c in full.display().to_string().chars() {
        match c {
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

pub fn insert_manifest(conn: &crate::Tx<'_>, manifest: &str, signature: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO manifest (manifest, signature) VALUES (?1, ?2)",
        params![manifest, signature],
    )?;
    Ok(())
}

/// The manifest and its signature.
pub fn manifest(conn: &Read) -> Result<Option<(String, String)>> {
    Ok(conn
        .query_row(
            "SELECT manifest, signature FROM manifest LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

pub fn insert_item(conn: &crate::Tx<'_>, row: &PackItemRow) -> Result<()> {
    conn.execute(
        "INSERT INTO items (position, task_id, kind, item) VALUES (?1, ?2, ?3, ?4)",
        params![row.position, row.task_id, row.kind.as_str(), row.item],
    )?;
    Ok(())
}

pub fn insert_passage(
    conn: &crate::Tx<'_>,
    task_id: i64,
    option_id: &str,
    passage: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO passages (task_id, option_id, passage) VALUES (?1, ?2, ?3)",
        params![task_id, option_id, passage],
    )?;
    Ok(())
}

fn item_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<PackItemRow> {
    let task_id: i64 = r.get(1)?;
    Ok(PackItemRow {
        position: r.get(0)?,
        task_id,
        kind: crate::typed::kind_of(r, 2, || format!("the pack's item {task_id}"))?,
        item: r.get(3)?,
    })
}

/// Every item in pack order.
pub fn items(conn: &Read) -> Result<Vec<PackItemRow>> {
    let mut stmt =
        conn.prepare_cached("SELECT position, task_id, kind, item FROM items ORDER BY position")?;
    let rows = stmt.query_map([], item_from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

pub fn item(conn: &Read, task_id: i64) -> Result<Option<PackItemRow>> {
    Ok(conn
        .prepare_cached("SELECT position, task_id, kind, item FROM items WHERE task_id = ?1")?
        .query_row([task_id], item_from_row)
        .optional()?)
}

pub fn passage(conn: &Read, task_id: i64, option_id: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT passage FROM passages WHERE task_id = ?1 AND option_id = ?2")?
        .query_row(params![task_id, option_id], |r| r.get(0))
        .optional()?)
}

/// The issued contents, one line per row in a fixed order, for the signed digest.
pub fn issued_rows(conn: &Read) -> Result<Vec<String>> {
    const QUERIES: &[&str] = &[
        "SELECT json_array('item', position, task_id, kind, item) FROM items ORDER BY position",
        "SELECT json_array('passage', task_id, option_id, passage) FROM passages ORDER BY task_id, option_id",
    ];
    let mut out = Vec::new();
    for q in QUERIES {
        let mut stmt = conn.prepare(q)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        for row in rows {
            out.push(row?);
        }
    }
    Ok(out)
}

fn answer_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<PackAnswerRow> {
    Ok(PackAnswerRow {
        seq: r.get(0)?,
        uuid: r.get(1)?,
        task_id: r.get(2)?,
        answer: r.get(3)?,
        created_at: r.get(4)?,
        supersedes: r.get(5)?,
    })
}

const ANSWER_COLUMNS: &str = "seq, uuid, task_id, answer, created_at, supersedes";

pub fn insert_answer(conn: &crate::Tx<'_>, a: &PackAnswerRow) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO answers (uuid, task_id, answer, created_at, supersedes) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![a.uuid, a.task_id, a.answer, a.created_at, a.supersedes])?;
    Ok(())
}

/// Every answer, superseded ones too, in the order they were made. Values of the wrong
/// type (the file is the annotator's) are an error, never coerced.
pub fn answers(conn: &Read) -> Result<Vec<PackAnswerRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ANSWER_COLUMNS} FROM answers WHERE {WELL_TYPED} ORDER BY seq"
    ))?;
    let rows = stmt.query_map([], answer_from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The answers whose columns hold the wrong type of value (the annotator owns the file
/// and may have rewritten it): (their id as text, what is wrong), to refuse one by one.
pub fn malformed_answers(conn: &Read) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT CAST(uuid AS TEXT), typeof(uuid), typeof(task_id), typeof(answer), typeof(created_at)
         FROM answers WHERE NOT ({WELL_TYPED}) ORDER BY seq"
    ))?;
    let rows = stmt.query_map([], |r| {
        let kinds: [String; 4] = [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?];
        let wanted = ["text", "integer", "text", "integer"];
        let names = ["uuid", "task_id", "answer", "created_at"];
        let wrong: Vec<String> = (0..4)
            .filter(|&i| kinds[i] != wanted[i])
            .map(|i| {
                format!(
                    "its {} is {} where {} belongs",
                    names[i], kinds[i], wanted[i]
                )
            })
            .collect();
        Ok((
            r.get::<_, Option<String>>(0)?.unwrap_or_default(),
            wrong.join("; "),
        ))
    })?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The answer rows `answers` can read.
const WELL_TYPED: &str = "typeof(uuid) = 'text' AND typeof(task_id) = 'integer'
    AND typeof(answer) = 'text' AND typeof(created_at) = 'integer'";

/// The current (not superseded) answer on a task.
/// How many answers the pack holds for task `task_id`, corrections included.
pub fn answers_for(conn: &Read, task_id: i64) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached("SELECT count(*) FROM answers WHERE task_id = ?1")?
        .query_row([task_id], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

pub fn current_answer(conn: &Read, task_id: i64) -> Result<Option<PackAnswerRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {ANSWER_COLUMNS} FROM answers a WHERE task_id = ?1
               AND NOT EXISTS (SELECT 1 FROM answers b WHERE b.supersedes = a.uuid)
             ORDER BY seq DESC LIMIT 1"
        ))?
        .query_row([task_id], answer_from_row)
        .optional()?)
}

/// Records that the holder reports a problem with task `task_id`.
pub fn insert_problem(conn: &crate::Tx<'_>, task_id: i64, text: &str, at: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO problems (task_id, text, created_at) VALUES (?1, ?2, ?3)",
        params![task_id, text, at],
    )?;
    Ok(())
}

/// The report on task `task_id`, if its holder made one.
pub fn problem(conn: &Read, task_id: i64) -> Result<Option<PackProblemRow>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {PROBLEM_COLUMNS} FROM problems WHERE task_id = ?1 ORDER BY seq LIMIT 1"
        ))?
        .query_row([task_id], problem_from_row)
        .optional()?)
}

const PROBLEM_COLUMNS: &str = "seq, task_id, text, created_at";

fn problem_from_row(r: &crate::db::Row<'_>) -> crate::db::Result<PackProblemRow> {
    Ok(PackProblemRow {
        seq: r.get(0)?,
        task_id: r.get(1)?,
        text: r.get(2)?,
        created_at: r.get(3)?,
    })
}

/// The reports whose columns hold the types Factdesk writes, in the order they were made.
pub fn problems(conn: &Read) -> Result<Vec<PackProblemRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {PROBLEM_COLUMNS} FROM problems WHERE {PROBLEM_WELL_TYPED} ORDER BY seq"
    ))?;
    let rows = stmt.query_map([], problem_from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The first report whose columns hold the wrong type of value (the annotator owns the
/// file): its row, the column and what is wrong, so the merge refuses the pack naming it.
pub fn malformed_problem(conn: &Read) -> Result<Option<(i64, String, String)>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT seq, typeof(task_id), typeof(text), typeof(created_at) FROM problems
                 WHERE NOT ({PROBLEM_WELL_TYPED}) ORDER BY seq LIMIT 1"
            ),
            [],
            |r| {
                let seq: i64 = r.get(0)?;
                let found: [String; 3] = [r.get(1)?, r.get(2)?, r.get(3)?];
                let wanted = ["integer", "text", "integer"];
                let names = ["task_id", "text", "created_at"];
                let at = (0..3).find(|&i| found[i] != wanted[i]).unwrap_or(0);
                Ok((
                    seq,
                    names[at].to_string(),
                    format!("it is {} where {} belongs", found[at], wanted[at]),
                ))
            },
        )
        .optional()?)
}

/// The report rows [`problems`] can read.
const PROBLEM_WELL_TYPED: &str =
    "typeof(task_id) = 'integer' AND typeof(text) = 'text' AND typeof(created_at) = 'integer'";
