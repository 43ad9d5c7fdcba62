//! `factdesk pack`, `merge` and `packs`: packs answered with the CLI itself merge back
//! once, and an altered or foreign pack is refused with the project unchanged.

use crate::{content_digest, demo_project, factdesk, ok, stderr, submit};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn demo(dir: &Path, name: &str) -> PathBuf {
    demo_project(dir, name, &["ana", "ben"])
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"))
}

fn pack(project: &Path, who: &str, count: &str, out: &Path) -> Value {
    let s = |x: &str| x.to_string();
    let args = [
        s("pack"),
        project.display().to_string(),
        s("--for"),
        s(who),
        s("--count"),
        s(count),
        s("--kind"),
        s("evidence"),
        s("--out"),
        out.display().to_string(),
        s("--json"),
    ];
    json(&ok(args))
}

/// Answers `n` items of a pack with the CLI, picking the first option each time.
fn answer(pack: &Path, who: &str, n: usize) {
    for _ in 0..n {
        let next = json(&ok([
            Path::new("next"),
            pack,
            Path::new("--as"),
            Path::new(who),
            Path::new("--kind"),
            Path::new("evidence"),
            Path::new("--json"),
        ]));
        let item = &next["item"];
        let line =
            serde_json::json!({"task_id": item["task_id"], "selected": [item["options"][0]["id"]]});
        assert!(submit(pack, who, &[line]).contains("\"ack\""));
    }
}

fn answers(project: &Path) -> u64 {
    crate::stats(project)["annotations"].as_u64().unwrap_or(0)
}

#[test]
fn packs_answered_with_the_cli_merge_once_and_are_listed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo(dir.path(), "p.fdesk");
    let (a, b) = (dir.path().join("ana.fdpack"), dir.path().join("ben.fdpack"));
    assert_eq!(pack(&p, "ana", "4", &a)["items"], 4);
    assert_eq!(pack(&p, "ben", "4", &b)["items"], 4);
    answer(&a, "ana", 3);
    answer(&b, "ben", 2);
    let out = ok([Path::new("merge"), &p, &a, &b]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 new answers from ana"), "{text}");
    assert!(text.contains("2 new answers from ben"), "{text}");
    assert_eq!(answers(&p), 5);
    let again = json(&ok([Path::new("merge"), &p, &a, Path::new("--json")]));
    assert_eq!(
        (again["added"].as_u64(), again["already"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(answers(&p), 5);
    let list = json(&ok([Path::new("packs"), &p, Path::new("--json")]));
    let merged: Vec<(String, u64, String)> = list
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["annotator"].as_str().unwrap_or_default().to_string(),
                p["merged"].as_u64().unwrap_or(0),
                p["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        merged.contains(&("ana".into(), 3, "returned".into())),
        "{merged:?}"
    );
    assert!(
        merged.contains(&("ben".into(), 2, "returned".into())),
        "{merged:?}"
    );
    for cmd in ["pack", "merge", "packs"] {
        assert!(ok([cmd, "--help"]).status.success());
    }
}

#[test]
fn an_altered_or_foreign_pack_is_refused_and_the_project_is_unchanged() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo(dir.path(), "p.fdesk");
    let other = demo(dir.path(), "other.fdesk");
    let a = dir.path().join("ana.fdpack");
    pack(&p, "ana", "2", &a);
    answer(&a, "ana", 1);
    let mut bytes = std::fs::read(&a).unwrap_or_else(|e| panic!("{e}"));
    let at = bytes
        .windows(13)
        .position(|w| w == b"\"annotator\":\"")
        .unwrap_or_else(|| panic!("no manifest in the pack"));
    bytes[at + 13] = b'b';
    std::fs::write(&a, bytes).unwrap_or_else(|e| panic!("{e}"));
    let before = content_digest(&p);
    let out = factdesk([Path::new("merge"), &p, &a]);
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(
        msg.contains("ana.fdpack: refused, nothing was changed: its manifest was altered"),
        "{msg}"
    );
    assert_eq!(content_digest(&p), before);

    let f = dir.path().join("foreign.fdpack");
    pack(&other, "ana", "2", &f);
    let out = factdesk([Path::new("merge"), &p, &f]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("belongs to another project"),
        "{}",
        stderr(&out)
    );
    assert_eq!(content_digest(&p), before);
}

#[test]
fn merge_lists_each_refused_answer_with_its_reason_and_leaves_the_pack_as_it_was() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo(dir.path(), "p.fdesk");
    let a = dir.path().join("ana.fdpack");
    pack(&p, "ana", "2", &a);
    answer(&a, "ana", 1);
    {
        let conn = rusqlite::Connection::open(&a).unwrap_or_else(|e| panic!("{e}"));
        conn.execute(
            "INSERT INTO answers (uuid, task_id, answer, created_at) SELECT 'forged', task_id, '{\"foo\":1}', created_at FROM answers",
            [],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let before = std::fs::read(&a).unwrap_or_else(|e| panic!("{e}"));
    // The rest merges; the exit status says an answer was left out, as submit's does.
    let out = factdesk([Path::new("merge"), &p, &a]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 answers were refused"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 new answers from ana"), "{text}");
    assert!(
        text.contains("ana.fdpack: answer forged refused: it cannot be read as an answer (unknown field `foo`"),
        "{text}"
    );
    assert_eq!(answers(&p), 1);
    assert_eq!(std::fs::read(&a).unwrap_or_else(|e| panic!("{e}")), before);
    for side in ["-wal", "-shm", "-journal"] {
        assert!(
            !Path::new(&format!("{}{side}", a.display())).exists(),
            "{side}"
        );
    }
}

#[test]
fn merging_a_pack_nobody_answered_is_refused_unless_allow_empty() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo(dir.path(), "p.fdesk");
    let a = dir.path().join("ana.fdpack");
    pack(&p, "ana", "2", &a);
    let before = content_digest(&p);
    let out = factdesk([Path::new("merge"), &p, &a]);
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(
        msg.contains("ana.fdpack: refused, nothing was changed"),
        "{msg}"
    );
    assert!(msg.contains("has no answers yet"), "{msg}");
    assert!(msg.contains("--allow-empty"), "{msg}");
    assert_eq!(content_digest(&p), before);
    let listed = json(&ok([Path::new("packs"), &p, Path::new("--json")]));
    assert_eq!(listed[0]["state"], "out");

    let out = ok([Path::new("merge"), &p, &a, Path::new("--allow-empty")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("0 new answers from ana"), "{said}");
    assert!(said.contains("2 items back in the pool"), "{said}");
    let listed = json(&ok([Path::new("packs"), &p, Path::new("--json")]));
    assert_eq!(listed[0]["state"], "returned");
}
