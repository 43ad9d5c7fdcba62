//! A project's first import, killed at any moment, leaves the project as it was or
//! whole, and the project file alone (copied or synced without its write-ahead log)
//! is the project as it was before the import.

use crate::{factdesk, ok};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `n` claims, each with its own document of five sentences.
fn write_inputs(dir: &Path, n: usize) {
    let mut claims =
        std::fs::File::create(dir.join("claims.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let mut docs =
        std::fs::File::create(dir.join("documents.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..n {
        let text: Vec<String> = (0..5)
            .map(|s| {
                format!(
                    "Harbour {i} reported {s} boats and {} nets during the storm season.",
                    i * s
                )
            })
            .collect();
        let doc = serde_json::json!({"id": format!("d{i}"), "text": text.join(" ")});
        writeln!(docs, "{doc}").unwrap_or_else(|e| panic!("{e}"));
        let claim = serde_json::json!({"id": format!("c{i}"), "claim": format!("Harbour {i} reported boats."), "doc_ids": [format!("d{i}")]});
        writeln!(claims, "{claim}").unwrap_or_else(|e| panic!("{e}"));
    }
}

fn count(conn: &rusqlite::Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_first_import_killed_mid_write_leaves_nothing_and_imports_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let n = 6_000;
    write_inputs(dir.path(), n);
    let (claims, docs) = (
        dir.path().join("claims.jsonl"),
        dir.path().join("documents.jsonl"),
    );
    let mut seed: u64 = 0x1a2b;
    // Runs go on until three kills have landed while the import was writing (how soon
    // the import ends is the machine's, not the test's): after a kill that came too late
    // the next waits less after the log starts growing, down to no wait at all.
    let (wanted, most_runs) = (3, 30);
    let mut killed_mid_write = 0;
    let mut wait_ms = 100;
    let mut run = 0;
    while killed_mid_write < wanted && run < most_runs {
        run += 1;
        let p = dir.path().join(format!("p{run}.fdesk"));
        ok([Path::new("init"), &p]);
        let log = dir.path().join(format!("p{run}.fdesk-wal"));
        let written = || std::fs::metadata(&log).map_or(0, |m| m.len());
        let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
            .arg("import")
            .arg(&p)
            .arg(&claims)
            .arg("--docs")
            .arg(&docs)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        // Once the log grows the transaction is writing pages: kill it a little later.
        // (The bound is only for an import that never writes; it ends the wait, and the
        // run then counts as no kill mid-write.)
        let start = Instant::now();
        while written() < 256 << 10 && start.elapsed() < Duration::from_secs(120) {
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let writing = written() >= 256 << 10;
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis((seed >> 33) % (wait_ms + 1)));
        child.kill().unwrap_or_else(|e| panic!("{e}"));
        child.wait().unwrap_or_else(|e| panic!("{e}"));

        // The file alone, as a copy or a sync client would take it: a whole project.
        let alone = dir.path().join(format!("alone{run}.fdesk"));
        std::fs::copy(&p, &alone).unwrap_or_else(|e| panic!("{e}"));
        let copied = factdesk([Path::new("stats"), &alone, Path::new("--json")]);
        assert!(
            copied.status.success(),
            "run {run}: the file alone: {}",
            String::from_utf8_lossy(&copied.stderr)
        );

        // The project with its log: empty or whole.
        let stats = factdesk([Path::new("stats"), &p, Path::new("--json")]);
        assert!(
            stats.status.success(),
            "run {run}: {}",
            String::from_utf8_lossy(&stats.stderr)
        );
        let stats: serde_json::Value =
            serde_json::from_slice(&stats.stdout).unwrap_or_else(|e| panic!("{e}"));
        let found = stats["claims"].as_i64().unwrap_or(-1);
        assert!(found == 0 || found == n as i64, "run {run}: {found} claims");
        // Mid-write: the transaction was writing pages and nothing of it was committed
        // (a kill after the commit, before the process ended, does not count).
        if writing && found == 0 {
            killed_mid_write += 1;
        } else {
            wait_ms /= 2;
        }

        // The same import again completes it, and the file is in WAL once more.
        ok([Path::new("import"), &p, &claims, Path::new("--docs"), &docs]);
        let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap_or_default();
        assert_eq!(check, "ok", "run {run}");
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap_or_default();
        assert_eq!(mode, "wal", "run {run}");
        assert_eq!(count(&conn, "claims"), n as i64, "run {run}");
        assert_eq!(count(&conn, "sentences"), 5 * n as i64, "run {run}");
        assert_eq!(count(&conn, "candidates"), 5 * n as i64, "run {run}");
        drop(conn);
        // Up to thirty runs: each run's projects go once checked.
        for entry in std::fs::read_dir(dir.path()).unwrap_or_else(|e| panic!("{e}")) {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let ours = name.is_some_and(|n| {
                n.starts_with(&format!("p{run}.")) || n.starts_with(&format!("alone{run}."))
            });
            if ours {
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
    assert!(
        killed_mid_write >= wanted,
        "only {killed_mid_write} of {run} kills landed while the import was writing: the test proves too little"
    );
}
