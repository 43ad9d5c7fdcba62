//! Gold through the api: who may adjudicate, bad decisions change nothing, a decision
//! overrides the answers and its undo restores them, flagged annotators stay out.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::{GoldRequest, HandAnswer, Outcome, QueueGroup, Ruling};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use factdesk_core::answer::{Response, Selection};
use factdesk_core::claim::Label;

use crate::common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The evidence task of claim `c0`, the one ana and ben disagree on (task ids follow the
/// serving order, not the claims').
pub(crate) fn first_claims_task(p: &Project) -> i64 {
    ok(p.store().read().query_row(
        "SELECT t.id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE c.ext_id = 'c0' AND t.kind = 'evidence'",
        [],
        |r| r.get(0),
    ))
}

fn decisions(p: &Project) -> i64 {
    ok(p.store()
        .read()
        .query_row("SELECT count(*) FROM decisions", [], |r| r.get(0)))
}

/// Five claims answered by ana and ben (who disagree on the first) and caro, who picks
/// only the trick and so gets flagged.
pub(crate) fn answered(dir: &std::path::Path) -> Project {
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
                "ben" if item.claim.starts_with("Town 0 ") => vec![real[1].clone()],
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
    let e = p.as_lead(&p.who("ana"), "decide tasks").err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    let e = p
        .decide(
            &p.lead_named("lead"),
            1,
            Ruling::Answer(Response::Evidence {
                selection: Selection::sentences(vec![999_999]),
            }),
            &DecisionNote::default(),
        )
        .err()
        .unwrap_or_else(|| panic!("a sentence that is no candidate was accepted"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("\"selected\""), "{}", e.message);
    let e = p
        .decide(
            &p.lead_named("lead"),
            1,
            Ruling::Answer(Response::Label {
                label: Label::Supported,
            }),
            &DecisionNote::default(),
        )
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::InvalidInput));
    let e = p
        .decide(
            &p.lead_named("lead"),
            1,
            Ruling::Take("nobody".into()),
            &DecisionNote::default(),
        )
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::NotFound));
    let e = p.undo_decision(&p.lead_named("lead"), 1, None).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::NotFound));
    assert_eq!(decisions(&p), 0, "refused decisions leave no row");
}

#[test]
fn gold_decision_overrides_the_answers_and_undo_restores_them() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    // caro is flagged: every claim rests on 2 of 3 answers, exported only when asked for.
    let req = GoldRequest {
        include_under_annotated: true,
        ..GoldRequest::default()
    };

    let aggregation = ok(p.aggregate(&p.lead(), &req));
    assert_eq!(aggregation.excluded_annotators, vec!["caro".to_string()]);
    let c0 = first_claims_task(&p);
    let first = aggregation
        .tasks
        .iter()
        .find(|t| t.task_id == c0)
        .unwrap_or_else(|| panic!("no outcome for c0's task"));
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

    let queue = ok(p.adjudication_queue(&p.lead_named("lead"), &req));
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
        &p.lead_named("lead"),
        c0,
        Ruling::Take("ben".into()),
        &DecisionNote::reason("ben checked the source"),
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

    ok(p.undo_decision(&p.lead_named("lead"), c0, Some("wrong claim")));
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
    // caro is flagged: the evidence rests on 2 of 3 answers, exported only when asked for.
    let req = GoldRequest {
        include_under_annotated: true,
        ..GoldRequest::default()
    };
    let answer = Response::Label {
        label: Label::Refuted,
    };
    ok(p.decide(
        &p.lead_named("lead"),
        task,
        Ruling::Answer(answer),
        &DecisionNote::reason("the source says otherwise"),
    ));
    let claim_id =
        ok(p.store()
            .read()
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

/// Answers every evidence item `name` is served, at most `limit`, picking `pick` among
/// the real sentences (or the trick when `pick` is None).
fn work(p: &mut Project, name: &str, limit: usize, pick: impl Fn(i64) -> Option<usize>) {
    for _ in 0..limit {
        let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item else {
            return;
        };
        let trick = trick_option(p, &item).unwrap_or_default();
        let real: Vec<String> = (item.options.iter())
            .filter(|o| o.id != trick)
            .map(|o| o.id.clone())
            .collect();
        let selected = match pick(item.task_id) {
            Some(i) => vec![real[i].clone()],
            None => vec![trick],
        };
        let answer = Answer {
            task_id: item.task_id,
            selected,
            ..Default::default()
        };
        ok(p.submit(&p.who(name), &answer));
    }
}

#[test]
fn the_queue_puts_counted_disagreements_first_and_thin_items_apart() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 5, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben", "caro"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    // Caro picks the trick everywhere (flagged, every answer rejected); ana answers four
    // items, ben the first one only, differently from ana.
    work(&mut p, "caro", 5, |_| None);
    work(&mut p, "ana", 4, |_| Some(0));
    work(&mut p, "ben", 1, |_| Some(1));
    let queue = ok(p.adjudication_queue(&p.lead_named("lead"), &GoldRequest::default()));
    assert!(!queue.is_empty());
    let groups: Vec<QueueGroup> = queue.iter().map(|i| i.group).collect();
    assert_eq!(groups[0], QueueGroup::Disagreement, "{groups:?}");
    let mut sorted = groups.clone();
    sorted.sort();
    assert_eq!(groups, sorted, "disagreements first, then the thin items");
    let first = &queue[0];
    assert_eq!(first.answers.iter().filter(|a| a.counted).count(), 2);
    // The counted answers come first: the keys 1 and 2 take them, never caro's.
    let counted: Vec<bool> = first.answers.iter().map(|a| a.counted).collect();
    assert_eq!(counted, [true, true, false]);
    // The item only caro answered is in the thin group, with no counted answer.
    assert!(queue.iter().any(|i| i.group == QueueGroup::Thin
        && i.share_agreeing.is_none()
        && i.answers.iter().all(|a| !a.counted)));
    for item in &queue {
        // Candidates read in order: each document's sentences ascending, documents apart.
        let mut seen: Vec<&str> = Vec::new();
        for w in item.candidates.windows(2) {
            if w[0].document_id == w[1].document_id {
                assert!(
                    w[0].sentence_index < w[1].sentence_index,
                    "{:?}",
                    item.candidates
                );
            } else {
                assert!(!seen.contains(&w[1].document_id.as_str()));
            }
            seen.push(&w[0].document_id);
        }
    }
}

#[test]
fn label_items_in_the_queue_carry_their_evidence() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    for (name, label) in [("ana", "SUPPORTED"), ("ben", "REFUTED")] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Label)).item {
            let answer = Answer {
                task_id: item.task_id,
                label: Some(label.into()),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }
    let queue = ok(p.adjudication_queue(&p.lead_named("lead"), &GoldRequest::default()));
    let labels: Vec<_> = queue.iter().filter(|i| i.kind == TaskKind::Label).collect();
    assert!(!labels.is_empty());
    for item in labels {
        let shown = ok(p.store().candidates(ok(p.store().read().query_row(
            "SELECT claim_id FROM tasks WHERE id = ?1",
            [item.task_id],
            |r| r.get::<_, i64>(0),
        ))));
        assert!(
            !item.candidates.is_empty(),
            "task {}: the lead decides blind",
            item.task_id
        );
        assert_eq!(item.candidates.len(), shown.len());
    }
}

#[test]
fn the_leads_answer_passes_the_same_shape_check_as_an_annotators() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let candidate = ok(p.aggregate(&p.lead_named("lead"), &GoldRequest::default()))
        .tasks
        .iter()
        .find(|t| t.task_id == 1)
        .and_then(|t| t.answers.iter().find_map(|a| a.answer.selection().cloned()))
        .and_then(|s| s.ids().first().copied())
        .unwrap_or_else(|| panic!("task 1 has an answer selecting a sentence"));
    // Written by hand (factdesk adjudicate --answer): typed for the task's kind.
    let by_hand = |p: &Project, written: serde_json::Value| {
        let written: HandAnswer = serde_json::from_value(written).map_err(|e| e.to_string())?;
        p.hand_answer(&p.lead_named("lead"), 1, &written)
            .map_err(|e| format!("{:?}: {}", e.code, e.message))
    };
    for bad in [
        serde_json::json!({"label": "SUPPORTED", "selected": [candidate]}),
        serde_json::json!({"selected": [candidate], "text": "x"}),
        serde_json::json!({"selected": [candidate], "no_evidence": true}),
        serde_json::json!({"v": 99, "selected": [candidate]}),
        serde_json::json!({"kind": "label", "selected": [candidate]}),
        serde_json::json!({}),
    ] {
        let e = by_hand(&p, bad.clone())
            .err()
            .unwrap_or_else(|| panic!("{bad} was taken as the lead's answer"));
        assert!(e.starts_with("InvalidInput"), "{bad}: {e}");
    }
    let unknown = by_hand(
        &p,
        serde_json::json!({"selected": [candidate], "colour": "red"}),
    );
    assert!(
        unknown.as_ref().is_err_and(|e| e.contains("colour")),
        "{unknown:?}"
    );
    // Typed, the same checks hold: no empty selection, none of another kind.
    for bad in [
        Response::Evidence {
            selection: Selection::Sentences(Vec::new()),
        },
        Response::Label {
            label: Label::Supported,
        },
    ] {
        let e = p
            .decide(
                &p.lead_named("lead"),
                1,
                Ruling::Answer(bad.clone()),
                &DecisionNote::default(),
            )
            .err()
            .unwrap_or_else(|| panic!("{bad:?} was taken as the lead's answer"));
        assert_eq!(e.code, ErrorCode::InvalidInput, "{bad:?}: {}", e.message);
    }
    assert_eq!(decisions(&p), 0, "refused answers leave no row");
    let pasted = serde_json::json!({"v": 2, "kind": "evidence", "selected": [candidate]});
    let answer = by_hand(&p, pasted).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        answer,
        Response::Evidence {
            selection: Selection::sentences(vec![candidate]),
        }
    );
    ok(p.decide(
        &p.lead_named("lead"),
        1,
        Ruling::Answer(answer),
        &DecisionNote::default(),
    ));
    assert_eq!(decisions(&p), 1);
}

/// Issue 30, item 7: with caro flagged, every claim rests on 2 of the 3 answers its
/// overlap asks for. Such claims are held back by default and listed with their count in
/// the card; asked for, they are exported and each line says so. A claim a new annotator
/// brings to 3 counted answers is exported as before, unmarked.
#[test]
fn under_annotated_claims_are_held_back_and_listed_unless_asked_for() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    ok(p.add_annotator(&p.lead(), "dan", Role::Annotator));
    // caro's items reopened when she was flagged: dan fills one.
    work(&mut p, "dan", 1, |_| Some(0));
    let filled: i64 = ok(p.store().read().query_row(
        "SELECT t.claim_id FROM annotations a JOIN tasks t ON t.id = a.task_id JOIN annotators n ON n.id = a.annotator_id WHERE n.name = 'dan'",
        [],
        |r| r.get(0),
    ));

    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    assert_eq!(lines.len(), 1, "{preview:?}");
    assert_eq!(lines[0].row_id, filled);
    assert_eq!(lines[0].agreement.answers, 3);
    assert!(!lines[0].agreement.under_annotated);
    assert_eq!(preview.under_annotated.len(), 4, "{preview:?}");
    assert!(preview
        .under_annotated
        .iter()
        .all(|u| (u.kind.as_str(), u.answers, u.needed) == ("evidence", 2, 3)));
    assert!(!preview.include_under_annotated);
    let out = dir.path().join("gold.jsonl");
    let report = ok(p.export_gold(
        &p.lead(),
        &GoldRequest::default(),
        &out,
        Default::default(),
        false,
    ));
    let card = ok(std::fs::read_to_string(&report.card));
    assert!(
        card.contains("## Under-annotated claims (4)\n\nHeld back"),
        "{card}"
    );
    let first = &preview.under_annotated[0];
    assert!(
        card.contains(&format!("| {} | evidence | 2 | 3 |", first.id)),
        "{card}"
    );
    let text = ok(std::fs::read_to_string(&out));
    assert!(!text.contains("under_annotated"), "{text}");

    let asked = GoldRequest {
        include_under_annotated: true,
        ..GoldRequest::default()
    };
    let (lines, preview) = ok(p.gold(&p.lead(), &asked));
    // Unless dan filled it, c0 (ana and ben split) has no strict majority: dropped for
    // that, as before.
    assert_eq!(lines.len() + preview.dropped.len(), 5, "{preview:?}");
    assert!(preview.dropped.iter().all(|d| d.id == "c0"), "{preview:?}");
    assert_eq!(preview.under_annotated.len(), 4);
    for l in &lines {
        assert_eq!(l.agreement.under_annotated, l.row_id != filled, "{l:?}");
    }
    let report = ok(p.export_gold(&p.lead(), &asked, &out, Default::default(), true));
    let text = ok(std::fs::read_to_string(&out));
    let marked = text.matches("\"under_annotated\":true").count();
    assert_eq!(marked, lines.len() - 1, "{text}");
    let card = ok(std::fs::read_to_string(&report.card));
    assert!(
        card.contains("## Under-annotated claims (4)\n\nExported as asked"),
        "{card}"
    );
    // A FEVER line has no agreement: the mark is a field of its own there.
    let fever = dir.path().join("fever.jsonl");
    let fever_format = factdesk_api::gold::ExportFormat::Fever;
    ok(p.export_gold(&p.lead(), &asked, &fever, fever_format, false));
    let text = ok(std::fs::read_to_string(&fever));
    assert_eq!(
        text.matches("\"under_annotated\":true").count(),
        marked,
        "{text}"
    );
    // A Hugging Face folder's Parquet files have no column for it: refused there.
    let hf = dir.path().join("hf");
    let refused = p.export_hf(&p.lead(), &asked, &hf, "mit", false);
    assert_eq!(refused.err().map(|e| e.code), Some(ErrorCode::InvalidInput));
    assert!(!hf.exists());
}
