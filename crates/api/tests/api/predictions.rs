//! Model predictions are kept apart from the annotators' answers: importing them adds no
//! annotation and changes no agreement figure, raw answer or gold line; a model's
//! counter-claims become claims people verify blind (the model is named nowhere on the
//! annotator's side), and only those human verdicts count. The comparison with the gold
//! data gives accuracy per label and the confusion matrix. A bad file changes nothing.

use crate::common;
use common::{project, trick_option, Acting};
use factdesk_api::RawSql as _;

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
    // A team of two: the verifications of a model's counter-claims ask for two answers,
    // or their claims would be under-annotated and held back.
    let mut settings = ok(p.settings());
    settings.overlap = 2;
    ok(p.set_settings(&p.lead(), &settings));
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
        .read()
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
    let lead = p.lead_named("lead");
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
        if name == "ana" {
            // Each counter-claim has one verdict of two: the one not yet dropped as
            // malformed is under-annotated, in the report's methodology as in the export.
            let report = ok(p.report(&lead, &areq));
            let (_, preview) = ok(p.gold(&lead, &GoldRequest::default()));
            assert_eq!(preview.under_annotated.len(), 1, "{preview:?}");
            assert_eq!(report.methodology.under_annotated, preview.under_annotated);
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

    // The report compares from the aggregation its methodology uses: the same figures.
    let report = ok(p.report(&lead, &areq));
    assert_eq!(
        report.predictions,
        ok(p.compare_predictions(&lead, &GoldRequest::default()))
    );
    let html = factdesk_api::report::html::render(&report);
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
    let lead = p.lead_named("lead");
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
    let e = p.as_lead(&p.who("ana"), "import model predictions").err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    assert_eq!(common::every_value(&dir.path().join("p.fdesk")), before);
}

#[test]
fn a_counter_claim_changing_only_case_spacing_or_punctuation_is_refused_with_its_line() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.lead_named("lead");
    let before = common::every_value(&dir.path().join("p.fdesk"));
    for copy in [
        "town 1 had a lighthouse built in 1801",
        "Town 1  had a lighthouse   built in 1801.",
        "TOWN 1 HAD A LIGHTHOUSE, BUILT IN 1801!",
    ] {
        let good = serde_json::json!({"claim_id": "c0", "model": "m", "refuted": "Town 0 had no lighthouse"});
        let bad = serde_json::json!({"claim_id": "c1", "model": "m", "refuted": ["Town 1 had no lighthouse", copy]});
        let path = file(dir.path(), "near.jsonl", &[good, bad]);
        let e = p
            .import_predictions(&lead, &path, None)
            .err()
            .unwrap_or_else(|| panic!("{copy:?} was taken"));
        assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
        let at = e
            .location
            .clone()
            .unwrap_or_else(|| panic!("no location: {e}"));
        assert_eq!((at.line, at.field.as_deref()), (2, Some("refuted")), "{e}");
        assert!(at.file.ends_with("near.jsonl"), "{at:?}");
        assert!(e.message.contains("Same words as the original"), "{e}");
    }
    assert_eq!(common::every_value(&dir.path().join("p.fdesk")), before);
}

#[test]
fn predictions_import_names_the_file_once_and_refuses_arrays_conflicts_failed_and_negative_scores()
{
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.lead_named("lead");
    let before = common::every_value(&dir.path().join("p.fdesk"));
    let good = serde_json::json!({"claim_id": "c0", "model": "m", "prediction": "SUPPORTED"});
    let cases: [(&str, Option<&str>, &str); 6] = [
        ("[]", None, "an empty JSON array"),
        (
            "[{\"claim_id\": \"c1\"}]",
            None,
            "a JSON array: a predictions file holds one JSON object per line",
        ),
        (
            r#"{"claim_id": "c1", "model": "m", "prediction": "FAILED"}"#,
            Some("prediction"),
            "FAILED marks a malformed claim",
        ),
        (
            r#"{"claim_id": "c1", "model": "m", "prediction": "SUPPORTED", "score": -0.5}"#,
            Some("score"),
            "0 or more",
        ),
        (
            r#"{"claim_id": "c0", "model": "m", "prediction": "REFUTES"}"#,
            Some("prediction"),
            "which line 1 predicted SUPPORTED",
        ),
        (
            r#"{"claim_id": "c1", "model": "m", "prediction": "MAYBE"}"#,
            Some("prediction"),
            "MAYBE",
        ),
    ];
    for (bad, field, says) in cases {
        let path = dir.path().join("preds.jsonl");
        ok(std::fs::write(&path, format!("{good}\n{bad}\n")));
        let e = p
            .import_predictions(&lead, &path, None)
            .err()
            .unwrap_or_else(|| panic!("{bad} was taken"));
        let at = e
            .location
            .clone()
            .unwrap_or_else(|| panic!("no location: {e}"));
        assert_eq!((at.line, at.field.as_deref()), (2, field), "{bad}: {e}");
        assert!(e.message.contains(says), "{bad}: {e}");
        let shown = e.to_string();
        assert_eq!(shown.matches("preds.jsonl").count(), 1, "{shown}");
    }
    assert_eq!(common::every_value(&dir.path().join("p.fdesk")), before);
    let empty = dir.path().join("empty.jsonl");
    ok(std::fs::write(&empty, "\n\n"));
    let e = p
        .import_predictions(&lead, &empty, None)
        .err()
        .unwrap_or_else(|| panic!("an empty file was taken"));
    assert!(e.message.contains("holds no prediction"), "{e}");
    // The same label twice for a claim and model is no conflict.
    let path = dir.path().join("twice.jsonl");
    ok(std::fs::write(&path, format!("{good}\n{good}\n")));
    assert_eq!(ok(p.import_predictions(&lead, &path, None)).labels, 1);
}

/// `compare` uses each line's `score` as COVID-Fact used its contradiction scores: the
/// precision, recall and F1 of taking everything scored at least each distinct score, and
/// the point-biserial correlation of score and gold outcome. The labels reproduce the
/// hand-worked case of `factdesk_core::scores` (best F1 6/7 at 0.6, r 0.64195); the
/// counter-claims are one verified as contradicting (0.95), one not (0.3).
#[test]
fn compare_sweeps_the_score_and_reports_the_point_biserial_correlation() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.lead_named("lead");
    let labels = [
        ("c0", "SUPPORTED", Some(0.9)),
        ("c1", "SUPPORTED", Some(0.8)),
        ("c2", "REFUTED", Some(0.7)),
        ("c3", "SUPPORTED", Some(0.6)),
        ("c4", "NOT ENOUGH INFO", Some(0.2)),
        ("c5", "SUPPORTED", None),
    ];
    let mut lines: Vec<serde_json::Value> = labels
        .iter()
        .map(|(claim, label, score)| {
            let mut line =
                serde_json::json!({"claim_id": claim, "model": "nli", "prediction": label});
            if let Some(s) = score {
                line["score"] = serde_json::json!(s);
            }
            line
        })
        .collect();
    lines.push(serde_json::json!({"claim_id": "c0", "model": MODEL, "refuted": "Town 0 had no lighthouse built in 1800", "score": 0.95}));
    lines.push(serde_json::json!({"claim_id": "c1", "model": MODEL, "refuted": "Town 1 had a lighthouse built in 1950", "score": 0.3}));
    ok(p.import_predictions(&lead, &file(dir.path(), "scored.jsonl", &lines), None));
    for name in ["ana", "ben"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Verify)).item {
            let counter = item.counter_claim.clone().unwrap_or_default();
            let verdict = if counter.contains("no lighthouse") {
                "contradicts"
            } else {
                "does_not_contradict"
            };
            let answer = Answer {
                task_id: item.task_id,
                label: Some(verdict.into()),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }
    let c = ok(p.compare_predictions(&lead, &GoldRequest::default()));
    let close = |got: Option<f64>, want: f64| {
        let got = got.unwrap_or(f64::NAN);
        assert!((got - want).abs() < 1e-9, "{got} != {want}");
    };

    let nli = c.models.iter().find(|m| m.model == "nli");
    let score = nli
        .and_then(|m| m.labels.as_ref())
        .and_then(|l| l.score.as_ref())
        .unwrap_or_else(|| panic!("no score analysis for nli: {c:?}"));
    assert_eq!(score.outcome, "label equals the gold label");
    assert_eq!((score.scored, score.positives, score.unscored), (5, 3, 1));
    close(score.point_biserial, 0.6419505094795118);
    let thresholds: Vec<f64> = score.sweep.iter().map(|t| t.threshold).collect();
    assert_eq!(thresholds, [0.2, 0.6, 0.7, 0.8, 0.9]);
    let best = score
        .best_f1
        .unwrap_or_else(|| panic!("no best F1: {score:?}"));
    close(Some(best.threshold), 0.6);
    close(Some(best.precision), 0.75);
    close(best.recall, 1.0);
    close(best.f1, 6.0 / 7.0);

    let refuter = c.models.iter().find(|m| m.model == MODEL);
    let score = refuter
        .and_then(|m| m.counter_claims.as_ref())
        .and_then(|s| s.score.as_ref())
        .unwrap_or_else(|| panic!("no score analysis for the counter-claims: {c:?}"));
    assert_eq!(score.outcome, "verified as contradicting its claim");
    assert_eq!((score.scored, score.positives), (2, 1));
    close(score.point_biserial, 1.0);
    let best = score
        .best_f1
        .unwrap_or_else(|| panic!("no best F1: {score:?}"));
    close(Some(best.threshold), 0.95);
    close(best.f1, 1.0);
}
