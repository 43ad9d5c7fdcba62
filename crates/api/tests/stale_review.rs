//! A review screen left open decides only what still waits: a refutation accepted or
//! rejected meanwhile (in another window, or by `factdesk review`) is refused as a
//! conflict and left as it was decided; `review` itself may still change a decision.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};

mod common;
use common::project;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn state_of(p: &Project, annotation: i64) -> String {
    ok(p.store().conn().query_row(
        "SELECT refutation_state FROM claims WHERE written_in = ?1",
        [annotation],
        |r| r.get(0),
    ))
}

fn open_verifications(p: &Project) -> i64 {
    ok(p.store().conn().query_row(
        "SELECT count(*) FROM tasks WHERE kind = 'verify' AND closed_at IS NULL",
        [],
        |r| r.get(0),
    ))
}

#[test]
fn a_stale_review_screen_does_not_overturn_a_decision() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    ok(p.add_annotator(&p.lead(), "lea", Role::Lead));
    ok(p.add_annotator(&p.lead(), "wren", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    let mut written = Vec::new();
    for _ in 0..2 {
        let item = ok(p.next_item(&p.who("wren"), TaskKind::Refute))
            .item
            .unwrap_or_else(|| panic!("a refute item"));
        ok(p.submit(
            &p.who("wren"),
            &Answer {
                task_id: item.task_id,
                text: Some(item.claim.replace("lighthouse", "windmill")),
                ..Default::default()
            },
        ));
        written.push(ok(p.store().conn().query_row(
            "SELECT max(id) FROM annotations WHERE task_id = ?1",
            [item.task_id],
            |r| r.get::<_, i64>(0),
        )));
    }
    let lead = p.who("lea");
    // Both screens listed both as waiting; another window accepts the first.
    assert_eq!(ok(p.pending_reviews(&lead)).len(), 2);
    ok(p.review_pending(&lead, written[0], true, None));
    assert_eq!(open_verifications(&p), 1);

    // The stale screen's reject of it is refused, and nothing changes.
    let err = p
        .review_pending(&lead, written[0], false, Some("late"))
        .err()
        .unwrap_or_else(|| panic!("a stale decision went through"));
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("accepted meanwhile"),
        "{}",
        err.message
    );
    assert_eq!(state_of(&p, written[0]), "accepted");
    assert_eq!(open_verifications(&p), 1);

    // The one still waiting is decided as asked.
    ok(p.review_pending(&lead, written[1], false, None));
    assert_eq!(state_of(&p, written[1]), "rejected");
    assert!(p.review_pending(&lead, written[1], true, None).is_err());

    // `review` (factdesk review) changes a decision on purpose.
    ok(p.review(&lead, written[1], true, None));
    assert_eq!(state_of(&p, written[1]), "accepted");
    assert_eq!(open_verifications(&p), 2);
}
