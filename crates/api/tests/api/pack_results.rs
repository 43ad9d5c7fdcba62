//! A pack coming back: "Return results" alone carries the answers, the merge reads the
//! pack without changing a byte of it, takes each answer through submit's checks (a
//! hostile pack gets nothing invalid in), and two merges at once add the answers once.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::{PackRequest, PackSession, Unanswered};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use crate::common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// 2026-09-21, so that years 2000 and 2100 are both outside a pack's window.
const NOW: i64 = 1_790_000_000_000;
const DAY: i64 = 86_400_000;

fn issue(lead: &mut Project, dir: &Path, kind: TaskKind, count: u64) -> PathBuf {
    let path = dir.join(format!("ana-{}.fdpack", kind.as_str()));
    let req = PackRequest {
        annotator: "ana".to_string(),
        count,
        kind: Some(kind),
        expires_days: 7,
    };
    ok(lead.issue_pack(&lead.lead(), &req, &path));
    path
}

fn label_two(pack: &mut PackSession) {
    for _ in 0..2 {
        let item = ok(pack.next_item(&pack.who("ana"), TaskKind::Label))
            .item
            .unwrap_or_else(|| panic!("the pack has items"));
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".to_string()),
            ..Default::default()
        };
        ok(pack.submit(&pack.who("ana"), &answer));
    }
}

/// Two items of the pack at `path` answered on the annotator's laptop, the pack closed.
fn label_two_and_close(path: &Path, clock: &ManualClock) {
    let mut pack = ok(PackSession::open(path, Box::new(clock.clone())));
    label_two(&mut pack);
}

fn sha(path: &Path) -> String {
    Sha256::digest(ok(std::fs::read(path)))
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn beside(path: &Path) -> Vec<String> {
    ["-wal", "-shm", "-journal"]
        .iter()
        .map(|s| format!("{}{s}", path.display()))
        .filter(|p| Path::new(p).exists())
        .collect()
}

fn lead(dir: &Path, clock: &ManualClock, overlap: u32) -> Project {
    let mut lead = project(dir, 4, clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Label, Some(overlap)));
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(overlap)));
    ok(lead.add_annotator(&lead.lead(), "ana", Role::Annotator));
    lead
}

#[test]
fn the_results_file_alone_carries_the_answers_back_to_the_lead() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let pack_path = issue(&mut lead, dir.path(), TaskKind::Label, 3);

    // The annotator's laptop: answer two items and return the results, pack still open.
    let mut pack = ok(PackSession::open(&pack_path, Box::new(clock.clone())));
    label_two(&mut pack);
    let results = ok(pack.return_results(None));
    assert_eq!(results, dir.path().join("ana-label.results.fdpack"));

    // Only the results file travels.
    let travelled = dir.path().join("sent").join("ana.results.fdpack");
    ok(std::fs::create_dir_all(
        travelled.parent().unwrap_or(dir.path()),
    ));
    ok(std::fs::copy(&results, &travelled));
    let report = ok(lead.merge_pack(&lead.lead(), &travelled));
    assert_eq!((report.added, report.released), (2, 1));
    let packs = ok(lead.packs(&lead.lead()));
    assert_eq!(packs[0].state, "returned");
    assert_eq!(packs[0].merged, 2);

    // Returning again replaces the earlier results file; never the pack itself.
    let again = ok(pack.return_results(None));
    assert_eq!(again, results);
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
    let mut lead = common::file_project(dir.path(), 2, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Label, Some(1)));
    ok(lead.add_annotator(&lead.lead(), "ana", Role::Annotator));
    let pack_path = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 1,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    ok(lead.issue_pack(&lead.lead(), &req, &pack_path));
    drop(lead);
    let lead_path = dir.path().join("p.fdesk");
    let before = ok(std::fs::read(&lead_path));
    let pack = ok(PackSession::open(&pack_path, Box::new(clock.clone())));
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

#[test]
fn a_merge_never_changes_a_byte_of_the_pack_and_merges_one_on_a_read_only_path() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let pack_path = issue(&mut lead, dir.path(), TaskKind::Label, 3);
    label_two_and_close(&pack_path, &clock);
    let folder = dir.path().join("stick");
    ok(std::fs::create_dir(&folder));
    let stick = folder.join("ana.fdpack");
    ok(std::fs::copy(&pack_path, &stick));
    let hash = sha(&stick);
    use std::os::unix::fs::PermissionsExt;
    ok(std::fs::set_permissions(
        &stick,
        std::fs::Permissions::from_mode(0o444),
    ));
    ok(std::fs::set_permissions(
        &folder,
        std::fs::Permissions::from_mode(0o555),
    ));
    let merged = lead.merge_pack(&lead.lead(), &stick);
    let again = lead.merge_pack(&lead.lead(), &stick);
    ok(std::fs::set_permissions(
        &folder,
        std::fs::Permissions::from_mode(0o755),
    ));
    let merged = ok(merged);
    assert_eq!(merged.added, 2);
    assert_eq!((ok(again).added, merged.refused.len()), (0, 0));
    assert_eq!(sha(&stick), hash, "the merge changed the pack");
    assert_eq!(beside(&stick), Vec::<String>::new());
    // The same for a pack merged from where it was written.
    let hash = sha(&pack_path);
    ok(lead.merge_pack(&lead.lead(), &pack_path));
    assert_eq!(sha(&pack_path), hash);
    assert_eq!(beside(&pack_path), Vec::<String>::new());
}

/// Appends a raw answer row to a pack, as an annotator who owns the file can.
fn forge(path: &Path, uuid: &str, task_id: i64, answer: &str, created_at: i64) {
    let conn = ok(rusqlite::Connection::open(path));
    ok(conn.pragma_update(None, "foreign_keys", false));
    ok(conn.execute(
        "INSERT INTO answers (uuid, task_id, answer, created_at) VALUES (?1, ?2, ?3, ?4)",
        rusqlite::params![uuid, task_id, answer, created_at],
    ));
}

#[test]
fn every_answer_of_a_returned_pack_goes_through_submits_checks() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let path = issue(&mut lead, dir.path(), TaskKind::Evidence, 4);
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let mut items = Vec::new();
    while let Some(item) = ok(pack.next_item(&pack.who("ana"), TaskKind::Evidence)).item {
        // One honest answer: the first option that is not the trick.
        let trick = trick_option(&lead, &item);
        let pick = item
            .options
            .iter()
            .find(|o| Some(&o.id) != trick.as_ref())
            .map(|o| o.id.clone())
            .unwrap_or_default();
        // One honest answer; the others say "no evidence", and are forged again below.
        let answer = if items.is_empty() {
            Answer {
                task_id: item.task_id,
                selected: vec![pick.clone()],
                ..Default::default()
            }
        } else {
            Answer {
                task_id: item.task_id,
                no_evidence: true,
                ..Default::default()
            }
        };
        ok(pack.submit(&pack.who("ana"), &answer));
        items.push((item.task_id, pick));
    }
    drop(pack);
    assert_eq!(items.len(), 4);
    let (t1, o1) = items[0].clone();
    let (t2, o2) = items[1].clone();
    let (t3, o3) = items[2].clone();
    let (t4, o4) = items[3].clone();
    let good =
        |t: i64, o: &str, extra: &str| format!("{{\"task_id\":{t},\"selected\":[\"{o}\"]{extra}}}");
    let year_2000 = 946_684_800_000;
    let year_2100 = 4_102_444_800_000;
    forge(&path, "h-foo", t2, "{\"foo\":1}", NOW);
    forge(&path, "h-type", t2, "{\"selected\":\"x\"}", NOW);
    forge(
        &path,
        "h-both",
        t2,
        &format!("{{\"task_id\":{t2},\"selected\":[\"{o2}\"],\"no_evidence\":true}}"),
        NOW,
    );
    // On another item: a pack holding a sixth answer to one item is refused whole.
    forge(&path, "h-text", t3, "not an answer at all", NOW);
    forge(&path, "h-2000", t2, &good(t2, &o2, ""), year_2000);
    forge(
        &path,
        "h-2100",
        t3,
        &good(t3, &o3, ",\"duration_ms\":9223372036854775807"),
        year_2100,
    );
    forge(
        &path,
        "h-negative",
        t4,
        &good(t4, &o4, ",\"duration_ms\":-5"),
        NOW,
    );
    forge(&path, "h-option", t1, &good(t1, "o000000000000", ""), NOW);
    forge(&path, "h-task", 12345, &good(12345, &o1, ""), NOW);
    clock.advance_ms(DAY);
    let report = ok(lead.merge_pack(&lead.lead(), &path));
    let reasons: Vec<(String, String)> = report
        .refused
        .iter()
        .map(|r| (r.uuid.clone(), r.reason.clone()))
        .collect();
    let refused: Vec<&str> = reasons.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        refused,
        ["h-foo", "h-type", "h-both", "h-text", "h-option", "h-task"],
        "{reasons:?}"
    );
    let reason = |u: &str| {
        reasons
            .iter()
            .find(|r| r.0 == u)
            .map(|r| r.1.clone())
            .unwrap_or_default()
    };
    assert!(reason("h-foo").contains("unknown field"), "{reasons:?}");
    assert!(reason("h-both").contains("not both"), "{reasons:?}");
    assert!(reason("h-option").contains("unknown option"), "{reasons:?}");
    assert!(reason("h-task").contains("not in this pack"), "{reasons:?}");
    // The honest answer, the three no-evidence answers and the three answers out of range.
    assert_eq!((report.added, report.clamped), (7, 3));
    let conn = lead.store().read();
    let stored: Vec<(String, i64, Option<i64>)> = {
        let mut stmt = ok(conn.prepare("SELECT answer, created_at, duration_ms FROM annotations"));
        ok(
            ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))))
                .collect::<Result<_, _>>(),
        )
    };
    assert_eq!(stored.len(), 7);
    for (answer, at, duration) in &stored {
        let v: serde_json::Value = ok(serde_json::from_str(answer));
        let chosen = v["selected"].as_array().map_or(0, Vec::len);
        assert!(
            (chosen > 0) != (v["no_evidence"] == true),
            "a contradictory or empty answer was stored: {answer}"
        );
        assert!(
            (NOW..=NOW + DAY).contains(at),
            "a time out of the pack's window: {at}"
        );
        assert!(
            duration.is_none_or(|d| (0..=DAY).contains(&d)),
            "a duration out of range: {duration:?}"
        );
    }
}

#[test]
fn two_merges_of_one_pack_at_once_add_its_answers_once() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let path = issue(&mut lead, dir.path(), TaskKind::Label, 4);
    label_two_and_close(&path, &clock);
    let project = common::location(dir.path(), "p.fdesk");
    drop(lead);
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let merges: Vec<_> = (0..2)
        .map(|_| {
            let (project, path, clock, barrier) = (
                project.clone(),
                path.clone(),
                clock.clone(),
                barrier.clone(),
            );
            std::thread::spawn(move || {
                let mut lead = ok(Project::open(&project, Box::new(clock)));
                barrier.wait();
                lead.merge_pack(&lead.lead(), &path)
            })
        })
        .collect();
    let outcomes: Vec<_> = merges
        .into_iter()
        .map(|m| m.join().unwrap_or_else(|_| panic!("a merge panicked")))
        .collect();
    let added: u64 = outcomes.iter().flatten().map(|r| r.added).sum();
    assert_eq!(added, 2, "{outcomes:?}");
    for o in &outcomes {
        match o {
            Ok(r) => assert!(r.added == 2 || r.already == 2, "{r:?}"),
            Err(e) => assert!(e.message.contains("already"), "{e}"),
        }
    }
    let lead = ok(Project::open(&project, Box::new(clock.clone())));
    let answers: i64 =
        ok(lead
            .store()
            .read()
            .query_row("SELECT count(*) FROM annotations", [], |r| r.get(0)));
    assert_eq!(answers, 2);
}

#[test]
fn a_pack_with_changes_in_a_write_ahead_log_is_refused_not_merged_as_unanswered() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let path = issue(&mut lead, dir.path(), TaskKind::Label, 3);
    // Another program (a database browser) switches the pack to WAL and leaves a change
    // in the log while it still has the file open.
    let other = ok(rusqlite::Connection::open(&path));
    let _: String = ok(other.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)));
    ok(other.execute_batch(
        "PRAGMA wal_autocheckpoint=0; CREATE TABLE scratch (x); INSERT INTO scratch VALUES (1);",
    ));
    let err = lead
        .merge_pack(&lead.lead(), &path)
        .err()
        .unwrap_or_else(|| panic!("a pack with a pending log merged"));
    assert!(
        err.message.contains("not closed cleanly"),
        "{}",
        err.message
    );
    drop(other);
}

#[test]
fn answers_of_the_wrong_type_are_refused_one_by_one_and_a_rebuilt_table_whole() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let path = issue(&mut lead, dir.path(), TaskKind::Label, 3);
    label_two_and_close(&path, &clock);
    // The annotator rebuilds the answers table without its constraints (so that it can
    // hold a copied id): the schema is not the one Factdesk writes, and the pack is
    // refused whole (issue 31).
    let rebuilt = dir.path().join("rebuilt.fdpack");
    ok(std::fs::copy(&path, &rebuilt));
    {
        let conn = ok(rusqlite::Connection::open(&rebuilt));
        ok(conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             ALTER TABLE answers RENAME TO kept;
             CREATE TABLE answers (seq INTEGER PRIMARY KEY, uuid, task_id, answer, created_at, supersedes);
             INSERT INTO answers SELECT * FROM kept;
             DROP TABLE kept;
             INSERT INTO answers (uuid, task_id, answer, created_at)
                 SELECT uuid, task_id, answer, created_at FROM answers WHERE seq = (SELECT min(seq) FROM answers);",
        ));
    }
    let err = lead
        .merge_pack(&lead.lead(), &rebuilt)
        .err()
        .unwrap_or_else(|| panic!("a pack with a rebuilt answers table merged"));
    assert!(
        err.message
            .contains("its table \"answers\" is not as Factdesk writes it"),
        "{}",
        err.message
    );
    // Within the schema as written, a column can still hold a value of the wrong type
    // (SQLite keeps text that does not read as a number in an integer column): that
    // answer alone is refused.
    {
        let conn = ok(rusqlite::Connection::open(&path));
        ok(conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO answers (uuid, task_id, answer, created_at)
                 VALUES ('typed-wrong', 'abc', '{\"label\":\"SUPPORTED\"}', 1);",
        ));
    }
    let report = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!(report.added, 2, "{report:?}");
    let reasons: Vec<&str> = report.refused.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(
        reasons,
        ["its task_id is text where integer belongs"],
        "{reasons:?}"
    );
}

#[test]
fn a_pack_switched_to_a_write_ahead_log_is_refused_even_without_its_log() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(NOW);
    let mut lead = lead(dir.path(), &clock, 2);
    let path = issue(&mut lead, dir.path(), TaskKind::Label, 3);
    {
        let other = ok(rusqlite::Connection::open(&path));
        let _: String = ok(other.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)));
    }
    // Only the pack travelled; any answers in a -wal file stayed behind.
    let _ = std::fs::remove_file(format!("{}-wal", path.display()));
    let err = lead
        .merge_pack(&lead.lead(), &path)
        .err()
        .unwrap_or_else(|| panic!("a pack in WAL mode merged as if it held everything"));
    assert!(
        err.message.contains("not closed cleanly"),
        "{}",
        err.message
    );
    // Opening it in Factdesk switches it back; then it merges (nobody answered it, so the
    // lead says to take the work back).
    drop(ok(PackSession::open(&path, Box::new(clock.clone()))));
    ok(lead.merge_pack_with(&lead.lead(), &path, Unanswered::GiveBack));
}
