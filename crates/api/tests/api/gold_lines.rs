//! Every gold line rests on counted answers (or the lead's decision), and a claim that
//! rests on none is dropped with its reason, never exported.

use crate::common;
use common::{project, trick_option, Acting};
use factdesk_api::RawSql as _;

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::{ExportFormat, GoldRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project of `n` claims with a lead and the annotators ana and ben, where failing
/// tricks flags no one (so which item comes first does not matter).
fn team(dir: &std::path::Path, n: usize) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir, n, &clock);
    let mut settings = ok(p.settings());
    settings.trick_flag_threshold = 1.0;
    // A team of two: the tasks the project makes itself (a model's counter-claims'
    // verifications) ask for two answers, or their claims would be under-annotated.
    settings.overlap = 2;
    ok(p.set_settings(&p.lead(), &settings));
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    p
}

/// `name` answers every evidence item: the trick on claims whose text starts with one of
/// `trick_on`, else the first real sentence.
fn evidence(p: &mut Project, name: &str, trick_on: &[&str]) {
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
        let trick = trick_option(p, &item).unwrap_or_default();
        let pick = if trick_on.iter().any(|t| item.claim.starts_with(t)) {
            trick
        } else {
            item.options
                .iter()
                .find(|o| o.id != trick)
                .map(|o| o.id.clone())
                .unwrap_or_default()
        };
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![pick],
            ..Default::default()
        };
        ok(p.submit(&p.who(name), &answer));
    }
}

/// `name` labels every label item `label`.
fn labels(p: &mut Project, name: &str, label: &str) {
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Label)).item {
        let answer = Answer {
            task_id: item.task_id,
            label: Some(label.into()),
            ..Default::default()
        };
        ok(p.submit(&p.who(name), &answer));
    }
}

#[test]
fn a_claim_whose_evidence_answers_all_picked_the_trick_is_dropped_not_exported_as_nei() {
    let dir = ok(tempfile::tempdir());
    let mut p = team(dir.path(), 6);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    // Both annotators pick the trick on claim c0: its evidence task has answers, none
    // counted. Both label every claim NOT ENOUGH INFO, which once kept c0 as a line
    // resting on no counted answer.
    for name in ["ana", "ben"] {
        evidence(&mut p, name, &["Town 0 "]);
        labels(&mut p, name, "NOT ENOUGH INFO");
    }
    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    assert!(
        lines.iter().all(|l| l.id != "c0"),
        "c0 rests on no counted answer: {lines:?}"
    );
    let c0 = preview
        .dropped
        .iter()
        .find(|d| d.id == "c0")
        .unwrap_or_else(|| panic!("c0 not listed as dropped: {:?}", preview.dropped));
    assert!(
        c0.reason
            .starts_with("its evidence task has no counted answers yet (2 not counted"),
        "{}",
        c0.reason
    );
    assert_eq!(lines.len(), 5, "{:?}", preview.dropped);
    for l in &lines {
        assert_eq!(l.label.as_str(), "NOT ENOUGH INFO");
        assert!(l.agreement.answers > 0, "a line resting on nothing: {l:?}");
    }
}

/// Writes `lines` as a predictions file and imports it.
fn predictions(p: &mut Project, dir: &std::path::Path, lines: &[serde_json::Value]) {
    let path = dir.join("predictions.jsonl");
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    ok(std::fs::write(&path, text.join("\n")));
    ok(p.import_predictions(&p.lead_named("lead"), &path, None));
}

/// Each of `names` verifies every counter-claim as contradicting its claim.
fn contradicts(p: &mut Project, names: &[&str]) {
    for &name in names {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Verify)).item {
            let answer = Answer {
                task_id: item.task_id,
                label: Some("contradicts".into()),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }
}

/// Six claims whose evidence ana and ben agree on.
fn answered(dir: &std::path::Path) -> Project {
    let mut p = team(dir, 6);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for name in ["ana", "ben"] {
        evidence(&mut p, name, &[]);
    }
    p
}

#[test]
fn a_not_enough_info_claims_verified_counter_claim_is_dropped_not_exported_refuted() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    for name in ["ana", "ben"] {
        labels(&mut p, name, "NOT ENOUGH INFO");
    }
    predictions(
        &mut p,
        dir.path(),
        &[
            serde_json::json!({"claim_id": "c1", "model": "m", "refuted": "Town 1 had no lighthouse before 1900"}),
        ],
    );
    contradicts(&mut p, &["ana", "ben"]);
    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    assert!(
        lines.iter().all(|l| l.parent_id.is_none()),
        "a REFUTED line with no evidence: {lines:?}"
    );
    let counter = preview
        .dropped
        .iter()
        .find(|d| d.id.starts_with("c1/model/"))
        .unwrap_or_else(|| panic!("no reason for the counter-claim: {:?}", preview.dropped));
    assert_eq!(
        counter.reason,
        "no gold evidence refutes it: its original claim is NOT ENOUGH INFO, not SUPPORTED"
    );
}

#[test]
fn a_counter_claim_repeating_a_refutation_up_to_case_and_punctuation_is_exported_once() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    predictions(
        &mut p,
        dir.path(),
        &[
            serde_json::json!({"claim_id": "c1", "model": "a", "refuted": "Town 1 had no lighthouse before 1900"}),
            serde_json::json!({"claim_id": "c1", "model": "b", "refuted": "town 1  had NO lighthouse, before 1900."}),
        ],
    );
    contradicts(&mut p, &["ana", "ben"]);
    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    let refuted: Vec<_> = lines.iter().filter(|l| l.parent_id.is_some()).collect();
    assert_eq!(refuted.len(), 1, "{refuted:?}");
    assert_eq!(refuted[0].label.as_str(), "REFUTED");
    assert!(!refuted[0].evidence.is_empty(), "{:?}", refuted[0]);
    let twin = preview
        .dropped
        .iter()
        .find(|d| d.id.starts_with("c1/model/"))
        .unwrap_or_else(|| panic!("no reason for the twin: {:?}", preview.dropped));
    assert_eq!(
        twin.reason,
        format!(
            "the same claim as {} (case, spacing and punctuation aside)",
            refuted[0].id
        )
    );
}

#[test]
fn a_counter_claim_of_a_refutation_is_refused_at_import_and_an_older_one_dropped_with_a_reason() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    predictions(
        &mut p,
        dir.path(),
        &[
            serde_json::json!({"claim_id": "c1", "model": "a", "refuted": "Town 1 had no lighthouse before 1900"}),
            serde_json::json!({"claim_id": "c2", "model": "a", "refuted": "Town 2 had no lighthouse before 1900"}),
        ],
    );
    let ids: Vec<String> = ok(p.gold(&p.lead(), &GoldRequest::default()))
        .1
        .dropped
        .iter()
        .filter(|d| d.id.contains("/model/"))
        .map(|d| d.id.clone())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    let path = dir.path().join("deeper.jsonl");
    let line = serde_json::json!({"claim_id": ids[0], "model": "a", "refuted": "Town 1 had a lighthouse before 1900"});
    ok(std::fs::write(&path, line.to_string()));
    let e = p
        .import_predictions(&p.lead_named("lead"), &path, None)
        .err()
        .unwrap_or_else(|| panic!("a counter-claim of a counter-claim was taken"));
    let at = e
        .location
        .clone()
        .unwrap_or_else(|| panic!("no location: {e}"));
    assert_eq!((at.line, at.field.as_deref()), (1, Some("claim_id")), "{e}");
    assert!(e.message.contains("is itself a refutation"), "{e}");

    // A project from before this check may hold one: it is listed with its reason.
    let parent: i64 =
        ok(p.store()
            .read()
            .query_row("SELECT id FROM claims WHERE ext_id = ?1", [&ids[0]], |r| {
                r.get(0)
            }));
    ok(p.store().read().execute(
        "UPDATE claims SET parent_id = ?1 WHERE ext_id = ?2",
        rusqlite::params![parent, ids[1]],
    ));
    contradicts(&mut p, &["ana", "ben"]);
    let (_, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    let deeper = preview
        .dropped
        .iter()
        .find(|d| d.id == ids[1])
        .unwrap_or_else(|| panic!("dropped without a reason: {:?}", preview.dropped));
    assert!(
        deeper.reason.starts_with("a refutation of a refutation"),
        "{}",
        deeper.reason
    );
}

#[test]
fn the_gold_export_replaces_an_existing_file_only_with_force() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let lead = p.lead_named("lead");
    let req = GoldRequest::default();
    let out = dir.path().join("gold.jsonl");
    ok(p.export_gold(&lead, &req, &out, ExportFormat::Factdesk, false));
    for (path, format) in [
        (&out, ExportFormat::Factdesk),
        // FEVER's split files beside it too: only the dev split is in the way here.
        (&dir.path().join("f.dev.jsonl"), ExportFormat::Fever),
    ] {
        ok(std::fs::write(path, "mine\n"));
        let target = dir.path().join(if format == ExportFormat::Fever {
            "f.jsonl"
        } else {
            "gold.jsonl"
        });
        let e = p
            .export_gold(&lead, &req, &target, format, false)
            .err()
            .unwrap_or_else(|| panic!("{} was replaced without force", path.display()));
        assert!(e.message.contains("--force"), "{e}");
        assert_eq!(ok(std::fs::read_to_string(path)), "mine\n");
        ok(p.export_gold(&lead, &req, &target, format, true));
        assert_ne!(ok(std::fs::read_to_string(path)), "mine\n");
    }
}

/// A claim given for refutation only (no evidence task) stands in the gold data beside its
/// verified counter-claim with the label it was imported with: no answer stands behind its
/// line, so its provenance says "imported", not "majority".
#[test]
fn a_refutation_only_line_with_no_answers_says_imported_not_majority() {
    let dir = ok(tempfile::tempdir());
    let mut p = team(dir.path(), 2);
    predictions(
        &mut p,
        dir.path(),
        &[
            serde_json::json!({"claim_id": "c1", "model": "m", "refuted": "Town 1 had no lighthouse before 1900"}),
        ],
    );
    contradicts(&mut p, &["ana", "ben"]);
    let (lines, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
    let root = lines
        .iter()
        .find(|l| l.id == "c1")
        .unwrap_or_else(|| panic!("c1 not exported: {lines:?} {:?}", preview.dropped));
    assert_eq!(root.agreement.answers, 0, "{root:?}");
    assert_eq!(root.label.as_str(), "SUPPORTED");
    assert_eq!(root.provenance.method, "imported", "{root:?}");
    let counter = lines
        .iter()
        .find(|l| l.parent_id.as_deref() == Some("c1"))
        .unwrap_or_else(|| panic!("no counter-claim line: {lines:?}"));
    assert_eq!(counter.agreement.answers, 2, "{counter:?}");
    assert_eq!(counter.provenance.method, "majority", "{counter:?}");
}

/// The report lists the under-annotated claims without building the gold lines; its list
/// is the export's, with no refutation in the project and with refutations whose
/// verification is short, one of them a twin the export drops first and one beside a
/// held-back original.
#[test]
fn the_reports_under_annotated_claims_are_the_exports() {
    let dir = ok(tempfile::tempdir());
    let mut p = team(dir.path(), 6);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    evidence(&mut p, "ana", &[]);
    // ben's answer on c4 picks the trick: c4 rests on 1 counted answer of 2.
    evidence(&mut p, "ben", &["Town 4 "]);
    let same = |p: &Project| {
        let (_, preview) = ok(p.gold(&p.lead(), &GoldRequest::default()));
        let report = ok(p.report(&p.lead(), &AgreementRequest::default()));
        assert_eq!(report.methodology.under_annotated, preview.under_annotated);
        preview.under_annotated
    };
    let roots = same(&p);
    let ids: Vec<&str> = roots.iter().map(|u| u.id.as_str()).collect();
    assert_eq!(ids, ["c4"], "{roots:?}");

    predictions(
        &mut p,
        dir.path(),
        &[
            serde_json::json!({"claim_id": "c1", "model": "a", "refuted": "Town 1 had no lighthouse before 1900"}),
            serde_json::json!({"claim_id": "c1", "model": "b", "refuted": "town 1  had NO lighthouse, before 1900."}),
            serde_json::json!({"claim_id": "c2", "model": "a", "refuted": "Town 2 had no lighthouse before 1900"}),
            serde_json::json!({"claim_id": "c4", "model": "a", "refuted": "Town 4 had no lighthouse before 1900"}),
        ],
    );
    // Only ana verifies: every counter-claim rests on 1 counted answer of 2.
    contradicts(&mut p, &["ana"]);
    let all = same(&p);
    let listed: Vec<(&str, &str)> = all
        .iter()
        .map(|u| (u.id.split('/').next().unwrap_or_default(), u.kind.as_str()))
        .collect();
    // c1's twin is dropped as the same claim before its count is looked at, and c4's
    // counter-claim goes with its held-back original.
    assert_eq!(
        listed,
        [("c1", "verify"), ("c2", "verify"), ("c4", "evidence")],
        "{all:?}"
    );
}
