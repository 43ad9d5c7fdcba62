//! The use cases that gather several figures from one read of the answers (the report,
//! every kind's agreement at once, the dashboard's intervals) give exactly what each
//! figure's own use case gives when it reads the project by itself.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::{GoldMethod, GoldRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use factdesk_core::agreement::RatingTable;
use factdesk_core::seeded::Seeded;

use crate::common;
use common::Acting;
use common::{project, trick_option};

const NAMES: [&str; 3] = ["ana", "ben", "caro"];
const LABELS: [&str; 3] = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"];

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Evidence and label answers by three annotators, mostly agreeing: one picks the trick
/// once, and one corrects an answer (so a superseded answer is stored).
fn answered(dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, 10, clock);
    for kind in [TaskKind::Evidence, TaskKind::Label] {
        ok(p.create_tasks(&p.lead(), kind, Some(3)));
    }
    for n in NAMES {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let mut rng = Seeded::new(5);
    let mut corrected = None;
    for round in 0..10 {
        for name in NAMES {
            for kind in [TaskKind::Evidence, TaskKind::Label] {
                let Some(item) = ok(p.next_item(&p.who(name), kind)).item else {
                    continue;
                };
                let mut answer = Answer {
                    task_id: item.task_id,
                    ..Default::default()
                };
                if kind == TaskKind::Evidence {
                    let trick = trick_option(&p, &item).unwrap_or_default();
                    if name == "caro" && round == 3 {
                        answer.selected = vec![trick];
                    } else {
                        answer.selected = item
                            .options
                            .iter()
                            .filter(|o| o.id != trick && rng.below(3) == 0)
                            .map(|o| o.id.clone())
                            .collect();
                        answer.no_evidence = answer.selected.is_empty();
                    }
                } else {
                    let pick = if rng.below(4) == 0 { rng.below(3) } else { 0 };
                    answer.label = Some(LABELS[pick as usize].to_string());
                    corrected.get_or_insert((name, item.task_id));
                }
                ok(p.submit(&p.who(name), &answer));
                clock.advance_ms(2_000);
            }
        }
    }
    let (name, task) = corrected.unwrap_or_else(|| panic!("no label answer"));
    let answer = Answer {
        task_id: task,
        label: Some("REFUTED".to_string()),
        ..Default::default()
    };
    ok(p.submit(&p.who(name), &answer));
    p
}

#[test]
fn figures_read_together_equal_figures_read_alone() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = answered(dir.path(), &clock);
    let lead = p.lead();
    let req = AgreementRequest {
        bootstrap_reps: 200,
        ..Default::default()
    };
    let kinds = ok(p.kinds_with_answers(&lead));
    assert_eq!(kinds, [TaskKind::Evidence, TaskKind::Label]);

    let together = ok(p.agreements(&lead, &req));
    let alone: Vec<_> = kinds
        .iter()
        .map(|&kind| (kind, ok(p.agreement(&lead, kind, &req))))
        .collect();
    assert_eq!(together, alone);
    assert!(together
        .iter()
        .all(|(_, r)| r.metrics.values().any(|m| m.ci95.is_some())));

    let report = ok(p.report(&lead, &req));
    for (kind, alone) in &alone {
        assert_eq!(&report.metrics[kind.as_str()], alone, "{}", kind.as_str());
    }
    assert_eq!(report.agreement, ok(p.dashboard(&lead, &req)));
    assert!(report.answers > 0);

    for method in [GoldMethod::Majority, GoldMethod::DawidSkene] {
        let gold = GoldRequest {
            method,
            ..Default::default()
        };
        let (lines, preview) = ok(p.gold(&lead, &gold));
        assert_eq!(preview.lines as usize, lines.len());
        assert_eq!(ok(p.export_preview(&lead, &gold)), preview);
        // The aggregation the gold lines rest on, read by itself.
        let aggregation = ok(p.aggregate(&lead, &gold));
        assert_eq!(aggregation.rejected_answers, preview.rejected_answers);
        assert!(!aggregation.tasks.is_empty());
    }
}

/// The agreement on evidence, whose table is built from the answers' ids, equals the
/// agreement of the same answers written as named ratings (`Project::ratings`).
#[test]
fn evidence_agreement_equals_the_agreement_of_its_named_ratings() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = answered(dir.path(), &clock);
    let lead = p.lead();
    let req = AgreementRequest {
        bootstrap_reps: 200,
        ..Default::default()
    };
    let (ratings, candidates) = ok(p.ratings(&lead, TaskKind::Evidence, false));
    assert!(ratings.len() >= 20, "{} ratings", ratings.len());
    let table = ok(RatingTable::with_item_candidates(
        &ratings,
        None,
        &candidates,
    ));
    let by_names = factdesk_api::agreement::report(&table, &req);
    let mut direct = ok(p.agreement(&lead, TaskKind::Evidence, &req));
    direct.studies.clear();
    assert_eq!(direct, by_names);
}
