//! The answers of a PostgreSQL project pushed to a listener as they are committed, from
//! any connection (`Project::answer_listener`): what the app's dashboard and the team
//! server's event stream wake on. Runs when FACTDESK_TEST_PG names a PostgreSQL server
//! (scripts/test-all and CI set it); a file has no listener.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{AnswerListener, ManualClock, Project};
use factdesk_core::answer::{Response, Selection};
use factdesk_store::annotations::NewAnnotation;
use std::time::{Duration, Instant};

use crate::common;
use common::{project, Acting};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Longer than any delivery on loopback takes; a listener that hears nothing in this
/// long hears nothing at all.
const QUIET: Duration = Duration::from_millis(500);

/// `ana` answers her next evidence item through `p`, finding no evidence.
fn answer_next(p: &mut Project) {
    let ana = p.who("ana");
    let item = ok(p.next_item(&ana, TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item for ana"));
    ok(p.submit(
        &ana,
        &Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        },
    ));
}

/// How many times `listener` wakes before it has been quiet for [`QUIET`].
fn wakes(listener: &mut factdesk_api::AnswerListener) -> usize {
    let mut n = 0;
    while ok(listener.wait(QUIET)) {
        n += 1;
    }
    n
}

#[test]
fn a_file_has_no_listener() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = common::file_project(dir.path(), 1, &clock);
    assert!(ok(p.answer_listener()).is_none());
}

#[test]
fn answers_from_another_connection_wake_the_listener_and_a_rollback_does_not() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the answer listener test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let (_ours, mut listener) = listened(dir.path(), 12, &clock);
    assert_eq!(wakes(&mut listener), 0, "woken with nothing committed");

    // Another connection to the database, as `factdesk submit` or a second server.
    let location = common::location(dir.path(), "p.fdesk");
    let mut theirs = ok(Project::open(&location, Box::new(clock.clone())));
    let answered = Instant::now();
    answer_next(&mut theirs);
    assert!(
        ok(listener.wait(Duration::from_secs(1))),
        "no wake within 1 s"
    );
    eprintln!(
        "the answer was heard {:?} after it was sent",
        answered.elapsed()
    );
    assert_eq!(
        wakes(&mut listener),
        0,
        "one answer woke the listener twice"
    );

    // An answer stored in a transaction that is rolled back is never told.
    let ana = ok(theirs.store().read().query_row(
        "SELECT id FROM annotators WHERE name = 'ana'",
        [],
        |r| r.get::<_, i64>(0),
    ));
    let task = ok(theirs.store().read().query_row(
        "SELECT min(id) FROM tasks WHERE id NOT IN (SELECT task_id FROM annotations)",
        [],
        |r| r.get::<_, i64>(0),
    ));
    let response = Response::Evidence {
        selection: Selection::NoEvidence,
    };
    {
        let tx = ok(theirs.store_mut().transaction());
        let answer = NewAnnotation {
            uuid: "rolled-back",
            task_id: task,
            annotator_id: ana,
            response: &response,
            comment: None,
            trick_failed: false,
            duration_ms: None,
            supersedes: None,
            created_at: 1_000_000,
        };
        ok(factdesk_store::serving::store_answer(
            &tx, &answer, 1, 1_000_000,
        ));
        // Dropped without a commit: rolled back.
    }
    assert_eq!(
        wakes(&mut listener),
        0,
        "a rolled-back answer woke the listener"
    );

    // A burst of answers, committed one after the other, wakes it once or twice.
    const BURST: usize = 8;
    for _ in 0..BURST {
        answer_next(&mut theirs);
    }
    let woken = wakes(&mut listener);
    eprintln!("{BURST} answers woke the listener {woken} times");
    assert!(
        (1..=2).contains(&woken),
        "{BURST} answers woke it {woken} times"
    );

    // A decision on who counts moves the dashboard too.
    ok(theirs.set_flag_override(&theirs.lead(), "ana", Some(false)));
    assert!(
        ok(listener.wait(Duration::from_secs(1))),
        "the flag decision was not heard"
    );
}

#[test]
fn a_listener_whose_connection_was_ended_reconnects_and_hears_again() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the reconnecting listener test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let (mut ours, mut listener) = listened(dir.path(), 4, &clock);
    // The database ends the listener's connection (a restart, an administrator).
    let ended: i64 = ok(ours.store().read().query_row(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        [],
        |r| r.get(0),
    ));
    assert_eq!(ended, 1, "the listener's connection was found");
    let lost = listener.wait(Duration::from_secs(5));
    let e = lost
        .err()
        .unwrap_or_else(|| panic!("the lost connection went unnoticed"));
    assert_eq!(e.code, factdesk_api::ErrorCode::Unavailable, "{e}");
    ok(listener.reconnect());
    answer_next(&mut ours);
    assert!(
        ok(listener.wait(Duration::from_secs(1))),
        "no wake after reconnecting"
    );
}

/// A database project of `n` claims with evidence tasks and ana to answer them, and a
/// listener for its commits.
fn listened(dir: &std::path::Path, n: usize, clock: &ManualClock) -> (Project, AnswerListener) {
    let mut p = project(dir, n, clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let listener = ok(p.answer_listener()).unwrap_or_else(|| panic!("no listener"));
    (p, listener)
}
