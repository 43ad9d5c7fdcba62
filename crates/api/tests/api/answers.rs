//! A project file written before answers were typed and versioned (commit 759dfd1, see
//! tests/fixtures) reads through the typed answer: every stored answer and decision, of
//! every kind, verdict and label, and every reader of answers (aggregation, adjudication,
//! agreement, the dashboard, the export) works on it. A damaged answer is an error naming
//! its row, never a default.

use crate::common;
use common::Acting;

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::gold::GoldRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use factdesk_core::answer::{Response, Selection, Verdict};
use factdesk_core::claim::Label;
use factdesk_store::{annotations, decisions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A copy of the fixture, since opening may write to it.
fn old_project(dir: &Path) -> PathBuf {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/answers-759dfd1.fdesk");
    let path = dir.join("old.fdesk");
    must(std::fs::copy(&fixture, &path));
    path
}

fn count(conn: &rusqlite::Connection, sql: &str) -> i64 {
    must(conn.query_row(sql, [], |r| r.get(0)))
}

#[test]
fn every_answer_of_the_last_untyped_release_reads_through_the_typed_answer() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let conn = must(rusqlite::Connection::open(&path));
    let rows = count(&conn, "SELECT count(*) FROM annotations");
    let unversioned = count(
        &conn,
        "SELECT count(*) FROM annotations WHERE json_extract(answer, '$.v') IS NULL",
    );
    assert_eq!(unversioned, rows, "the fixture holds only unversioned rows");

    let answers = must(annotations::all(&store_conn(&path)));
    assert_eq!(answers.len() as i64, rows, "every row read");
    let mut kinds = BTreeSet::new();
    let mut verdicts = BTreeSet::new();
    let mut labels = BTreeSet::new();
    let (mut selections, mut none, mut trick, mut superseding) = (0, 0, 0, 0);
    for a in &answers {
        assert_eq!(a.answer.response.kind(), a.kind, "annotation {}", a.id);
        kinds.insert(a.kind);
        match &a.answer.response {
            Response::Evidence {
                selection: Selection::NoEvidence,
            } => none += 1,
            Response::Evidence {
                selection: Selection::Sentences(ids),
            } => {
                assert!(
                    !ids.is_empty() || a.trick_failed,
                    "annotation {}: an empty selection that did not pick the trick",
                    a.id
                );
                selections += 1;
            }
            Response::Refute { text } => assert!(!text.is_empty()),
            Response::Design { answers } => assert!(!answers.is_empty()),
            Response::Verify { verdict } => {
                verdicts.insert(*verdict);
            }
            Response::Label { label } => {
                labels.insert(*label);
            }
        }
        trick += usize::from(a.trick_failed);
        superseding += usize::from(a.supersedes.is_some());
    }
    // The release had no design tasks.
    let release_kinds = TaskKind::ALL.into_iter().filter(|&k| k != TaskKind::Design);
    assert_eq!(kinds, release_kinds.collect());
    assert_eq!(verdicts, Verdict::ALL.into_iter().collect());
    assert_eq!(labels, Label::ALL.into_iter().collect());
    assert!(selections > 0 && none > 0 && trick >= 2 && superseding >= 3);
    // Comments and times sit beside the answer, as stored.
    assert!(answers
        .iter()
        .any(|a| a.answer.comment.as_deref() == Some("two claims in one")));
    assert!(answers.iter().any(|a| a.answer.duration_ms == Some(4200)));

    // The lead's decisions: answers given and taken, and one undone. Read once the file
    // is brought to the current schema (opening it does: decisions gained a category).
    drop(must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    )));
    let decided = must(decisions::latest(&store_conn(&path)));
    assert_eq!(
        decided.len() as i64,
        count(&conn, "SELECT count(DISTINCT task_id) FROM decisions")
    );
    assert_eq!(decided.iter().filter(|d| d.answer.is_none()).count(), 1);
    let given: BTreeSet<TaskKind> = decided
        .iter()
        .filter_map(|d| d.answer.as_ref().map(Response::kind))
        .collect();
    assert_eq!(
        given,
        [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label]
            .into_iter()
            .collect()
    );
}

#[test]
fn every_reader_of_answers_works_on_the_old_project() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let mut p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let aggregation = must(p.aggregate(&p.lead(), &GoldRequest::default()));
    let counted: u32 = aggregation.tasks.iter().map(|t| t.counted).sum();
    assert!(counted > 0);
    assert!(aggregation.tasks.iter().any(|t| t.decision.is_some()));
    must(p.adjudication_queue(&p.lead_named("lea"), &GoldRequest::default()));
    for kind in must(p.kinds_with_answers(&p.lead())) {
        must(p.ratings(&p.lead(), kind, false));
    }
    must(p.export_preview(&p.lead(), &GoldRequest::default()));
    must(p.dashboard(&p.lead(), &AgreementRequest::default()));
    must(p.report(&p.lead(), &AgreementRequest::default()));
    let item = must(p.previous_item(&p.who("ana"), TaskKind::Label, None));
    assert!(item
        .and_then(|i| i.previous)
        .is_some_and(|a| a.label.is_some()));
}

#[test]
fn a_damaged_answer_is_an_error_naming_its_row() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let conn = must(rusqlite::Connection::open(&path));
    // A label answer whose key was renamed: before, it read as "no label".
    must(conn.execute(
        "INSERT INTO annotations (uuid, task_id, annotator_id, answer, trick_failed, created_at)
         SELECT 'damaged-0001', t.id, n.id, '{\"lable\":\"SUPPORTED\"}', 0, 1
         FROM tasks t, annotators n
         WHERE t.kind = 'label' AND n.name = 'cy'
           AND NOT EXISTS (SELECT 1 FROM annotations a WHERE a.task_id = t.id AND a.annotator_id = n.id)
         LIMIT 1",
        [],
    ));
    let id: i64 = must(conn.query_row(
        "SELECT id FROM annotations WHERE uuid = 'damaged-0001'",
        [],
        |r| r.get(0),
    ));
    let err = must(
        annotations::all(&store_conn(&path))
            .map(|_| ())
            .err()
            .ok_or("the damaged answer was read"),
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!("annotation {id} (damaged-0001)")) && message.contains("lable"),
        "{message}"
    );
    let p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let err = must(
        p.aggregate(&p.lead(), &GoldRequest::default())
            .map(|_| ())
            .err()
            .ok_or("aggregated over a damaged answer"),
    );
    assert!(err.message.contains("damaged-0001"), "{}", err.message);
}

#[test]
fn an_unknown_task_kind_is_an_error_naming_its_task() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let conn = must(rusqlite::Connection::open(&path));
    // Only a damaged file or a newer Factdesk gets past the schema's check.
    must(conn.pragma_update(None, "ignore_check_constraints", true));
    must(conn.execute(
        "INSERT INTO tasks (kind, claim_id, overlap, shuffle_key, created_at)
         SELECT 'rewrite', id, 1, 0, 1 FROM claims ORDER BY id LIMIT 1",
        [],
    ));
    let id = conn.last_insert_rowid();
    let err = must(
        factdesk_store::tasks::get(&store_conn(&path), id)
            .map(|_| ())
            .err()
            .ok_or("an unknown kind was read"),
    );
    let message = err.to_string();
    assert!(
        message.contains(&format!("task {id}")) && message.contains("\"rewrite\""),
        "{message}"
    );

    // Readers that fetch one kind at a time refuse it too, rather than skip it, and
    // creating tasks makes no second task for its claim.
    let tasks_before = count(&conn, "SELECT count(*) FROM tasks");
    let mut p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let lead = p.lead();
    let req = GoldRequest::default();
    let errors = [
        p.ratings(&lead, TaskKind::Evidence, false).err(),
        p.kinds_with_answers(&lead).err(),
        p.agreement(&lead, TaskKind::Label, &AgreementRequest::default())
            .err(),
        p.aggregate(&lead, &req).err(),
        p.adjudication_queue(&lead, &req).err(),
        p.export_preview(&lead, &req).err(),
        p.report(&lead, &AgreementRequest::default()).err(),
        p.create_tasks(&lead, TaskKind::Evidence, Some(1)).err(),
    ];
    for (i, err) in errors.into_iter().enumerate() {
        let err = must(err.ok_or(format!("reader {i} skipped the unknown kind")));
        assert!(
            err.message
                .contains(&format!("task {id} has an unknown task kind")),
            "reader {i}: {}",
            err.message
        );
    }
    assert_eq!(count(&conn, "SELECT count(*) FROM tasks"), tasks_before);
}

/// The fixture with annotation `id`'s stored answer rewritten to `answer`, as a damaged
/// file or a hand edit would leave it (past the trigger that forbids updates).
fn rewritten(dir: &Path, id: i64, answer: &str) -> PathBuf {
    let path = old_project(dir);
    rewrite(&path, id, answer);
    path
}

/// Rewrites annotation `id`'s stored answer in the project at `path`, from a connection
/// of its own.
fn rewrite(path: &Path, id: i64, answer: &str) {
    let conn = must(rusqlite::Connection::open(path));
    let trigger: String = must(conn.query_row(
        "SELECT sql FROM sqlite_master WHERE name = 'annotations_no_update'",
        [],
        |r| r.get(0),
    ));
    must(conn.execute_batch("DROP TRIGGER annotations_no_update"));
    must(conn.execute(
        "UPDATE annotations SET answer = ?1 WHERE id = ?2",
        rusqlite::params![answer, id],
    ));
    must(conn.execute_batch(&trigger));
}

/// Every reader of answers fails on the damaged row, naming it by id and uuid.
fn every_reader_names(path: &Path, id: i64, why: &str) {
    let conn = must(rusqlite::Connection::open(path));
    let uuid: String = must(conn.query_row(
        "SELECT uuid FROM annotations WHERE id = ?1",
        [id],
        |r| r.get(0),
    ));
    let p = must(Project::open(
        path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let lead = p.lead();
    let req = GoldRequest::default();
    let errors = [
        p.ratings(&lead, TaskKind::Evidence, false).err(),
        p.agreement(&lead, TaskKind::Evidence, &AgreementRequest::default())
            .err(),
        p.aggregate(&lead, &req).err(),
        p.adjudication_queue(&lead, &req).err(),
        p.export_preview(&lead, &req).err(),
        p.report(&lead, &AgreementRequest::default()).err(),
    ];
    let row = format!("annotation {id} ({uuid})");
    for (i, err) in errors.into_iter().enumerate() {
        let err = must(err.ok_or(format!("reader {i} read the damaged row ({why})")));
        assert!(
            err.message.contains(&row) && err.message.contains(why),
            "reader {i}: {}",
            err.message
        );
    }
}

fn first_of_kind(path: &Path, kind: &str) -> i64 {
    let conn = must(rusqlite::Connection::open(path));
    must(conn.query_row(
        "SELECT a.id FROM annotations a JOIN tasks t ON t.id = a.task_id
         WHERE t.kind = ?1 AND a.trick_failed = 0 ORDER BY a.id LIMIT 1",
        [kind],
        |r| r.get(0),
    ))
}

#[test]
fn an_evidence_answer_submit_would_refuse_is_an_error_naming_its_row() {
    let dir = must(tempfile::tempdir());
    let id = first_of_kind(&old_project(dir.path()), "evidence");
    for (answer, why) in [
        (
            r#"{"v":2,"kind":"evidence","selected":[],"no_evidence":false}"#,
            "selects no sentence",
        ),
        (
            r#"{"v":2,"kind":"evidence","selected":[100],"no_evidence":false}"#,
            "sentence 100, which is not a candidate",
        ),
    ] {
        let dir = must(tempfile::tempdir());
        every_reader_names(&rewritten(dir.path(), id, answer), id, why);
    }
}

#[test]
fn a_damaged_refutation_stops_every_reader_of_answers() {
    let dir = must(tempfile::tempdir());
    let id = first_of_kind(&old_project(dir.path()), "refute");
    for (answer, why) in [
        (r#"{"v":2,"kind":"refute"}"#, "lacks \"text\""),
        (r#"{"txt":"hello"}"#, "txt"),
        (r#"{"text":5}"#, "invalid type"),
        (r#"{"text":""}"#, "empty text"),
        (r#"{"text":"a\u0000b"}"#, "NUL"),
    ] {
        let dir = must(tempfile::tempdir());
        every_reader_names(&rewritten(dir.path(), id, answer), id, why);
    }
}

/// The readers' check is skipped only while the project is unchanged: a row damaged from
/// another connection after the check passed is refused by the same open project.
#[test]
fn a_row_damaged_after_a_passed_check_is_still_refused() {
    let dir = must(tempfile::tempdir());
    let path = old_project(dir.path());
    let id = first_of_kind(&path, "refute");
    let p = must(Project::open(
        &path,
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let lead = p.lead();
    let kinds = must(p.kinds_with_answers(&lead));
    assert_eq!(must(p.kinds_with_answers(&lead)), kinds);
    rewrite(&path, id, r#"{"v":2,"kind":"refute"}"#);
    let err = must(
        p.kinds_with_answers(&lead)
            .err()
            .ok_or("the damaged row was not read again"),
    );
    assert!(
        err.message.contains(&format!("annotation {id}")),
        "{}",
        err.message
    );
}

#[test]
fn a_refutation_is_not_accepted_unless_its_answer_reads_and_matches_its_claim() {
    for (answer, why) in [
        (r#"{"v":2,"kind":"refute"}"#, "lacks \"text\""),
        (r#"{"text":"a\u0000b"}"#, "NUL"),
        (
            r#"{"v":2,"kind":"refute","text":"Something else entirely."}"#,
            "say different things",
        ),
    ] {
        let dir = must(tempfile::tempdir());
        let fixture = old_project(dir.path());
        let conn = must(rusqlite::Connection::open(&fixture));
        // The rejected refutation: a lead may change their mind and accept it.
        let id: i64 = must(conn.query_row(
            "SELECT written_in FROM claims WHERE refutation_state = 'rejected' LIMIT 1",
            [],
            |r| r.get(0),
        ));
        drop(conn);
        let dir = must(tempfile::tempdir());
        let path = rewritten(dir.path(), id, answer);
        let conn = must(rusqlite::Connection::open(&path));
        let before = count(&conn, "SELECT count(*) FROM reviews WHERE accepted = 1")
            + count(&conn, "SELECT count(*) FROM tasks");
        let mut p = must(Project::open(
            &path,
            Box::new(ManualClock::new(1_800_000_000_000)),
        ));
        let err = must(
            p.review(&p.lead(), id, true, None)
                .err()
                .ok_or("accepted a damaged refutation"),
        );
        assert!(
            err.message.contains(&format!("annotation {id} (")) && err.message.contains(why),
            "{}",
            err.message
        );
        let after = count(&conn, "SELECT count(*) FROM reviews WHERE accepted = 1")
            + count(&conn, "SELECT count(*) FROM tasks");
        assert_eq!(after, before, "nothing changed");
    }
}

/// The project file as the store's table functions read it.
fn store_conn(path: &std::path::Path) -> factdesk_store::Read {
    factdesk_store::Read::of_sqlite(must(rusqlite::Connection::open(path)))
}
