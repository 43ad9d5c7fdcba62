//! Drawing a re-annotation study in a project already under way (issue 30, the hostile
//! pass's HIGH-1): the sample holds only items its group never met, so the answers given
//! before the draw stay first-round answers; the group is annotators who can answer; a
//! study drawn by mistake can be deleted.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::gold::GoldRequest;
use factdesk_api::packs::PackRequest;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::collections::BTreeSet;

use crate::common;
use common::{project, trick_option, Acting};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Selects every real option but the trick (the same answer from everyone, so the gold
/// has a line wherever an item is full).
fn careful(p: &Project, item: &Item) -> Answer {
    let trick = trick_option(p, item).unwrap_or_default();
    Answer {
        task_id: item.task_id,
        selected: vec![item
            .options
            .iter()
            .find(|o| o.id != trick)
            .map(|o| o.id.clone())
            .unwrap_or_default()],
        ..Default::default()
    }
}

/// Answers up to `limit` evidence items served to `who`; the task ids, in order.
fn work(p: &mut Project, who: &str, limit: usize) -> Vec<i64> {
    let mut done = Vec::new();
    while done.len() < limit {
        let Some(item) = must(p.next_item(&p.who(who), TaskKind::Evidence)).item else {
            break;
        };
        must(p.submit(&p.who(who), &careful(p, &item)));
        done.push(item.task_id);
    }
    done
}

fn request(sample: u32, members: &[&str]) -> StudyRequest {
    StudyRequest {
        kind: TaskKind::Evidence,
        sample,
        members: members.iter().map(|m| m.to_string()).collect(),
        seed: Some(1),
        strata: None,
    }
}

fn ids(p: &Project, sql: &str) -> BTreeSet<i64> {
    let conn = p.store().read();
    let mut stmt = must(conn.prepare(sql));
    let rows = must(stmt.query_map([], |r| r.get(0)));
    must(rows.collect::<Result<_, _>>())
}

/// The gold lines and the claims held back, as JSON, to compare before and after.
fn gold(p: &Project) -> (serde_json::Value, serde_json::Value, u64) {
    let (lines, preview) = must(p.gold(&p.lead(), &GoldRequest::default()));
    (
        must(serde_json::to_value(&lines)),
        must(serde_json::to_value(&preview.under_annotated)),
        preview.study_answers_apart,
    )
}

/// A team: maria leads; ana, ben and erin will be the study's group, caro and dan are
/// not; 10 evidence tasks of overlap 2.
fn team(dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, 10, clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in ["ana", "ben", "caro", "dan", "erin"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    p
}

#[test]
fn a_study_drawn_mid_project_samples_only_items_its_group_never_met() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    // ana and ben answer three items together; caro answers two; ben is shown one more
    // and leaves it; erin carries two in a pack.
    work(&mut p, "ana", 3);
    work(&mut p, "ben", 3);
    work(&mut p, "caro", 2);
    let held = must(p.next_item(&p.who("ben"), TaskKind::Evidence)).item;
    let held = held
        .map(|i| i.task_id)
        .unwrap_or_else(|| panic!("ben got nothing"));
    let pack = PackRequest {
        annotator: "erin".into(),
        count: 2,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    must(p.issue_pack(&p.lead(), &pack, &dir.path().join("erin.fdpack")));
    let met = ids(
        &p,
        "SELECT DISTINCT t.id FROM tasks t JOIN annotators a ON a.name IN ('ana', 'ben', 'erin')
         WHERE EXISTS (SELECT 1 FROM annotations x WHERE x.task_id = t.id AND x.annotator_id = a.id)
            OR EXISTS (SELECT 1 FROM assignments s WHERE s.task_id = t.id AND s.annotator_id = a.id)",
    );
    assert!(met.contains(&held));
    assert!(met.len() >= 6, "{met:?}");
    let all = ids(&p, "SELECT id FROM tasks WHERE kind = 'evidence'");
    let unseen: BTreeSet<i64> = all.difference(&met).copied().collect();
    let before = gold(&p);
    assert_eq!(before.2, 0);

    let group = ["ana", "ben", "erin"];
    let study = must(p.create_study(
        &p.lead_named("maria"),
        &request(unseen.len() as u32, &group),
    ));
    assert_eq!(
        study.items.iter().copied().collect::<BTreeSet<_>>(),
        unseen,
        "the sample took items the group had answered, held or packed"
    );
    // The answers given before the draw are still the first round's: the gold is as it was.
    assert_eq!(gold(&p), before);
    let figures = must(p.study_agreements(
        &p.lead(),
        None,
        &factdesk_api::agreement::AgreementRequest {
            bootstrap_reps: 0,
            ..Default::default()
        },
    ));
    assert_eq!(figures[0].items_answered, 0, "{:?}", figures[0]);

    // No item is left that the group never met: a further draw says why.
    let refused = p
        .create_study(&p.lead_named("maria"), &request(1, &group))
        .err();
    let refused = refused.unwrap_or_else(|| panic!("a study was drawn from met items"));
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused
            .message
            .contains("unseen by the group (ana, ben, erin)"),
        "{}",
        refused.message
    );

    // Pooled, the sampled items wait for the group, who can answer them all: none is
    // held back for good.
    let mut settings = must(p.settings());
    settings.study_answers_in_gold = true;
    must(p.set_settings(&p.lead(), &settings));
    for who in ["ana", "ben", "erin", "caro", "dan"] {
        work(&mut p, who, usize::MAX);
    }
    let claims: BTreeSet<String> = study
        .items
        .iter()
        .map(|t| {
            must(p.store().read().query_row(
                "SELECT c.ext_id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
                [t],
                |r| r.get::<_, String>(0),
            ))
        })
        .collect();
    let (_, preview) = must(p.gold(&p.lead(), &GoldRequest::default()));
    let held_back: Vec<_> = (preview.under_annotated.iter())
        .filter(|u| claims.contains(&u.id))
        .collect();
    assert!(held_back.is_empty(), "{held_back:?}");
}

#[test]
fn a_study_group_is_annotators_who_can_answer() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let lead = p.create_study(&p.lead_named("maria"), &request(1, &["ana", "maria"]));
    let lead = lead
        .err()
        .unwrap_or_else(|| panic!("a lead joined a study group"));
    assert_eq!(lead.code, ErrorCode::InvalidInput);
    assert!(lead.message.contains("maria is a lead"), "{}", lead.message);
    must(p.set_disabled(&p.lead(), "dan", true));
    let off = p.create_study(&p.lead_named("maria"), &request(1, &["dan"]));
    let off = off
        .err()
        .unwrap_or_else(|| panic!("a disabled person joined a study"));
    assert_eq!(off.code, ErrorCode::InvalidInput);
    assert!(off.message.contains("dan was disabled"), "{}", off.message);
    assert!(
        must(p.studies(&p.lead())).is_empty(),
        "a refused draw left a study"
    );
}

#[test]
fn a_study_drawn_by_mistake_can_be_deleted() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let overlaps = |p: &Project| {
        ids(
            p,
            "SELECT id * 100 + overlap FROM tasks WHERE kind = 'evidence'",
        )
    };
    let before = overlaps(&p);
    let study = must(p.create_study(&p.lead_named("maria"), &request(3, &["ana", "ben"])));
    assert_ne!(overlaps(&p), before);
    // ana answers the study's items; an annotator may not delete it.
    assert_eq!(work(&mut p, "ana", 3).len(), 3);
    let refused = p
        .as_lead(&p.who("ana"), "delete studies")
        .err()
        .map(|e| e.code);
    assert_eq!(refused, Some(ErrorCode::Forbidden));
    let missing = p
        .delete_study(&p.lead(), study.id + 7)
        .err()
        .map(|e| e.code);
    assert_eq!(missing, Some(ErrorCode::NotFound));

    let deleted = must(p.delete_study(&p.lead(), study.id));
    assert_eq!((deleted.items, deleted.member_answers), (3, 3));
    assert!(must(p.studies(&p.lead())).is_empty());
    assert_eq!(overlaps(&p), before, "the items' overlap is not back");
    // ana's answers are ordinary ones now: in the gold's count, none kept apart.
    let (_, _, apart) = gold(&p);
    assert_eq!(apart, 0);
    // The items fill to their overlap again, from anyone.
    for who in ["caro", "dan"] {
        work(&mut p, who, usize::MAX);
    }
    let over = ids(
        &p,
        "SELECT id FROM tasks WHERE kind = 'evidence' AND (answered != overlap)",
    );
    assert!(
        over.is_empty(),
        "tasks not filled to their overlap: {over:?}"
    );
}

/// Issue 33: a stratified draw is shown first and then made a study that keeps each
/// item's stratum, on a file and on PostgreSQL.
#[test]
fn a_stratified_study_keeps_the_stratum_each_item_was_drawn_from() {
    use factdesk_api::study::Strata;
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let by = Strata::JaccardBins { bins: 1 };
    let shown = must(p.sample_strata(&p.lead_named("maria"), TaskKind::Evidence, &by, 3, Some(1)));
    assert_eq!(shown.strata, "jaccard-bins:1");
    assert_eq!(shown.drawn.len(), 1);
    assert_eq!(shown.drawn[0].name, "0.00–1.00");
    assert_eq!(shown.drawn[0].available, 10);
    let study = must(p.create_study(
        &p.lead_named("maria"),
        &StudyRequest {
            strata: Some(by),
            ..request(3, &["erin"])
        },
    ));
    assert_eq!(study.items, shown.drawn[0].items);
    assert_eq!(study.strata.as_deref(), Some("jaccard-bins:1"));
    assert_eq!(study.by_stratum.len(), 1);
    assert_eq!(study.by_stratum[0].items, study.items);
    let listed = must(p.studies(&p.lead_named("maria")));
    assert_eq!(listed, vec![study]);
    // Too many asked from a stratum: refused, naming it, nothing drawn.
    let err = p
        .create_study(
            &p.lead_named("maria"),
            &StudyRequest {
                strata: Some(Strata::Label),
                ..request(50, &["dan"])
            },
        )
        .err()
        .unwrap_or_else(|| panic!("drawn"));
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("fewer than the 50 items"), "{err}");
    assert_eq!(must(p.studies(&p.lead_named("maria"))).len(), 1);
}
