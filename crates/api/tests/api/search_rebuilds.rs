//! Issue 31 (low findings): a search while the index is rebuilt sees the old index, the
//! new one, or is told to search again (unavailable), never an internal error; and
//! nothing planted beside the index stops it being built.

use factdesk_api::{ErrorCode, ManualClock, Project};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::common;
use common::{must, Acting};

/// Reindexes, told to wait while a search holds the build for an instant.
fn reindex(p: &Project) {
    for _ in 0..50 {
        match p.reindex(&p.lead()) {
            Err(e) if e.code == ErrorCode::Unavailable => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            r => return must(r),
        }
    }
    panic!("the reindex was refused 50 times");
}

/// Regression: about one search in 430 on the server failed with a 500 while `reindex`
/// ran, having opened the index in the instant its folder was moved aside for the new one.
#[test]
fn searches_during_reindexes_find_or_are_told_to_search_again() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = common::project(dir.path(), 4, &clock);
    reindex(&p);
    let location = common::location(dir.path(), "p.fdesk");
    let stop = Arc::new(AtomicBool::new(false));
    let searchers: Vec<_> = (0..2)
        .map(|_| {
            let (location, clock, stop) = (location.clone(), clock.clone(), stop.clone());
            std::thread::spawn(move || {
                let p = must(Project::open(&location, Box::new(clock)));
                let (mut found, mut unavailable, mut failed) = (0, 0, Vec::new());
                while !stop.load(Ordering::Relaxed) {
                    match p.search(&p.lead(), "lighthouse", 10) {
                        Ok(hits) if !hits.is_empty() => found += 1,
                        Ok(_) => failed.push("no hits".to_string()),
                        Err(e) if e.code == ErrorCode::Unavailable => unavailable += 1,
                        Err(e) => failed.push(format!("{:?}: {}", e.code, e.message)),
                    }
                }
                (found, unavailable, failed)
            })
        })
        .collect();
    for _ in 0..60 {
        reindex(&p);
    }
    stop.store(true, Ordering::Relaxed);
    let mut found = 0;
    for searcher in searchers {
        let (f, _, failed) = searcher
            .join()
            .unwrap_or_else(|_| panic!("a searching thread panicked"));
        assert!(failed.is_empty(), "{} failed: {failed:?}", failed.len());
        found += f;
    }
    assert!(found > 0, "no search found anything");
}

/// What may be planted where the index keeps its lock, its build, the old index while
/// the new one is put in place, or itself.
#[derive(Debug, Clone, Copy)]
enum Planted {
    File,
    Folder,
    #[cfg(unix)]
    LinkToFolder,
    #[cfg(unix)]
    LinkToFile,
    #[cfg(unix)]
    DanglingLink,
}

const PLANTED: &[Planted] = &[
    Planted::File,
    Planted::Folder,
    #[cfg(unix)]
    Planted::LinkToFolder,
    #[cfg(unix)]
    Planted::LinkToFile,
    #[cfg(unix)]
    Planted::DanglingLink,
];

/// Removes whatever is at `at`, a link itself rather than what it points to.
fn clear(at: &std::path::Path) {
    match std::fs::symlink_metadata(at) {
        Ok(m) if m.is_dir() => must(std::fs::remove_dir_all(at)),
        Ok(_) => must(std::fs::remove_file(at)),
        Err(_) => {}
    }
}

/// Puts `what` at `at`; links point into `outside`, a folder beyond the index's.
fn plant(at: &std::path::Path, what: Planted, outside: &std::path::Path) {
    clear(at);
    match what {
        Planted::File => must(std::fs::write(at, "planted")),
        Planted::Folder => {
            must(std::fs::create_dir(at));
            must(std::fs::write(at.join("meta.json"), "planted"));
        }
        #[cfg(unix)]
        Planted::LinkToFolder => must(std::os::unix::fs::symlink(outside.join("folder"), at)),
        #[cfg(unix)]
        Planted::LinkToFile => must(std::os::unix::fs::symlink(outside.join("keep.txt"), at)),
        #[cfg(unix)]
        Planted::DanglingLink => must(std::os::unix::fs::symlink(outside.join("missing"), at)),
    }
}

/// Everything under `folder`, with the contents of its files.
fn listing(folder: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in must(std::fs::read_dir(folder)) {
        let path = must(entry).path();
        let name = path.to_string_lossy().into_owned();
        match path.is_dir() {
            true => out.extend(listing(&path)),
            false => out.push((name, must(std::fs::read_to_string(&path)))),
        }
    }
    out.sort();
    out
}

/// Regression: a file, folder or link planted at `<index>.lock`, `.building`, `.old` or
/// at the index itself made every later build of the index fail, so search failed for
/// good once the index was missing or behind; a link was followed out of the project's
/// folder. Now what is there is removed (a link itself) and the index built.
#[test]
fn search_and_reindex_recover_from_what_is_planted_beside_the_index() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = common::project(dir.path(), 3, &clock);
    let outside = dir.path().join("outside");
    must(std::fs::create_dir_all(outside.join("folder")));
    must(std::fs::write(outside.join("keep.txt"), "keep"));
    must(std::fs::write(
        outside.join("folder").join("keep.txt"),
        "keep",
    ));
    let untouched = listing(&outside);
    let index = must(p.store().index_dir());
    let beside = |suffix: &str| {
        let mut s = index.as_os_str().to_owned();
        s.push(suffix);
        std::path::PathBuf::from(s)
    };
    let mut failed = Vec::new();
    for suffix in [".lock", ".building", ".old", ""] {
        let at = beside(suffix);
        for &what in PLANTED {
            for reindexing in [false, true] {
                let case = format!("{what:?} at {} (reindex {reindexing})", at.display());
                if !suffix.is_empty() && !reindexing {
                    // Missing, the index is built by the search itself.
                    clear(&index);
                }
                plant(&at, what, &outside);
                let hits = match reindexing {
                    true => p
                        .reindex(&p.lead())
                        .and_then(|()| p.search(&p.lead(), "lighthouse", 10)),
                    false => p.search(&p.lead(), "lighthouse", 10),
                };
                let left = std::fs::symlink_metadata(&at);
                // Nothing is left at the build's and the old index's places either.
                let shape_left = match suffix {
                    ".lock" => left.is_ok_and(|m| m.is_file()),
                    "" => left.is_ok_and(|m| m.is_dir()),
                    _ => left.is_err(),
                } && [".building", ".old"]
                    .iter()
                    .all(|s| std::fs::symlink_metadata(beside(s)).is_err());
                match hits {
                    Err(e) => failed.push(format!("{case}: {e}")),
                    Ok(hits) if hits.is_empty() => failed.push(format!("{case}: no hits")),
                    Ok(_) if !shape_left => failed.push(format!("{case}: left as it was")),
                    Ok(_) => {}
                }
                if !shape_left {
                    // Each case on its own: what was left would fail the next.
                    for s in [suffix, ".building", ".old"] {
                        clear(&beside(s));
                    }
                }
                if listing(&outside) != untouched {
                    failed.push(format!("{case}: changed {}", outside.display()));
                    clear(&outside.join("missing"));
                }
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
