//! `--as NAME`: a lead's command acts as the project's first lead unless told otherwise,
//! and run as an annotator it meets the api's refusal; the CLI checks no role itself.

use crate::{factdesk, ok};
use std::path::Path;

fn refused(args: &[&str]) -> String {
    let out = factdesk(args);
    assert!(!out.status.success(), "{args:?} ran for an annotator");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn lead_commands_run_as_an_annotator_are_refused_by_the_api() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = crate::demo_project(dir.path(), "p.fdesk", &["ana", "ben"]);
    let project = p.display().to_string();
    ok(["annotators", &project, "add", "maria", "--role", "lead"]);
    let gold = dir.path().join("gold.jsonl").display().to_string();
    let report = dir.path().join("report.html").display().to_string();
    let pack = dir.path().join("ben.fdpack").display().to_string();
    for args in [
        vec!["tasks", &project, "--kind", "label", "--as", "ana"],
        vec!["annotators", &project, "--as", "ana", "list"],
        vec!["annotators", &project, "--as", "ana", "add", "eve"],
        vec!["settings", &project, "--as", "ana", "--set", "overlap=1"],
        vec!["export", &project, "--out", &gold, "--as", "ana"],
        vec!["report", &project, "--out", &report, "--as", "ana"],
        vec!["adjudicate", &project, "--as", "ana", "--list"],
        vec!["agreement", &project, "--as", "ana"],
        vec!["review", &project, "--as", "ana"],
        vec!["packs", &project, "--as", "ana"],
        vec![
            "pack", &project, "--for", "ben", "--out", &pack, "--as", "ana",
        ],
        vec!["rank", &project, "--as", "ana"],
        vec!["reindex", &project, "--as", "ana"],
        vec!["candidates", &project, "--claim", "demo-001", "--as", "ana"],
    ] {
        let stderr = refused(&args);
        assert!(
            stderr.contains("ana is not a lead of this project and may not"),
            "{args:?}: {stderr}"
        );
    }
    for out in [&gold, &report, &pack] {
        assert!(
            !Path::new(out).exists(),
            "{out} was written for an annotator"
        );
    }
    // Without --as the first lead acts; an unknown name is no one.
    ok(["adjudicate", &project, "--list"]);
    ok(["adjudicate", &project, "--as", "maria", "--list"]);
    let stderr = refused(&["adjudicate", &project, "--as", "mallory", "--list"]);
    assert!(stderr.contains("no one called \"mallory\""), "{stderr}");
}

#[test]
fn the_help_says_who_a_command_acts_as() {
    let out = ok(["export", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--as <NAME>"), "{help}");
    assert!(help.contains("the project's first lead"), "{help}");
}
