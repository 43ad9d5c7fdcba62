//! Projects made by earlier releases (on the demo data; see tests/fixtures) open, serve
//! and export unchanged: each gold export is byte for byte the one its release wrote.
//! 723bc75 was the last before schema 22 (stratified studies), 3b6b01a the last before
//! schema 24 (a project's own designs), on which a design is then declared and answered.

use crate::common;
use common::Acting;
use factdesk_api::annotate::{Answer, ByQuestion, Given};
use factdesk_api::gold::{ExportFormat, GoldRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use std::path::Path;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A copy of fixture `name` (of schema `version`) opened with today's code, checked to
/// have migrated and to export what its release exported.
fn opened_as_then(dir: &Path, name: &str, version: i64) -> Project {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let path = dir.join("old.fdesk");
    must(std::fs::copy(fixtures.join(name), &path));
    let version_of = |path: &Path| -> i64 {
        let conn = must(rusqlite::Connection::open(path));
        must(conn.query_row("PRAGMA user_version", [], |r| r.get(0)))
    };
    assert_eq!(version_of(&path), version);
    let p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    assert_eq!(version_of(&path), factdesk_store::SCHEMA_VERSION);
    let out = dir.join("gold.jsonl");
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
        fixtures.join(format!("{name}.gold.jsonl")),
    ));
    let now = must(std::fs::read_to_string(&out));
    assert!(!then.is_empty());
    assert_eq!(now, then, "the gold export of {name} changed");
    p
}

/// Work goes on: dee is served evidence, and her answer is taken.
fn dee_answers_evidence(p: &mut Project) {
    let item = must(p.next_item(&p.who("dee"), TaskKind::Evidence)).item;
    let item = item.unwrap_or_else(|| panic!("dee is served nothing"));
    let answer = Answer {
        task_id: item.task_id,
        no_evidence: true,
        ..Default::default()
    };
    must(p.submit(&p.who("dee"), &answer));
}

#[test]
fn a_project_of_the_release_before_schema_22_opens_serves_and_exports_unchanged() {
    let dir = must(tempfile::tempdir());
    let mut p = opened_as_then(dir.path(), "made-by-723bc75.fdesk", 21);
    // Its study was drawn uniformly, and keeps its two items.
    let studies = must(p.studies(&p.lead_named("lea")));
    assert_eq!(studies.len(), 1);
    assert_eq!(
        (studies[0].items.len(), studies[0].strata.as_deref()),
        (2, None)
    );
    assert!(studies[0].by_stratum.is_empty());
    dee_answers_evidence(&mut p);
}

#[test]
fn a_project_of_the_release_before_designs_opens_exports_unchanged_and_takes_a_design() {
    let dir = must(tempfile::tempdir());
    let mut p = opened_as_then(dir.path(), "made-by-3b6b01a.fdesk", 23);
    let studies = must(p.studies(&p.lead_named("lea")));
    assert_eq!(studies[0].strata.as_deref(), Some("label"));
    dee_answers_evidence(&mut p);
    // The widened task kinds take a design task on the old file.
    let lead = p.lead_named("lea");
    let mut settings = must(p.settings());
    settings.design = Some(must(serde_json::from_value(serde_json::json!({
        "name": "salient-words",
        "questions": [{"id": "salient", "type": "span", "over": "text_a", "required": true}]
    }))));
    must(p.set_settings(&lead, &settings));
    let made = must(p.create_tasks(&lead, TaskKind::Design, Some(1)));
    assert!(made.created > 0);
    let item = must(p.next_item(&p.who("eve"), TaskKind::Design)).item;
    let item = item.unwrap_or_else(|| panic!("eve is served no design item"));
    let answer = Answer {
        task_id: item.task_id,
        answers: Some(ByQuestion(
            [(
                "salient".to_string(),
                Given::Spans {
                    spans: vec![[0, 3]],
                },
            )]
            .into(),
        )),
        ..Default::default()
    };
    must(p.submit(&p.who("eve"), &answer));
    // The release's own gold is still exported as it was.
    let again = dir.path().join("again.jsonl");
    must(p.export_gold(
        &lead,
        &GoldRequest {
            seed: 3,
            ..GoldRequest::default()
        },
        &again,
        ExportFormat::Factdesk,
        false,
    ));
    assert!(!must(std::fs::read_to_string(&again)).is_empty());
}
