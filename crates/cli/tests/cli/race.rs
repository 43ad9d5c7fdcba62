//! Overlap is an invariant: writers racing in separate processes for the last slots of
//! many items never take more than an item has, and one annotator answering the same item
//! from two processes keeps one current answer.

use super::ok;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const TASKS: usize = 400;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project of `TASKS` claims with a one-sentence document each, and label tasks with
/// overlap 3 already holding two answers each.
fn two_thirds_full(dir: &Path) -> (PathBuf, Vec<i64>) {
    let claims = dir.join("claims.jsonl");
    let docs = dir.join("docs.jsonl");
    let mut c = must(std::fs::File::create(&claims));
    let mut d = must(std::fs::File::create(&docs));
    for i in 0..TASKS {
        let doc = serde_json::json!({"id": format!("d{i}"), "text": format!("Bridge {i} opened in {}. It carries a tram line.", 1900 + i)});
        must(writeln!(d, "{doc}"));
        let claim = serde_json::json!({"id": format!("c{i}"), "claim": format!("Bridge {i} opened in {}", 1900 + i), "doc_ids": [format!("d{i}")]});
        must(writeln!(c, "{claim}"));
    }
    let p = dir.join("race.fdesk");
    ok([Path::new("init"), &p]);
    ok([Path::new("import"), &p, &claims, Path::new("--docs"), &docs]);
    for name in ["a1", "a2", "r1", "r2", "r3", "r4", "twin"] {
        ok([
            Path::new("annotators"),
            &p,
            Path::new("add"),
            Path::new(name),
        ]);
    }
    ok([
        Path::new("tasks"),
        &p,
        Path::new("--kind"),
        Path::new("label"),
        Path::new("--overlap"),
        Path::new("3"),
    ]);
    let conn = must(rusqlite::Connection::open(&p));
    let ids: Vec<i64> = {
        let mut stmt = must(conn.prepare("SELECT id FROM tasks WHERE kind = 'label' ORDER BY id"));
        let rows = must(stmt.query_map([], |r| r.get(0)));
        must(rows.collect::<Result<_, _>>())
    };
    assert_eq!(ids.len(), TASKS);
    drop(conn);
    for name in ["a1", "a2", "r1", "r2", "r3", "r4", "twin"] {
        crate::served_everything(&p, name);
    }
    for name in ["a1", "a2"] {
        let out = submit(&p, name, &ids).wait_with_output();
        assert!(must(out).status.success());
    }
    (p, ids)
}

/// `factdesk submit` as `name` answering every task, started and left running.
fn submit(project: &Path, name: &str, ids: &[i64]) -> Child {
    let mut child = must(
        Command::new(env!("CARGO_BIN_EXE_factdesk"))
            .arg("submit")
            .arg(project)
            .args(["--as", name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn(),
    );
    let lines: String = ids
        .iter()
        .map(|id| {
            format!(
                "{}\n",
                serde_json::json!({"task_id": id, "label": "SUPPORTED"})
            )
        })
        .collect();
    if let Some(mut stdin) = child.stdin.take() {
        must(stdin.write_all(lines.as_bytes()));
    }
    child
}

/// What a racer's `factdesk submit` of the tasks `sent` printed: its acks, and the tasks
/// of its lines refused as "unavailable"; refusals other than "conflict" (the item was
/// full) go to `refused`.
fn tally(
    stdout: &str,
    sent: &[i64],
    refused: &mut Vec<String>,
    acks: &mut std::collections::BTreeSet<String>,
) -> Vec<i64> {
    let mut unavailable = Vec::new();
    for line in stdout.lines() {
        let reply: serde_json::Value = must(serde_json::from_str(line));
        if let Some(ack) = reply.get("ack") {
            acks.insert(ack.as_str().unwrap_or_default().to_string());
            continue;
        }
        let at = reply["line"].as_u64().unwrap_or(0) as usize;
        match reply["error"]["code"].as_str() {
            Some("conflict") => {}
            Some("unavailable") if (1..=sent.len()).contains(&at) => unavailable.push(sent[at - 1]),
            _ => refused.push(line.to_string()),
        }
    }
    unavailable
}

#[test]
fn writers_racing_for_the_last_slots_never_exceed_the_overlap() {
    let dir = must(tempfile::tempdir());
    let (p, ids) = two_thirds_full(dir.path());
    // Four annotators and one annotator in two processes race for the one slot left on
    // each of 400 items.
    let names = ["r1", "r2", "r3", "r4", "twin", "twin"];
    let mut racers: Vec<(&str, Vec<i64>, Child)> = names
        .iter()
        .map(|&name| (name, ids.clone(), submit(&p, name, &ids)))
        .collect();
    let mut acks = std::collections::BTreeSet::new();
    let mut refused = Vec::new();
    // A line refused as "unavailable" (another writer held the lock past the busy
    // timeout: a machine busy enough to stall a writer for seconds stalls every racer
    // waiting behind it, on the same item) is sent again, as a client does with "try
    // again"; nothing of it was written. Any other refusal but "conflict" is kept.
    for _ in 0..10 {
        let mut again = Vec::new();
        for (name, sent, child) in racers {
            let out = must(child.wait_with_output());
            let unavailable = tally(
                &String::from_utf8_lossy(&out.stdout),
                &sent,
                &mut refused,
                &mut acks,
            );
            if !unavailable.is_empty() {
                again.push((name, unavailable));
            }
        }
        racers = again
            .into_iter()
            .map(|(name, tasks)| {
                let child = submit(&p, name, &tasks);
                (name, tasks, child)
            })
            .collect();
        if racers.is_empty() {
            break;
        }
    }
    assert!(racers.is_empty(), "still unavailable after ten tries");
    assert!(
        refused.is_empty(),
        "refused otherwise than by a full item: {refused:?}"
    );
    let conn = must(rusqlite::Connection::open(&p));
    let count = |sql: &str| -> i64 { must(conn.query_row(sql, [], |r| r.get(0))) };
    assert_eq!(
        count("SELECT count(*) FROM tasks WHERE answered > overlap"),
        0,
        "tasks above their overlap"
    );
    let current = "NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)";
    assert_eq!(
        count(&format!(
            "SELECT count(*) FROM (SELECT task_id, annotator_id FROM annotations a WHERE {current}
             GROUP BY task_id, annotator_id HAVING count(*) > 1)"
        )),
        0,
        "double current answers"
    );
    assert_eq!(
        count(&format!(
            "SELECT count(*) FROM tasks t WHERE t.answered !=
               (SELECT count(*) FROM annotations a WHERE a.task_id = t.id AND {current})"
        )),
        0,
        "task counters differ from the rows"
    );
    assert_eq!(
        count(&format!(
            "SELECT count(*) FROM tasks t WHERE (SELECT count(*) FROM annotations a WHERE a.task_id = t.id AND {current}) != 3"
        )),
        0,
        "every item ends with exactly its three answers"
    );
    // Every slot was taken by exactly one racer. The twin's second process, sending the
    // same answer to an item the first had answered, is acknowledged with the stored
    // answer's ack: nothing new is written, and no acknowledged answer is missing.
    assert!(acks.len() >= TASKS, "{} acks for {TASKS} slots", acks.len());
    assert_eq!(
        count("SELECT count(*) FROM annotations") as usize,
        2 * TASKS + acks.len(),
        "every distinct ack is one stored answer"
    );
}
