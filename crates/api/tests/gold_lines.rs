//! Every gold line rests on counted answers (or the lead's decision), and a claim that
//! rests on none is dropped with its reason, never exported.

mod common;
use common::{project, trick_option, Acting};

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::GoldRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project of `n` claims with a lead and the annotators ana and ben.
fn team(dir: &std::path::Path, n: usize) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir, n, &clock);
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
    assert_eq!(lines.len(), 5, "{lines:?}");
    for l in &lines {
        assert_eq!(l.label.as_str(), "NOT ENOUGH INFO");
        assert!(l.agreement.answers > 0, "a line resting on nothing: {l:?}");
    }
}
