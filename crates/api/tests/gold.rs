//! Gold through the api: who may adjudicate, bad decisions change nothing, a decision
//! overrides the answers and its undo restores them, flagged annotators stay out.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::{GoldRequest, Outcome};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};

mod common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn decisions(p: &Project) -> i64 {
    ok(p.store()
        .conn()
        .query_row("SELECT count(*) FROM decisions", [], |r| r.get(0)))
}

/// Five claims answered by ana and ben (who disagree on the first) and caro, who picks
/// only the trick and so gets flagged.
fn answered(dir: &std::path::Path) -> Project {
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir, 5, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben", "caro"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    for name in ["ana", "ben", "caro"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
            let trick = trick_option(&p, &item).unwrap_or_default();
            let real: Vec<String> = item
                .options
                .iter()
                .filter(|o| o.id != trick)
                .map(|o| o.id.clone())
                .collect();
            let selected = match name {
                "ana" => vec![real[0].clone()],
                "ben" if item.task_id == 1 => vec![real[1].clone()],
                "ben" => vec![real[0].clone()],
                _ => vec![trick],
            };
            let answer = Answer {
                task_id: item.task_id,
                selected,
                comment: Some(format!("{name} on {}", item.task_id)),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }
    p
}

#[test]
fn gold_adjudication_is_for_leads_and_bad_decisions_change_nothing() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let req = GoldRequest::default();

    let e = p.adjudication_queue(&p.who("ana"), &req).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    let e = p.decide(&p.who("ana"), 1, Some("ben"), None, None).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    let e = p
        .decide(
            &p.who("lead"),
            1,
            None,
            Some(serde_json::json!({"selected": [999_999]})),
            None,
        )
        .err()
        .unwrap_or_else(|| panic!("a sentence that is no candidate was accepted"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("\"selected\""), "{}", e.message);
    let e = p
        .decide(
            &p.who("lead"),
            1,
            None,
            Some(serde_json::json!({"label": "SUPPORTED"})),
            None,
        )
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidInput));
    let e = p
        .decide(&p.who("lead"), 1, Some("nobody"), None, None)
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::NotFound));
    let e = p.undo_decision(&p.who("lead"), 1, None).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::NotFound));
    assert_eq!(decisions(&p), 0, "refused decisions leave no row");
}

#[test]
fn gold_decision_overrides_the_answers_and_undo_restores_them() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let req = GoldRequest::default();

    let aggregation = ok(p.aggregate(&p.lead(), &req));
    assert_eq!(aggregation.excluded_annotators, vec!["caro".to_string()]);
    let first = &aggregation.tasks[0];
    assert_eq!(first.outcome, Outcome::NoGoldEvidence);
    assert_eq!(first.counted, 2);
    // The trick caro picked is never a sentence, even when she is counted.
    let with = ok(p.aggregate(
        &p.lead(),
        &GoldRequest {
            include_flagged: true,
            ..GoldRequest::default()
        },
    ));
    let caro = with.tasks[1]
        .answers
        .iter()
        .find(|a| a.annotator == "caro")
        .unwrap_or_else(|| panic!("caro's answer"));
    assert!(caro.trick_failed && caro.answer.selection().is_some_and(|s| s.ids().is_empty()));

    let queue = ok(p.adjudication_queue(&p.who("lead"), &req));
    assert_eq!(queue.len(), 1, "only the first claim is disputed");
    assert_eq!(queue[0].task_id, first.task_id);
    assert_eq!(queue[0].answers.len(), 3, "every answer side by side");
    assert!(queue[0].answers.iter().all(|a| a.comment.is_some()));
    let shown = ok(p.store().candidates(first.claim_id)).len();
    assert!(shown > 1);
    assert_eq!(queue[0].candidates.len(), shown);
    let before = ok(p.export_preview(&p.lead(), &req));
    assert_eq!(before.lines, 4);
    assert_eq!(before.dropped.len(), 1);

    let taken = ok(p.decide(
        &p.who("lead"),
        1,
        Some("ben"),
        None,
        Some("ben checked the source"),
    ));
    assert!(matches!(taken, Outcome::Evidence { .. }));
    let (lines, preview) = ok(p.gold(&p.lead(), &req));
    assert_eq!(preview.lines, 5);
    assert!(preview.dropped.is_empty());
    let line = lines
        .iter()
        .find(|l| l.id == "c0")
        .unwrap_or_else(|| panic!("c0 not exported"));
    assert_eq!(line.provenance.method, "lead-decision");
    assert_eq!(line.provenance.taken_from.as_deref(), Some("ben"));
    assert_eq!(
        line.provenance.reason.as_deref(),
        Some("ben checked the source")
    );
    assert_eq!(line.provenance.at, Some(1_000_000));

    ok(p.undo_decision(&p.who("lead"), 1, Some("wrong claim")));
    assert_eq!(ok(p.export_preview(&p.lead(), &req)), before);
    assert_eq!(decisions(&p), 2, "decisions are appended, an undo too");
}

#[test]
fn a_decision_on_a_label_shows_in_the_exported_line() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    let mut disputed = None;
    for name in ["ana", "ben"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Label)).item {
            // Not the first claim: its evidence is disputed, so it is dropped from export.
            if disputed.is_none() && !item.claim.starts_with("Town 0 ") {
                disputed = Some(item.task_id);
            }
            let label = if name == "ben" && Some(item.task_id) == disputed {
                "NOT ENOUGH INFO"
            } else {
                "SUPPORTED"
            };
            let answer = Answer {
                task_id: item.task_id,
                label: Some(label.into()),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }
    let task = disputed.unwrap_or_else(|| panic!("no label item"));
    let req = GoldRequest::default();
    let answer = serde_json::json!({"label": "REFUTED"});
    ok(p.decide(
        &p.who("lead"),
        task,
        None,
        Some(answer),
        Some("the source says otherwise"),
    ));
    let claim_id =
        ok(p.store()
            .conn()
            .query_row("SELECT claim_id FROM tasks WHERE id = ?1", [task], |r| {
                r.get::<_, i64>(0)
            }));
    let (lines, _) = ok(p.gold(&p.lead(), &req));
    let line = lines
        .iter()
        .find(|l| l.row_id == claim_id)
        .unwrap_or_else(|| panic!("the decided claim was not exported"));
    // Regression: only a decision on the evidence task reached the provenance.
    assert_eq!(line.label.as_str(), "REFUTED");
    assert_eq!(line.provenance.method, "lead-decision");
    assert_eq!(line.provenance.lead.as_deref(), Some("lead"));
    assert_eq!(
        line.provenance.reason.as_deref(),
        Some("the source says otherwise")
    );
}
