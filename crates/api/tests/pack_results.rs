//! "Return results" in a pack: the results file alone (no log beside it) holds every
//! answer made so far, merges into the lead's project, and only a pack can return it.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::PackRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};

mod common;
use common::project;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_results_file_alone_carries_the_answers_back_to_the_lead() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut lead = project(dir.path(), 4, &clock);
    ok(lead.create_tasks(TaskKind::Label, Some(2)));
    ok(lead.add_annotator("ana", Role::Annotator));
    let pack_path = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 3,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    ok(lead.issue_pack(&req, &pack_path));

    // The annotator's laptop: answer two items and return the results, pack still open.
    let pack = ok(Project::open(&pack_path, Box::new(clock.clone())));
    let mut pack = pack;
    for _ in 0..2 {
        let item = ok(pack.next_item("ana", TaskKind::Label))
            .item
            .unwrap_or_else(|| panic!("the pack has items"));
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".to_string()),
            ..Default::default()
        };
        ok(pack.submit("ana", &answer));
    }
    let results = ok(pack.return_results(None));
    assert_eq!(results, dir.path().join("ana.results.fdpack"));

    // Only the results file travels: no -wal or -shm beside it.
    let travelled = dir.path().join("sent").join("ana.results.fdpack");
    ok(std::fs::create_dir_all(
        travelled.parent().unwrap_or(dir.path()),
    ));
    ok(std::fs::copy(&results, &travelled));
    let report = ok(lead.merge_pack(&travelled));
    assert_eq!((report.added, report.released), (2, 1));
    let packs = ok(lead.packs());
    assert_eq!(packs[0].state, "returned");
    assert_eq!(packs[0].merged, 2);

    // Returning again replaces the earlier results file.
    let again = ok(pack.return_results(None));
    assert_eq!(again, results);
}

#[test]
fn a_project_has_no_results_to_return_and_a_pack_is_never_overwritten() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut lead = project(dir.path(), 2, &clock);
    let err = lead
        .return_results(None)
        .err()
        .unwrap_or_else(|| panic!("a project returned results"));
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert!(err.message.contains("not a pack"), "{}", err.message);

    ok(lead.create_tasks(TaskKind::Label, Some(1)));
    ok(lead.add_annotator("ana", Role::Annotator));
    let pack_path = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 1,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    ok(lead.issue_pack(&req, &pack_path));
    let pack = ok(Project::open(&pack_path, Box::new(clock.clone())));
    let before = ok(std::fs::read(&pack_path));
    let err = pack
        .return_results(Some(&pack_path))
        .err()
        .unwrap_or_else(|| panic!("the pack was written over itself"));
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert_eq!(ok(std::fs::read(&pack_path)), before);
}

#[test]
fn results_never_replace_another_project() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut lead = project(dir.path(), 2, &clock);
    ok(lead.create_tasks(TaskKind::Label, Some(1)));
    ok(lead.add_annotator("ana", Role::Annotator));
    let pack_path = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 1,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    ok(lead.issue_pack(&req, &pack_path));
    drop(lead);
    let lead_path = dir.path().join("p.fdesk");
    let before = ok(std::fs::read(&lead_path));
    let pack = ok(Project::open(&pack_path, Box::new(clock.clone())));
    let err = pack
        .return_results(Some(&lead_path))
        .err()
        .unwrap_or_else(|| panic!("the results replaced the lead's project"));
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(
        err.message
            .contains("is a Factdesk project; writing there would destroy it"),
        "{}",
        err.message
    );
    assert_eq!(ok(std::fs::read(&lead_path)), before);
}
