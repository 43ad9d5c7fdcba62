//! The live dashboard against `factdesk agreement`: after every single answer, the
//! incrementally kept values equal a full recomputation over the project's answers.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::dashboard::{
    metric_names, Dashboard, DashboardState, KindDashboard, MASI_METRIC,
};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use factdesk_core::agreement::{compute, pairs, Label, Rating, RatingTable};
use factdesk_core::seeded::Seeded;
use std::collections::BTreeMap;

use crate::common;
use common::Acting;
use common::{project, trick_option};

const NAMES: [&str; 4] = ["ana", "ben", "caro", "dan"];
const LABELS: [&str; 3] = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"];

fn trick_id(p: &Project, item: &Item) -> String {
    trick_option(p, item).unwrap_or_default()
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-12,
        (None, None) => true,
        _ => false,
    }
}

fn kind(d: &Dashboard, kind: TaskKind) -> &KindDashboard {
    d.kinds
        .iter()
        .find(|k| k.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} on the dashboard"))
}

/// The pooled (claim, candidate) ratings of evidence answers, as plain categories.
fn pooled(p: &Project) -> Vec<Rating> {
    let (ratings, candidates) = p
        .ratings(&p.lead(), TaskKind::Evidence, false)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for r in ratings {
        let Label::Set(selected) = &r.label else {
            continue;
        };
        for c in candidates.get(&r.item).into_iter().flatten() {
            out.push(Rating {
                item: format!("{}/{c}", r.item),
                annotator: r.annotator.clone(),
                label: Label::Category(selected.contains(c).to_string()),
            });
        }
    }
    out
}

/// Each annotator's agreement with the strict majority of the others, by brute force.
fn majority(ratings: &[Rating]) -> BTreeMap<String, (u64, f64)> {
    let mut by_item: BTreeMap<&str, Vec<(&str, &Label)>> = BTreeMap::new();
    for r in ratings {
        by_item
            .entry(&r.item)
            .or_default()
            .push((&r.annotator, &r.label));
    }
    let mut tally: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for list in by_item.values() {
        for (who, label) in list {
            let others: Vec<&Label> = list
                .iter()
                .filter(|(o, _)| o != who)
                .map(|(_, l)| *l)
                .collect();
            let leader = others
                .iter()
                .find(|l| 2 * others.iter().filter(|m| m == l).count() > others.len());
            if let Some(leader) = leader {
                let entry = tally.entry(who.to_string()).or_default();
                entry.0 += 1;
                entry.1 += u64::from(*leader == *label);
            }
        }
    }
    tally
        .into_iter()
        .map(|(k, (n, a))| (k, (n, a as f64 / n as f64)))
        .collect()
}

/// Everything the dashboard shows for a kind equals the full computation.
fn check(p: &Project, d: &Dashboard, k: TaskKind) {
    let req = AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    };
    let report = p
        .agreement(&p.lead(), k, &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let shown = kind(d, k);
    assert_eq!(
        (shown.units, shown.annotators, shown.answers),
        (
            report.units as u64,
            report.annotators as u64,
            report.ratings as u64
        ),
        "{k:?} counts"
    );
    // Items with two or more counted answers, counted from the ratings themselves.
    let (ratings, _) = p
        .ratings(&p.lead(), k, false)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut raters: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for r in ratings {
        raters.entry(r.item).or_default().insert(r.annotator);
    }
    let paired = raters.values().filter(|who| who.len() >= 2).count() as u64;
    assert_eq!(shown.paired, paired, "{k:?} items with two or more answers");
    let (fleiss, alpha) = metric_names(k);
    for (stat, name) in [(&shown.fleiss, fleiss), (&shown.alpha, alpha)] {
        let expected = &report.metrics[name];
        assert_eq!(stat.metric, name);
        assert!(
            close(stat.value, expected.value),
            "{k:?} {name}: {:?} vs {:?}",
            stat.value,
            expected.value
        );
        assert_eq!(stat.reason, expected.reason, "{k:?} {name}");
    }
    let masi = shown.masi.as_ref();
    if k == TaskKind::Evidence {
        let masi = masi.unwrap_or_else(|| panic!("no MASI alpha on the dashboard"));
        let expected = &report.metrics[MASI_METRIC];
        assert_eq!(masi.metric, MASI_METRIC);
        assert!(
            close(masi.value, expected.value),
            "MASI alpha: {:?} vs {:?}",
            masi.value,
            expected.value
        );
        assert_eq!(masi.reason, expected.reason, "MASI alpha");
    } else {
        assert!(masi.is_none(), "{k:?} has no sets");
    }
    let ratings = if k == TaskKind::Evidence {
        pooled(p)
    } else {
        p.ratings(&p.lead(), k, false)
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    };
    let table = RatingTable::new(&ratings, None, None).unwrap_or_else(|e| panic!("{e}"));
    if k == TaskKind::Evidence && !ratings.is_empty() {
        // The per-candidate view is exactly the pooled one.
        let flat = compute(&table, "fleiss_kappa").unwrap_or_else(|| panic!("fleiss"));
        assert!(close(shown.fleiss.value, flat.value));
    }
    let expected_pairs = pairs(&table);
    assert_eq!(shown.pairs.len(), expected_pairs.len(), "{k:?} pairs");
    for (got, want) in shown.pairs.iter().zip(&expected_pairs) {
        assert_eq!(
            (&got.a, &got.b, got.units),
            (&want.a, &want.b, want.units as u64)
        );
        assert!(close(got.value, want.value), "{k:?} {}-{}", got.a, got.b);
        assert_eq!(got.reason, want.reason);
    }
    let expected_majority = majority(&ratings);
    for person in shown.people.iter().filter(|p| p.counted) {
        let want = expected_majority.get(&person.name).copied();
        assert_eq!(
            person.majority_units,
            want.map_or(0, |w| w.0),
            "{}",
            person.name
        );
        assert!(close(person.majority_agreement, want.map(|w| w.1)));
    }
    let last = shown.series.last().unwrap_or_else(|| panic!("no series"));
    assert!(close(last.value, shown.fleiss.value));
}

#[test]
fn after_every_answer_the_dashboard_equals_factdesk_agreement() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 8, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(4))
        .unwrap_or_else(|e| panic!("{e}"));
    p.create_tasks(&p.lead(), TaskKind::Label, Some(4))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in NAMES {
        p.add_annotator(&p.lead(), n, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut state = DashboardState::new();
    let mut rng = Seeded::new(7);
    let mut answered = 0;
    let mut first_label_task = None;
    for round in 0..8 {
        for (who, name) in NAMES.iter().enumerate() {
            for k in [TaskKind::Evidence, TaskKind::Label] {
                let next = p
                    .next_item(&p.who(name), k)
                    .unwrap_or_else(|e| panic!("{e}"));
                let Some(item) = next.item else { continue };
                let mut answer = Answer {
                    task_id: item.task_id,
                    ..Default::default()
                };
                if k == TaskKind::Evidence {
                    let trick = trick_id(&p, &item);
                    // Dan is careless: he picks the trick, and is flagged after three.
                    if *name == "dan" {
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
                    first_label_task.get_or_insert(item.task_id);
                    let pick = (rng.below(4) as usize + who) % LABELS.len();
                    answer.label = Some(LABELS[if round % 2 == 0 { 0 } else { pick }].to_string());
                }
                p.submit(&p.who(name), &answer)
                    .unwrap_or_else(|e| panic!("{e}"));
                clock.advance_ms(3_000);
                answered += 1;
                assert!(state
                    .refresh(&p, &p.lead())
                    .unwrap_or_else(|e| panic!("{e}")));
                let d = state.snapshot(0);
                check(&p, &d, k);
            }
        }
    }
    assert!(answered > 40, "only {answered} answers");
    // A correction supersedes an answer: the dashboard replaces it.
    let task = first_label_task.unwrap_or_else(|| panic!("no label task"));
    for label in ["REFUTED", "FAILED"] {
        let answer = Answer {
            task_id: task,
            label: Some(label.to_string()),
            ..Default::default()
        };
        p.submit(&p.who("ana"), &answer)
            .unwrap_or_else(|e| panic!("{e}"));
        state
            .refresh(&p, &p.lead())
            .unwrap_or_else(|e| panic!("{e}"));
        check(&p, &state.snapshot(0), TaskKind::Label);
    }
    let d = state.snapshot(0);
    for k in [TaskKind::Evidence, TaskKind::Label] {
        let shown = kind(&d, k);
        assert!(
            shown.fleiss.value.is_some() && shown.alpha.value.is_some(),
            "{shown:?}"
        );
        assert!(
            shown.pairs.iter().all(|p| p.value.is_some()),
            "{:?}",
            shown.pairs
        );
        assert!(shown.series.len() > 10);
    }
    let dan = kind(&d, TaskKind::Evidence)
        .people
        .iter()
        .find(|a| a.name == "dan")
        .unwrap_or_else(|| panic!("dan"));
    assert!(dan.flagged && !dan.counted);
    // The lead includes him after all: he counts again, with no new answer.
    p.set_flag_override(&p.lead(), "dan", Some(true))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(state
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}")));
    let d = state.snapshot(0);
    let req = AgreementRequest {
        include_flagged: true,
        bootstrap_reps: 0,
        ..Default::default()
    };
    let report = p
        .agreement(&p.lead(), TaskKind::Evidence, &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let shown = kind(&d, TaskKind::Evidence);
    // Every answer of his picked the trick, so even counted he rates no unit.
    assert_eq!(shown.annotators, 3);
    let dan = shown
        .people
        .iter()
        .find(|a| a.name == "dan")
        .unwrap_or_else(|| panic!("dan"));
    assert!(dan.counted && dan.answers > 0 && dan.rejected == dan.answers);
    assert!(close(
        shown.fleiss.value,
        report.metrics["setsel_pooled_fleiss_kappa"].value
    ));
    // Reading everything at once gives what following along gave.
    let mut fresh = DashboardState::new();
    fresh
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fresh.snapshot(0), d);
}

#[test]
fn intervals_are_those_factdesk_agreement_prints() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 6, &clock);
    p.create_tasks(&p.lead(), TaskKind::Label, Some(2))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in ["ana", "ben"] {
        p.add_annotator(&p.lead(), n, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    for (i, name) in ["ana", "ben"].iter().cycle().take(12).enumerate() {
        let next = p
            .next_item(&p.who(name), TaskKind::Label)
            .unwrap_or_else(|e| panic!("{e}"));
        let Some(item) = next.item else { continue };
        let answer = Answer {
            task_id: item.task_id,
            label: Some(LABELS[(i * 7 / 3) % 3].to_string()),
            duration_ms: Some(1_500),
            ..Default::default()
        };
        p.submit(&p.who(name), &answer)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let req = AgreementRequest::default();
    let d = p
        .dashboard(&p.lead(), &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let report = p
        .agreement(&p.lead(), TaskKind::Label, &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let shown = kind(&d, TaskKind::Label);
    assert!(shown.fleiss.value.is_some(), "{:?}", shown.fleiss);
    assert_eq!(shown.fleiss.ci95, report.metrics["fleiss_kappa"].ci95);
    assert_eq!(
        shown.alpha.ci95,
        report.metrics["krippendorff_alpha_nominal"].ci95
    );
    assert_eq!(d.intervals_as_of, Some(d.last_annotation_id));
    // Issue 36: six items leave an interval that reaches over several Landis–Koch bands,
    // so no band is read into the value: "uncertain", in `agreement --json`, on the
    // dashboard and in the report alike.
    let (fleiss, alpha) = (
        &report.metrics["fleiss_kappa"],
        &report.metrics["krippendorff_alpha_nominal"],
    );
    assert_eq!(
        (fleiss.reading, alpha.reading),
        (Some("uncertain"), Some("uncertain"))
    );
    assert_eq!(
        (
            shown.fleiss.reading.as_deref(),
            shown.alpha.reading.as_deref()
        ),
        (fleiss.reading, alpha.reading)
    );
    let json = serde_json::to_value(fleiss).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json["reading"], "uncertain");
    let full = p.report(&p.lead(), &req).unwrap_or_else(|e| panic!("{e}"));
    let page = factdesk_api::report::html::render(&full);
    assert!(page.contains(r#"<span class="reading">uncertain</span>"#));
    // Six answers each measured at 1.5 s, all stamped at one instant: the pace is the
    // work screen's, bounded at one item per three seconds (1,200 an hour).
    let ana = &shown.people[0];
    assert_eq!((ana.answers, ana.active_ms), (6, 9_000));
    assert!(close(ana.pace_per_hour, Some(1_200.0)));
}

/// An answer that picked the trick is rejected as a whole: none of its selections counts
/// for any unit (not even after it superseded a counted answer), yet the dashboard shows
/// it among the annotator's answers as rejected.
#[test]
fn an_answer_that_picked_the_trick_counts_for_no_unit() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 6, &clock);
    p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in ["ana", "ben", "caro"] {
        p.add_annotator(&p.lead(), n, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut state = DashboardState::new();
    let mut caro_tricked = None;
    for round in 0..6 {
        for name in ["ana", "ben", "caro"] {
            let next = p
                .next_item(&p.who(name), TaskKind::Evidence)
                .unwrap_or_else(|e| panic!("{e}"));
            let item = next.item.unwrap_or_else(|| panic!("{name}: no item"));
            let trick = trick_id(&p, &item);
            let first_real = item
                .options
                .iter()
                .find(|o| o.id != trick)
                .map(|o| o.id.clone())
                .unwrap_or_default();
            // Caro picks the trick once, last, with a real sentence: 1 of 6 does not flag her
            // (earlier, 1 of 3 would, and a flag lifts only by the lead's word).
            let mut selected = vec![first_real];
            if name == "caro" && round == 5 {
                selected.push(trick);
                caro_tricked = Some(item.task_id);
            }
            let answer = Answer {
                task_id: item.task_id,
                selected,
                ..Default::default()
            };
            p.submit(&p.who(name), &answer)
                .unwrap_or_else(|e| panic!("{e}"));
            state
                .refresh(&p, &p.lead())
                .unwrap_or_else(|e| panic!("{e}"));
            check(&p, &state.snapshot(0), TaskKind::Evidence);
        }
    }
    let tricked = caro_tricked.unwrap_or_else(|| panic!("caro never answered"));
    let (ratings, _) = p
        .ratings(&p.lead(), TaskKind::Evidence, false)
        .unwrap_or_else(|e| panic!("{e}"));
    let item = format!("task-{tricked}");
    assert!(
        !ratings
            .iter()
            .any(|r| r.annotator == "caro" && r.item == item),
        "the rejected answer still rates its units"
    );
    assert_eq!(ratings.len(), 17);
    let d = state.snapshot(0);
    let caro = kind(&d, TaskKind::Evidence)
        .people
        .iter()
        .find(|a| a.name == "caro")
        .unwrap_or_else(|| panic!("caro"))
        .clone();
    assert!(caro.counted && !caro.flagged, "{caro:?}");
    assert_eq!((caro.answers, caro.rejected), (6, 1));
    assert_eq!(kind(&d, TaskKind::Evidence).answers, 17);
    // Ben corrects one of his answers by picking the trick: the earlier answer leaves the
    // tally, and the dashboard still equals a full recomputation.
    let (ben_task, _) = p
        .ratings(&p.lead(), TaskKind::Evidence, false)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
        .iter()
        .find(|r| r.annotator == "ben")
        .map(|r| (r.item.clone(), ()))
        .unwrap_or_else(|| panic!("ben has no answer"));
    let task_id: i64 = ben_task
        .trim_start_matches("task-")
        .parse()
        .unwrap_or_else(|e| panic!("{e}"));
    let item = p
        .previous_item(&p.who("ben"), TaskKind::Evidence, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no previous item"));
    let item = if item.task_id == task_id {
        item
    } else {
        let mut found = item;
        while found.task_id != task_id {
            found = p
                .previous_item(&p.who("ben"), TaskKind::Evidence, Some(found.task_id))
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|| panic!("task {task_id} not among ben's answers"));
        }
        found
    };
    let trick = trick_id(&p, &item);
    let answer = Answer {
        task_id,
        selected: vec![trick],
        ..Default::default()
    };
    p.submit(&p.who("ben"), &answer)
        .unwrap_or_else(|e| panic!("{e}"));
    state
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    let d = state.snapshot(0);
    check(&p, &d, TaskKind::Evidence);
    assert_eq!(kind(&d, TaskKind::Evidence).answers, 16);
    let mut fresh = DashboardState::new();
    fresh
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut again = fresh.snapshot(0);
    // Following along saw more changes than one read: only the series differs.
    for (a, b) in again.kinds.iter_mut().zip(&d.kinds) {
        a.series.clone_from(&b.series);
    }
    assert_eq!(again, d);
}

#[test]
fn answers_written_through_another_connection_reach_the_dashboard() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut writer = project(dir.path(), 6, &clock);
    writer
        .create_tasks(&writer.lead(), TaskKind::Label, Some(3))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in ["ana", "ben", "caro"] {
        writer
            .add_annotator(&writer.lead(), n, Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    // The app's watcher holds a project of its own on the same file.
    let watcher = Project::open(
        &common::location(dir.path(), "p.fdesk"),
        Box::new(clock.clone()),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut state = DashboardState::new();
    state
        .refresh(&watcher, &watcher.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    let labels = ["SUPPORTED", "REFUTED", "SUPPORTED"];
    for (i, n) in ["ana", "ben", "caro"].iter().enumerate() {
        let item = writer
            .next_item(&writer.who(n), TaskKind::Label)
            .unwrap_or_else(|e| panic!("{e}"))
            .item
            .unwrap_or_else(|| panic!("no item"));
        writer
            .submit(
                &writer.who(n),
                &Answer {
                    task_id: item.task_id,
                    label: Some(labels[i].into()),
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            state
                .refresh(&watcher, &watcher.lead())
                .unwrap_or_else(|e| panic!("{e}")),
            "answer {i} did not reach the watcher"
        );
    }
    check(&watcher, &state.snapshot(0), TaskKind::Label);
}
