//! Taking the index's writer lock, waiting a moment when it is busy.
//!
//! The lock is a `flock` on a file in the index folder. A process started by any thread
//! of ours gets a copy of every open file until it has started its program, so a lock
//! released just before such a start stays held by the copy for that instant: a writer
//! that asked once would then be refused although nobody is writing. A writer that is
//! really running (another import) holds the lock far longer than the wait, and the
//! second writer is still told so. (With a thread starting processes without pause, 97%
//! of single tries were refused on our two-core machine.)

use crate::Result;
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
