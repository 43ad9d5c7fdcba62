//! Issue 12, point 1, checked from the outside: a pack its annotator has answered is read
//! table by table, value by value and byte by byte (the file and any journal or log) for
//! anything their screens would not show (the attackers holding only a pack's bytes are
//! in attackers.rs). Also: answers made in a pack after it was merged never overfill an
//! item.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::{PackRequest, PackSession};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Project};

use crate::common;
use common::Acting;
use common::{beyond_the_screen, every_value, project, raw_with_logs, trick_option};

/// Names chosen so that none occurs by chance in the test documents.
const OTHERS: [&str; 3] = ["Xaviera", "Quintessa", "Leadmaria"];
const HOLDER: &str = "Wendeline";

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[test]
fn an_answered_pack_holds_only_what_its_annotators_screens_show() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = project(dir.path(), 5, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(3)));
    ok(lead.create_tasks(&lead.lead(), TaskKind::Label, Some(3)));
    ok(lead.add_annotator(&lead.lead(), OTHERS[2], Role::Lead));
    for name in [OTHERS[0], OTHERS[1], HOLDER] {
        ok(lead.add_annotator(&lead.lead(), name, Role::Annotator));
    }
    // Two others answer every evidence item in the project, trick included, with notes.
    let mut others_ids = Vec::new();
    for name in &OTHERS[..2] {
        while let Some(item) = ok(lead.next_item(&lead.who(name), TaskKind::Evidence)).item {
            others_ids.extend(item.options.iter().map(|o| o.id.clone()));
            let answer = Answer {
                task_id: item.task_id,
                selected: item.options.iter().map(|o| o.id.clone()).collect(),
                comment: Some(format!("note-of-{name}")),
                ..Default::default()
            };
            ok(lead.submit(&lead.who(name), &answer));
        }
    }
    let secret: Vec<u8> =
        ok(lead
            .store()
            .read()
            .query_row("SELECT secret FROM project", [], |r| r.get(0)));
    let seed = ok(lead.settings()).seed.to_string();
    let path = dir.path().join("holder.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        ..Default::default()
    };
    let issued = ok(lead.issue_pack(&lead.lead(), &req, &path));
    assert_eq!(issued.items, 10, "{issued:?}");

    // The holder answers in the pack: the trick once, real sentences otherwise.
    {
        let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
        let mut first = true;
        let mut served = 0;
        while let Some(item) = ok(pack.next_item(&pack.who(HOLDER), TaskKind::Evidence)).item {
            let trick = trick_option(&lead, &item);
            assert!(trick.is_some(), "the trick is among the options");
            let selected = item
                .options
                .iter()
                .filter(|o| (Some(&o.id) == trick.as_ref()) == first)
                .take(2)
                .map(|o| o.id.clone())
                .collect();
            first = false;
            let answer = Answer {
                task_id: item.task_id,
                selected,
                comment: Some("holder-note".into()),
                ..Default::default()
            };
            ok(pack.submit(&pack.who(HOLDER), &answer));
            served += 1;
        }
        assert_eq!(served, 5);
    }
    assert_eq!(beyond_the_screen(&path), Vec::<String>::new());
    let secret_hex: String = secret.iter().map(|x| format!("{x:02x}")).collect();
    let mut holder_seen = false;
    for (table, column, value) in every_value(&path) {
        let at = format!("{table}.{column} = {value:?}");
        assert!(
            !value.to_lowercase().contains("trick"),
            "the word trick: {at}"
        );
        assert!(!value.contains("note-of-"), "another's answer: {at}");
        for name in OTHERS {
            assert!(!value.contains(name), "another person ({name}): {at}");
        }
        assert!(!value.contains(&secret_hex), "the project's secret: {at}");
        assert!(!value.contains(&seed), "the project's seed: {at}");
        for id in &others_ids {
            assert!(!value.contains(id.as_str()), "another's option id: {at}");
        }
        holder_seen |= value.contains(HOLDER);
    }
    assert!(holder_seen, "the pack names its annotator");
    // Byte by byte, schema included: a pack's schema has no word for the trick.
    let raw = raw_with_logs(&path).to_ascii_lowercase();
    assert_eq!(count(&raw, b"trick"), 0, "\"trick\" in the raw bytes");
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
    assert!(
        count(&raw, b"holder-note") > 0,
        "the holder's answers are in it"
    );
    // The lead's project tells the trick on merge: one answer failed it.
    let merged = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!(merged.added, 5);
    let failed: i64 = ok(lead.store().read().query_row(
        "SELECT count(*) FROM annotations a JOIN annotators n ON n.id = a.annotator_id
         WHERE n.name = ?1 AND a.trick_failed = 1",
        [HOLDER],
        |r| r.get(0),
    ));
    assert_eq!(failed, 1);
}

/// Labels up to `n` items of a pack.
fn label_in_pack(p: &mut PackSession, n: usize) -> usize {
    let mut done = 0;
    while done < n {
        let Some(item) = ok(p.next_item(&p.who(HOLDER), TaskKind::Label)).item else {
            break;
        };
        let answer = Answer {
            task_id: item.task_id,
            label: Some("REFUTED".into()),
            ..Default::default()
        };
        ok(p.submit(&p.who(HOLDER), &answer));
        done += 1;
    }
    done
}

fn label_in_project(p: &mut Project, name: &str, n: usize) -> usize {
    let mut done = 0;
    while done < n {
        let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Label)).item else {
            break;
        };
        let answer = Answer {
            task_id: item.task_id,
            label: Some("REFUTED".into()),
            ..Default::default()
        };
        ok(p.submit(&p.who(name), &answer));
        done += 1;
    }
    done
}

#[test]
fn answers_made_in_a_pack_after_it_was_merged_do_not_land_on_items_given_to_others() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(5_000_000);
    let mut lead = project(dir.path(), 3, &clock);
    ok(lead.create_tasks(&lead.lead(), TaskKind::Label, Some(1)));
    for name in [HOLDER, OTHERS[0]] {
        ok(lead.add_annotator(&lead.lead(), name, Role::Annotator));
    }
    let path = dir.path().join("late.fdpack");
    let req = PackRequest {
        annotator: HOLDER.into(),
        count: 3,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    assert_eq!(ok(lead.issue_pack(&lead.lead(), &req, &path)).items, 3);
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    assert_eq!(label_in_pack(&mut pack, 1), 1);
    let first = ok(lead.merge_pack(&lead.lead(), &path));
    assert_eq!((first.added, first.released), (1, 2));
    // The two items given back go to someone else, who answers them.
    assert_eq!(label_in_project(&mut lead, OTHERS[0], 5), 2);
    // The holder kept working in the pack and sends it again.
    assert_eq!(label_in_pack(&mut pack, 5), 2);
    drop(pack);
    let again = lead.merge_pack(&lead.lead(), &path);
    let over: i64 = ok(lead.store().read().query_row(
        "SELECT count(*) FROM tasks WHERE answered > overlap",
        [],
        |r| r.get(0),
    ));
    assert_eq!(over, 0, "items answered more often than asked: {again:?}");
    let again = ok(again);
    assert_eq!((again.added, again.late), (0, 2));
}
