//! `factdesk tasks` makes evidence tasks only where evidence is asked, and lists the
//! claims that got none with the reason.

use crate::{data, new_project, ok};
use serde_json::Value;
use std::path::Path;

fn tasks(p: &Path, args: &[&str]) -> String {
    let mut all = vec!["tasks".to_string(), p.display().to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    String::from_utf8_lossy(&ok(&all).stdout).into_owned()
}

fn head(dir: &Path, name: &str, lines: usize) -> std::path::PathBuf {
    let text = std::fs::read_to_string(data(name)).unwrap_or_default();
    let out = dir.join(name);
    let head: Vec<&str> = text.lines().take(lines).collect();
    std::fs::write(&out, head.join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
    out
}

#[test]
fn evidence_tasks_skip_counter_claims_unless_asked_and_say_so() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let claims = head(dir.path(), "covidfact.jsonl", 300);
    let p = new_project(dir.path());
    ok([
        Path::new("import"),
        &p,
        &claims,
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let (roots, children): (u64, u64) = conn
        .query_row(
            "SELECT sum(parent_id IS NULL), sum(parent_id IS NOT NULL) FROM claims",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap_or_else(|e| panic!("{e}"));

    let report: Value = serde_json::from_str(&tasks(&p, &["--kind", "evidence", "--json"]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["created"].as_u64(), Some(roots));
    let skipped = &report["skipped"][0];
    assert_eq!(skipped["reason"], "evidence_from_parent");
    assert_eq!(skipped["count"].as_u64(), Some(children));
    assert_eq!(
        skipped["claims"].as_array().map(Vec::len),
        Some(children as usize)
    );

    // The text says the same, and the flag brings the counter-claims in.
    let text = tasks(&p, &["--kind", "evidence", "--include-children"]);
    assert!(
        text.starts_with(&format!("created {children} evidence tasks")),
        "{text}"
    );
    let text = tasks(&p, &["--kind", "label"]);
    assert!(
        text.contains(&format!(
            "{children} claims got no task: a refutation whose evidence comes from its parent"
        )),
        "{text}"
    );
}

#[test]
fn claims_without_documents_are_listed_with_the_reason() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let claims = head(dir.path(), "wikifactcheck_dev.tsv", 21);
    let p = new_project(dir.path());
    ok([
        Path::new("import"),
        &p,
        &claims,
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
    let text = tasks(&p, &["--kind", "evidence"]);
    assert!(text.starts_with("created 0 evidence tasks"), "{text}");
    assert!(
        text.contains("20 claims got no task: no documents (wikifactcheck:"),
        "{text}"
    );
    assert!(text.contains(", and 15 more)"), "{text}");
    let text = tasks(&p, &["--kind", "refute"]);
    assert!(text.starts_with("created 20 refute tasks"), "{text}");
}

/// WikiFactCheck-English kept claims of at most 15 whitespace words, and Factdesk counts
/// the 15-token rule the same way: every dev claim gets a refute task. Counted with the
/// search tokenizer, 16 were refused as too long (wikifactcheck:106786 among them).
#[test]
fn every_wikifactcheck_dev_claim_gets_a_refute_task_under_the_15_token_rule() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    ok([
        Path::new("import"),
        &p,
        &data("wikifactcheck_dev.tsv"),
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
    let text = tasks(&p, &["--kind", "refute"]);
    assert!(text.starts_with("created 4870 refute tasks"), "{text}");
    assert!(!text.contains("too long to refute"), "{text}");
}
