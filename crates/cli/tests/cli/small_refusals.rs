//! Small holes a hostile tester found: settings out of range, a submitted line without a
//! task, a negative time, a pack given where a project or records are expected.

use crate::{demo_project, factdesk, ok, stderr, submit};
use serde_json::{json, Value};
use std::path::Path;

fn refused(args: &[&str], says: &str) {
    let out = factdesk(args);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {msg}");
    assert!(msg.contains(says), "{args:?} should say {says:?}: {msg}");
}

#[test]
fn settings_out_of_range_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "s.fdesk", &["ana"]);
    let p = p.to_str().unwrap_or_else(|| panic!("path"));
    refused(&["settings", p, "--set", "overlap=0"], "overlap");
    refused(
        &["settings", p, "--set", "trick_template=\"No trick here.\""],
        "{claim}",
    );
}

/// Regression (issue 31): `--set seed= 7` set the seed to 7, the value read as JSON,
/// which drops the space unseen, though a seed is digits alone. Now space around a value
/// is refused, naming the setting, and the project is left as it was.
#[test]
fn a_seed_with_space_around_it_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "s.fdesk", &["ana"]);
    let shown = |p: &Path| -> Value {
        let out = ok([Path::new("settings"), p]);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let before = shown(&p);
    let digest = crate::file_digest(&p);
    let p_text = p.to_str().unwrap_or_else(|| panic!("path"));
    for set in [
        "seed= 7",
        "seed=7 ",
        "seed=\t7",
        "seed= \"7\"",
        "overlap= 2",
    ] {
        let out = factdesk(["settings", p_text, "--set", set]);
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{set:?}: {msg}");
        let key = set.split('=').next().unwrap_or_default();
        assert!(
            msg.contains(&format!("--set {key}")) && msg.contains("space"),
            "{set:?}: {msg}"
        );
    }
    assert_eq!(shown(&p), before);
    assert_eq!(crate::file_digest(&p), digest, "the project changed");
    // Digits alone still set it.
    ok(["settings", p_text, "--set", "seed=7"]);
    assert_eq!(shown(&p)["seed"], json!("7"));
}

#[test]
fn a_line_without_a_task_says_so_and_a_negative_time_is_kept_as_zero() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "s.fdesk", &["ana"]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("submit")
        .arg(&p)
        .args(["--as", "ana"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
        writeln!(stdin, "{{}}").unwrap_or_else(|e| panic!("{e}"));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("missing field \\\"task_id\\\""),
        "{printed}"
    );

    let next = ok([
        Path::new("next"),
        &p,
        Path::new("--as"),
        Path::new("ana"),
        Path::new("--kind"),
        Path::new("evidence"),
        Path::new("--json"),
    ]);
    let item: Value = serde_json::from_slice(&next.stdout).unwrap_or_else(|e| panic!("{e}"));
    let task_id = item["item"]["task_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{item}"));
    submit(
        &p,
        "ana",
        &[json!({"task_id": task_id, "no_evidence": true, "duration_ms": -5})],
    );
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let kept: Option<i64> = conn
        .query_row("SELECT duration_ms FROM annotations", [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept, Some(0));
}

#[test]
fn agreement_on_a_pack_says_it_is_a_pack() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "s.fdesk", &["ana"]);
    let pack = dir.path().join("ana.fdpack");
    ok([
        Path::new("pack"),
        &p,
        Path::new("--for"),
        Path::new("ana"),
        Path::new("--count"),
        Path::new("1"),
        Path::new("--kind"),
        Path::new("evidence"),
        Path::new("--out"),
        &pack,
    ]);
    let pack = pack.to_str().unwrap_or_else(|| panic!("path"));
    refused(
        &["agreement", pack],
        "is an annotator's pack (.fdpack), not a project",
    );
}

/// `search --limit 0` asked for nothing and answered "no matches"; it is refused.
#[test]
fn a_search_for_no_hits_is_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "s.fdesk", &["ana"]);
    let p = p.to_str().unwrap_or_else(|| panic!("path"));
    let out = factdesk(["search", p, "the", "--limit", "0"]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{msg}");
    assert!(msg.contains("--limit"), "{msg}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("no matches"));
    ok(["search", p, "the", "--limit", "1"]);
}

/// `adjudicate --decide` takes one annotator's answer or one written by hand, never both
/// or neither, and says what is wrong with a hand-written answer before deciding anything.
#[test]
fn a_decision_takes_an_answer_or_gives_one_and_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "d.fdesk", &["ana", "ben"]);
    let p = p.to_str().unwrap_or_else(|| panic!("path"));
    ok(["annotators", p, "add", "lea", "--role", "lead"]);
    let decide = ["adjudicate", p, "--as", "lea", "--decide", "1"];
    let both = factdesk(
        [
            &decide[..],
            &["--take", "ana", "--answer", r#"{"no_evidence": true}"#],
        ]
        .concat(),
    );
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
    assert!(stderr(&both).contains("--answer"), "{}", stderr(&both));
    refused(&decide, "--decide needs --take NAME or --answer JSON");
    refused(
        &[&decide[..], &["--answer", "{selected: [1]}"]].concat(),
        "--answer: not JSON",
    );
    refused(
        &[
            &decide[..],
            &["--answer", r#"{"no_evidence": true, "colour": "red"}"#],
        ]
        .concat(),
        "--answer: unknown field `colour`",
    );
    refused(
        &[&decide[..], &["--answer", r#"{"label": "REFUTED"}"#]].concat(),
        "label does not belong",
    );
    let out = ok([&decide[..], &["--answer", r#"{"no_evidence": true}"#]].concat());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("task 1 decided:"), "{said}");
    // A stored answer pasted whole, its kind and version along, is taken too.
    let pasted = r#"{"v": 2, "kind": "evidence", "selected": [], "no_evidence": true}"#;
    ok([&decide[..], &["--answer", pasted]].concat());
}
