//! A person given a claim family's verify or refute items never gets its label items, nor
//! corrects a label they gave it (hostile pass of session 23: a verify item shows an
//! original beside its counter-claim and a refute item shows originals, and an annotator
//! who had looked at them named 600 of 600 label items' claims as originals or
//! refutations).

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::PackRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Project};
use std::collections::HashSet;

use crate::common::{self, must, Acting};

/// 20 originals, a model's refutation of each, and label (of all 40), verify and refute
/// tasks of overlap 3, with ana, ben and cal.
fn families(dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = common::project(dir, 20, clock);
    common::import_model_refutations(&mut p, dir, 0..20);
    for kind in [TaskKind::Label, TaskKind::Verify, TaskKind::Refute] {
        must(p.create_tasks_with(&p.lead(), kind, Some(3), true, &mut NoProgress));
    }
    for name in ["ana", "ben", "cal"] {
        must(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    p
}

/// The family (its original's row) of task `task_id`'s claim.
fn family(p: &Project, task_id: i64) -> i64 {
    must(p.store().read().query_row(
        "SELECT coalesce(c.parent_id, c.id) FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
        [task_id],
        |r| r.get(0),
    ))
}

/// The families of every item of `kind` `who` is given, each skipped unanswered (until
/// a skipped one comes back: nothing new is left).
fn look_at_all(p: &mut Project, who: &str, kind: TaskKind) -> HashSet<i64> {
    let (mut tasks, mut seen) = (HashSet::new(), HashSet::new());
    while let Some(item) = must(p.next_item(&p.who(who), kind)).item {
        if !tasks.insert(item.task_id) {
            break;
        }
        seen.insert(family(p, item.task_id));
        must(p.skip_item(&p.who(who), item.task_id));
    }
    seen
}

#[test]
fn a_person_given_a_familys_verify_or_refute_items_never_gets_its_label_items() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = families(dir.path(), &clock);
    // ana looks at every verify and refute item, answering none: before, every label
    // item was hers next, its claim known for an original or a refutation.
    let mut seen = look_at_all(&mut p, "ana", TaskKind::Verify);
    seen.extend(look_at_all(&mut p, "ana", TaskKind::Refute));
    assert_eq!(seen.len(), 20);
    assert!(look_at_all(&mut p, "ana", TaskKind::Label).is_empty());
    // ben labels first, then is given the verify items: the labels he gave stand, but
    // he can no longer correct them.
    let mut labelled = Vec::new();
    while let Some(item) = must(p.next_item(&p.who("ben"), TaskKind::Label)).item {
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".to_string()),
            ..Default::default()
        };
        must(p.submit(&p.who("ben"), &answer));
        labelled.push(answer);
    }
    assert_eq!(labelled.len(), 40);
    assert_eq!(look_at_all(&mut p, "ben", TaskKind::Verify).len(), 20);
    let corrected = Answer {
        label: Some("REFUTED".to_string()),
        ..labelled[0].clone()
    };
    let refused = p.submit(&p.who("ben"), &corrected);
    assert_eq!(
        refused.map_err(|e| e.code).err(),
        Some(ErrorCode::InvalidInput)
    );
    // cal, given nothing else, labels as before.
    assert_eq!(look_at_all(&mut p, "cal", TaskKind::Label).len(), 20);
}

/// A skipped item comes back once nothing new is left: a label item skipped before its
/// family's verify items were seen came back that way, to be refused on submit.
#[test]
fn a_label_item_skipped_before_its_familys_verify_items_does_not_come_back() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = families(dir.path(), &clock);
    let item = must(p.next_item(&p.who("ana"), TaskKind::Label))
        .item
        .unwrap_or_else(|| panic!("a label item for ana"));
    must(p.skip_item(&p.who("ana"), item.task_id));
    look_at_all(&mut p, "ana", TaskKind::Verify);
    look_at_all(&mut p, "ana", TaskKind::Refute);
    assert!(must(p.next_item(&p.who("ana"), TaskKind::Label))
        .item
        .is_none());
}

#[test]
fn a_pack_holds_a_familys_label_items_or_its_verify_items_never_both() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = families(dir.path(), &clock);
    let lead = p.lead();
    let path = dir.path().join("cal.fdpack");
    let req = PackRequest {
        annotator: "cal".into(),
        count: 200,
        kind: None,
        expires_days: 7,
    };
    must(p.issue_pack(&lead, &req, &path));
    let kinds: Vec<(i64, String)> = {
        let conn = p.store().read();
        let mut stmt = must(conn.prepare(
            "SELECT a.task_id, t.kind FROM assignments a JOIN tasks t ON t.id = a.task_id
             JOIN annotators n ON n.id = a.annotator_id WHERE n.name = 'cal'",
        ));
        let rows = must(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))));
        must(rows.collect::<Result<_, _>>())
    };
    let (mut label, mut verify) = (HashSet::new(), HashSet::new());
    for (task, kind) in &kinds {
        match kind.as_str() {
            "label" => label.insert(family(&p, *task)),
            "verify" => verify.insert(family(&p, *task)),
            _ => false,
        };
    }
    // Label items come first in a pack; before, the same families' verify items
    // followed them.
    assert_eq!(label.len(), 20, "{kinds:?}");
    assert!(label.is_disjoint(&verify), "{label:?} {verify:?}");
}

/// Hostile pass of session 24: evidence items are made for originals, so a label item's
/// claim seen among them was an original (596 of 600 labels named so). A person given a
/// family's evidence items never gets its label items once the project has refutations:
/// held to families with a refutation, the label items left to them were all originals
/// (144 of 144, second pass). Without refutations, evidence then label stays open to one
/// person, as FEVER-like projects work.
#[test]
fn a_person_given_a_familys_evidence_items_gets_its_label_items_only_without_refutations() {
    let evidence_then_label = |refuted: std::ops::Range<usize>| {
        let dir = must(tempfile::tempdir());
        let clock = ManualClock::new(1_000_000);
        let mut p = common::project(dir.path(), 20, &clock);
        if !refuted.is_empty() {
            common::import_model_refutations(&mut p, dir.path(), refuted);
        }
        must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
        must(p.create_tasks_with(&p.lead(), TaskKind::Label, Some(3), true, &mut NoProgress));
        must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
        let seen = look_at_all(&mut p, "ana", TaskKind::Evidence);
        assert_eq!(seen.len(), 20);
        look_at_all(&mut p, "ana", TaskKind::Label).len()
    };
    // Before, all 30 label items (20 originals, 10 refutations) came next; held to the
    // families with a refutation, the 10 left were originals.
    assert_eq!(evidence_then_label(0..10), 0);
    assert_eq!(evidence_then_label(0..0), 20);
}

/// Hostile pass of session 24: a label pack and then a verify pack covered the same
/// families, and every label answer was refused at merge, the work lost. Items of a
/// family whose label items a person holds unanswered are not theirs until those are
/// answered or expire.
#[test]
fn a_label_item_held_keeps_its_familys_other_items_from_the_same_person() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = families(dir.path(), &clock);
    let lead = p.lead();
    let pack = |kind: TaskKind| PackRequest {
        annotator: "cal".into(),
        count: 200,
        kind: Some(kind),
        expires_days: 7,
    };
    must(p.issue_pack(&lead, &pack(TaskKind::Label), &dir.path().join("l.fdpack")));
    let second = p.issue_pack(&lead, &pack(TaskKind::Verify), &dir.path().join("v.fdpack"));
    assert_eq!(second.map_err(|e| e.code).err(), Some(ErrorCode::NotFound));
    // Live too: with a label item reserved, the family's verify item is someone else's.
    let held = must(p.next_item(&p.who("ana"), TaskKind::Label))
        .item
        .unwrap_or_else(|| panic!("a label item for ana"));
    let verify = look_at_all(&mut p, "ana", TaskKind::Verify);
    assert_eq!(verify.len(), 19);
    assert!(!verify.contains(&family(&p, held.task_id)));
}

/// Second hostile pass of session 24: once a label item's hold lapsed, the family's verify
/// item was served, and the answer from the screen left open was refused, the work lost.
/// A hold ends with an answer or a skip, not with time.
#[test]
fn a_label_item_whose_hold_lapsed_still_keeps_its_familys_other_items_and_is_answered() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = families(dir.path(), &clock);
    let held = must(p.next_item(&p.who("ana"), TaskKind::Label))
        .item
        .unwrap_or_else(|| panic!("a label item for ana"));
    clock.advance_ms(24 * 60 * 60_000);
    let verify = look_at_all(&mut p, "ana", TaskKind::Verify);
    assert_eq!(verify.len(), 19);
    assert!(!verify.contains(&family(&p, held.task_id)));
    let answer = Answer {
        task_id: held.task_id,
        label: Some("SUPPORTED".to_string()),
        ..Default::default()
    };
    must(p.submit(&p.who("ana"), &answer));
}
