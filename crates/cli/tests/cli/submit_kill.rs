//! Acknowledged answers survive the process being killed at any moment.

use crate::{new_project, ok};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A project with `n` claims ready for labelling by annotator "ana".
fn labelling_project(dir: &Path, n: usize) -> std::path::PathBuf {
    let p = new_project(dir);
    let claims = dir.join("claims.jsonl");
    let mut f = std::fs::File::create(&claims).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..n {
        let row = serde_json::json!({"id": format!("c{i}"), "claim": format!("Claim {i} about the harbour."), "evidence": [format!("The harbour had {i} boats.")]});
        writeln!(f, "{row}").unwrap_or_else(|e| panic!("{e}"));
    }
    drop(f);
    ok([Path::new("import"), &p, &claims]);
    ok([
        Path::new("tasks"),
        &p,
        Path::new("--kind"),
        Path::new("label"),
        Path::new("--overlap"),
        Path::new("1"),
    ]);
    ok([
        Path::new("annotators"),
        &p,
        Path::new("add"),
        Path::new("ana"),
    ]);
    crate::served_everything(&p, "ana");
    p
}

#[test]
fn every_acked_answer_survives_sigkill_twenty_times() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = labelling_project(dir.path(), 500);
    let labels = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"];
    let mut seed: u64 = 0x5eed;
    let mut all_acks: Vec<String> = Vec::new();
    for run in 0..20 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
            .arg("submit")
            .arg(&p)
            .args(["--as", "ana"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        // 10,000 answers over the 500 tasks: later ones supersede earlier ones.
        let writer = std::thread::spawn(move || {
            for i in 0..10_000u32 {
                let line = serde_json::json!({"task_id": (i % 500) + 1, "label": labels[(i % 4) as usize]});
                if writeln!(stdin, "{line}").is_err() {
                    return;
                }
            }
        });
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let kill_after = Duration::from_millis(50 + (seed >> 33) % 1500);
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let start = Instant::now();
        let mut acks = Vec::new();
        while start.elapsed() < kill_after {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(5)) {
                acks.push(line);
            }
        }
        child.kill().unwrap_or_else(|e| panic!("{e}"));
        child.wait().unwrap_or_else(|e| panic!("{e}"));
        reader.join().ok();
        writer.join().ok();
        // Lines printed before the kill are acknowledgements the annotator saw.
        acks.extend(rx.try_iter());
        for line in acks {
            let v: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("run {run}: bad ack line {line:?}: {e}"));
            let ack = v["ack"]
                .as_str()
                .unwrap_or_else(|| panic!("run {run}: not an ack: {line}"));
            all_acks.push(ack.to_string());
        }
        let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap_or_default();
        assert_eq!(check, "ok", "run {run}");
    }
    assert!(
        all_acks.len() > 100,
        "too few answers were acknowledged to prove anything: {}",
        all_acks.len()
    );
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let mut stmt = conn
        .prepare("SELECT 1 FROM annotations WHERE uuid = ?1")
        .unwrap_or_else(|e| panic!("{e}"));
    let missing: Vec<&String> = all_acks
        .iter()
        .filter(|u| !stmt.exists([u.as_str()]).unwrap_or(false))
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged answers are missing, e.g. {:?}",
        missing.len(),
        missing.first()
    );
}

#[test]
fn a_bad_answer_line_gets_an_error_line_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = labelling_project(dir.path(), 3);
    let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("submit")
        .arg(&p)
        .args(["--as", "ana"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let input = "{\"task_id\": 1, \"label\": \"SUPPORTED\"}\n{\"task_id\": 2, \"label\": \"MAYBE\"}\nnot json\n{\"task_id\": 3, \"label\": \"REFUTED\"}\n";
    child
        .stdin
        .take()
        .map(|mut s| s.write_all(input.as_bytes()))
        .transpose()
        .unwrap_or_else(|e| panic!("{e}"));
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[0]["ack"].is_string() && lines[3]["ack"].is_string());
    assert_eq!(lines[1]["error"]["code"], "invalid_input");
    assert_eq!(lines[2]["line"], 3);
    let s = crate::stats(&p);
    assert_eq!(s["annotations"], 2);
}
