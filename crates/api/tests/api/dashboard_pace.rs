//! The dashboard's pace per annotator is the work screen's: the same rolling half hour,
//! breaks left out and at most one item per three seconds (`factdesk_core::pace`); and so
//! is a pack's on the annotator's laptop.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::dashboard::{Dashboard, DashboardState};
use factdesk_api::packs::{PackRequest, PackSession};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{Clock, ManualClock, Project};

use crate::common;
use common::project;
use common::Acting;

/// Answers one label item as `name`, the clock moved on by `gap_ms` first.
fn answer(p: &mut Project, clock: &ManualClock, name: &str, gap_ms: i64) {
    clock.advance_ms(gap_ms);
    let next = p
        .next_item(&p.who(name), TaskKind::Label)
        .unwrap_or_else(|e| panic!("{e}"));
    let item = next.item.unwrap_or_else(|| panic!("no label item left"));
    let answer = Answer {
        task_id: item.task_id,
        label: Some("SUPPORTED".to_string()),
        duration_ms: Some(1_000),
        ..Default::default()
    };
    p.submit(&p.who(name), &answer)
        .unwrap_or_else(|e| panic!("{e}"));
}

fn dashboard_pace(d: &Dashboard, name: &str) -> Option<f64> {
    d.kinds
        .iter()
        .find(|k| k.kind == TaskKind::Label)
        .and_then(|k| k.people.iter().find(|a| a.name == name))
        .unwrap_or_else(|| panic!("{name} is not on the dashboard"))
        .pace_per_hour
}

fn work_pace(p: &Project, name: &str) -> Option<f64> {
    p.paces(&p.who(name))
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .find(|k| k.kind == TaskKind::Label)
        .and_then(|k| k.pace.per_hour)
}

#[test]
fn the_dashboard_pace_is_the_work_screens() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000_000);
    let mut p = project(dir.path(), 30, &clock);
    p.create_tasks(&p.lead(), TaskKind::Label, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let req = AgreementRequest::default();

    // One item every 20 seconds: 180 an hour on both screens.
    for _ in 0..6 {
        answer(&mut p, &clock, "ana", 20_000);
    }
    let d = p
        .dashboard(&p.lead(), &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let pace = dashboard_pace(&d, "ana").unwrap_or_else(|| panic!("no pace"));
    assert_eq!(pace.round(), 180.0);
    assert_eq!(Some(pace), work_pace(&p, "ana"));

    // A burst of ten answers in the same instant (a script, a held key) does not promise
    // thousands an hour: each counts as three seconds.
    for _ in 0..10 {
        answer(&mut p, &clock, "ana", 0);
    }
    let d = p
        .dashboard(&p.lead(), &req)
        .unwrap_or_else(|e| panic!("{e}"));
    let burst = dashboard_pace(&d, "ana").unwrap_or_else(|| panic!("no pace"));
    // 5 gaps of 20 s and 10 of 3 s: 15 items in 130 s.
    assert_eq!(burst.round(), (15.0 * 3_600.0 / 130.0_f64).round());
    assert!(burst <= 1_200.0, "{burst}");
    assert_eq!(Some(burst), work_pace(&p, "ana"));

    // The live dashboard, followed answer by answer, agrees; half an hour after the last
    // answer there is no pace to show (the old figure would have stayed for ever).
    let mut state = DashboardState::new();
    state
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    let now = clock.now_ms();
    assert_eq!(dashboard_pace(&state.snapshot(now), "ana"), Some(burst));
    assert_eq!(
        dashboard_pace(&state.snapshot(now + 31 * 60_000), "ana"),
        None
    );
    clock.advance_ms(31 * 60_000);
    assert_eq!(work_pace(&p, "ana"), None);
}

/// A pack's pace on the annotator's laptop is the same figure: it was the last 20 answers'
/// plain rate, unbounded.
#[test]
fn a_packs_pace_is_the_same_bounded_figure() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000_000);
    let mut p = project(dir.path(), 12, &clock);
    p.create_tasks(&p.lead(), TaskKind::Label, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    p.add_annotator(&p.lead(), "ana", Role::Annotator)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 10,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    p.issue_pack(&p.lead(), &req, &out)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut pack =
        PackSession::open(&out, Box::new(clock.clone())).unwrap_or_else(|e| panic!("{e}"));
    let ana = pack.who("ana");
    let pace = |pack: &PackSession| {
        pack.paces(&ana)
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .find(|k| k.kind == TaskKind::Label)
            .and_then(|k| k.pace.per_hour)
    };
    // Six answers 20 seconds apart, then four in one instant.
    for gap in [20_000, 20_000, 20_000, 20_000, 20_000, 20_000, 0, 0, 0, 0] {
        clock.advance_ms(gap);
        let item = pack
            .next_item(&ana, TaskKind::Label)
            .unwrap_or_else(|e| panic!("{e}"))
            .item
            .unwrap_or_else(|| panic!("no label item left in the pack"));
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".to_string()),
            ..Default::default()
        };
        pack.submit(&ana, &answer).unwrap_or_else(|e| panic!("{e}"));
    }
    // 5 gaps of 20 s and 4 of 3 s: 9 items in 112 s, not the thousands the burst's own
    // rate would give.
    let shown = pace(&pack).unwrap_or_else(|| panic!("no pace"));
    assert_eq!(shown.round(), (9.0 * 3_600.0 / 112.0_f64).round());
    clock.advance_ms(31 * 60_000);
    assert_eq!(pace(&pack), None, "half an hour later the pace is gone");
}
