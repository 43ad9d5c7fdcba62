//! The evidence stance from the command line: `settings` sets it, a preset chooses it,
//! and `next` serves the guideline and the trick that go with it.

use super::{data, factdesk, new_project, ok};
use serde_json::Value;
use std::path::Path;

fn run(args: &[&str]) -> String {
    String::from_utf8_lossy(&ok(args).stdout).into_owned()
}

/// Demo data in `p`, an annotator and evidence tasks; the first item Ana is served.
fn demo_item(p: &Path) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let s = |x: &Path| x.display().to_string();
    run(&[
        "import",
        &s(p),
        &s(&root.join("assets/demo/claims.jsonl")),
        "--docs",
        &s(&root.join("assets/demo/documents.jsonl")),
    ]);
    run(&["annotators", &s(p), "add", "ana"]);
    run(&["tasks", &s(p), "--kind", "evidence"]);
    let next = run(&["next", &s(p), "--as", "ana", "--kind", "evidence", "--json"]);
    let next: Value = serde_json::from_str(&next).unwrap_or_else(|e| panic!("{e}: {next}"));
    next["item"].clone()
}

fn texts(item: &Value) -> Vec<String> {
    item["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_settings_command_sets_the_stance_and_next_serves_its_guideline_and_trick() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let plain = dir.path().join("plain.fdesk");
    ok([Path::new("init"), &plain]);
    let item = demo_item(&plain);
    assert!(item["guidelines"]
        .as_str()
        .is_some_and(|g| g.contains("supports or refutes")));
    assert!(texts(&item)
        .iter()
        .all(|t| !t.starts_with("It is not true")));

    let p = new_project(dir.path());
    let shown = run(&[
        "settings",
        &p.display().to_string(),
        "--set",
        "evidence_stance=supports",
    ]);
    assert!(
        shown.contains("\"evidence_stance\": \"supports\""),
        "{shown}"
    );
    assert!(
        shown.contains("Select every sentence that supports the claim"),
        "{shown}"
    );
    let item = demo_item(&p);
    assert!(item["guidelines"]
        .as_str()
        .is_some_and(|g| g.contains("supports the claim") && !g.contains("refute")));
    let tricks: Vec<String> = texts(&item)
        .into_iter()
        .filter(|t| t.starts_with("It is not true that"))
        .collect();
    assert_eq!(tricks.len(), 1, "{item}");
    assert!(tricks[0].ends_with('.'), "{}", tricks[0]);

    let bad = factdesk([
        "settings",
        &p.display().to_string(),
        "--set",
        "evidence_stance=maybe",
    ]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("supports_or_refutes"), "{err}");
}

#[test]
fn the_covid_fact_preset_says_which_stance_it_chose() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(data("covidfact.jsonl")).unwrap_or_default();
    let claims = dir.path().join("c.jsonl");
    let head: Vec<&str> = text.lines().take(10).collect();
    std::fs::write(&claims, head.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let s = |x: &Path| x.display().to_string();
    let out = run(&["import", &s(&p), &s(&claims), "--preset", "covid-fact"]);
    assert!(out.contains("evidence stance set to supports"), "{out}");
    let shown = run(&["settings", &s(&p)]);
    assert!(
        shown.contains("\"evidence_stance\": \"supports\""),
        "{shown}"
    );
}
