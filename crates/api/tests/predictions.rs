//! Model predictions are kept apart from the annotators' answers: importing them adds no
//! annotation and changes no agreement figure, raw answer or gold line; a model's
//! counter-claims become claims people verify blind (the model is named nowhere on the
//! annotator's side), and only those human verdicts count. The comparison with the gold
//! data gives accuracy per label and the confusion matrix. A bad file changes nothing.

mod common;
use common::{project, trick_option, Acting};

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::GoldRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::io::Write;
use std::path::{Path, PathBuf};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const MODEL: &str = "gen-refuter-7b";

/// Six SUPPORTED claims whose evidence ana and ben agree on.
fn answered(dir: &Path) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir, 6, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for name in ["ana", "ben"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
            let trick = trick_option(&p, &item).unwrap_or_default();
            let first = item
                .options
                .iter()
                .find(|o| o.id != trick)
                .map(|o| o.id.clone())
                .unwrap_or_default();
            ok(p.submit(
                &p.who(name),
                &Answer {
                    task_id: item.task_id,
                    selected: vec![first],
                    ..Default::default()
                },
            ));
        }
    }
    p
}

fn file(dir: &Path, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let path = dir.join(name);
    let mut f = ok(std::fs::File::create(&path));
    for l in lines {
        ok(writeln!(f, "{l}"));
    }
    path
}

fn count(p: &Project, table: &str) -> i64 {
    ok(p.store()
        .conn()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)))
}

fn predictions_file(dir: &Path) -> PathBuf {
    let mut lines: Vec<serde_json::Value> = (0..6)
        .map(|i| {
            let label = if i < 4 { "SUPPORTED" } else { "REFUTES" };
            serde_json::json!({"claim_id": format!("c{i}"), "model": "nli-base", "prediction": label, "score": 0.9})
        })
        .collect();
    lines.push(serde_json::json!({"claim_id": "c0", "model": MODEL, "refuted": "Town 0 had no lighthouse built in 1800"}));
    lines.push(serde_json::json!({"claim_id": "c1", "refuted": ["Town 1 had a lighthouse built in 1950", "Town 1 never had a lighthouse"]}));
    file(dir, "predictions.jsonl", &lines)
}

#[test]
fn predictions_never_count_as_answers_and_compare_with_the_gold() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.who("lead");
    let req = GoldRequest::default();
    let areq = AgreementRequest::default();
    let answers_before = count(&p, "annotations");
    let rows_before = ok(p.answer_rows(&lead));
    let agreement_before = ok(p.agreement(&lead, TaskKind::Evidence, &areq));
    let (gold_before, _) = ok(p.gold(&lead, &req));
    assert_eq!(gold_before.len(), 6);

    let report = ok(p.import_predictions(&lead, &predictions_file(dir.path()), Some(MODEL)));
    assert_eq!(
        (report.lines, report.labels, report.counter_claims),
        (8, 6, 3)
    );
    assert_eq!(
        report.models,
        vec![MODEL.to_string(), "nli-base".to_string()]
    );
    assert_eq!(
        count(&p, "annotations"),
        answers_before,
        "a prediction became an annotation"
    );
    assert_eq!(count(&p, "predictions"), 9);
    assert_eq!(ok(p.answer_rows(&lead)), rows_before);
    assert_eq!(
        ok(p.agreement(&lead, TaskKind::Evidence, &areq)),
        agreement_before
    );
    let (gold, preview) = ok(p.gold(&lead, &req));
    assert_eq!(gold, gold_before, "unverified counter-claims are no gold");
    assert_eq!(
        preview
            .dropped
            .iter()
            .filter(|d| d.reason == "a refutation not yet verified")
            .count(),
        3
    );
    assert!(ok(p.kinds_with_answers(&lead))
        .iter()
        .all(|k| *k != TaskKind::Verify));

    // Importing again adds nothing.
    let again = ok(p.import_predictions(&lead, &predictions_file(dir.path()), Some(MODEL)));
    assert_eq!(
        (
            again.labels,
            again.counter_claims,
            again.counter_claims_known
        ),
        (0, 0, 3)
    );
    assert_eq!(count(&p, "predictions"), 9);

    // People verify the counter-claims blind; c0's is verified as contradicting.
    for name in ["ana", "ben"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Verify)).item {
            let shown = ok(serde_json::to_string(&item));
            assert!(
                !shown.contains(MODEL) && !shown.contains("/model/"),
                "{shown}"
            );
            let counter = item.counter_claim.clone().unwrap_or_default();
            let verdict = if counter.contains("no lighthouse built") {
                "contradicts"
            } else {
                "malformed"
            };
            ok(p.submit(
                &p.who(name),
                &Answer {
                    task_id: item.task_id,
                    label: Some(verdict.into()),
                    ..Default::default()
                },
            ));
        }
    }
    assert_eq!(
        count(&p, "annotations"),
        answers_before + 6,
        "only the people's verdicts are answers"
    );
    let verify = ok(p.agreement(&lead, TaskKind::Verify, &areq));
    assert_eq!((verify.units, verify.annotators, verify.ratings), (3, 2, 6));

    let c = ok(p.compare_predictions(&lead, &req));
    assert_eq!(c.models.len(), 2);
    let generator = &c.models[0];
    assert_eq!(generator.model, MODEL);
    assert!(generator.labels.is_none());
    let s = generator
        .counter_claims
        .clone()
        .unwrap_or_else(|| panic!("no counter-claims"));
    assert_eq!((s.written, s.in_gold), (3, 1));
    assert_eq!(
        s.not_in_gold.get("verified as malformed"),
        Some(&2),
        "{:?}",
        s.not_in_gold
    );

    let nli = &c.models[1];
    let l = nli.labels.clone().unwrap_or_else(|| panic!("no labels"));
    assert_eq!(
        (l.predicted, l.compared, l.correct, l.without_gold),
        (6, 6, 4, 0)
    );
    assert_eq!(l.accuracy, Some(4.0 / 6.0));
    let labels: Vec<&str> = l.per_label.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["SUPPORTED", "REFUTED"]);
    assert_eq!(l.confusion, vec![vec![4, 2], vec![0, 0]]);
    assert_eq!(l.per_label[0].accuracy, Some(4.0 / 6.0));
    assert_eq!(l.per_label[0].precision, Some(1.0));
    assert_eq!(
        l.per_label[1].accuracy, None,
        "no claim is REFUTED in the gold"
    );
    assert_eq!(l.per_label[1].precision, Some(0.0));

    let html = factdesk_api::report::html::render(&ok(p.report(&lead, &areq)));
    assert!(html.contains("<h2>Model predictions</h2>"));
    assert!(
        html.contains(MODEL) && html.contains("accuracy <b>66.7%</b>"),
        "{html}"
    );
}

#[test]
fn a_bad_predictions_file_names_its_line_and_changes_nothing() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.who("lead");
    let before = common::every_value(&dir.path().join("p.fdesk"));
    let cases = [
        (
            serde_json::json!({"claim_id": "nope", "model": "m", "prediction": "SUPPORTED"}),
            "claim_id",
        ),
        (
            serde_json::json!({"claim_id": "c1", "model": "m", "prediction": "MAYBE"}),
            "prediction",
        ),
        (
            serde_json::json!({"claim_id": "c1", "prediction": "SUPPORTED"}),
            "model",
        ),
        (
            serde_json::json!({"claim_id": "c1", "model": "m", "refuted": ""}),
            "refuted",
        ),
        (
            serde_json::json!({"claim_id": "c1", "model": "m", "refuted": "Town 1 had a lighthouse built in 1801", "label": "x"}),
            "",
        ),
        (serde_json::json!({"claim_id": "c1", "model": "m"}), ""),
    ];
    for (bad, field) in cases {
        let good = serde_json::json!({"claim_id": "c0", "model": "m", "prediction": "SUPPORTED", "refuted": "Town 0 had no lighthouse"});
        let path = file(dir.path(), "bad.jsonl", &[good, bad.clone()]);
        let e = p
            .import_predictions(&lead, &path, None)
            .err()
            .unwrap_or_else(|| panic!("{bad} was taken"));
        assert_eq!(e.code, ErrorCode::InvalidInput, "{bad}: {e}");
        let at = e
            .location
            .clone()
            .unwrap_or_else(|| panic!("{bad}: no location"));
        assert_eq!(at.line, 2, "{bad}");
        if !field.is_empty() {
            assert_eq!(at.field.as_deref(), Some(field), "{bad}");
        }
    }
    let e = p
        .import_predictions(&p.who("ana"), &dir.path().join("bad.jsonl"), None)
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    assert_eq!(common::every_value(&dir.path().join("p.fdesk")), before);
}
