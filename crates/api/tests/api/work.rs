//! Serving and answering work through the api: overlap, reservations, blindness, tricks.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::tasks::{SkipReason, TaskKind};
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::collections::HashMap;

use crate::common;
use common::Acting;
use common::{ana_and_ben, project, trick_option};

fn trick_id(p: &Project, item: &Item) -> String {
    trick_option(p, item).unwrap_or_else(|| panic!("no trick among {:?}", item.options))
}

fn real_id(p: &Project, item: &Item) -> String {
    let trick = trick_id(p, item);
    item.options
        .iter()
        .find(|o| o.id != trick)
        .map(|o| o.id.clone())
        .unwrap_or_default()
}

fn answer(task_id: i64, selected: Vec<String>) -> Answer {
    Answer {
        task_id,
        selected,
        ..Default::default()
    }
}

#[test]
fn three_annotators_with_overlap_three_answer_every_item_exactly_three_times() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 12, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3))
        .unwrap_or_else(|e| panic!("{e}"));
    let names = ["ana", "ben", "caro"];
    for n in names {
        p.add_annotator(&p.lead(), n, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut answered: HashMap<i64, Vec<&str>> = HashMap::new();
    // Round-robin, as three people working at once would.
    let mut active = names.to_vec();
    while !active.is_empty() {
        active.retain(|&n| {
            let next = p
                .next_item(&p.who(n), TaskKind::Evidence)
                .unwrap_or_else(|e| panic!("{e}"));
            let Some(item) = next.item else { return false };
            let id = real_id(&p, &item);
            p.submit(&p.who(n), &answer(item.task_id, vec![id]))
                .unwrap_or_else(|e| panic!("{e}"));
            answered.entry(item.task_id).or_default().push(n);
            clock.advance_ms(4_000);
            true
        });
    }
    assert_eq!(answered.len(), 12);
    for (task, who) in &answered {
        let mut who = who.clone();
        who.sort_unstable();
        assert_eq!(who, names.to_vec(), "task {task}");
    }
}

#[test]
fn an_expired_reservation_goes_to_another_annotator() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 1, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ben", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let held = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    // Ana's reservation blocks Ben while it lasts...
    assert!(p
        .next_item(&p.who("ben"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .is_none());
    // ...and Ana gets the same unfinished item back after a restart.
    let again = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    assert_eq!(again.task_id, held.task_id);
    clock.advance_ms(31 * 60_000);
    let taken = p
        .next_item(&p.who("ben"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("ben got nothing"));
    assert_eq!(taken.task_id, held.task_id);
    let id = real_id(&p, &taken);
    p.submit(&p.who("ben"), &answer(taken.task_id, vec![id]))
        .unwrap_or_else(|e| panic!("{e}"));
    let late = p.submit(
        &p.who("ana"),
        &answer(held.task_id, vec![real_id(&p, &held)]),
    );
    assert_eq!(late.map_err(|e| e.code).err(), Some(ErrorCode::Conflict));
}

#[test]
fn picking_tricks_flags_an_annotator_for_the_lead() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 5, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, None)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "lead", Role::Lead)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "careless", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "careful", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    for who in ["careless", "careful"] {
        while let Some(item) = p
            .next_item(&p.who(who), TaskKind::Evidence)
            .unwrap_or_else(|e| panic!("{e}"))
            .item
        {
            let pick = if who == "careless" {
                trick_id(&p, &item)
            } else {
                real_id(&p, &item)
            };
            p.submit(&p.who(who), &answer(item.task_id, vec![pick]))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let list = p.annotators(&p.lead()).unwrap_or_else(|e| panic!("{e}"));
    let careless = list
        .iter()
        .find(|a| a.name == "careless")
        .unwrap_or_else(|| panic!("missing"));
    assert_eq!((careless.tricks_seen, careless.tricks_failed), (5, 5));
    assert!(careless.flagged && !careless.counted);
    let careful = list
        .iter()
        .find(|a| a.name == "careful")
        .unwrap_or_else(|| panic!("missing"));
    assert!(!careful.flagged && careful.counted);
    let included = p
        .set_flag_override(&p.lead(), "careless", Some(true))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(included.flagged && included.counted);
}

#[test]
fn items_look_the_same_for_trick_and_candidates_and_hide_others_answers() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 1, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, None)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ben", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let item = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    let mut a = answer(item.task_id, vec![real_id(&p, &item)]);
    a.comment = Some("ANA-SECRET-COMMENT".into());
    p.submit(&p.who("ana"), &a)
        .unwrap_or_else(|e| panic!("{e}"));

    let next = p
        .next_item(&p.who("ben"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"));
    let json = serde_json::to_value(&next).unwrap_or_else(|e| panic!("{e}"));
    let text = json.to_string();
    assert!(
        !text.contains("ANA-SECRET-COMMENT") && !text.contains("ana"),
        "{text}"
    );
    assert!(json["item"]["previous"].is_null());
    let options = json["item"]["options"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(options.len(), 6, "five candidates and the trick");
    let keys = |o: &serde_json::Value| {
        o.as_object()
            .map(|m| m.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    for o in &options {
        assert_eq!(
            keys(o),
            keys(&options[0]),
            "every option has the same fields"
        );
        let id = o["id"].as_str().unwrap_or("");
        assert!(
            id.len() == 13 && id.starts_with('o') && id[1..].chars().all(|c| c.is_ascii_hexdigit()),
            "{id}"
        );
    }
    // Ben's ids differ from Ana's for the same task: ids cannot be compared across people.
    let ben_ids: Vec<&str> = options.iter().filter_map(|o| o["id"].as_str()).collect();
    assert!(item
        .options
        .iter()
        .all(|o| !ben_ids.contains(&o.id.as_str())));
}

#[test]
fn a_corrected_answer_supersedes_without_counting_twice() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 2, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let first = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    p.submit(
        &p.who("ana"),
        &Answer {
            task_id: first.task_id,
            no_evidence: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let back = p
        .previous_item(&p.who("ana"), TaskKind::Evidence, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("nothing to go back to"));
    assert_eq!(back.task_id, first.task_id);
    assert!(back.previous.as_ref().is_some_and(|a| a.no_evidence));
    let pick = real_id(&p, &back);
    p.submit(&p.who("ana"), &answer(back.task_id, vec![pick.clone()]))
        .unwrap_or_else(|e| panic!("{e}"));
    let again = p
        .previous_item(&p.who("ana"), TaskKind::Evidence, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("none"));
    assert_eq!(again.previous.map(|a| a.selected), Some(vec![pick]));
    let stats = p.stats(&p.lead()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.annotations, 2, "both answers are kept");
    // The second item is still served: the correction did not use up the overlap twice.
    assert!(p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .is_some());
}

/// Issue 31, hostile pass of session 33: going back to an item answered with every option
/// selected listed the trick last, whatever its place on screen, so the earlier answer
/// named it. The selection comes back in display order.
#[test]
fn an_earlier_answer_comes_back_in_display_order_with_the_trick_in_its_place() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 12, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut trick_not_last = 0;
    while let Some(item) = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
    {
        let shown: Vec<String> = item.options.iter().map(|o| o.id.clone()).collect();
        trick_not_last += usize::from(shown.last() != Some(&trick_id(&p, &item)));
        p.submit(&p.who("ana"), &answer(item.task_id, shown.clone()))
            .unwrap_or_else(|e| panic!("{e}"));
        clock.advance_ms(4_000);
        let back = p
            .previous_item(&p.who("ana"), TaskKind::Evidence, None)
            .unwrap_or_else(|e| panic!("{e}"))
            .and_then(|b| b.previous)
            .unwrap_or_else(|| panic!("nothing to go back to"));
        assert_eq!(back.selected, shown, "the options as they were shown");
    }
    assert!(trick_not_last > 0, "some trick stood before another option");
}

#[test]
fn a_failing_check_blocks_a_refutation_and_a_new_writer_waits_for_review() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 8, &clock);
    p.create_tasks(&p.lead(), TaskKind::Refute, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "lead", Role::Lead)
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "wren", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut written = 0;
    loop {
        let next = p
            .next_item(&p.who("wren"), TaskKind::Refute)
            .unwrap_or_else(|e| panic!("{e}"));
        let Some(item) = next.item else {
            assert!(next
                .reason
                .unwrap_or_default()
                .contains("waiting for the lead's review"));
            break;
        };
        // "Town 3 had a lighthouse built in 1803": a bare negation is refused...
        let negated = item.claim.replace(" had ", " had no ");
        let refused = p.submit(
            &p.who("wren"),
            &Answer {
                task_id: item.task_id,
                text: Some(negated),
                ..Default::default()
            },
        );
        assert_eq!(
            refused.map_err(|e| e.code).err(),
            Some(ErrorCode::CheckFailed)
        );
        // ...a changed fact is taken, and becomes a claim waiting for verification.
        let changed = item.claim.replace("lighthouse", "windmill");
        p.submit(
            &p.who("wren"),
            &Answer {
                task_id: item.task_id,
                text: Some(changed),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        written += 1;
    }
    assert_eq!(
        written, 5,
        "the first five are served, then the writer waits"
    );
    let pending = p
        .pending_reviews(&p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pending.len(), 5);
    assert!(pending.iter().all(|r| r.written.contains("windmill")));
    for r in &pending[..4] {
        p.review(&p.lead_named("lead"), r.annotation_id, true, None)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        p.next_item(&p.who("wren"), TaskKind::Refute)
            .unwrap_or_else(|e| panic!("{e}"))
            .item
            .is_some(),
        "four accepted qualify"
    );
    let verify = p
        .create_tasks(&p.lead(), TaskKind::Verify, None)
        .unwrap_or_else(|e| panic!("{e}"));
    // The accepted ones got their verification when accepted; the fifth still waits for
    // review, so it gets none and is listed as such.
    assert_eq!((verify.existing, verify.created), (4, 0));
    assert_eq!(verify.skipped.len(), 1);
    assert_eq!(verify.skipped[0].reason, SkipReason::PendingReview);
    assert_eq!(verify.skipped[0].count, 1);
}

/// `name`'s pace on evidence items, of every kind's pace.
fn evidence_pace(p: &Project, name: &str) -> factdesk_api::annotate::Pace {
    let paces = p.paces(&p.who(name)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(paces.len(), TaskKind::ALL.len());
    paces
        .into_iter()
        .find(|k| k.kind == TaskKind::Evidence)
        .map(|k| k.pace)
        .unwrap_or_else(|| panic!("no evidence pace"))
}

#[test]
fn progress_counts_what_the_annotator_can_do_and_back_works_from_an_unanswered_item() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = ana_and_ben(4, dir.path(), &clock);
    let evidence_pace = |p: &Project, name: &str| {
        let pace = evidence_pace(p, name);
        (pace.done, pace.total)
    };
    assert_eq!(evidence_pace(&p, "ana"), (0, 4));
    // With overlap 1, each item Ben answers is one Ana can no longer get.
    for _ in 0..2 {
        let item = p
            .next_item(&p.who("ben"), TaskKind::Evidence)
            .unwrap_or_else(|e| panic!("{e}"))
            .item
            .unwrap_or_else(|| panic!("no item"));
        p.submit(
            &p.who("ben"),
            &answer(item.task_id, vec![real_id(&p, &item)]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(evidence_pace(&p, "ben"), (2, 4));
    // The trigger-kept count of open tasks agrees with counting them.
    let conn = p.store().read();
    let kept: i64 = conn
        .query_row(
            "SELECT CAST(sum(open) AS BIGINT) FROM open_tasks WHERE kind = 'evidence'",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let counted: i64 = conn
        .query_row(
            "SELECT count(*) FROM tasks WHERE kind = 'evidence' AND answered < overlap",
            [],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((kept, counted), (2, 2));
    assert_eq!(evidence_pace(&p, "ana"), (0, 2));
    // Asking for progress reserved nothing: Ana still gets the two open items.
    let first = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    p.submit(
        &p.who("ana"),
        &answer(first.task_id, vec![real_id(&p, &first)]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let current = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    // Regression: going back from an item not yet answered found nothing.
    let back = p
        .previous_item(&p.who("ana"), TaskKind::Evidence, Some(current.task_id))
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("nothing to go back to"));
    assert_eq!(back.task_id, first.task_id);
}

/// Issue 31, hostile pass of session 23 (F4): the pace counted every open task of the
/// project, so it told an annotator how many tasks there were and, dropping while they
/// paused, when others answered. It counts at most `SHOWN_LEFT` items left; only the last
/// ones are counted exactly, so an annotator still sees the end coming.
#[test]
fn the_pace_tells_neither_the_projects_size_nor_others_answers_until_the_last_items() {
    use factdesk_core::pace::SHOWN_LEFT;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = ana_and_ben(30, dir.path(), &clock);
    let pace = |p: &Project, name: &str| {
        let pace = evidence_pace(p, name);
        (pace.done, pace.total, pace.more)
    };
    let ben_answers = |p: &mut Project, n: usize| {
        for _ in 0..n {
            let item = p
                .next_item(&p.who("ben"), TaskKind::Evidence)
                .unwrap_or_else(|e| panic!("{e}"))
                .item
                .unwrap_or_else(|| panic!("no item"));
            p.submit(
                &p.who("ben"),
                &answer(item.task_id, vec![real_id(p, &item)]),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    };
    assert_eq!(pace(&p, "ana"), (0, SHOWN_LEFT, true));
    // Ben answering (each answer takes an item from Ana, at overlap 1) does not show.
    ben_answers(&mut p, 9);
    assert_eq!(pace(&p, "ana"), (0, SHOWN_LEFT, true));
    assert_eq!(pace(&p, "ben"), (9, 9 + SHOWN_LEFT, true));
    // Once no more than that are left, the count is exact, and so is the time left.
    ben_answers(&mut p, 3);
    assert_eq!(pace(&p, "ana"), (0, 18, false));
    let item = p
        .next_item(&p.who("ana"), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
        .unwrap_or_else(|| panic!("no item"));
    assert_eq!((item.pace.total, item.pace.more), (18, false));
}

/// Issue 30, item 6: a person is flagged only when the trick failures hold up: the Wilson
/// 95% lower bound of their failure rate above the threshold, the interval shown. One
/// trick in three items (0.33, interval 0.061 to 0.792) flags nobody at the default 0.2;
/// three in three (lower bound 0.4385) does; and a raised threshold lifts that flag, since
/// flags follow the current settings.
#[test]
fn a_flag_needs_the_wilson_lower_bound_above_the_threshold_and_follows_the_settings() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3))
        .unwrap_or_else(|e| panic!("{e}"));
    for who in ["once", "careless"] {
        p.add_annotator(&p.lead(), who, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
        for n in 0..3 {
            let item = p
                .next_item(&p.who(who), TaskKind::Evidence)
                .unwrap_or_else(|e| panic!("{e}"))
                .item
                .unwrap_or_else(|| panic!("{who} got nothing"));
            let pick = if who == "careless" || n == 0 {
                trick_id(&p, &item)
            } else {
                real_id(&p, &item)
            };
            p.submit(&p.who(who), &answer(item.task_id, vec![pick]))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let person = |p: &Project, name: &str| {
        p.annotators(&p.lead())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let close = |(lo, hi): (f64, f64), want: (f64, f64)| {
        assert!(
            (lo - want.0).abs() < 1e-4 && (hi - want.1).abs() < 1e-4,
            "({lo}, {hi}) against {want:?}"
        );
    };
    let once = person(&p, "once");
    assert_eq!((once.tricks_seen, once.tricks_failed), (3, 1));
    assert!(!once.flagged && once.counted, "{once:?}");
    close(
        once.trick_failure_ci95
            .unwrap_or_else(|| panic!("no interval")),
        (0.0615, 0.7923),
    );
    let careless = person(&p, "careless");
    assert_eq!((careless.tricks_seen, careless.tricks_failed), (3, 3));
    assert!(careless.flagged && !careless.counted, "{careless:?}");
    close(
        careless
            .trick_failure_ci95
            .unwrap_or_else(|| panic!("no interval")),
        (0.4385, 1.0),
    );
    // The dashboard shows the same interval beside the rate.
    let dashboard = p
        .dashboard(&p.lead(), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let shown = dashboard
        .kinds
        .iter()
        .flat_map(|k| &k.people)
        .find(|x| x.name == "careless")
        .unwrap_or_else(|| panic!("careless not on the dashboard"));
    assert_eq!(shown.trick_failure_ci95, careless.trick_failure_ci95);

    let mut settings = p.settings().unwrap_or_else(|e| panic!("{e}"));
    settings.trick_flag_threshold = 0.5;
    p.set_settings(&p.lead(), &settings)
        .unwrap_or_else(|e| panic!("{e}"));
    let careless = person(&p, "careless");
    assert!(!careless.flagged && careless.counted, "{careless:?}");
}
