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
    let mut killed_mid_write = 0;
    for run in 0..6 {
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
        let start = Instant::now();
        while written() < 256 << 10 && start.elapsed() < Duration::from_secs(60) {
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis((seed >> 33) % 100));
        let finished = child.try_wait().ok().flatten().is_some();
        child.kill().unwrap_or_else(|e| panic!("{e}"));
        child.wait().unwrap_or_else(|e| panic!("{e}"));
        if !finished {
            killed_mid_write += 1;
        }

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
    }
    assert!(
        killed_mid_write >= 3,
        "only {killed_mid_write} of 6 kills landed while the import was writing: the test proves too little"
    );
}
