//! Issue 36: an annotator reports a problem with an item they cannot answer; the item goes
//! back to the pool and the lead reads the report, with the claim's number, until marked
//! seen. Only an item given to the reporter can be reported, in a few lines, a few a minute.

use factdesk_api::annotators::Role;
use factdesk_api::problems::REPORTS_A_MINUTE;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock};

use crate::common;
use common::{code, project, Acting};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_reported_item_goes_back_to_the_pool_and_the_lead_reads_the_report() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let item = must(p.next_item(&p.who("ana"), TaskKind::Evidence)).item;
    let item = item.unwrap_or_else(|| panic!("no item"));
    // Not given to ben: refused, and nothing is written.
    assert_eq!(
        code(p.report_problem(&p.who("ben"), item.task_id, "cut off")),
        ErrorCode::NotFound
    );
    assert_eq!(
        code(p.report_problem(&p.who("ana"), item.task_id, "   ")),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        code(p.report_problem(&p.who("ana"), item.task_id, &"x".repeat(2_001))),
        ErrorCode::InvalidInput
    );
    assert!(must(p.problem_reports(&p.lead())).is_empty());
    must(p.report_problem(
        &p.who("ana"),
        item.task_id,
        "  The sentences are cut off mid-word. ",
    ));
    // The item is free for others at once.
    let bens = must(p.next_item(&p.who("ben"), TaskKind::Evidence)).item;
    assert_eq!(bens.map(|i| i.claim), Some(item.claim.clone()));
    // An annotator cannot read the list; the lead reads it with the claim's number.
    assert_eq!(
        code(p.as_lead(&p.who("ana"), "read problem reports")),
        ErrorCode::Forbidden
    );
    let reports = must(p.problem_reports(&p.lead()));
    assert_eq!(reports.len(), 1);
    let r = &reports[0];
    assert_eq!(
        (r.annotator.as_str(), r.text.as_str(), r.kind),
        (
            "ana",
            "The sentences are cut off mid-word.",
            TaskKind::Evidence
        )
    );
    assert_eq!(r.claim, item.claim);
    let view = must(p.claim_view(&p.lead(), &format!("#{}", r.claim_number)));
    assert_eq!(view.text, item.claim);
    assert_eq!(
        code(p.as_lead(&p.who("ana"), "mark problem reports seen")),
        ErrorCode::Forbidden
    );
    must(p.mark_problem_seen(&p.lead(), r.id));
    assert!(must(p.problem_reports(&p.lead())).is_empty());
    assert_eq!(
        code(p.mark_problem_seen(&p.lead(), r.id)),
        ErrorCode::NotFound
    );
}

#[test]
fn reports_in_a_loop_are_held_to_a_few_a_minute() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 40, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let report = |p: &mut factdesk_api::Project| {
        let item = must(p.next_item(&p.who("ana"), TaskKind::Evidence)).item;
        let item = item.unwrap_or_else(|| panic!("no item"));
        p.report_problem(&p.who("ana"), item.task_id, "no")
    };
    for _ in 0..REPORTS_A_MINUTE {
        must(report(&mut p));
    }
    assert_eq!(code(report(&mut p)), ErrorCode::RateLimited);
    clock.advance_ms(61_000);
    must(report(&mut p));
}
