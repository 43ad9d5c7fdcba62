//! Telling what a file is, and whether it may be written, before SQLite touches it.
//!
//! Opening a file with SQLite and running a pragma such as `journal_mode=WAL` already
//! writes to it, so a foreign file, a file from a newer Factdesk or a read-only file is
//! recognised from its header (read through an immutable connection) and its permissions
//! first.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Marks a SQLite file as a Factdesk project (`PRAGMA application_id`, "FDES").
pub(crate) const APPLICATION_ID: i64 = 0x4644_4553;

/// How a project file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads and writes; older schemas are migrated.
    ReadWrite,
    /// Reads only: no journal switch, no migration, nothing written.
    ReadOnly,
}

/// What the file's SQLite header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub user_version: i64,
    pub application_id: i64,
}

/// `path` with `suffix` appended to its name (`p.fdesk` → `p.fdesk-wal`).
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether SQLite's write-ahead log beside `path` holds changes not yet in the file
/// itself; the header may then be behind.
pub(crate) fn wal_has_changes(path: &Path) -> bool {
    std::fs::metadata(sibling(path, "-wal")).is_ok_and(|m| m.len() > 0)
}

/// Reads the header (`Ok(None)`: not a SQLite file at all) through SQLite, opened
/// immutable: nothing is locked, created or written, and the main file alone is read.
/// Never with a file handle of our own: closing a handle on a file that SQLite
/// connections of this process hold drops their POSIX locks, and another process may then
/// take itself for the last one and remove the write-ahead log they still use.
pub(crate) fn header(path: &Path) -> Result<Option<Header>> {
    let meta = std::fs::metadata(path).map_err(|_| Error::NotFound(path.to_path_buf()))?;
    if meta.is_dir() {
        return Err(Error::IsFolder(path.to_path_buf()));
    }
    if meta.len() < 100 {
        return Ok(None);
    }
    let unreadable = |e: rusqlite::Error| Error::Unreadable {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let conn = rusqlite::Connection::open_with_flags(
        uri(path, "immutable=1")?,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
            | rusqlite::OpenFlags::SQLITE_OPEN_URI
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(unreadable)?;
    let read = |pragma: &str| conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0));
    match (read("application_id"), read("user_version")) {
        (Ok(application_id), Ok(user_version)) => Ok(Some(Header {
            user_version,
            application_id,
        })),
        (Err(rusqlite::Error::SqliteFailure(e, _)), _)
            if e.code == rusqlite::ErrorCode::NotADatabase =>
        {
            Ok(None)
        }
        (Err(e), _) | (_, Err(e)) => Err(unreadable(e)),
    }
}

/// Refuses a file that is not a Factdesk project or comes from a newer Factdesk, from its
/// header alone. When the write-ahead log holds changes the header may predate them (a
/// project just created by a program still running), so the verdict is left to SQLite.
pub(crate) fn check_header(path: &Path, supported: i64) -> Result<()> {
    let pending = wal_has_changes(path);
    match header(path) {
        // A checkpoint cut off by a kill leaves the file half copied from its log, which
        // reads as damaged alone; SQLite replays the log on opening, so it judges.
        Err(Error::Unreadable { .. }) if pending => Ok(()),
        Err(e) => Err(e),
        Ok(None) if pending => Ok(()),
        Ok(None) => Err(Error::NotAProject(path.to_path_buf())),
        Ok(Some(h)) if h.user_version > supported => Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found: h.user_version,
            supported,
        }),
        Ok(Some(h)) if h.application_id != APPLICATION_ID && !pending => {
            Err(Error::NotAProject(path.to_path_buf()))
        }
        Ok(Some(_)) => Ok(()),
    }
}

/// True when `path` is a Factdesk project (or pack) file, judged by its content.
pub fn is_project_file(path: &Path) -> bool {
    matches!(header(path), Ok(Some(h)) if h.application_id == APPLICATION_ID)
}

/// Whether the project at `path` can be written: the file and its folder (where SQLite
/// keeps its journal) must both be writable. A file or folder whose permissions grant no
/// write access to anyone counts as read-only even for an administrator, who could
/// otherwise write through them.
pub fn writable(path: &Path) -> bool {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    [path, folder.as_path()]
        .iter()
        .all(|p| std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly()) && may_write(p))
}

#[cfg(unix)]
fn may_write(p: &Path) -> bool {
    rustix::fs::access(p, rustix::fs::Access::WRITE_OK).is_ok()
}

#[cfg(not(unix))]
fn may_write(_: &Path) -> bool {
    true
}

/// A `file:` URI for `path` with `query`, for opening with SQLite's URI parameters.
pub(crate) fn uri(path: &Path, query: &str) -> Result<String> {
    let absolute = std::path::absolute(path).map_err(|e| Error::Unreadable {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut text = absolute.to_string_lossy().into_owned();
    if cfg!(windows) {
        // SQLite reads `file:/C:/dir/p.fdesk` on Windows.
        text = format!("/{}", text.replace('\\', "/"));
    }
    let mut out = String::from("file:");
    for b in text.bytes() {
        match b {
            b'/' | b'-' | b'_' | b'.' | b'~' => out.push(char::from(b)),
            b':' if cfg!(windows) => out.push(':'),
            b if b.is_ascii_alphanumeric() => out.push(char::from(b)),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.push('?');
    out.push_str(query);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_sqlite_would_read_as_parameters() {
        let u = uri(Path::new("/tmp/a b?c#d%.fdesk"), "immutable=1").unwrap_or_default();
        assert_eq!(u, "file:/tmp/a%20b%3Fc%23d%25.fdesk?immutable=1");
    }

    /// Regression: killed while SQLite copied the log into the file, a project read as
    /// "malformed" to every later command, though the log held it whole.
    #[test]
    fn a_checkpoint_cut_off_by_a_kill_leaves_a_project_that_opens() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = dir.path().join("p.fdesk");
        drop(crate::Store::create(&p, "cut", 0).unwrap_or_else(|e| panic!("{e}")));
        // Changes kept in the log: a table whose pages lie beyond the file's end.
        let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "PRAGMA wal_autocheckpoint=0;
             CREATE TABLE filler(x TEXT);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO filler SELECT printf('%0500d', i) FROM n;",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // The state a kill leaves: the log whole, the file's first page already copied.
        let cut = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let q = cut.path().join("p.fdesk");
        let wal = std::fs::read(sibling(&p, "-wal")).unwrap_or_else(|e| panic!("{e}"));
        let mut file = std::fs::read(&p).unwrap_or_else(|e| panic!("{e}"));
        drop(conn);
        let page = u32::from_be_bytes([wal[8], wal[9], wal[10], wal[11]]) as usize;
        let first = (32..wal.len())
            .step_by(24 + page)
            .rfind(|&f| f + 24 + page <= wal.len() && wal[f..f + 4] == [0, 0, 0, 1])
            .unwrap_or_else(|| panic!("page 1 is not in the log"));
        file[..page].copy_from_slice(&wal[first + 24..first + 24 + page]);
        std::fs::write(&q, &file).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(sibling(&q, "-wal"), &wal).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            header(&q).is_err(),
            "the file alone should read as damaged, or this test shows nothing"
        );
        crate::Store::open(&q).unwrap_or_else(|e| panic!("{e}"));
        let conn = rusqlite::Connection::open(&q).unwrap_or_else(|e| panic!("{e}"));
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM filler", [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rows, 2000);
    }

    /// The build flags of .cargo/config.toml reached the bundled SQLite.
    #[test]
    fn sqlite_is_built_without_the_global_locks() {
        let conn = rusqlite::Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let mut stmt = conn
            .prepare("PRAGMA compile_options")
            .unwrap_or_else(|e| panic!("{e}"));
        let options: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
    }

    #[test]
    fn a_text_file_has_no_header() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = dir.path().join("x.fdesk");
        std::fs::write(&p, "hello").unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(header(&p), Ok(None)));
        assert!(matches!(header(dir.path()), Err(Error::IsFolder(_))));
    }
}
