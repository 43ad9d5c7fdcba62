//! Full-text search, and the index rebuilding itself.

use crate::{data, new_project, ok};
use serde_json::Value;
use std::path::Path;

fn search(p: &Path, query: &str) -> Vec<Value> {
    let out = ok([
        Path::new("search"),
        p,
        Path::new(query),
        Path::new("--json"),
    ]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("search --json is not JSON: {e}"))
}

/// A project of COVID-Fact's claims in `dir`.
pub fn covid_project(dir: &Path) -> std::path::PathBuf {
    let p = new_project(dir);
    ok([
        Path::new("import"),
        &p,
        &data("covidfact.jsonl"),
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    p
}

#[test]
fn finds_a_claim_by_a_word_and_a_sentence_by_a_phrase_in_covid_fact() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_project(dir.path());
    let hits = search(&p, "hydroxychloroquine");
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["text"]
        .as_str()
        .unwrap_or("")
        .to_lowercase()
        .contains("hydroxychloroquine")));
    assert!(hits.iter().any(
        |h| h["kind"] == "claim" && h["text"] == "Hydroxychloroquine fails to prevent covid-19"
    ));

    let hits = search(&p, "\"memory T-cell immunity\"");
    assert_eq!(hits[0]["kind"], "sentence");
    assert_eq!(hits[0]["text"], "Rapid detection of SARS-CoV-2-specific memory T-cell immunity in recovered COVID-19 cases.");
    assert!(hits.iter().all(|h| h["text"]
        .as_str()
        .unwrap_or("")
        .contains("memory T-cell immunity")));
}

#[test]
fn finds_a_claim_by_a_word_and_a_sentence_by_a_phrase_in_the_demo_project() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo");
    ok([
        Path::new("import"),
        &p,
        &demo.join("claims.jsonl"),
        Path::new("--docs"),
        &demo.join("documents.jsonl"),
    ]);
    let hits = search(&p, "Harrowmouth");
    assert!(
        hits.iter()
            .any(|h| h["kind"] == "claim" && h["ext_id"] == "demo-001"),
        "{hits:?}"
    );
    let hits = search(&p, "\"designed by the engineer J. R. Hale\"");
    assert_eq!(hits[0]["kind"], "sentence", "{hits:?}");
    assert!(hits[0]["text"]
        .as_str()
        .unwrap_or("")
        .contains("designed by the engineer J. R. Hale"));
}

#[test]
fn deleting_the_index_folder_and_searching_rebuilds_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_project(dir.path());
    let before = search(&p, "hydroxychloroquine");
    let index = dir.path().join("p.fdesk.index");
    assert!(
        index.is_dir(),
        "import should build the index beside the project"
    );
    std::fs::remove_dir_all(&index).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(search(&p, "hydroxychloroquine"), before);
    assert!(index.is_dir());
}

#[test]
fn an_index_behind_the_project_catches_up() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let a = dir.path().join("a.jsonl");
    std::fs::write(
        &a,
        "{\"id\": \"a\", \"claim\": \"The lighthouse was repainted in 1999.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &a]);
    // An index copied aside before the second import is stale afterwards.
    let index = dir.path().join("p.fdesk.index");
    let stale = dir.path().join("stale.index");
    std::fs::rename(&index, &stale).unwrap_or_else(|e| panic!("{e}"));
    let b = dir.path().join("b.jsonl");
    std::fs::write(
        &b,
        "{\"id\": \"b\", \"claim\": \"The ferry stopped running in 2004.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &b]);
    std::fs::remove_dir_all(&index).unwrap_or_else(|e| panic!("{e}"));
    std::fs::rename(&stale, &index).unwrap_or_else(|e| panic!("{e}"));
    let hits = search(&p, "ferry");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["ext_id"], "b");
    ok([Path::new("reindex"), &p]);
    assert_eq!(search(&p, "lighthouse").len(), 1);
}
