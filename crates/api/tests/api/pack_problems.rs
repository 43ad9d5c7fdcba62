//! Issue 36, item 9, for packs: an annotator working offline reports a problem with an
//! item in the pack; the item counts as dealt with there, and the merge puts the report
//! in the lead's list (once, however often the pack is merged) and the item back in the
//! pool, as a report made in the project does. A forged report is refused whole, naming
//! its table, row and field, with the project unchanged; a pack made before reports
//! merges as it is.

use factdesk_api::annotate::Answer;
use factdesk_api::packs::PackSession;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::path::{Path, PathBuf};

use crate::common;
use common::{code, doctored, issued_label_pack, project_values, Acting};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const NOW: i64 = 1_790_000_000_000;

/// A project of `claims` label items of overlap 1, with ana and ben, and a pack of all
/// of them for ana.
fn issued(dir: &Path, clock: &ManualClock, claims: usize) -> (Project, PathBuf) {
    issued_label_pack(dir, clock, claims, 1, &["ana", "ben"])
}

fn label(task_id: i64) -> Answer {
    Answer {
        task_id,
        label: Some("SUPPORTED".to_string()),
        ..Default::default()
    }
}

/// Answers what is left of the pack; how many.
fn answer_the_rest(pack: &mut PackSession) -> usize {
    let mut n = 0;
    while let Some(item) = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item {
        ok(pack.submit(&pack.who("ana"), &label(item.task_id)));
        n += 1;
    }
    n
}

/// The pack of [`issued`] with its first item reported and the others answered; the
/// reported item's claim.
fn reported_pack(dir: &Path, clock: &ManualClock) -> (Project, PathBuf, String) {
    let (lead, path) = issued(dir, clock, 3);
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let first = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item;
    let first = first.unwrap_or_else(|| panic!("an empty pack"));
    ok(pack.report_problem(
        &pack.who("ana"),
        first.task_id,
        " The claim says two things. ",
    ));
    assert_eq!(answer_the_rest(&mut pack), 2);
    (lead, path, first.claim)
}

#[test]
fn a_problem_reported_in_a_pack_reaches_the_leads_list_once_and_its_item_the_pool() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path) = issued(dir.path(), &clock, 3);
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let ana = pack.who("ana");
    let first = ok(pack.next_item(&ana, TaskKind::Label)).item;
    let first = first.unwrap_or_else(|| panic!("an empty pack"));
    // The project's rules: a few words, at most REPORT_CHARS, on an item of the pack.
    let task = first.task_id;
    assert_eq!(
        code(pack.report_problem(&ana, task, "  ")),
        ErrorCode::InvalidInput
    );
    let long = "x".repeat(factdesk_api::problems::REPORT_CHARS + 1);
    assert_eq!(
        code(pack.report_problem(&ana, task, &long)),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        code(pack.report_problem(&ana, task + 1, "cut")),
        ErrorCode::NotFound
    );
    // Nothing a reader can see, or a NUL (which PostgreSQL refuses): refused at once.
    for unseen in ["\u{200B}\u{2800}\u{3164}", "cut\u{0}off"] {
        assert_eq!(
            code(pack.report_problem(&ana, task, unseen)),
            ErrorCode::InvalidInput
        );
    }
    clock.advance_ms(1_000);
    ok(pack.report_problem(&ana, task, " The claim says two things. "));
    // Dealt with: not served again, counted done, takes no answer nor a second report.
    let next = ok(pack.next_item(&ana, TaskKind::Label)).item;
    let next = next.unwrap_or_else(|| panic!("nothing after the reported item"));
    assert_ne!(next.task_id, task);
    assert_eq!((next.pace.done, next.pace.total), (1, 3));
    assert_eq!(
        code(pack.submit(&ana, &label(task))),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        code(pack.report_problem(&ana, task, "again")),
        ErrorCode::Conflict
    );
    assert!(!ok(pack.skip_item(&ana, task)));
    // Going back shows the reported item with what was reported.
    let back = ok(pack.previous_item(&ana, TaskKind::Label, None));
    let back = back.unwrap_or_else(|| panic!("no earlier item"));
    assert_eq!(back.task_id, task);
    assert_eq!(back.reported.as_deref(), Some("The claim says two things."));
    clock.advance_ms(1_000);
    assert_eq!(answer_the_rest(&mut pack), 2);
    drop(pack);

    let before = ok(lead.problem_reports(&lead.lead())).len();
    let report = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!(
        (report.added, report.problems, report.released),
        (2, 1, 1),
        "{report:?}"
    );
    let reports = ok(lead.problem_reports(&lead.lead()));
    assert_eq!(reports.len(), before + 1);
    let r = &reports[before];
    assert_eq!(
        (
            r.annotator.as_str(),
            r.text.as_str(),
            r.claim.as_str(),
            r.kind,
            r.at
        ),
        (
            "ana",
            "The claim says two things.",
            first.claim.as_str(),
            TaskKind::Label,
            NOW + 1_000
        )
    );
    // The item is back in the pool, as a live report leaves it: ben is served it.
    let bens = ok(lead.next_item(&lead.who("ben"), TaskKind::Label)).item;
    assert_eq!(bens.map(|i| i.claim), Some(first.claim.clone()));
    // Merged again, and again once the lead has marked the report seen: nothing new.
    let again = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!(
        (again.added, again.already, again.problems),
        (0, 2, 0),
        "{again:?}"
    );
    ok(lead.mark_problem_seen(&lead.lead(), r.id));
    let values = project_values(&lead);
    let third = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!((third.problems, third.already), (0, 2));
    assert!(ok(lead.problem_reports(&lead.lead())).is_empty());
    assert_eq!(project_values(&lead), values);
}

#[test]
fn a_pack_holding_only_a_report_is_merged_not_taken_for_the_file_as_issued() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path) = issued(dir.path(), &clock, 2);
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let item = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item;
    let item = item.unwrap_or_else(|| panic!("an empty pack"));
    ok(pack.report_problem(&pack.who("ana"), item.task_id, "cut off"));
    drop(pack);
    let report = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!((report.added, report.problems, report.released), (0, 1, 2));
}

/// Fifteenth hostile pass: a report written into a copy of the pack after the pack was
/// merged fell on an item the merge had given back, which someone else may have
/// answered since. Only an item the pack still holds takes a report.
#[test]
fn a_report_written_after_the_pack_was_merged_is_not_taken() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path) = issued(dir.path(), &clock, 2);
    let copy = dir.path().join("ana-copy.fdpack");
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let first = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item;
    let first = first.unwrap_or_else(|| panic!("an empty pack"));
    ok(pack.submit(&pack.who("ana"), &label(first.task_id)));
    drop(pack);
    ok(std::fs::copy(&path, &copy));
    let merged = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!((merged.added, merged.released), (1, 1), "{merged:?}");

    let mut late = ok(PackSession::open(&copy, Box::new(clock.clone())));
    let second = ok(late.next_item(&late.who("ana"), TaskKind::Label)).item;
    let second = second.unwrap_or_else(|| panic!("nothing left in the copy"));
    ok(late.report_problem(&late.who("ana"), second.task_id, "cut off"));
    drop(late);
    let again = ok(lead.merge_pack(&lead.lead(), &copy));
    assert_eq!(
        (again.added, again.problems, again.released),
        (0, 0, 0),
        "{again:?}"
    );
    assert!(ok(lead.problem_reports(&lead.lead())).is_empty());
}

/// Adds a report by hand on the pack's item at `position` (1 is its first).
fn report_on(position: u32, text: &str) -> String {
    format!(
        "INSERT INTO problems (task_id, text, created_at)
         SELECT task_id, {text}, {NOW} FROM items WHERE position = {position};"
    )
}

#[test]
fn a_forged_report_is_refused_whole_naming_its_row_and_the_project_is_unchanged() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path, _) = reported_pack(dir.path(), &clock);
    // 2,001 characters: `zeroblob` gives as many bytes, `hex` two zeros a byte.
    let long = "replace(hex(zeroblob(2001)), '00', 'x')";
    let cases = [
        (
            "long.fdpack",
            report_on(2, long),
            "its problems table, row 2, field text: a report is at most 2000 characters",
        ),
        (
            "stranger.fdpack",
            format!("INSERT INTO problems (task_id, text, created_at) VALUES (12345, 'x', {NOW});"),
            "its problems table, row 2, field task_id: task 12345 is not in this pack",
        ),
        (
            "twice.fdpack",
            report_on(1, "'again'"),
            "its problems table, row 2, field task_id: a second report on task",
        ),
        (
            "blank.fdpack",
            report_on(2, "'   '"),
            "its problems table, row 2, field text: say what the problem is",
        ),
        (
            "nul.fdpack",
            report_on(2, "'cut' || char(0) || 'off'"),
            "its problems table, row 2, field text: a report may not hold control characters",
        ),
        (
            "invisible.fdpack",
            report_on(2, "char(8203, 10240, 12644, 8288, 65279)"),
            "its problems table, row 2, field text: say what the problem is",
        ),
        (
            "blob.fdpack",
            report_on(2, "x'00ff'"),
            "its problems table, row 2, field text: it is blob where text belongs",
        ),
        (
            "many.fdpack",
            [
                report_on(2, "'a'"),
                report_on(3, "'b'"),
                report_on(3, "'c'"),
            ]
            .concat(),
            "its problems table holds 4 reports for 3 items, more than one an item",
        ),
        (
            "huge.fdpack",
            report_on(2, "replace(hex(zeroblob(9000)), '00', 'x')"),
            "a report in its problems table (field text) takes",
        ),
    ];
    let before = project_values(&lead);
    for (name, sql, why) in &cases {
        let forged = doctored(&path, name, sql);
        let err = lead
            .merge_pack(&lead.lead(), &forged)
            .err()
            .unwrap_or_else(|| panic!("{name} merged"));
        let head = format!("{}: refused, nothing was changed: ", forged.display());
        assert!(
            err.message.starts_with(&head) && err.message.contains(why),
            "{name}: {}",
            err.message
        );
        assert_eq!(project_values(&lead), before, "{name} changed the project");
    }
    // The pack as ana returned it merges.
    let report = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!((report.added, report.problems), (2, 1));
}

/// What a pack of version 1 is: no `problems` table.
const VERSION_1: &str = "DROP TRIGGER problems_kept; DROP TRIGGER problems_not_deleted;
    DROP TABLE problems; PRAGMA user_version = 1;";

#[test]
fn a_pack_made_before_reports_merges_and_one_from_a_newer_factdesk_is_refused() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path) = issued(dir.path(), &clock, 3);
    let old = doctored(&path, "old.fdpack", VERSION_1);
    let newer = doctored(&path, "newer.fdpack", "PRAGMA user_version = 3;");
    let err = lead
        .merge_pack(&lead.lead(), &newer)
        .err()
        .map(|e| e.message);
    let err = err.unwrap_or_else(|| panic!("a newer pack merged"));
    assert!(err.contains("a pack written by a newer Factdesk"), "{err}");
    // Answered as it is, in a Factdesk of before: merged with no reports.
    {
        let conn = ok(rusqlite::Connection::open(&old));
        let uuid = "00000000-0000-4000-8000-000000000001";
        let task: i64 = ok(conn.query_row(
            "SELECT task_id FROM items WHERE position = 1",
            [],
            |r| r.get(0),
        ));
        let answer = ok(serde_json::to_string(&label(task)));
        ok(conn.execute(
            "INSERT INTO answers (uuid, task_id, answer, created_at) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![uuid, task, answer, NOW],
        ));
    }
    let report = ok(lead.merge_pack(&lead.lead(), &old));
    assert_eq!(
        (report.added, report.problems, report.released),
        (1, 0, 2),
        "{report:?}"
    );
}

#[test]
fn a_pack_made_before_reports_takes_one_once_opened_in_this_factdesk() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let (mut lead, path) = issued(dir.path(), &clock, 2);
    let old = doctored(&path, "old.fdpack", VERSION_1);
    let mut pack = ok(PackSession::open(&old, Box::new(clock.clone())));
    let item = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item;
    let item = item.unwrap_or_else(|| panic!("an empty pack"));
    ok(pack.report_problem(&pack.who("ana"), item.task_id, "cut off"));
    assert_eq!(answer_the_rest(&mut pack), 1);
    drop(pack);
    let report = ok(lead.merge_pack(&lead.lead(), &old));
    assert_eq!((report.added, report.problems), (1, 1), "{report:?}");
    assert_eq!(ok(lead.problem_reports(&lead.lead())).len(), 1);
}
