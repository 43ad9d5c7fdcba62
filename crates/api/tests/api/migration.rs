//! A project file written by Factdesk before counted answers (schema 5, made with the
//! release of commit a9d7b09 on the demo data; see tests/fixtures) opens, migrates in one
//! go and keeps every answer: the double first answer two racing writers left is linked
//! as a correction, task counters count counted answers only, the flagged annotator's
//! answers leave the counts, and serving goes on.

use crate::common;
use common::Acting;
use factdesk_api::annotate::Answer;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use std::path::{Path, PathBuf};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A copy of the schema-5 fixture, since opening migrates it.
fn old_project(dir: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v5.fdesk");
    let path = dir.join("old.fdesk");
    must(std::fs::copy(&fixture, &path));
    path
}

fn count(conn: &rusqlite::Connection, sql: &str) -> i64 {
    must(conn.query_row(sql, [], |r| r.get(0)))
}

#[test]
fn a_schema_5_project_migrates_and_keeps_every_answer() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let before = {
        let conn = must(rusqlite::Connection::open(&path));
        assert_eq!(count(&conn, "PRAGMA user_version"), 5);
        count(&conn, "SELECT count(*) FROM annotations")
    };
    let clock = ManualClock::new(1_800_000_000_000);
    let mut p = must(Project::open(&path, Box::new(clock.clone())));
    let conn = must(rusqlite::Connection::open(&path));
    assert_eq!(
        count(&conn, "PRAGMA user_version"),
        factdesk_store::SCHEMA_VERSION
    );
    assert_eq!(
        count(&conn, "SELECT count(*) FROM annotations"),
        before,
        "an answer was lost"
    );
    let current = "NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)";
    assert_eq!(
        count(
            &conn,
            &format!(
                "SELECT count(*) FROM (SELECT 1 FROM annotations a WHERE {current}
                 GROUP BY task_id, annotator_id HAVING count(*) > 1)"
            )
        ),
        0,
        "two current answers survived the migration"
    );
    // The racing writer's second answer is now the current one, superseding the first.
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM annotations WHERE uuid = 'legacy-double-0001' AND supersedes IS NOT NULL"
        ),
        1
    );
    // Dan picked the trick in four of six items: flagged, and his answers count nowhere.
    let dan = must(p.annotator(&p.lead(), "dan"));
    assert!(dan.flagged && !dan.counted, "{dan:?}");
    assert_eq!((dan.tricks_seen, dan.tricks_failed), (6, 4));
    assert_eq!(
        count(
            &conn,
            &format!(
                "SELECT count(*) FROM tasks t WHERE t.answered != (
                   SELECT count(*) FROM annotations a JOIN annotators p ON p.id = a.annotator_id
                   WHERE a.task_id = t.id AND {current} AND a.trick_failed = 0 AND p.name != 'dan')"
            )
        ),
        0,
        "task counters are not the counted answers"
    );
    // Work goes on: a new answer is taken and counted.
    let item = must(p.next_item(&p.who("ben"), TaskKind::Label))
        .item
        .unwrap_or_else(|| panic!("no label item for ben"));
    must(p.submit(
        &p.who("ben"),
        &Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".into()),
            ..Default::default()
        },
    ));
    assert_eq!(count(&conn, "SELECT count(*) FROM annotations"), before + 1);
}
