//! Written refutations through the api: pending review until accepted, closed when
//! rejected or replaced, and only current accepted ones verified and exported; answers that
//! picked the trick count for nothing and show as rejected.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::{GoldRequest, Ruling};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use factdesk_core::answer::{Response, Verdict};
use factdesk_core::claim::Label;
use std::collections::BTreeMap;

use crate::common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn query_i64(p: &Project, sql: &str, param: i64) -> i64 {
    ok(p.store().read().query_row(sql, [param], |r| r.get(0)))
}

/// The state of the refutation written in answer `annotation`.
fn state_of(p: &Project, annotation: i64) -> String {
    ok(p.store().read().query_row(
        "SELECT refutation_state FROM claims WHERE written_in = ?1",
        [annotation],
        |r| r.get(0),
    ))
}

/// The verify task of the refutation written in `annotation`: (id, closed).
fn verify_task_of(p: &Project, annotation: i64) -> Option<(i64, bool)> {
    p.store()
        .read()
        .query_row(
            "SELECT t.id, t.closed_at IS NOT NULL FROM tasks t JOIN claims c ON c.id = t.claim_id
             WHERE t.kind = 'verify' AND c.written_in = ?1",
            [annotation],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok()
}

/// The id of the latest answer on `task`.
fn answer_on(p: &Project, task: i64) -> i64 {
    query_i64(
        p,
        "SELECT max(id) FROM annotations WHERE task_id = ?1",
        task,
    )
}

/// The writer answers the next refutation item, changing a fact; returns (task, answer id).
fn write_next(p: &mut Project, writer: &str, word: &str) -> Option<(i64, i64)> {
    let item = ok(p.next_item(&p.who(writer), TaskKind::Refute)).item?;
    let text = item.claim.replace("lighthouse", word);
    ok(p.submit(
        &p.who(writer),
        &Answer {
            task_id: item.task_id,
            text: Some(text),
            ..Default::default()
        },
    ));
    Some((item.task_id, answer_on(p, item.task_id)))
}

#[test]
fn a_written_refutation_is_verified_and_exported_only_while_current_and_accepted() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 8, &clock);
    for (name, role) in [
        ("lead", Role::Lead),
        ("wren", Role::Annotator),
        ("v1", Role::Annotator),
        ("v2", Role::Annotator),
        ("v3", Role::Annotator),
    ] {
        ok(p.add_annotator(&p.lead(), name, role));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    let verify_tasks = |p: &Project| -> i64 {
        ok(p.store().read().query_row(
            "SELECT count(*) FROM tasks WHERE kind = 'verify'",
            [],
            |r| r.get(0),
        ))
    };

    // A new writer's first five wait for review, and nothing is verified meanwhile.
    let mut first = Vec::new();
    for _ in 0..5 {
        first.push(write_next(&mut p, "wren", "windmill").unwrap_or_else(|| panic!("served")));
    }
    for (_, a) in &first {
        assert_eq!(state_of(&p, *a), "pending_review");
    }
    assert_eq!(
        verify_tasks(&p),
        0,
        "a refutation pending review is not verified"
    );
    assert_eq!(ok(p.pending_reviews(&p.lead())).len(), 5);

    // Accepting opens the verification; rejecting gives none.
    for (_, a) in &first[..4] {
        ok(p.review(&p.lead_named("lead"), *a, true, None));
        assert_eq!(state_of(&p, *a), "accepted");
        assert_eq!(verify_task_of(&p, *a).map(|t| t.1), Some(false));
    }
    let (_, turned_down) = first[4];
    ok(p.review(
        &p.lead_named("lead"),
        turned_down,
        false,
        Some("changes the subject"),
    ));
    assert_eq!(state_of(&p, turned_down), "rejected");
    assert_eq!(verify_task_of(&p, turned_down), None);

    // Qualified now: the next one needs no review and is verified at once.
    let (sixth_task, sixth) = write_next(&mut p, "wren", "windmill")
        .unwrap_or_else(|| panic!("a qualified writer is served"));
    assert_eq!(state_of(&p, sixth), "no_review_needed");
    let (sixth_verify, closed) =
        verify_task_of(&p, sixth).unwrap_or_else(|| panic!("no verify task"));
    assert!(!closed);

    // Rewriting it supersedes it and closes its open verification in the same step.
    let back = ok(p.previous_item(&p.who("wren"), TaskKind::Refute, None))
        .unwrap_or_else(|| panic!("no previous item"));
    assert_eq!(back.task_id, sixth_task);
    ok(p.submit(
        &p.who("wren"),
        &Answer {
            task_id: sixth_task,
            text: Some(back.claim.replace("lighthouse", "mill tower")),
            ..Default::default()
        },
    ));
    let rewritten = answer_on(&p, sixth_task);
    assert_eq!(state_of(&p, sixth), "superseded");
    assert_eq!(verify_task_of(&p, sixth), Some((sixth_verify, true)));
    assert_eq!(state_of(&p, rewritten), "no_review_needed");
    let e = p.review(&p.lead_named("lead"), sixth, true, None).err();
    assert_eq!(
        e.map(|e| e.code),
        Some(ErrorCode::Conflict),
        "a replaced refutation cannot be reviewed"
    );

    // A verifier holds an item; the lead rejects that refutation: the item is closed,
    // never served again, and an answer to it is refused.
    let held = ok(p.next_item(&p.who("v1"), TaskKind::Verify))
        .item
        .unwrap_or_else(|| panic!("a verify item"));
    let held_refutation = query_i64(
        &p,
        "SELECT c.written_in FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
        held.task_id,
    );
    ok(p.review(
        &p.lead_named("lead"),
        held_refutation,
        false,
        Some("not a contradiction"),
    ));
    assert_eq!(state_of(&p, held_refutation), "rejected");
    assert_eq!(verify_task_of(&p, held_refutation).map(|t| t.1), Some(true));
    let refused = p.submit(
        &p.who("v1"),
        &Answer {
            task_id: held.task_id,
            label: Some("contradicts".into()),
            ..Default::default()
        },
    );
    assert!(refused.is_err(), "an answer on a closed task was taken");

    // Three verifiers answer everything they are served: never a closed task.
    let closed: Vec<i64> = [sixth_verify, held.task_id].to_vec();
    for v in ["v1", "v2", "v3"] {
        while let Some(item) = ok(p.next_item(&p.who(v), TaskKind::Verify)).item {
            assert!(
                !closed.contains(&item.task_id),
                "{v} was served closed task {}",
                item.task_id
            );
            ok(p.submit(
                &p.who(v),
                &Answer {
                    task_id: item.task_id,
                    label: Some("contradicts".into()),
                    ..Default::default()
                },
            ));
        }
    }

    // The export holds exactly the current accepted (or unreviewed qualified) ones.
    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    let live: Vec<String> = {
        let conn = p.store().read();
        let mut stmt = ok(conn.prepare(
            "SELECT ext_id FROM claims WHERE refutation_state IN ('accepted', 'no_review_needed') ORDER BY ext_id",
        ));
        ok(ok(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
    };
    assert_eq!(
        live.len(),
        4,
        "four of the seven are live, whichever one v1 held"
    );
    let mut exported: Vec<String> = lines
        .iter()
        .filter(|l| l.parent_id.is_some())
        .map(|l| l.id.clone())
        .collect();
    exported.sort();
    assert_eq!(exported, live);
    for l in lines.iter().filter(|l| l.parent_id.is_some()) {
        assert_eq!(l.label, Label::Refuted);
        let parent = lines
            .iter()
            .find(|p| Some(&p.id) == l.parent_id.as_ref())
            .unwrap_or_else(|| panic!("{} exported without its parent", l.id));
        assert_eq!(parent.split, l.split);
        assert_eq!(parent.label, Label::Supported);
        assert_eq!(l.agreement.answers, 3);
    }
    let counts: BTreeMap<&str, u64> = preview
        .refutations
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    // v1 held either an accepted refutation or the rewritten one.
    let (accepted, unreviewed) = if held_refutation == rewritten {
        (4, 0)
    } else {
        (3, 1)
    };
    assert_eq!(
        counts,
        BTreeMap::from([
            ("accepted", accepted),
            ("no_review_needed", unreviewed),
            ("pending_review", 0),
            ("rejected", 2),
            ("superseded", 1),
        ])
    );
    let reasons: Vec<&str> = preview.dropped.iter().map(|d| d.reason.as_str()).collect();
    assert!(
        reasons.contains(&"a written refutation the lead rejected"),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"a written refutation its writer replaced"),
        "{reasons:?}"
    );
    let out = dir.path().join("gold.jsonl");
    ok(p.export_gold(
        &p.lead(),
        &GoldRequest::default(),
        &out,
        Default::default(),
        false,
    ));
    let card = ok(std::fs::read_to_string(dir.path().join("gold.card.md")));
    assert!(card.contains("| superseded | 1 |"), "{card}");
    assert!(card.contains("| rejected | 2 |"), "{card}");
}

#[test]
fn an_answer_that_picked_the_trick_counts_for_nothing_and_shows_as_rejected() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben", "caro"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    let mut tricked = None;
    for name in ["ana", "ben", "caro"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
            let trick = trick_option(&p, &item).unwrap_or_else(|| panic!("no trick shown"));
            let real: Vec<String> = item
                .options
                .iter()
                .filter(|o| o.id != trick)
                .map(|o| o.id.clone())
                .collect();
            // Caro picks a real sentence and, on one item, the trick beside it; there ben
            // disagrees with ana, so caro's real sentence would decide if it counted.
            let selected = match name {
                "caro" if tricked.is_none() => {
                    tricked = Some(item.task_id);
                    vec![real[1].clone(), trick]
                }
                "caro" => vec![real[0].clone()],
                "ben" => vec![real[1].clone()],
                _ => vec![real[0].clone()],
            };
            ok(p.submit(
                &p.who(name),
                &Answer {
                    task_id: item.task_id,
                    selected,
                    ..Default::default()
                },
            ));
        }
    }
    let tricked = tricked.unwrap_or_else(|| panic!("caro answered nothing"));
    // Counting flagged annotators, so only the rejection keeps caro's answer out.
    let req = GoldRequest {
        include_flagged: true,
        ..GoldRequest::default()
    };
    let aggregation = ok(p.aggregate(&p.lead(), &req));
    let task = aggregation
        .tasks
        .iter()
        .find(|t| t.task_id == tricked)
        .unwrap_or_else(|| panic!("task {tricked}"));
    assert_eq!((task.counted, task.rejected), (2, 1));
    assert_eq!(
        task.outcome,
        factdesk_api::gold::Outcome::NoGoldEvidence,
        "ana and ben disagree; caro's rejected answer breaks no tie"
    );
    let last = task.answers.last().unwrap_or_else(|| panic!("no answers"));
    assert_eq!(last.annotator, "caro");
    assert!(last.rejected && !last.counted && last.trick_failed);
    assert_eq!(aggregation.rejected_answers, 1);
    for t in aggregation.tasks.iter().filter(|t| t.task_id != tricked) {
        assert_eq!((t.counted, t.rejected), (3, 0));
    }

    // The lead sees it, last and rejected, and cannot take it.
    let queue = ok(p.adjudication_queue(&p.lead_named("lead"), &req));
    let item = queue
        .iter()
        .find(|i| i.task_id == tricked)
        .unwrap_or_else(|| panic!("the disputed item is not queued"));
    assert_eq!(item.answers.len(), 3);
    assert!(item.answers[2].rejected && item.answers[2].annotator == "caro");
    let e = p
        .decide(
            &p.lead_named("lead"),
            tricked,
            Ruling::Take("caro".into()),
            &DecisionNote::default(),
        )
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidInput));

    // The export says so.
    let out = dir.path().join("gold.jsonl");
    let report = ok(p.export_gold(&p.lead(), &req, &out, Default::default(), false));
    assert_eq!(report.preview.rejected_answers, 1);
    let card = ok(std::fs::read_to_string(&report.card));
    assert!(
        card.contains("picked the trick sentence (kept, counted for nothing): 1"),
        "{card}"
    );
}

#[test]
fn a_pack_answer_on_a_verification_closed_meanwhile_comes_too_late() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 5, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    ok(p.add_annotator(&p.lead(), "wren", Role::Annotator));
    ok(p.add_annotator(&p.lead(), "v1", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    let mut written = Vec::new();
    while let Some((_, a)) = write_next(&mut p, "wren", "windmill") {
        written.push(a);
    }
    for a in &written {
        ok(p.review(&p.lead_named("lead"), *a, true, None));
    }
    let pack_path = dir.path().join("v1.fdpack");
    let req = factdesk_api::packs::PackRequest {
        annotator: "v1".to_string(),
        count: 5,
        kind: Some(TaskKind::Verify),
        expires_days: 7,
    };
    ok(p.issue_pack(&p.lead(), &req, &pack_path));
    // While the pack is out, the lead changes her mind about one refutation.
    ok(p.review(&p.lead_named("lead"), written[0], false, None));

    let mut pack = ok(factdesk_api::packs::PackSession::open(
        &pack_path,
        Box::new(clock.clone()),
    ));
    let mut answered = 0;
    while let Some(item) = ok(pack.next_item(&pack.who("v1"), TaskKind::Verify)).item {
        ok(pack.submit(
            &pack.who("v1"),
            &Answer {
                task_id: item.task_id,
                label: Some("contradicts".into()),
                ..Default::default()
            },
        ));
        answered += 1;
    }
    assert_eq!(answered, 5);
    let results = ok(pack.return_results(None));
    let report = ok(p.merge_pack(&p.lead(), &results));
    assert_eq!((report.added, report.late), (4, 1));
    let (closed, answers) = verify_task_of(&p, written[0])
        .map(|(id, closed)| {
            (
                closed,
                query_i64(
                    &p,
                    "SELECT count(*) FROM annotations WHERE task_id = ?1",
                    id,
                ),
            )
        })
        .unwrap_or_else(|| panic!("no verify task"));
    assert!(closed && answers == 0);
    // Nothing to adjudicate on it either.
    let (task, _) = verify_task_of(&p, written[0]).unwrap_or_else(|| panic!("no verify task"));
    let decided = p.decide(
        &p.lead_named("lead"),
        task,
        Ruling::Answer(Response::Verify {
            verdict: Verdict::Contradicts,
        }),
        &DecisionNote::default(),
    );
    assert_eq!(
        decided.map_err(|e| e.code).err(),
        Some(factdesk_api::ErrorCode::Conflict)
    );
}

/// Twelfth hostile pass (MEDIUM): every rewrite of a written refutation keeps its row,
/// and `tasks --kind label --include-children` gave each of them label tasks, reviewed
/// or not (300 rewrites, 308 label tasks on texts the writer chose and replaced). Only
/// a written refutation that stands (accepted, or needing no review) gets evidence or
/// label tasks of its own; the others are skipped, each with its reason.
#[test]
fn only_a_written_refutation_that_stands_gets_label_or_evidence_tasks_of_its_own() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 8, &clock);
    for (name, role) in [("lead", Role::Lead), ("wren", Role::Annotator)] {
        ok(p.add_annotator(&p.lead(), name, role));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    let (_, kept) = write_next(&mut p, "wren", "windmill").unwrap_or_else(|| panic!("served"));
    let (_, waiting) = write_next(&mut p, "wren", "windmill").unwrap_or_else(|| panic!("served"));
    ok(p.review(&p.lead_named("lead"), kept, true, None));
    // Rewritten twice: two replaced rows, the last rewrite waiting for review.
    let (_, rewritten) = write_next(&mut p, "wren", "windmill").unwrap_or_else(|| panic!("served"));
    ok(p.review(&p.lead_named("lead"), rewritten, true, None));
    let back = ok(p.previous_item(&p.who("wren"), TaskKind::Refute, None))
        .unwrap_or_else(|| panic!("no previous item"));
    for word in ["watermill", "sawmill"] {
        let text = back.claim.replace("lighthouse", word);
        ok(p.submit(
            &p.who("wren"),
            &Answer {
                task_id: back.task_id,
                text: Some(text),
                ..Default::default()
            },
        ));
    }
    let states: Vec<String> = {
        let conn = p.store().read();
        let mut stmt = ok(conn.prepare("SELECT refutation_state FROM claims WHERE parent_id IS NOT NULL AND written_in IS NOT NULL ORDER BY id"));
        let rows = ok(stmt.query_map([], |r| r.get::<_, String>(0)));
        ok(rows.collect::<Result<Vec<_>, _>>())
    };
    assert!(states.contains(&"superseded".to_string()), "{states:?}");
    assert!(states.contains(&"pending_review".to_string()), "{states:?}");
    let _ = waiting;
    for kind in [TaskKind::Label, TaskKind::Evidence] {
        let report = ok(p.create_tasks_with(
            &p.lead(),
            kind,
            Some(1),
            true,
            &mut factdesk_api::NoProgress,
        ));
        let on_written: Vec<String> = {
            let conn = p.store().read();
            let mut stmt = ok(conn.prepare(
                "SELECT c.refutation_state FROM tasks t JOIN claims c ON c.id = t.claim_id
                 WHERE t.kind = ?1 AND c.written_in IS NOT NULL",
            ));
            let rows = ok(stmt.query_map([kind.as_str()], |r| r.get::<_, String>(0)));
            ok(rows.collect::<Result<Vec<_>, _>>())
        };
        assert!(
            on_written
                .iter()
                .all(|s| s == "accepted" || s == "no_review_needed"),
            "{kind:?} tasks on written refutations in states {on_written:?}"
        );
        let skipped: Vec<_> = report.skipped.iter().map(|s| s.reason).collect();
        for reason in [
            factdesk_api::tasks::SkipReason::PendingReview,
            factdesk_api::tasks::SkipReason::Superseded,
        ] {
            assert!(skipped.contains(&reason), "{kind:?}: {skipped:?}");
        }
    }
}
