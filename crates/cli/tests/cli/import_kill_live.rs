//! An import into a live project writes in chunks (issue 31), each committed: killed
//! midway it leaves rows, which no one is given (no task) and which the next command
//! that opens the project removes, after which every lead command works and the same
//! import goes through whole.

use crate::{claims_with_evidence, content_digest, demo_project, factdesk, ok, stats};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn count(p: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(p).unwrap_or_else(|e| panic!("{e}"));
    conn.query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

const UNFINISHED: &str = "SELECT count(*) FROM imports WHERE rows_added < 0";
const UNRANKED: &str = "SELECT count(*) FROM claims c WHERE EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) AND NOT EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id)";

/// Every lead command runs on the project.
fn lead_commands_work(dir: &Path, p: &Path, run: &str) {
    let project = p.display().to_string();
    let out = |name: &str| dir.join(format!("{run}-{name}")).display().to_string();
    for args in [
        vec!["tasks", &project, "--kind", "label"],
        vec!["rank", &project, "--ranker", "levenshtein"],
        vec!["agreement", &project],
        vec![
            "report",
            &project,
            "--out",
            &out("report.html"),
            "--bootstrap",
            "0",
        ],
        vec!["export", &project, "--out", &out("gold.jsonl")],
        vec!["adjudicate", &project, "--list"],
    ] {
        ok(&args);
    }
}

#[test]
fn an_import_into_a_live_project_killed_midway_is_removed_and_runs_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &["ana", "ben"]);
    let before = (stats(&p), content_digest(&p));
    let claims_before = before.0["claims"].as_i64().unwrap_or(-1);
    // More than one chunk of rows.
    let more = claims_with_evidence(dir.path(), 2500);
    // The test hook aborts the process, as a kill would, once every claim is stored
    // and before their candidates are.
    let out = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("import")
        .arg(&p)
        .arg(&more)
        .env("FACTDESK_TEST_ABORT_AT_PHASE", "ranking")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success(), "the import was not stopped");
    // Its rows are there, unfinished: claims without candidates, none with a task.
    assert_eq!(count(&p, UNFINISHED), 1);
    assert_eq!(
        count(&p, "SELECT count(*) FROM claims"),
        claims_before + 2500
    );
    assert_eq!(count(&p, UNRANKED), 2500);
    // The first command to open the project removed them: it is as before the import.
    assert_eq!((stats(&p), content_digest(&p)), before);
    assert_eq!(count(&p, UNFINISHED), 0);
    lead_commands_work(dir.path(), &p, "removed");
    ok([Path::new("import"), &p, &more]);
    assert_eq!(stats(&p)["claims"], claims_before + 2500);
    assert_eq!(count(&p, UNRANKED), 0);
    lead_commands_work(dir.path(), &p, "again");

    // Killed for real once its first chunk is committed: the same.
    let q = demo_project(dir.path(), "q.fdesk", &["ana", "ben"]);
    let q_before = content_digest(&q);
    let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("import")
        .arg(&q)
        .arg(&more)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    while count(&q, "SELECT count(*) FROM claims") == claims_before
        && start.elapsed() < Duration::from_secs(120)
        && child.try_wait().ok().flatten().is_none()
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap_or_else(|e| panic!("{e}"));
    child.wait().unwrap_or_else(|e| panic!("{e}"));
    let killed_midway = count(&q, UNFINISHED) == 1;
    let after = factdesk([Path::new("stats"), &q, Path::new("--json")]);
    assert!(after.status.success());
    if killed_midway {
        assert_eq!(content_digest(&q), q_before);
    }
    ok([Path::new("import"), &q, &more]);
    assert_eq!(stats(&q)["claims"], claims_before + 2500);
    assert_eq!(count(&q, UNRANKED), 0);
}
