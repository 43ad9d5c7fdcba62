//! Packs through the api: a round trip equal to working in the project, refusals of
//! altered, foreign, expired and repeated packs, and what a pack file holds.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::packs::PackRequest;
use factdesk_api::settings::trick_sentence;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::path::{Path, PathBuf};

mod common;
use common::{every_value, project};

const NAMES: [&str; 3] = ["ana", "ben", "cal"];
const TEMPLATE: &str = "It is not true that {claim}";

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project of four claims with evidence and labelling tasks for three annotators.
fn lead(dir: &Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, 4, clock);
    ok(p.create_tasks(TaskKind::Evidence, Some(3)));
    ok(p.create_tasks(TaskKind::Label, Some(3)));
    ok(p.add_annotator("maria", Role::Lead));
    for n in NAMES {
        ok(p.add_annotator(n, Role::Annotator));
    }
    p
}

/// Each annotator's evidence choice, from the texts shown only, so the same person picks
/// the same sentences wherever the item is served.
fn evidence_answer(name: &str, item: &Item) -> Answer {
    let trick = trick_sentence(TEMPLATE, &item.claim);
    let pick = |f: &dyn Fn(&str) -> bool| -> Vec<String> {
        item.options
            .iter()
            .filter(|o| f(&o.text))
            .map(|o| o.id.clone())
            .collect()
    };
    let selected = match name {
        "ana" => pick(&|t| t != trick && t.contains("lighthouse")),
        "ben" => pick(&|t| t != trick && (t.contains("lighthouse") || t.contains("harbour"))),
        // Cal falls for the trick on town 0.
        _ if item.claim.starts_with("Town 0") => pick(&|t| t == trick),
        _ => pick(&|t| t != trick && (t.contains("ferry") || t.contains("lighthouse"))),
    };
    Answer {
        task_id: item.task_id,
        no_evidence: selected.is_empty(),
        selected,
        ..Default::default()
    }
}

fn label_answer(name: &str, task_id: i64) -> Answer {
    let labels = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"];
    let i = (task_id as usize + name.len() * usize::from(name != "ana")) % 3;
    Answer {
        task_id,
        label: Some(labels[i].to_string()),
        ..Default::default()
    }
}

fn issue(p: &mut Project, dir: &Path, name: &str, kind: TaskKind) -> PathBuf {
    let out = (1..)
        .map(|i| dir.join(format!("{name}-{}-{i}.fdpack", kind.as_str())))
        .find(|p| !p.exists())
        .unwrap_or_default();
    let req = PackRequest {
        annotator: name.to_string(),
        count: 10,
        kind: Some(kind),
        expires_days: 7,
    };
    ok(p.issue_pack(&req, &out));
    out
}

/// Answers every evidence item served in `p`.
fn answer_all_evidence(p: &mut Project, name: &str) -> usize {
    let mut n = 0;
    while let Some(item) = ok(p.next_item(name, TaskKind::Evidence)).item {
        ok(p.submit(name, &evidence_answer(name, &item)));
        n += 1;
    }
    n
}

fn tricks_failed(p: &Project) -> i64 {
    ok(p.store().conn().query_row(
        "SELECT count(*) FROM annotations WHERE trick_failed = 1",
        [],
        |r| r.get(0),
    ))
}

#[test]
fn three_packs_merged_give_the_agreement_of_the_same_answers_made_in_the_project() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let original = lead(dir.path(), &clock).path().to_path_buf();
    let copy = dir.path().join("one-project.fdesk");
    ok(std::fs::copy(&original, &copy));
    let mut l = ok(Project::open(&original, Box::new(clock.clone())));
    let mut c = ok(Project::open(&copy, Box::new(clock.clone())));

    for name in NAMES {
        let evidence = issue(&mut l, dir.path(), name, TaskKind::Evidence);
        let labels = issue(&mut l, dir.path(), name, TaskKind::Label);
        {
            let mut pack = ok(Project::open(&evidence, Box::new(clock.clone())));
            assert_eq!(answer_all_evidence(&mut pack, name), 4);
            let mut pack = ok(Project::open(&labels, Box::new(clock.clone())));
            // Part of the labelling pack only: two of its four items.
            for _ in 0..2 {
                let item = ok(pack.next_item(name, TaskKind::Label))
                    .item
                    .unwrap_or_else(|| panic!("no label item"));
                ok(pack.submit(name, &label_answer(name, item.task_id)));
                ok(c.submit(name, &label_answer(name, item.task_id)));
            }
        }
        assert_eq!(answer_all_evidence(&mut c, name), 4);
        let merged = ok(l.merge_pack(&evidence));
        assert_eq!((merged.added, merged.released), (4, 0));
        let merged = ok(l.merge_pack(&labels));
        assert_eq!((merged.added, merged.released), (2, 2));
    }
    let req = AgreementRequest::default();
    for kind in [TaskKind::Evidence, TaskKind::Label] {
        let merged = ok(serde_json::to_value(ok(l.agreement(kind, &req))));
        let direct = ok(serde_json::to_value(ok(c.agreement(kind, &req))));
        assert_eq!(merged, direct, "{kind:?}");
        assert!(
            merged["ratings"].as_u64().unwrap_or(0) > 0,
            "{kind:?} {merged} {:?}",
            ok(l.annotators())
        );
    }
    assert_eq!(tricks_failed(&l), 1);
    assert_eq!(tricks_failed(&l), tricks_failed(&c));
    // The unanswered labelling items are back in the pool: another annotator gets them.
    ok(l.add_annotator("dan", Role::Annotator));
    assert!(ok(l.next_item("dan", TaskKind::Label)).item.is_some());
    let packs = ok(l.packs());
    assert_eq!(packs.len(), 6);
    assert!(packs.iter().all(|p| p.state == "returned"));
    assert_eq!(packs.iter().map(|p| p.merged).sum::<u64>(), 18);
}

fn answers(p: &Project) -> i64 {
    ok(p.store()
        .conn()
        .query_row("SELECT count(*) FROM annotations", [], |r| r.get(0)))
}

/// Changes one byte of the first occurrence of `needle` in the file.
fn change_byte(path: &Path, needle: &[u8]) {
    let mut bytes = ok(std::fs::read(path));
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{:?} not in the pack", String::from_utf8_lossy(needle)));
    bytes[at + needle.len() - 1] ^= 0x01;
    ok(std::fs::write(path, bytes));
}

fn answered_pack(p: &mut Project, dir: &Path, name: &str, clock: &ManualClock) -> PathBuf {
    let path = issue(p, dir, name, TaskKind::Evidence);
    let mut pack = ok(Project::open(&path, Box::new(clock.clone())));
    let item = ok(pack.next_item(name, TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    ok(pack.submit(name, &evidence_answer(name, &item)));
    path
}

fn refusal(p: &mut Project, path: &Path) -> String {
    let before = answers(p);
    let err = p
        .merge_pack(path)
        .err()
        .unwrap_or_else(|| panic!("{} was merged", path.display()));
    assert_eq!(answers(p), before, "a refused merge changed the project");
    assert_eq!(err.code, ErrorCode::Conflict, "{err}");
    assert!(err.message.contains("nothing was changed"), "{err}");
    err.message
}

#[test]
fn altered_foreign_expired_and_repeated_packs_get_their_outcome_and_message() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut l = lead(dir.path(), &clock);

    // One byte of an issued claim changed.
    let altered = answered_pack(&mut l, dir.path(), "ana", &clock);
    change_byte(&altered, b"Town 2 had a lighthouse");
    let msg = refusal(&mut l, &altered);
    assert!(msg.contains("issued items were altered"), "{msg}");

    // One byte of the manifest changed (the expiry pushed later).
    let relabelled = answered_pack(&mut l, dir.path(), "ben", &clock);
    change_byte(&relabelled, b"\"expires_at\":60");
    let msg = refusal(&mut l, &relabelled);
    assert!(msg.contains("manifest was altered"), "{msg}");

    // A pack from another project.
    let other_dir = dir.path().join("other");
    ok(std::fs::create_dir(&other_dir));
    let mut other = lead(&other_dir, &clock);
    let foreign = answered_pack(&mut other, &other_dir, "cal", &clock);
    let msg = refusal(&mut l, &foreign);
    assert!(msg.contains("belongs to another project"), "{msg}");

    // A pack merged twice: the second merge adds nothing.
    let good = answered_pack(&mut l, dir.path(), "cal", &clock);
    let first = ok(l.merge_pack(&good));
    assert_eq!((first.added, first.already), (1, 0));
    let before = answers(&l);
    let second = ok(l.merge_pack(&good));
    assert_eq!((second.added, second.already), (0, 1));
    assert_eq!(answers(&l), before);

    // A pack merged into a copy of the project from before it was issued.
    drop(l);
    let stale_copy = dir.path().join("older-copy.fdesk");
    ok(std::fs::copy(dir.path().join("p.fdesk"), &stale_copy));
    let mut l = ok(Project::open(
        &dir.path().join("p.fdesk"),
        Box::new(clock.clone()),
    ));
    let newer = answered_pack(&mut l, dir.path(), "cal", &clock);
    let mut stale = ok(Project::open(&stale_copy, Box::new(clock.clone())));
    let msg = refusal(&mut stale, &newer);
    assert!(
        msg.contains("is not on record in this project file"),
        "{msg}"
    );

    // A file that is not a database any more (its header damaged).
    let damaged = answered_pack(&mut other, &other_dir, "ben", &clock);
    // First an answer slipped into it under another annotator's id (Ana's, 2).
    {
        let conn = ok(rusqlite::Connection::open(&damaged));
        ok(conn.pragma_update(None, "foreign_keys", false));
        ok(conn.execute(
            "INSERT INTO annotations (uuid, task_id, annotator_id, answer, created_at)
             SELECT 'forged', task_id, 2, answer, created_at FROM annotations LIMIT 1",
            [],
        ));
    }
    let msg = refusal(&mut other, &damaged);
    assert!(
        msg.contains("answer forged is not by ben on an issued item"),
        "{msg}"
    );
    let mut bytes = ok(std::fs::read(&damaged));
    bytes[0] ^= 0x01;
    ok(std::fs::write(&damaged, bytes));
    let msg = refusal(&mut other, &damaged);
    assert!(msg.contains("cannot be read as a pack"), "{msg}");

    // A results file from an expired pack.
    let late = answered_pack(&mut other, &other_dir, "ana", &clock);
    clock.advance_ms(8 * 86_400_000);
    let msg = refusal(&mut other, &late);
    assert!(msg.contains("expired 1 day(s) ago"), "{msg}");
    let states: Vec<String> = ok(other.packs()).into_iter().map(|p| p.state).collect();
    assert!(states.iter().all(|s| s == "expired"), "{states:?}");
    // Its items went back to the pool.
    assert!(ok(other.next_item("ana", TaskKind::Evidence))
        .item
        .is_some());
}

#[test]
fn a_pack_holds_no_other_annotators_answers_no_trick_marker_and_no_gold() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut l = lead(dir.path(), &clock);
    // Ana and Ben answer everything in the project, with comments only they wrote.
    for name in ["ana", "ben"] {
        while let Some(item) = ok(l.next_item(name, TaskKind::Evidence)).item {
            let mut a = evidence_answer(name, &item);
            a.comment = Some(format!("private-note-of-{name}"));
            ok(l.submit(name, &a));
        }
    }
    let secret: Vec<u8> = ok(l
        .store()
        .conn()
        .query_row("SELECT secret FROM project", [], |r| r.get(0)));
    let req = PackRequest {
        annotator: "cal".into(),
        ..Default::default()
    };
    let path = dir.path().join("cal.fdpack");
    let issued = ok(l.issue_pack(&req, &path));
    // Labelling items of claims that travel as evidence items stay home (their evidence
    // would show the trick).
    assert_eq!(issued.items, 4);
    let values = every_value(&path);
    let secret_hex: String = secret.iter().map(|x| format!("{x:02x}")).collect();
    let mut tricks = 0;
    for (table, column, value) in &values {
        let at = format!("{table}.{column} = {value:?}");
        assert!(!value.contains("private-note"), "another's answer: {at}");
        assert!(
            !value.contains("ana") && !value.contains("ben"),
            "another annotator: {at}"
        );
        assert!(!value.contains(&secret_hex), "the project secret: {at}");
        assert!(
            !value.contains("It is not true that {claim}"),
            "the trick template: {at}"
        );
        assert!(
            !value.contains("SUPPORTED"),
            "an imported label (gold): {at}"
        );
        if column.contains("trick") {
            assert!(
                value == "NULL" || value == "0",
                "a trick column with a value: {at}"
            );
        }
        if table == "sentences" && column == "text" && value.starts_with("It is not true that") {
            tricks += 1;
        }
        if table == "candidates" && column == "score" {
            assert_eq!(value, "0", "{at}");
        }
        if table == "candidates" && column == "scores" {
            assert_eq!(value, "{}", "{at}");
        }
        if table == "tasks" && column == "answered" {
            assert_eq!(value, "0", "others' answers counted: {at}");
        }
    }
    assert_eq!(
        tricks, 4,
        "the trick of each evidence item is there, as a sentence"
    );
    let rows = |table: &str| {
        values
            .iter()
            .filter(|(t, c, _)| t == table && c == "id")
            .count()
    };
    assert_eq!(rows("annotations"), 0);
    assert_eq!(rows("annotators"), 1);
    let raw = ok(std::fs::read(&path));
    assert!(!raw.windows(secret.len()).any(|w| w == secret.as_slice()));
    assert!(!raw.windows(12).any(|w| w == b"private-note"));
    // Every sentence, the trick too, sits in its document's text at its offsets.
    let conn = ok(rusqlite::Connection::open(&path));
    let mut stmt = ok(conn.prepare(
        "SELECT d.text, s.start_char, s.end_char, s.text FROM sentences s JOIN documents d ON d.id = s.document_id",
    ));
    let rows: Vec<(String, usize, usize, String)> = ok(ok(
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
    )
    .collect::<Result<_, _>>());
    for (doc, start, end, text) in rows {
        let slice: String = doc.chars().skip(start).take(end - start).collect();
        assert_eq!(slice, text);
    }
    // Its own options carry the trick among them, as in the project.
    let mut pack = ok(Project::open(&path, Box::new(clock.clone())));
    let item = ok(pack.next_item("cal", TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    let trick = trick_sentence(TEMPLATE, &item.claim);
    assert_eq!(item.options.iter().filter(|o| o.text == trick).count(), 1);
    assert_eq!(item.options.len(), 6);
    // A pack cannot hand out or take in packs of its own.
    let err = pack
        .issue_pack(&req, &dir.path().join("again.fdpack"))
        .err()
        .unwrap_or_else(|| panic!("a pack issued a pack"));
    assert_eq!(err.code, ErrorCode::Forbidden, "{err}");
}
