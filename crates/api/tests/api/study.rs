//! Re-annotation studies (issue 11, point 7): a lead draws a seeded sample for a second
//! group; its members are served the sample first and keep the room it added; the study
//! reports Cohen's kappa between the two groups' majority votes as core computes it, with
//! Fleiss' kappa per group.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::agreement::MAJORITY_METRIC;
use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::import::Preset;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use factdesk_core::agreement::{
    cohen_kappa, compute, group_majority_cohen, Label, Rating, RatingTable, Weighting,
};
use std::collections::{BTreeMap, BTreeSet};

use crate::common;
use common::Acting;
use common::{covid_fact_head, imported, project, trick_option};

pub(crate) fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A simulated annotator's selection: the item's "true" sentences, each flipped with a
/// chance of about one in six, never the trick.
fn choose(p: &Project, who: &str, item: &Item) -> Vec<String> {
    let trick = trick_option(p, item).unwrap_or_default();
    let task = item.task_id.to_string();
    item.options
        .iter()
        .filter(|o| o.id != trick)
        .filter(|o| {
            let truth = !fnv(&["truth", &task, &o.text]).is_multiple_of(3);
            let flip = fnv(&[who, &task, &o.text]).is_multiple_of(6);
            truth != flip
        })
        .map(|o| o.id.clone())
        .collect()
}

/// Answers what `next_item` serves until it serves nothing or `limit` items; returns the
/// task ids in the order served.
fn work(p: &mut Project, who: &str, limit: usize) -> Vec<i64> {
    let mut served = Vec::new();
    while served.len() < limit {
        let Some(item) = must(p.next_item(&p.who(who), TaskKind::Evidence)).item else {
            break;
        };
        let selected = choose(p, who, &item);
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: selected.is_empty(),
            selected,
            ..Default::default()
        };
        must(p.submit(&p.who(who), &answer));
        served.push(item.task_id);
    }
    served
}

fn overlaps(p: &Project) -> BTreeMap<i64, (u32, u32)> {
    let conn = p.store().read();
    let mut stmt = must(conn.prepare("SELECT id, overlap, answered FROM tasks"));
    let rows = must(stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?)))));
    must(rows.collect::<Result<_, _>>())
}

pub(crate) fn no_bootstrap() -> AgreementRequest {
    AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    }
}

#[test]
fn members_are_served_the_sample_first_and_keep_its_room() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 6, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in ["a1", "a2", "b1", "b2", "extra"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let request = |sample, members: &[&str]| StudyRequest {
        kind: TaskKind::Evidence,
        sample,
        members: members.iter().map(|m| m.to_string()).collect(),
        seed: Some(3),
        strata: None,
    };
    // Who may draw, and what.
    let refused = |r: factdesk_api::Result<_>| r.err().map(|e| e.code);
    assert_eq!(
        p.as_lead(&p.who("a1"), "draw studies")
            .err()
            .map(|e| e.code),
        Some(ErrorCode::Forbidden)
    );
    assert_eq!(
        refused(p.create_study(&p.lead_named("maria"), &request(7, &["b1"]))),
        Some(ErrorCode::InvalidInput)
    );
    assert_eq!(
        refused(p.create_study(&p.lead_named("maria"), &request(2, &[]))),
        Some(ErrorCode::InvalidInput)
    );
    assert_eq!(
        refused(p.create_study(&p.lead_named("maria"), &request(2, &["b1", "b1"]))),
        Some(ErrorCode::InvalidInput)
    );
    assert_eq!(
        refused(p.create_study(&p.lead_named("maria"), &request(2, &["nobody"]))),
        Some(ErrorCode::NotFound)
    );
    let mut refute = request(2, &["b1"]);
    refute.kind = TaskKind::Refute;
    assert_eq!(
        refused(p.create_study(&p.lead_named("maria"), &refute)),
        Some(ErrorCode::InvalidInput)
    );
    assert!(
        must(p.studies(&p.lead())).is_empty(),
        "a refused study left rows"
    );

    let before = overlaps(&p);
    let study = must(p.create_study(&p.lead_named("maria"), &request(2, &["b1", "b2"])));
    assert_eq!((study.sample_size, study.items.len()), (2, 2));
    assert_eq!(study.members, ["b1", "b2"]);
    let after = overlaps(&p);
    for (task, (overlap, _)) in &after {
        let room = if study.items.contains(task) { 2 } else { 0 };
        assert_eq!(*overlap, before[task].0 + room, "task {task}");
    }
    // The same seed on the same tasks draws the same sample elsewhere.
    let other_dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut twin = project(other_dir.path(), 6, &clock);
    must(twin.create_tasks(&twin.lead(), TaskKind::Evidence, Some(2)));
    must(twin.add_annotator(&twin.lead(), "maria", Role::Lead));
    // a1 and a2 fill the items' overlap outside the group; a draw without them is refused.
    for n in ["a1", "a2", "b1", "b2"] {
        must(twin.add_annotator(&twin.lead(), n, Role::Annotator));
    }
    let same = must(twin.create_study(&twin.lead_named("maria"), &request(2, &["b1", "b2"])));
    assert_eq!(same.items, study.items);

    // A member is served the sample first.
    let b1 = work(&mut p, "b1", 2);
    assert_eq!(
        b1.iter().copied().collect::<BTreeSet<_>>(),
        study.items.iter().copied().collect::<BTreeSet<_>>()
    );
    // Group A fills every item to the overlap it had before the study.
    work(&mut p, "a1", usize::MAX);
    work(&mut p, "a2", usize::MAX);
    // Nothing is left for a non-member: the study's room is the group's.
    let next = must(p.next_item(&p.who("extra"), TaskKind::Evidence));
    assert!(next.item.is_none(), "{:?}", next.item.map(|i| i.task_id));
    // The second member still finds the sample.
    let b2 = work(&mut p, "b2", usize::MAX);
    assert_eq!(
        b2.iter().copied().collect::<BTreeSet<_>>(),
        study.items.iter().copied().collect::<BTreeSet<_>>()
    );
    for (task, (overlap, answered)) in overlaps(&p) {
        assert!(answered <= overlap, "task {task}: {answered} > {overlap}");
    }
    let figures = must(p.study_agreements(&p.lead(), None, &no_bootstrap()));
    assert_eq!(figures.len(), 1);
    assert_eq!(figures[0].group_a, ["a1", "a2"]);
    assert_eq!(figures[0].items_answered, 2);
}

/// A non-member's live reservation holds one of the item's own slots: a second
/// non-member is not served the group's room meanwhile.
#[test]
fn reservations_of_others_count_against_the_items_own_slots() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 2, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in ["a1", "b1", "extra"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let study = must(p.create_study(
        &p.lead_named("maria"),
        &StudyRequest {
            kind: TaskKind::Label,
            sample: 1,
            members: vec!["b1".into()],
            seed: Some(1),
            strata: None,
        },
    ));
    let sampled = study.items[0];
    // a1 answers the other item if served it first, and holds the sampled one.
    loop {
        let item = must(p.next_item(&p.who("a1"), TaskKind::Label))
            .item
            .unwrap_or_else(|| panic!("a1 got nothing"));
        if item.task_id == sampled {
            break;
        }
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".into()),
            ..Default::default()
        };
        must(p.submit(&p.who("a1"), &answer));
    }
    let extra = must(p.next_item(&p.who("extra"), TaskKind::Label)).item;
    assert!(
        extra.as_ref().is_none_or(|i| i.task_id != sampled),
        "a non-member took the group's slot"
    );
    let b1 = must(p.next_item(&p.who("b1"), TaskKind::Label)).item;
    assert_eq!(b1.map(|i| i.task_id), Some(sampled));
}

#[test]
fn undefined_figures_say_why() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    // a1 fills the items' overlap outside the group; b1 alone would leave nobody to.
    must(p.add_annotator(&p.lead(), "a1", Role::Annotator));
    must(p.add_annotator(&p.lead(), "b1", Role::Annotator));
    let study = must(p.create_study(
        &p.lead_named("maria"),
        &StudyRequest {
            kind: TaskKind::Label,
            sample: 2,
            members: vec!["b1".into()],
            seed: None,
            strata: None,
        },
    ));
    let figures = must(p.study_agreements(&p.lead(), Some(TaskKind::Label), &no_bootstrap()));
    let f = &figures[0];
    assert_eq!(f.study, study);
    assert_eq!(f.majority_kappa.metric, MAJORITY_METRIC);
    for st in [&f.majority_kappa, &f.fleiss_a, &f.fleiss_b] {
        assert!(st.value.is_none() && st.reason.is_some(), "{st:?}");
    }
}

/// Per (item, candidate) "selected" / "not selected" ratings, as agreement scores evidence.
fn per_candidate(ratings: &[Rating], candidates: &BTreeMap<String, Vec<String>>) -> Vec<Rating> {
    let mut out = Vec::new();
    for r in ratings {
        let Label::Set(selected) = &r.label else {
            continue;
        };
        for c in &candidates[&r.item] {
            let label = if selected.contains(c) {
                "selected"
            } else {
                "not selected"
            };
            out.push(Rating {
                item: format!("{}/{c}", r.item),
                annotator: r.annotator.clone(),
                label: Label::Category(label.to_string()),
            });
        }
    }
    out
}

/// The strict majority of a group's labels on each unit, by counting.
fn majorities(ratings: &[Rating], group: &[&str]) -> BTreeMap<String, String> {
    let mut votes: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    for r in ratings
        .iter()
        .filter(|r| group.contains(&r.annotator.as_str()))
    {
        if let Label::Category(l) = &r.label {
            *votes
                .entry(&r.item)
                .or_default()
                .entry(l.clone())
                .or_default() += 1;
        }
    }
    votes
        .into_iter()
        .filter_map(|(item, counts)| {
            let total: usize = counts.values().sum();
            counts
                .into_iter()
                .find(|(_, n)| 2 * n > total)
                .map(|(l, _)| (item.to_string(), l))
        })
        .collect()
}

#[test]
fn a_covid_fact_study_gives_the_group_majority_kappa_of_core() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // About a third of the lines are originals; the others are refutations, which take
    // their parent's evidence and get no evidence task.
    let claims = covid_fact_head(dir.path(), 400);
    let clock = ManualClock::new(1_000_000);
    let mut p = imported(
        dir.path(),
        "covid.fdesk",
        &clock,
        claims,
        None,
        Preset::CovidFact,
    );
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    let group_a = ["a1", "a2", "a3"];
    let group_b = ["b1", "b2", "b3"];
    for n in group_a.iter().chain(&group_b) {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let study = must(p.create_study(
        &p.lead_named("maria"),
        &StudyRequest {
            kind: TaskKind::Evidence,
            sample: 100,
            members: group_b.iter().map(|m| m.to_string()).collect(),
            seed: Some(2021),
            strata: None,
        },
    ));
    assert_eq!(study.items.len(), 100);
    let sample: BTreeSet<i64> = study.items.iter().copied().collect();
    for who in group_b {
        let served = work(&mut p, who, 100);
        assert_eq!(served.iter().copied().collect::<BTreeSet<_>>(), sample);
    }
    for who in group_a {
        work(&mut p, who, usize::MAX);
    }
    for (task, (overlap, answered)) in overlaps(&p) {
        assert!(answered <= overlap, "task {task}: {answered} > {overlap}");
    }

    let agreement = AgreementRequest {
        bootstrap_reps: 200,
        ..Default::default()
    };
    let figures = must(p.study_agreements(&p.lead(), None, &agreement));
    assert_eq!(figures.len(), 1);
    let f = &figures[0];
    assert_eq!(f.group_a, group_a);
    assert_eq!(f.items_answered, 100);

    // Core's function on the same counted answers.
    let (ratings, candidates) = must(p.ratings(&p.lead(), TaskKind::Evidence, false));
    let items: BTreeSet<String> = sample.iter().map(|t| format!("task-{t}")).collect();
    let sampled: Vec<Rating> = ratings
        .into_iter()
        .filter(|r| items.contains(&r.item))
        .collect();
    let pooled = per_candidate(&sampled, &candidates);
    let table = must(RatingTable::new(&pooled, None, None));
    let names = |g: &[&str]| g.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let core = group_majority_cohen(&table, &names(&group_a), &names(&group_b));
    let kappa = f.majority_kappa.value.unwrap_or_else(|| panic!("{f:?}"));
    let want = core.value.unwrap_or_else(|| panic!("{core:?}"));
    assert!((kappa - want).abs() < 1e-12, "{kappa} vs core {want}");
    // ... which is Cohen's kappa of the two majority votes, counted here by hand.
    let (ma, mb) = (majorities(&pooled, &group_a), majorities(&pooled, &group_b));
    let votes: Vec<Rating> = ma
        .iter()
        .filter(|(unit, _)| mb.contains_key(*unit))
        .flat_map(|(unit, a)| {
            [("A", a), ("B", &mb[unit])].map(|(who, label)| Rating {
                item: unit.clone(),
                annotator: who.to_string(),
                label: Label::Category(label.clone()),
            })
        })
        .collect();
    assert_eq!(f.majority_units as usize, votes.len() / 2);
    let by_hand = cohen_kappa(
        &must(RatingTable::new(&votes, None, None)),
        "A",
        "B",
        Weighting::Unweighted,
    );
    assert!((by_hand.value.value.unwrap_or(f64::NAN) - kappa).abs() < 1e-12);
    let (lo, hi) = f
        .majority_kappa
        .ci95
        .unwrap_or_else(|| panic!("no interval"));
    assert!(lo <= kappa && kappa <= hi, "{lo} {kappa} {hi}");
    assert!(hi - lo > 0.0);

    // Fleiss per group, as agreement computes it on the group's answers alone.
    for (group, shown) in [(&group_a, &f.fleiss_a), (&group_b, &f.fleiss_b)] {
        let mine: Vec<Rating> = sampled
            .iter()
            .filter(|r| group.contains(&r.annotator.as_str()))
            .cloned()
            .collect();
        let table = must(RatingTable::with_item_candidates(&mine, None, &candidates));
        let want = compute(&table, "setsel_pooled_fleiss_kappa").and_then(|m| m.value);
        assert!(want.is_some());
        assert!((shown.value.unwrap_or(f64::NAN) - want.unwrap_or(0.0)).abs() < 1e-12);
        assert_eq!(shown.metric, "setsel_pooled_fleiss_kappa");
    }
    // The same figures in `factdesk agreement` and on the dashboard.
    let report = must(p.agreement(&p.lead(), TaskKind::Evidence, &agreement));
    assert_eq!(report.studies, figures);
    let dashboard = must(p.dashboard(&p.lead(), &agreement));
    assert_eq!(dashboard.studies, figures);
}
