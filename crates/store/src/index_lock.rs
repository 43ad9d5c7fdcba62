//! Taking the index's writer lock, waiting a moment when it is busy.
//!
//! The lock is a `flock` on a file in the index folder. A process started by any thread
//! of ours gets a copy of every open file until it has started its program, so a lock
//! released just before such a start stays held by the copy for that instant: a writer
//! that asked once would then be refused although nobody is writing. A writer that is
//! really running (another import) holds the lock far longer than the wait, and the
//! second writer is still told so. (With a thread starting processes without pause, 97%
//! of single tries were refused on our two-core machine.)

use crate::{Error, Result};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tantivy::directory::error::LockError;
use tantivy::{Index, IndexWriter, TantivyError};

/// How long a busy lock is waited for before the writer is refused.
const LOCK_WAIT: Duration = Duration::from_secs(5);
const RETRY_EVERY: Duration = Duration::from_millis(10);

/// A writer of `index` with `threads` indexing threads sharing `memory` bytes.
pub(crate) fn writer<D: tantivy::Document>(
    index: &Index,
    threads: usize,
    memory: usize,
) -> Result<IndexWriter<D>> {
    let deadline = Instant::now() + LOCK_WAIT;
    loop {
        match index.writer_with_num_threads(threads, memory) {
            Err(TantivyError::LockFailure(LockError::LockBusy, _)) if Instant::now() < deadline => {
                std::thread::sleep(RETRY_EVERY);
            }
            r => return Ok(r?),
        }
    }
}

/// A writer of `index` if none runs now (an import writing its rows), without waiting.
/// A lock held for an instant by a process being started (see above) reads as taken too,
/// which only makes a search use the index as it stands once.
pub(crate) fn try_writer<D: tantivy::Document>(
    index: &Index,
    threads: usize,
    memory: usize,
) -> Result<Option<IndexWriter<D>>> {
    match index.writer_with_num_threads(threads, memory) {
        Err(TantivyError::LockFailure(LockError::LockBusy, _)) => Ok(None),
        r => Ok(Some(r?)),
    }
}

/// Held while an index is built anew, by one builder at a time across threads and
/// processes (a `flock` on a file beside the index folder, which each taker opens for
/// itself). Two searches that found the index missing both deleted and rebuilt it at
/// once: half of them failed, and the index was left holding rows twice (seventeenth
/// hostile pass).
#[derive(Debug)]
pub(crate) struct Building {
    _lock: File,
    dir: PathBuf,
}

/// The build of the index at `dir`, or `Error::IndexBuilding` at once when someone
/// builds it now (or an import writes it): a search then waits for nobody, and is told
/// to search again.
pub(crate) fn building(dir: &Path) -> Result<Building> {
    taken(dir, false)
}

/// [`building`], waiting for a build under way to end (an import's, which may take long).
pub(crate) fn building_wait(dir: &Path) -> Result<Building> {
    taken(dir, true)
}

fn taken(dir: &Path, wait: bool) -> Result<Building> {
    let path = crate::sibling(dir, ".lock");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::Index(format!("cannot create {}: {e}", parent.display())))?;
    }
    let file = lock_file(&path)?;
    let locked = match wait {
        true => file.lock().map_err(TryLockError::Error),
        false => file.try_lock(),
    };
    match locked {
        Ok(()) => Ok(Building {
            _lock: file,
            dir: dir.to_path_buf(),
        }),
        Err(TryLockError::WouldBlock) => Err(Error::IndexBuilding),
        Err(TryLockError::Error(e)) => {
            Err(Error::Index(format!("cannot lock {}: {e}", path.display())))
        }
    }
}

/// The lock file at `path`, made when missing. Anything else found there (a folder, or a
/// link, which would be followed out of the project's folder) stopped every build of the
/// index for good: it is removed and a file made in its place. A file is kept as it is,
/// since another builder may hold it.
fn lock_file(path: &Path) -> Result<File> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        tracing::warn!(path = %path.display(), "replacing what stood in place of the search index's lock file");
        remove(path)?;
    }
    open_lock(path).map_err(|e| Error::Index(format!("cannot open {}: {e}", path.display())))
}

/// Opens (or makes) the lock file, never through a link planted since the look.
#[cfg(unix)]
fn open_lock(path: &Path) -> std::io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(File::from(rustix::fs::open(
        path,
        flags,
        Mode::from_raw_mode(0o666),
    )?))
}

#[cfg(not(unix))]
fn open_lock(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

impl Building {
    /// An empty folder to build the new index in, beside the index (a build killed
    /// before it finished left its folder; nobody else builds while this is held).
    /// Made anew, never one found there, which may be a link out of the project's folder.
    pub(crate) fn fresh_folder(&self) -> Result<PathBuf> {
        let folder = crate::sibling(&self.dir, ".building");
        remove(&folder)?;
        std::fs::create_dir(&folder)
            .map_err(|e| Error::Index(format!("cannot create {}: {e}", folder.display())))?;
        Ok(folder)
    }

    /// Puts the index built in `folder` in the old one's place. A search that opened
    /// the old one reads it on (its files stay readable until it closes them); one that
    /// looks in the instant between the two renames finds no index and is told to
    /// search again.
    pub(crate) fn put_in_place(&self, folder: &Path) -> Result<()> {
        let old = crate::sibling(&self.dir, ".old");
        remove(&old)?;
        // Whatever is there, a link that leads nowhere too, is moved aside.
        if std::fs::symlink_metadata(&self.dir).is_ok() {
            rename(&self.dir, &old)?;
        }
        rename(folder, &self.dir)?;
        if let Err(e) = remove(&old) {
            tracing::warn!("{e}");
        }
        Ok(())
    }
}

/// Removes what is at `path`: a folder with all it holds, a file, or a link itself, never
/// what the link leads to (which may lie outside the project's folder).
fn remove(path: &Path) -> Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        // A link to a folder is removed as a folder on Windows.
        Ok(m) if m.is_symlink() => {
            std::fs::remove_file(path).or_else(|_| std::fs::remove_dir(path))
        }
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Index(format!(
            "cannot remove {}: {e}",
            path.display()
        ))),
        _ => Ok(()),
    }
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).map_err(|e| {
        Error::Index(format!(
            "cannot move {} to {}: {e}",
            from.display(),
            to.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(dir: &std::path::Path) -> Index {
        let mut schema = tantivy::schema::Schema::builder();
        schema.add_text_field("t", tantivy::schema::TEXT);
        Index::create_in_dir(dir, schema.build()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Regression (CI, stop 39): a lock held for an instant by a copy in a process being
    /// started made an import fail with "another import ... is writing".
    #[test]
    fn a_lock_held_for_an_instant_is_waited_for() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let index = index(dir.path());
        let held = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.path().join(".tantivy-writer.lock"))
            .unwrap_or_else(|e| panic!("{e}"));
        held.lock().unwrap_or_else(|e| panic!("{e}"));
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        let w = writer::<tantivy::TantivyDocument>(&index, 1, 15_000_000);
        assert!(w.is_ok(), "{:?}", w.err());
        release
            .join()
            .unwrap_or_else(|_| panic!("the releasing thread panicked"));
    }

    /// A writer that keeps the lock is still reported, after the wait, as busy.
    #[test]
    fn a_lock_kept_by_a_running_writer_is_refused_after_the_wait() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let index = index(dir.path());
        let _first = writer::<tantivy::TantivyDocument>(&index, 1, 15_000_000)
            .unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let second = writer::<tantivy::TantivyDocument>(&index, 1, 15_000_000);
        assert!(second.is_err());
        assert!(started.elapsed() >= LOCK_WAIT);
        let message = second.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("another import"), "{message}");
    }
}
