//! Issue 7, acceptance 3, checked from the outside: a pack that its annotator has
//! answered is read value by value and byte by byte (the file and any write-ahead log)
//! for other people, their answers, the project's secret, the lead's option ids and
//! anything that tells the trick apart. The schema's own text (the same in every project
//! file, `trick_slot` and `trick_failed` included, also where a migration left pieces of
//! it in free space) and the names of the settings that
//! every project carries (`trick_template`, blank in a pack, and the flagging thresholds)
//! are the only places "trick" may appear: they name the feature, not the sentence.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::PackRequest;
use factdesk_api::settings::trick_sentence;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};
use std::collections::{HashMap, HashSet};
use std::path::Path;

mod common;
use common::{every_value, project};

/// Settings names in the project row's JSON, the same in every project file.
const SETTING_KEYS: [&str; 3] = [
    "\"trick_template\":\"\"",
    "\"trick_flag_threshold\":",
    "\"trick_min_seen\":",
];

/// Table and column names every project file has; a migration can leave pieces of an
/// earlier table's SQL in free space, so they are allowed outside the current schema too.
const COLUMN_NAMES: [&str; 3] = ["task_tricks", "trick_slot", "trick_failed"];

/// Names chosen so that none occurs by chance in the test documents.
const OTHERS: [&str; 3] = ["Xaviera", "Quintessa", "Leadmaria"];
const HOLDER: &str = "Wendeline";

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The SQL of every schema object, as SQLite stores it verbatim in the file.
fn schema_sql(path: &Path) -> Vec<String> {
    let conn = ok(rusqlite::Connection::open(path));
    let mut stmt = ok(conn.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"));
    ok(ok(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
}

/// The raw bytes of the file and its write-ahead log, lower-cased, with the schema's
/// text blanked out.
fn raw_without_schema(path: &Path, schema: &[String]) -> Vec<u8> {
    let mut raw = ok(std::fs::read(path));
    let wal = path.with_file_name(format!(
        "{}-wal",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    if let Ok(more) = std::fs::read(&wal) {
        raw.extend(more);
    }
    let format: Vec<&[u8]> = schema
        .iter()
        .map(|s| s.as_bytes())
        .chain(SETTING_KEYS.iter().map(|k| k.as_bytes()))
        .chain(COLUMN_NAMES.iter().map(|k| k.as_bytes()))
        .collect();
    for sql in format {
        let mut at = 0;
        while let Some(i) = raw[at..].windows(sql.len()).position(|w| w == sql) {
            raw[at + i..at + i + sql.len()].fill(b' ');
            at += i + sql.len();
        }
    }
    raw.to_ascii_lowercase()
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[test]
fn an_answered_pack_holds_no_one_else_no_secret_no_lead_option_id_and_no_trick_marker() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = project(dir.path(), 5, &clock);
    ok(lead.create_tasks(TaskKind::Evidence, Some(3)));
    ok(lead.create_tasks(TaskKind::Label, Some(3)));
    ok(lead.add_annotator(OTHERS[2], Role::Lead));
    for name in [OTHERS[0], OTHERS[1], HOLDER] {
        ok(lead.add_annotator(name, Role::Annotator));
    }
    let template = ok(lead.settings()).trick_template;
    // Two others answer every evidence item in the project, trick included, with notes.
    for name in &OTHERS[..2] {
        while let Some(item) = ok(lead.next_item(name, TaskKind::Evidence)).item {
            let answer = Answer {
                task_id: item.task_id,
                selected: item.options.iter().map(|o| o.id.clone()).collect(),
                comment: Some(format!("note-of-{name}")),
                ..Default::default()
            };
            ok(lead.submit(name, &answer));
        }
    }
    let secret: Vec<u8> =
        ok(lead
            .store()
            .conn()
            .query_row("SELECT secret FROM project", [], |r| r.get(0)));
    let slots: HashMap<i64, Option<i64>> = {
        let mut stmt = ok(lead
            .store()
            .conn()
            .prepare("SELECT id, trick_slot FROM tasks"));
        ok(ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))).collect::<Result<_, _>>())
    };
    // The option ids the lead's project would give the holder: served from a copy (with
    // what the write-ahead log holds), so the lead's project itself reserves nothing.
    let copy = dir.path().join("copy.fdesk");
    ok(lead
        .store()
        .conn()
        .execute("VACUUM INTO ?1", [copy.display().to_string()]));
    let mut lead_ids = Vec::new();
    {
        let mut c = ok(Project::open(&copy, Box::new(clock.clone())));
        while let Some(item) = ok(c.next_item(HOLDER, TaskKind::Evidence)).item {
            lead_ids.extend(item.options.iter().map(|o| o.id.clone()));
            ok(c.submit(
                HOLDER,
                &Answer {
                    task_id: item.task_id,
                    no_evidence: true,
                    ..Default::default()
                },
            ));
        }
    }
    assert!(!lead_ids.is_empty());

    let path = dir.path().join("holder.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        ..Default::default()
    };
    let issued = ok(lead.issue_pack(&req, &path));
    assert!(issued.items >= 5, "{issued:?}");

    // The holder answers in the pack: the trick once, real sentences otherwise.
    let mut trick_positions = Vec::new();
    {
        let mut pack = ok(Project::open(&path, Box::new(clock.clone())));
        let mut first = true;
        while let Some(item) = ok(pack.next_item(HOLDER, TaskKind::Evidence)).item {
            let trick = trick_sentence(&template, &item.claim);
            let at = item.options.iter().position(|o| o.text == trick);
            trick_positions.push((item.task_id, at));
            let selected = item
                .options
                .iter()
                .filter(|o| (o.text == trick) == first)
                .take(2)
                .map(|o| o.id.clone())
                .collect();
            first = false;
            ok(pack.submit(
                HOLDER,
                &Answer {
                    task_id: item.task_id,
                    selected,
                    comment: Some("holder-note".into()),
                    ..Default::default()
                },
            ));
        }
    }
    assert_eq!(trick_positions.len(), 5);
    for (task, at) in &trick_positions {
        let slot = slots.get(task).copied().flatten();
        assert!(
            at.is_some(),
            "task {task}: the trick is not shown in the pack"
        );
        assert_eq!(
            at.map(|a| a as i64),
            slot,
            "task {task}: the trick is shown where the project shows it"
        );
    }

    let values = every_value(&path);
    let secret_hex: String = secret.iter().map(|x| format!("{x:02x}")).collect();
    let mut holder_seen = false;
    for (table, column, value) in &values {
        let at = format!("{table}.{column} = {value:?}");
        let lower = SETTING_KEYS
            .iter()
            .fold(value.to_lowercase(), |v, key| v.replace(key, ""));
        assert!(!lower.contains("trick"), "the word trick in a value: {at}");
        assert!(!value.contains("note-of-"), "another's answer: {at}");
        for name in OTHERS {
            assert!(!value.contains(name), "another person ({name}): {at}");
        }
        assert!(!value.contains(&secret_hex), "the project's secret: {at}");
        for id in &lead_ids {
            assert!(!value.contains(id.as_str()), "a lead option id: {at}");
        }
        // tricks_seen is the holder's own count of evidence answers, nothing more.
        if column.contains("trick") && column != "tricks_seen" {
            // The slot is empty, and the answer that chose the trick is not failed in
            // the pack: only the lead's project can tell.
            assert!(
                value == "NULL" || value == "0",
                "a trick column with a value: {at}"
            );
        }
        if table == "tasks" && column == "answered" {
            // At most the holder's own answer.
            assert!(
                value == "0" || value == "1",
                "others' answers counted: {at}"
            );
        }
        holder_seen |= value.contains(HOLDER);
    }
    assert!(holder_seen, "the holder's own row is in the pack");

    // The pack's schema is a project's, plus the manifest table only.
    let fresh = dir.path().join("fresh.fdesk");
    drop(ok(Project::create(&fresh, Box::new(clock.clone()))));
    let fresh_schema: HashSet<String> = schema_sql(&fresh).into_iter().collect();
    let pack_schema = schema_sql(&path);
    let extra: Vec<&String> = pack_schema
        .iter()
        .filter(|s| !fresh_schema.contains(*s))
        .collect();
    assert_eq!(extra.len(), 1, "tables a project does not have: {extra:?}");
    assert!(extra[0].contains("pack_manifest"), "{extra:?}");

    let raw = raw_without_schema(&path, &pack_schema);
    let found: Vec<String> = raw
        .windows(5)
        .enumerate()
        .filter(|(_, w)| *w == b"trick")
        .map(|(i, _)| {
            String::from_utf8_lossy(&raw[i.saturating_sub(60)..(i + 60).min(raw.len())])
                .into_owned()
        })
        .collect();
    assert!(found.is_empty(), "\"trick\" in the raw bytes: {found:?}");
    assert_eq!(
        count(&raw, b"note-of-"),
        0,
        "another's answer in the raw bytes"
    );
    for name in OTHERS {
        assert_eq!(
            count(&raw, name.to_ascii_lowercase().as_bytes()),
            0,
            "{name}"
        );
    }
    assert_eq!(count(&raw, &secret.to_ascii_lowercase()), 0, "the secret");
    for id in &lead_ids {
        assert_eq!(count(&raw, id.to_ascii_lowercase().as_bytes()), 0, "{id}");
    }
    assert!(
        count(&raw, b"holder-note") > 0,
        "the holder's answers are in it"
    );
}

/// Label answers from a pack, in `p`, for every item it serves `name` up to `n`.
fn label_some(p: &mut Project, name: &str, n: usize) -> Vec<i64> {
    let mut done = Vec::new();
    while done.len() < n {
        let Some(item) = ok(p.next_item(name, TaskKind::Label)).item else {
            break;
        };
        ok(p.submit(
            name,
            &Answer {
                task_id: item.task_id,
                label: Some("REFUTED".into()),
                ..Default::default()
            },
        ));
        done.push(item.task_id);
    }
    done
}

#[test]
fn answers_made_in_a_pack_after_it_was_merged_do_not_land_on_items_given_to_others() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = project(dir.path(), 3, &clock);
    ok(lead.create_tasks(TaskKind::Label, Some(1)));
    for name in [HOLDER, OTHERS[0]] {
        ok(lead.add_annotator(name, Role::Annotator));
    }
    let path = dir.path().join("late.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 3,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&req, &path)).items, 3);
    let mut pack = ok(Project::open(&path, Box::new(clock.clone())));
    assert_eq!(label_some(&mut pack, HOLDER, 1).len(), 1);
    let first = ok(lead.merge_pack(&path));
    assert_eq!((first.added, first.released), (1, 2));
    // The two items given back go to someone else, who answers them.
    assert_eq!(label_some(&mut lead, OTHERS[0], 5).len(), 2);
    // The holder kept working in the pack and sends it again.
    assert_eq!(label_some(&mut pack, HOLDER, 5).len(), 2);
    drop(pack);
    let again = lead.merge_pack(&path);
    let over: i64 = ok(lead.store().conn().query_row(
        "SELECT count(*) FROM tasks WHERE answered > overlap",
        [],
        |r| r.get(0),
    ));
    assert_eq!(over, 0, "items answered more often than asked: {again:?}");
    // Regression: both late answers are left out and said so.
    let again = ok(again);
    assert_eq!((again.added, again.late), (0, 2));
}

#[test]
fn the_tricks_place_in_its_document_does_not_give_it_away() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = project(dir.path(), 40, &clock);
    ok(lead.create_tasks(TaskKind::Evidence, Some(1)));
    ok(lead.add_annotator(HOLDER, Role::Annotator));
    let template = ok(lead.settings()).trick_template;
    let path = dir.path().join("order.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 40,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&req, &path)).items, 40);
    let conn = ok(rusqlite::Connection::open(&path));
    let claims: Vec<(i64, String)> = {
        let mut stmt = ok(conn.prepare("SELECT id, text FROM claims"));
        ok(ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))).collect::<Result<_, _>>())
    };
    let position = |text: &str| -> (i64, i64) {
        ok(conn.query_row(
            "SELECT document_id, idx FROM sentences WHERE text = ?1",
            [text],
            |r| Ok((r.get(0)?, r.get(1)?)),
        ))
    };
    let mut just_before_top = 0;
    for (claim_id, claim) in &claims {
        let trick = position(&trick_sentence(&template, claim));
        let (top_doc, top_idx): (i64, i64) = ok(conn.query_row(
            "SELECT s.document_id, s.idx FROM candidates c JOIN sentences s ON s.id = c.sentence_id
             WHERE c.claim_id = ?1 AND s.text <> ?2 ORDER BY c.rank LIMIT 1",
            rusqlite::params![claim_id, trick_sentence(&template, claim)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        ));
        if trick == (top_doc, top_idx - 1) {
            just_before_top += 1;
        }
    }
    // Regression: the trick was always written just before the top candidate.
    assert!(
        just_before_top * 2 < claims.len(),
        "the trick sits just before the top candidate in {just_before_top} of {} items",
        claims.len()
    );
}
