//! Packs through the api: a round trip equal to working in the project, refusals of
//! altered, foreign, expired and repeated packs, reservations the project's `next`
//! leaves alone, and what a pack file holds.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::packs::{PackRequest, PackSession, Unanswered};
use factdesk_api::settings::trick_sentence;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::path::{Path, PathBuf};

use crate::common;
use common::Acting;
use common::{beyond_the_screen, every_value, project, raw_with_logs};

const NAMES: [&str; 3] = ["ana", "ben", "cal"];
const TEMPLATE: &str = "It is not true that {claim}";

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project of four claims with evidence and labelling tasks for three annotators.
fn lead(dir: &Path, clock: &ManualClock) -> Project {
    team(project(dir, 4, clock))
}

/// [`lead`] in a file on either run: for tests that copy the project file.
fn file_lead(dir: &Path, clock: &ManualClock) -> Project {
    team(common::file_project(dir, 4, clock))
}

fn team(mut p: Project) -> Project {
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(3)));
    ok(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in NAMES {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
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
    ok(p.issue_pack(&p.lead(), &req, &out));
    out
}

/// Answers every evidence item served in `p`.
fn answer_all_evidence(p: &mut Project, name: &str) -> usize {
    let mut n = 0;
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
        ok(p.submit(&p.who(name), &evidence_answer(name, &item)));
        n += 1;
    }
    n
}

/// Answers every evidence item of a pack.
fn answer_pack_evidence(p: &mut PackSession, name: &str) -> usize {
    let mut n = 0;
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
        ok(p.submit(&p.who(name), &evidence_answer(name, &item)));
        n += 1;
    }
    n
}

fn open_pack(path: &Path, clock: &ManualClock) -> PackSession {
    ok(PackSession::open(path, Box::new(clock.clone())))
}

/// The project's labelling task of the claim with this text.
fn label_task(p: &Project, claim: &str) -> i64 {
    ok(p.store().read().query_row(
        "SELECT t.id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.kind = 'label' AND c.text = ?1",
        [claim],
        |r| r.get(0),
    ))
}

fn tricks_failed(p: &Project) -> i64 {
    ok(p.store().read().query_row(
        "SELECT count(*) FROM annotations WHERE trick_failed = 1",
        [],
        |r| r.get(0),
    ))
}

#[test]
fn three_packs_merged_give_the_agreement_of_the_same_answers_made_in_the_project() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let original = file_lead(dir.path(), &clock).path().to_path_buf();
    let copy = dir.path().join("one-project.fdesk");
    ok(std::fs::copy(&original, &copy));
    let mut l = ok(Project::open(&original, Box::new(clock.clone())));
    let mut c = ok(Project::open(&copy, Box::new(clock.clone())));

    for name in NAMES {
        let evidence = issue(&mut l, dir.path(), name, TaskKind::Evidence);
        let labels = issue(&mut l, dir.path(), name, TaskKind::Label);
        {
            let mut pack = open_pack(&evidence, &clock);
            assert_eq!(answer_pack_evidence(&mut pack, name), 4);
            let mut pack = open_pack(&labels, &clock);
            // Part of the labelling pack only: two of its four items.
            for _ in 0..2 {
                let item = ok(pack.next_item(&pack.who(name), TaskKind::Label))
                    .item
                    .unwrap_or_else(|| panic!("no label item"));
                let task = label_task(&c, &item.claim);
                // Served in the project too: answers are taken only on items given.
                common::give(&c, name, task);
                let mut answer = label_answer(name, task);
                ok(c.submit(&c.who(name), &answer));
                answer.task_id = item.task_id;
                ok(pack.submit(&pack.who(name), &answer));
            }
        }
        assert_eq!(answer_all_evidence(&mut c, name), 4);
        let merged = ok(l.merge_pack(&l.lead(), &evidence));
        assert_eq!((merged.added, merged.released), (4, 0));
        let merged = ok(l.merge_pack(&l.lead(), &labels));
        assert_eq!((merged.added, merged.released), (2, 2));
    }
    let req = AgreementRequest::default();
    for kind in [TaskKind::Evidence, TaskKind::Label] {
        let merged = ok(serde_json::to_value(ok(l.agreement(&l.lead(), kind, &req))));
        let direct = ok(serde_json::to_value(ok(c.agreement(&c.lead(), kind, &req))));
        assert_eq!(merged, direct, "{kind:?}");
        assert!(
            merged["ratings"].as_u64().unwrap_or(0) > 0,
            "{kind:?} {merged} {:?}",
            ok(l.annotators(&l.lead()))
        );
    }
    assert_eq!(tricks_failed(&l), 1);
    assert_eq!(tricks_failed(&l), tricks_failed(&c));
    // The unanswered labelling items are back in the pool: another annotator gets them.
    ok(l.add_annotator(&l.lead(), "dan", Role::Annotator));
    assert!(ok(l.next_item(&l.who("dan"), TaskKind::Label))
        .item
        .is_some());
    let packs = ok(l.packs(&l.lead()));
    assert_eq!(packs.len(), 6);
    assert!(packs.iter().all(|p| p.state == "returned"));
    assert_eq!(packs.iter().map(|p| p.merged).sum::<u64>(), 18);
}

fn answers(p: &Project) -> i64 {
    ok(p.store()
        .read()
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
    let mut pack = open_pack(&path, clock);
    let item = ok(pack.next_item(&pack.who(name), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    ok(pack.submit(&pack.who(name), &evidence_answer(name, &item)));
    path
}

fn refusal(p: &mut Project, path: &Path) -> String {
    let before = answers(p);
    let err = p
        .merge_pack(&p.lead(), path)
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
    let mut l = file_lead(dir.path(), &clock);

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
    let mut other = file_lead(&other_dir, &clock);
    let foreign = answered_pack(&mut other, &other_dir, "cal", &clock);
    let msg = refusal(&mut l, &foreign);
    assert!(msg.contains("belongs to another project"), "{msg}");

    // A pack merged twice: the second merge adds nothing.
    let good = answered_pack(&mut l, dir.path(), "cal", &clock);
    let first = ok(l.merge_pack(&l.lead(), &good));
    assert_eq!((first.added, first.already), (1, 0));
    let before = answers(&l);
    let second = ok(l.merge_pack(&l.lead(), &good));
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

    // A file that is not a database any more (its header damaged), and a project file.
    let damaged = answered_pack(&mut other, &other_dir, "ben", &clock);
    let msg = refusal(&mut other, &other_dir.join("p.fdesk"));
    assert!(msg.contains("it is not a pack"), "{msg}");
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
    let states: Vec<String> = ok(other.packs(&other.lead()))
        .into_iter()
        .map(|p| p.state)
        .collect();
    assert!(states.iter().all(|s| s == "expired"), "{states:?}");
    // Its items went back to the pool.
    assert!(ok(other.next_item(&other.who("ana"), TaskKind::Evidence))
        .item
        .is_some());
}

/// The assignments of `name`: (task, pack id, expiry, state).
fn reservations(p: &Project, name: &str) -> Vec<(i64, Option<String>, Option<i64>, String)> {
    let conn = p.store().read();
    let mut stmt = ok(conn.prepare(
        "SELECT a.task_id, a.pack_id, a.expires_at, a.state FROM assignments a
         JOIN annotators n ON n.id = a.annotator_id WHERE n.name = ?1 ORDER BY a.task_id",
    ));
    ok(
        ok(stmt.query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))))
            .collect::<Result<_, _>>(),
    )
}

#[test]
fn next_in_the_project_never_serves_or_rewrites_a_packs_reservation() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_790_000_000_000);
    let mut l = project(dir.path(), 4, &clock);
    ok(l.create_tasks(&l.lead(), TaskKind::Evidence, Some(1)));
    for n in NAMES {
        ok(l.add_annotator(&l.lead(), n, Role::Annotator));
    }
    let path = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".into(),
        count: 10,
        kind: Some(TaskKind::Evidence),
        expires_days: 14,
    };
    let issued = ok(l.issue_pack(&l.lead(), &req, &path));
    assert_eq!(issued.items, 4);
    let before = reservations(&l, "ana");
    assert_eq!(before.len(), 4);
    assert!(
        before
            .iter()
            .all(|r| r.1.as_deref() == Some(issued.pack_id.as_str())
                && r.2 == Some(issued.expires_at))
    );
    // The same annotator and others ask the project for work: every item is the pack's.
    for name in ["ana", "ben", "ana", "cal"] {
        let next = ok(l.next_item(&l.who(name), TaskKind::Evidence));
        assert!(
            next.item.is_none(),
            "{name} was served a pack's item: {next:?}"
        );
    }
    assert_eq!(
        reservations(&l, "ana"),
        before,
        "the pack's reservations were rewritten"
    );
    // The pack lapses: its items go to others, and a late merge adds nothing above overlap.
    let mut pack = open_pack(&path, &clock);
    assert_eq!(answer_pack_evidence(&mut pack, "ana"), 4);
    clock.advance_ms(15 * 86_400_000);
    assert_eq!(answer_all_evidence(&mut l, "ben"), 4);
    let late = l.merge_pack(&l.lead(), &path);
    assert!(late.is_err(), "an expired pack merged: {late:?}");
    let over: i64 = ok(l.store().read().query_row(
        "SELECT count(*) FROM tasks WHERE answered > overlap",
        [],
        |r| r.get(0),
    ));
    assert_eq!(over, 0);
}

#[test]
fn a_pack_holds_what_the_annotators_screen_shows_and_nothing_else() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut l = lead(dir.path(), &clock);
    // Ana and Ben answer everything in the project, with comments only they wrote.
    for name in ["ana", "ben"] {
        while let Some(item) = ok(l.next_item(&l.who(name), TaskKind::Evidence)).item {
            let mut a = evidence_answer(name, &item);
            a.comment = Some(format!("private-note-of-{name}"));
            ok(l.submit(&l.who(name), &a));
        }
    }
    let secret: Vec<u8> = ok(l
        .store()
        .read()
        .query_row("SELECT secret FROM project", [], |r| r.get(0)));
    let seed = ok(l.settings()).seed.to_string();
    let task_ids: Vec<i64> = {
        let conn = l.store().read();
        let mut stmt = ok(conn.prepare("SELECT id FROM tasks"));
        ok(ok(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
    };
    let req = PackRequest {
        annotator: "cal".into(),
        ..Default::default()
    };
    let path = dir.path().join("cal.fdpack");
    let issued = ok(l.issue_pack(&l.lead(), &req, &path));
    assert_eq!(
        issued.items, 8,
        "evidence and labelling items of the four claims"
    );
    // What cal's screens would show, item by item, in the pack and in the project.
    let mut pack = open_pack(&path, &clock);
    let item = ok(pack.next_item(&pack.who("cal"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    let trick = trick_sentence(TEMPLATE, &item.claim);
    assert_eq!(item.options.iter().filter(|o| o.text == trick).count(), 1);
    assert_eq!(item.options.len(), 6);
    for o in &item.options {
        let passage = ok(pack.passage(&pack.who("cal"), item.task_id, &o.id));
        assert_eq!(passage.sentences.iter().filter(|s| s.hit).count(), 1);
    }
    drop(pack);
    assert_eq!(beyond_the_screen(&path), Vec::<String>::new());
    let secret_hex: String = secret.iter().map(|x| format!("{x:02x}")).collect();
    for (table, column, value) in every_value(&path) {
        let at = format!("{table}.{column} = {value:?}");
        assert!(!value.contains("private-note"), "another's answer: {at}");
        assert!(
            !value.contains("ana") && !value.contains("ben"),
            "another annotator: {at}"
        );
        assert!(!value.contains(&secret_hex), "the project secret: {at}");
        assert!(!value.contains(&seed), "the project's seed: {at}");
        assert!(
            !value.contains("SUPPORTED\""),
            "an imported label (gold): {at}"
        );
        assert!(
            !value.to_lowercase().contains("trick"),
            "a trick marker: {at}"
        );
        assert!(!value.contains("parent"), "a parent link: {at}");
        if column == "task_id" {
            let id: i64 = value.parse().unwrap_or(0);
            assert!(!task_ids.contains(&id), "a project task id: {at}");
            assert!(
                id < 1 << 53,
                "a task id JavaScript cannot hold exactly: {at}"
            );
        }
    }
    let raw = raw_with_logs(&path);
    assert!(!raw.windows(secret.len()).any(|w| w == secret.as_slice()));
    assert!(!raw.windows(12).any(|w| w == b"private-note"));
    // A pack is no project: the project's functions refuse it.
    let err = Project::open(&path, Box::new(clock.clone()))
        .err()
        .unwrap_or_else(|| panic!("a pack opened as a project"));
    assert_eq!(err.code, ErrorCode::NotAProject, "{err}");
}

#[test]
fn an_unanswered_pack_still_out_is_refused_unless_the_lead_takes_the_work_back() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut l = lead(dir.path(), &clock);
    let path = issue(&mut l, dir.path(), "ana", TaskKind::Evidence);
    let before = common::project_values(&l);
    let err = l
        .merge_pack(&l.lead(), &path)
        .err()
        .unwrap_or_else(|| panic!("an unanswered pack was merged"));
    assert_eq!(err.code, ErrorCode::Unanswered, "{err}");
    assert!(err.message.contains("nothing was changed"), "{err}");
    assert!(err.message.contains("has no answers yet"), "{err}");
    assert_eq!(common::project_values(&l), before);
    let listed = ok(l.packs(&l.lead()));
    assert_eq!(listed[0].state, "out");
    // The lead's app asks, then merges each file again taking the work back.
    let outcomes = ok(l.merge_packs(&l.lead(), std::slice::from_ref(&path), Unanswered::GiveBack));
    let report = outcomes[0]
        .report
        .clone()
        .unwrap_or_else(|| panic!("{:?}", outcomes[0].error));
    assert_eq!(report.added, 0);
    assert!(report.released > 0);
    assert_eq!(ok(l.packs(&l.lead()))[0].state, "returned");
    // Returned now: merging the same file again is the usual no-op, not a question.
    let again = ok(l.merge_pack(&l.lead(), &path));
    assert_eq!((again.added, again.released), (0, 0));
}

#[test]
fn a_pack_answer_older_than_the_annotators_answer_in_the_project_is_refused() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut l = lead(dir.path(), &clock);
    let path = issue(&mut l, dir.path(), "ana", TaskKind::Label);
    let mut pack = open_pack(&path, &clock);
    let mut claims = Vec::new();
    while let Some(item) = ok(pack.next_item(&pack.who("ana"), TaskKind::Label)).item {
        clock.advance_ms(1_000);
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".into()),
            ..Default::default()
        };
        ok(pack.submit(&pack.who("ana"), &answer));
        claims.push(item.claim.clone());
    }
    drop(pack);
    assert!(claims.len() > 1);
    // Later, ana answers the first item again in the project itself.
    clock.advance_ms(60_000);
    let task = label_task(&l, &claims[0]);
    let live = Answer {
        task_id: task,
        label: Some("REFUTED".into()),
        ..Default::default()
    };
    ok(l.submit(&l.who("ana"), &live));
    let report = ok(l.merge_pack(&l.lead(), &path));
    assert_eq!(report.added as usize, claims.len() - 1, "{report:?}");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(
        report.refused[0]
            .reason
            .contains("older than your answer in the project"),
        "{}",
        report.refused[0].reason
    );
    let current: String = ok(l.store().read().query_row(
        "SELECT a.answer FROM annotations a JOIN annotators n ON n.id = a.annotator_id
         WHERE a.task_id = ?1 AND n.name = 'ana'
           AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)",
        [task],
        |r| r.get(0),
    ));
    assert!(current.contains("REFUTED"), "{current}");
}

#[test]
fn a_pack_answer_keeps_its_uuid_from_the_pack_to_the_raw_answers() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = lead(dir.path(), &clock);
    let path = answered_pack(&mut p, dir.path(), "ana", &clock);
    let given: String =
        ok(ok(rusqlite::Connection::open(&path))
            .query_row("SELECT uuid FROM answers", [], |r| r.get(0)));
    ok(p.merge_pack(&p.lead(), &path));
    let rows = ok(p.answer_rows(&p.lead()));
    let row = rows
        .iter()
        .find(|r| r.pack.is_some())
        .unwrap_or_else(|| panic!("no merged answer: {rows:?}"));
    assert_eq!(row.answer_uuid, given, "the answer's id changed on merge");

    // A pack answer claiming the id of an answer already in the project is refused.
    answer_all_evidence(&mut p, "ben");
    let taken = ok(p.answer_rows(&p.lead()))
        .into_iter()
        .find(|r| r.annotator == "ben")
        .map(|r| r.answer_uuid)
        .unwrap_or_else(|| panic!("ben answered nothing"));
    let path = answered_pack(&mut p, dir.path(), "cal", &clock);
    // A rewritten pack: a copy of cal's answer under ben's answer's id.
    let file = ok(rusqlite::Connection::open(&path));
    ok(file.execute(
        "INSERT INTO answers (uuid, task_id, answer, created_at) SELECT ?1, task_id, answer, created_at FROM answers",
        [&taken],
    ));
    drop(file);
    let before = answers(&p);
    let report = ok(p.merge_pack(&p.lead(), &path));
    assert_eq!(report.added, 1, "{report:?}");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(
        report.refused[0]
            .reason
            .contains("already another answer's"),
        "{report:?}"
    );
    assert_eq!(answers(&p), before + 1);
    let bens: Vec<_> = ok(p.answer_rows(&p.lead()))
        .into_iter()
        .filter(|r| r.answer_uuid == taken)
        .map(|r| r.annotator)
        .collect();
    assert_eq!(bens, ["ben"]);
}
