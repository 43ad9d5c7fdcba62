//! The dashboard's pace per annotator is the work screen's: the same rolling half hour,
//! breaks left out and at most one item per three seconds (`factdesk_core::pace`).

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::dashboard::{Dashboard, DashboardState};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{Clock, ManualClock, Project};

mod common;
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
