//! A project made by the release before schema 22 (commit 723bc75, on the demo data; see
//! tests/fixtures) opens, serves and exports unchanged: its gold export is byte for byte
//! the one that release wrote, and its study keeps its items, drawn uniformly.

use crate::common;
use common::Acting;
use factdesk_api::gold::{ExportFormat, GoldRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use std::path::Path;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_project_of_the_release_before_schema_22_opens_serves_and_exports_unchanged() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dir = must(tempfile::tempdir());
    let path = dir.path().join("old.fdesk");
    must(std::fs::copy(fixtures.join("made-by-723bc75.fdesk"), &path));
    let version = |path: &Path| -> i64 {
        let conn = must(rusqlite::Connection::open(path));
        must(conn.query_row("PRAGMA user_version", [], |r| r.get(0)))
    };
    assert_eq!(version(&path), 21);
    let mut p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    assert_eq!(version(&path), factdesk_store::SCHEMA_VERSION);
    // The gold export is the one the release wrote.
    let out = dir.path().join("gold.jsonl");
    let req = GoldRequest {
        seed: 3,
        ..GoldRequest::default()
    };
    must(p.export_gold(
        &p.lead_named("lea"),
        &req,
        &out,
        ExportFormat::Factdesk,
        false,
    ));
    let then = must(std::fs::read_to_string(
        fixtures.join("made-by-723bc75.fdesk.gold.jsonl"),
    ));
    let now = must(std::fs::read_to_string(&out));
    assert!(!then.is_empty());
    assert_eq!(now, then, "the gold export changed");
    // Its study was drawn uniformly, and keeps its two items.
    let studies = must(p.studies(&p.lead_named("lea")));
    assert_eq!(studies.len(), 1);
    assert_eq!(
        (studies[0].items.len(), studies[0].strata.as_deref()),
        (2, None)
    );
    assert!(studies[0].by_stratum.is_empty());
    // Work goes on: dee is served evidence, and her answer is taken.
    let item = must(p.next_item(&p.who("dee"), TaskKind::Evidence)).item;
    let item = item.unwrap_or_else(|| panic!("dee is served nothing"));
    let answer = factdesk_api::annotate::Answer {
        task_id: item.task_id,
        no_evidence: true,
        ..Default::default()
    };
    must(p.submit(&p.who("dee"), &answer));
}
