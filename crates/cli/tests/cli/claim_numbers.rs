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
