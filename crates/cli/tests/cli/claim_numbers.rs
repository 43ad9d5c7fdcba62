//! COVID-Fact's claims carry hash ids (`covid-fact:3f9a…`): `factdesk claims` and
//! `factdesk search` name them by their number in the project ("#12"), which search
//! finds, with the imported id beside it.

use crate::ok;
use crate::search::covid_project;
use serde_json::Value;
use std::path::Path;

fn text(args: &[&str], p: &Path) -> String {
    let mut all: Vec<&Path> = vec![Path::new(args[0]), p];
    all.extend(args[1..].iter().map(Path::new));
    String::from_utf8_lossy(&ok(all).stdout).into_owned()
}

#[test]
fn covid_fact_claims_are_listed_and_found_by_number() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_project(dir.path());
    let wanted = "Hydroxychloroquine fails to prevent covid-19";
    let page: Value = serde_json::from_str(&text(&["claims", "--filter", wanted, "--json"], &p))
        .unwrap_or_else(|e| panic!("claims --json: {e}"));
    let line = &page["lines"][0];
    assert_eq!(line["text"], wanted, "{page}");
    let number = line["id"].as_i64().unwrap_or_else(|| panic!("{page}"));
    let ext = line["ext_id"].as_str().unwrap_or_default().to_string();
    assert!(ext.starts_with("covid-fact:"), "{ext}");

    // The list, by words and by number, shows "#N", the imported id and the text.
    let listed = text(&["claims", "--filter", &format!("#{number}")], &p);
    let first = listed.lines().next().unwrap_or_default();
    assert!(first.starts_with(&format!("#{number} ")), "{listed}");
    assert!(first.contains(&ext) && first.contains(wanted), "{listed}");
    assert!(listed.contains("1 claim match"), "{listed}");

    // Search by number: that claim first, named so.
    let hits: Vec<Value> =
        serde_json::from_str(&text(&["search", &format!("#{number}"), "--json"], &p))
            .unwrap_or_else(|e| panic!("search --json: {e}"));
    assert_eq!(hits[0]["id"], number, "{hits:?}");
    assert_eq!(hits[0]["text"], wanted);
    let printed = text(&["search", "hydroxychloroquine fails"], &p);
    assert!(
        printed.lines().any(|l| l.starts_with("claim")
            && l.contains(&format!("#{number} "))
            && l.contains(&ext)),
        "{printed}"
    );
}

/// `candidates --claim 3` does not take 3 as claim #3 (a mistyped imported id would show
/// another claim): it says how to write the number. An imported id that is a number
/// still names its claim.
#[test]
fn a_bare_number_is_an_imported_id_and_the_refusal_shows_the_claims_number() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_project(dir.path());
    let out = crate::factdesk([
        Path::new("candidates"),
        &p,
        Path::new("--claim"),
        Path::new("3"),
    ]);
    let msg = crate::stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("no claim with id or number \"3\"") && msg.contains("write #3"),
        "{msg}"
    );
    // No hint towards a number no claim has.
    let out = crate::factdesk([
        Path::new("candidates"),
        &p,
        Path::new("--claim"),
        Path::new("99999"),
    ]);
    let msg = crate::stderr(&out);
    assert!(
        msg.contains("no claim with id or number") && !msg.contains("write #"),
        "{msg}"
    );

    let q = dir.path().join("numbered.fdesk");
    ok([Path::new("init"), &q]);
    let claims = dir.path().join("numbered.jsonl");
    let docs = dir.path().join("numbered-docs.jsonl");
    let rows = [
        r#"{"id": "2", "claim": "The harbour was opened late.", "doc_ids": ["h"]}"#,
        r#"{"id": "1", "claim": "The bridge is red.", "doc_ids": ["b"]}"#,
    ];
    let documents = [
        r#"{"id": "h", "text": "The harbour opened in 1901 after a long delay."}"#,
        r#"{"id": "b", "text": "The bridge was painted red in 1990."}"#,
    ];
    std::fs::write(&claims, rows.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&docs, documents.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &q, &claims, Path::new("--docs"), &docs]);
    // Claim #1 was imported with the id "2": "2" names it by its id, "#2" the other one.
    let by_id = text(&["candidates", "--claim", "2"], &q);
    assert!(by_id.contains("harbour"), "{by_id}");
    let by_hash = text(&["candidates", "--claim", "#2"], &q);
    assert!(by_hash.contains("bridge"), "{by_hash}");
}
