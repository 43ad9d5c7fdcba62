//! Screens left open decide only on what they show: a refutation accepted or rejected
//! meanwhile (in another window, or by `factdesk review`), or a task decided or undone
//! meanwhile, is refused as a conflict and left as it was; `review`, `decide` and
//! `undo_decision` themselves (the CLI) may still change a decision.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::Ruling;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::project;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn state_of(p: &Project, annotation: i64) -> String {
    ok(p.store().read().query_row(
        "SELECT refutation_state FROM claims WHERE written_in = ?1",
        [annotation],
        |r| r.get(0),
    ))
}

fn open_verifications(p: &Project) -> i64 {
    ok(p.store().read().query_row(
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
        written.push(ok(p.store().read().query_row(
            "SELECT max(id) FROM annotations WHERE task_id = ?1",
            [item.task_id],
            |r| r.get::<_, i64>(0),
        )));
    }
    let lead = p.lead_named("lea");
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

#[test]
fn a_stale_queue_does_not_replace_or_undo_a_decision_taken_meanwhile() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    ok(p.add_annotator(&p.lead(), "lea", Role::Lead));
    for n in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    let mut task = 0;
    for (name, label) in [("ana", "SUPPORTED"), ("ben", "REFUTED")] {
        let item = ok(p.next_item(&p.who(name), TaskKind::Label))
            .item
            .unwrap_or_else(|| panic!("a label item"));
        task = item.task_id;
        ok(p.submit(
            &p.who(name),
            &Answer {
                task_id: item.task_id,
                label: Some(label.to_string()),
                ..Default::default()
            },
        ));
    }
    let lea = p.lead_named("lea");
    let decision_at = |p: &Project| -> Option<i64> {
        ok(p.adjudication_queue(&p.lead_named("lea"), &Default::default()))
            .into_iter()
            .find(|i| i.task_id == task)
            .and_then(|i| i.decision)
            .map(|d| d.at)
    };
    // Two screens show the task undecided; one takes ana's answer.
    assert_eq!(decision_at(&p), None);
    ok(p.decide_seen(
        &lea,
        task,
        None,
        Ruling::Take("ana".into()),
        &DecisionNote::default(),
    ));
    let first = decision_at(&p).unwrap_or_else(|| panic!("decided"));
    // The other, still showing it undecided, takes ben's: refused, ana's stays.
    clock.advance_ms(1_000);
    let err = p
        .decide_seen(
            &lea,
            task,
            None,
            Ruling::Take("ben".into()),
            &DecisionNote::default(),
        )
        .err()
        .unwrap_or_else(|| panic!("a stale decision replaced another"));
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("decided meanwhile"), "{}", err.message);
    assert_eq!(decision_at(&p), Some(first));
    // An undo naming an older decision is refused too; naming the current one works.
    let stale = p.undo_decision_seen(&lea, task, first - 1, None).err();
    assert_eq!(stale.map(|e| e.code), Some(ErrorCode::Conflict));
    ok(p.decide_seen(
        &lea,
        task,
        Some(first),
        Ruling::Take("ben".into()),
        &DecisionNote::default(),
    ));
    let second = decision_at(&p).unwrap_or_else(|| panic!("decided"));
    assert!(second > first);
    ok(p.undo_decision_seen(&lea, task, second, None));
    assert_eq!(decision_at(&p), None);
    // `decide` itself (factdesk adjudicate) decides whatever is there.
    ok(p.decide(
        &lea,
        task,
        Ruling::Take("ana".into()),
        &DecisionNote::default(),
    ));
    assert!(decision_at(&p).is_some());
}
