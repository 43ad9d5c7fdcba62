//! Answers and refutation checks reach only items given to the person (hostile pass 21,
//! F5, F4 and F8): an answer to an item never served to its sender, in none of their
//! packs and not their own earlier answer, is refused and changes nothing (it would pad a
//! trick record with "no evidence", or let someone pick the claims they decide); the live
//! refutation checks run only on a refute item given to the caller (they tell the claim's
//! words); and an answer refused because a deleted study took back its place says so.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::{project, project_values, trick_option, Acting};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn next(p: &mut Project, name: &str, kind: TaskKind) -> Item {
    must(p.next_item(&p.who(name), kind))
        .item
        .unwrap_or_else(|| panic!("an item for {name}"))
}

fn no_evidence(task_id: i64) -> Answer {
    Answer {
        task_id,
        no_evidence: true,
        ..Default::default()
    }
}

fn label(task_id: i64) -> Answer {
    Answer {
        task_id,
        label: Some("REFUTED".into()),
        ..Default::default()
    }
}

/// A real sentence (not the trick) of `item`.
fn real(p: &Project, item: &Item) -> Answer {
    let trick = trick_option(p, item).unwrap_or_default();
    Answer {
        task_id: item.task_id,
        selected: item
            .options
            .iter()
            .map(|o| o.id.clone())
            .filter(|id| *id != trick)
            .take(1)
            .collect(),
        ..Default::default()
    }
}

fn task_ids(p: &Project, kind: TaskKind) -> Vec<i64> {
    let conn = p.store().read();
    let mut stmt = must(conn.prepare("SELECT id FROM tasks WHERE kind = ?1 ORDER BY id"));
    let rows = must(stmt.query_map([kind.as_str()], |r| r.get(0)));
    must(rows.collect::<Result<Vec<i64>, _>>())
}

fn refused<T>(r: factdesk_api::Result<T>) -> factdesk_api::Error {
    r.err().unwrap_or_else(|| panic!("refused"))
}

#[test]
fn an_answer_to_an_item_never_given_is_refused_and_changes_nothing() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 6, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(3)));
    must(p.add_annotator(&p.lead(), "jo", Role::Annotator));
    let jo = p.who("jo");
    let before = project_values(&p);
    // "No evidence" and a label need no option id: nothing but the task id to guess.
    for task in task_ids(&p, TaskKind::Evidence) {
        let e = refused(p.submit(&jo, &no_evidence(task)));
        assert_eq!(e.code, ErrorCode::Forbidden, "{e}");
        assert!(e.message.contains("was not given to you"), "{e}");
    }
    for task in task_ids(&p, TaskKind::Label) {
        assert_eq!(
            refused(p.submit(&jo, &label(task))).code,
            ErrorCode::Forbidden
        );
    }
    // Nothing stored, no trick counted as seen, no place taken.
    assert_eq!(project_values(&p), before);
    // Served, the same answers are taken, and corrected.
    let item = next(&mut p, "jo", TaskKind::Evidence);
    must(p.submit(&jo, &no_evidence(item.task_id)));
    must(p.submit(&jo, &real(&p, &item)));
    let item = next(&mut p, "jo", TaskKind::Label);
    must(p.submit(&jo, &label(item.task_id)));
}

#[test]
fn a_lapsed_or_skipped_reservation_still_answers_while_the_item_has_room() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let minutes = i64::from(must(p.settings()).reservation_minutes);
    // Lapsed and taken by someone else: refused as before, for lack of room.
    let first = next(&mut p, "ana", TaskKind::Evidence);
    clock.advance_ms(minutes * 60_000 + 1);
    let bens = next(&mut p, "ben", TaskKind::Evidence);
    assert_eq!(bens.task_id, first.task_id, "the lapsed item went to ben");
    must(p.submit(&p.who("ben"), &real(&p, &bens)));
    let late = refused(p.submit(&p.who("ana"), &real(&p, &first)));
    assert_eq!(late.code, ErrorCode::Conflict, "{late}");
    assert!(late.message.contains("lapsed"), "{late}");
    // Lapsed with room left, or skipped: the screen still open sends its answer.
    let second = next(&mut p, "ana", TaskKind::Evidence);
    clock.advance_ms(minutes * 60_000 + 1);
    must(p.submit(&p.who("ana"), &real(&p, &second)));
    let third = next(&mut p, "ana", TaskKind::Evidence);
    assert!(must(p.skip_item(&p.who("ana"), third.task_id)));
    must(p.submit(&p.who("ana"), &real(&p, &third)));
}

#[test]
fn refutation_checks_run_only_on_a_refute_item_given_to_the_caller() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    must(p.add_annotator(&p.lead(), "lea", Role::Lead));
    for n in ["wren", "di"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    // Wren writes a refutation; accepted, it opens a verify task for others.
    let item = next(&mut p, "wren", TaskKind::Refute);
    let written = item.claim.replace("lighthouse", "windmill");
    must(p.submit(
        &p.who("wren"),
        &Answer {
            task_id: item.task_id,
            text: Some(written.clone()),
            ..Default::default()
        },
    ));
    let answer: i64 = must(p.store().read().query_row(
        "SELECT max(id) FROM annotations WHERE task_id = ?1",
        [item.task_id],
        |r| r.get(0),
    ));
    must(p.review(&p.lead(), answer, true, None));
    let verify = task_ids(&p, TaskKind::Verify);
    assert_eq!(verify.len(), 1, "the written refutation is verified");
    let held_label = next(&mut p, "di", TaskKind::Label).task_id;
    // Di was given no refute item: every task, existing or not, of any kind, is refused
    // alike, so a probe tells neither a claim's words nor which tasks exist.
    let di = p.who("di");
    let mut probes = task_ids(&p, TaskKind::Refute);
    probes.extend(&verify);
    probes.extend([held_label, 999_999]);
    for task in probes {
        let e = refused(p.check_refutation(&di, task, &written));
        assert_eq!(e.code, ErrorCode::NotFound, "task {task}: {e}");
        assert_eq!(
            e.message,
            format!("task {task} is no refutation you are writing: ask for one with next")
        );
    }
    // The lead's screens check only what the lead is writing too.
    let other = task_ids(&p, TaskKind::Refute)
        .into_iter()
        .find(|t| *t != item.task_id)
        .unwrap_or_else(|| panic!("another refute task"));
    assert_eq!(
        refused(p.check_refutation(&p.lead(), other, "x")).code,
        ErrorCode::NotFound
    );
    // On her own item, served or answered, the writer gets her checks.
    let wren = p.who("wren");
    assert!(!must(p.check_refutation(&wren, item.task_id, &written)).is_empty());
    let mine = next(&mut p, "di", TaskKind::Refute);
    assert!(!must(p.check_refutation(&di, mine.task_id, &mine.claim)).is_empty());
}

#[test]
fn a_member_whose_study_was_deleted_is_told_so_not_that_the_reservation_lapsed() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    must(p.add_annotator(&p.lead(), "lea", Role::Lead));
    for n in ["a1", "hu", "ix"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    for _ in 0..3 {
        let item = next(&mut p, "a1", TaskKind::Evidence);
        must(p.submit(&p.who("a1"), &real(&p, &item)));
    }
    let study = must(p.create_study(
        &p.lead(),
        &StudyRequest {
            kind: TaskKind::Evidence,
            sample: 3,
            members: vec!["hu".into(), "ix".into()],
            seed: Some(2),
            strata: None,
        },
    ));
    let item = next(&mut p, "hu", TaskKind::Evidence);
    must(p.delete_study(&p.lead(), study.id));
    // Her reservation is live; the item's overlap went back to its first group's.
    let e = refused(p.submit(&p.who("hu"), &real(&p, &item)));
    assert_eq!(e.code, ErrorCode::Conflict, "{e}");
    assert!(!e.message.contains("lapsed"), "{e}");
    assert!(e.message.contains("study"), "{e}");
}
