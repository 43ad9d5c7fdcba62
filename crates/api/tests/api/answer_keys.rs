//! An answer sent again with its key (its acknowledgement lost on a dropped connection)
//! is acknowledged as it was stored and never stored twice; a key is the sender's own:
//! another person's, or another item's, is refused and changes nothing.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common::{self, code, must, real_option, Acting};

fn next(p: &mut Project, name: &str) -> Item {
    must(p.next_item(&p.who(name), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("an item for {name}"))
}

/// A real sentence of `item`, sent with `key`.
fn keyed(p: &Project, item: &Item, key: &str) -> Answer {
    Answer {
        task_id: item.task_id,
        selected: vec![real_option(p, item)],
        key: Some(key.to_string()),
        ..Default::default()
    }
}

fn answers(p: &Project) -> i64 {
    let conn = p.store().read();
    must(conn.query_row("SELECT count(*) FROM annotations", [], |r| r.get(0)))
}

#[test]
fn an_answer_sent_again_with_its_key_is_acknowledged_once_and_stored_once() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::ana_and_ben(4, dir.path(), &clock);
    let item = next(&mut p, "ana");
    let answer = keyed(&p, &item, "b1f0c3a2-0000-4000-8000-000000000001");
    let first = must(p.submit(&p.who("ana"), &answer));
    assert_eq!(first.ack, "b1f0c3a2-0000-4000-8000-000000000001");
    // Sent again, as a browser does when the connection dropped before the ack came:
    // the same ack, nothing stored, even after the item moved on (ana was served another).
    let _ = next(&mut p, "ana");
    clock.advance_ms(60_000);
    let again = must(p.submit(&p.who("ana"), &answer));
    assert_eq!(again, first);
    assert_eq!(answers(&p), 1);
    // A changed answer is a new answer: a new key, and it supersedes the first.
    let mut changed = keyed(&p, &item, "b1f0c3a2-0000-4000-8000-000000000002");
    changed.no_evidence = true;
    changed.selected.clear();
    let second = must(p.submit(&p.who("ana"), &changed));
    assert_ne!(second.ack, first.ack);
    assert_eq!(answers(&p), 2);
}

#[test]
fn a_key_is_its_senders_own_and_plain() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::ana_and_ben(4, dir.path(), &clock);
    let anas = next(&mut p, "ana");
    let bens = next(&mut p, "ben");
    must(p.submit(&p.who("ana"), &keyed(&p, &anas, "shared-key")));
    // Ben sending ana's key learns nothing of her answer and stores nothing.
    let taken = p.submit(&p.who("ben"), &keyed(&p, &bens, "shared-key"));
    assert_eq!(code(taken), ErrorCode::Conflict);
    // Ana's key on another item of hers is refused too.
    let anas_next = next(&mut p, "ana");
    let elsewhere = p.submit(&p.who("ana"), &keyed(&p, &anas_next, "shared-key"));
    assert_eq!(code(elsewhere), ErrorCode::Conflict);
    for bad in ["", "has space", "ünïcode", &"k".repeat(65)] {
        let refused = p.submit(&p.who("ben"), &keyed(&p, &bens, bad));
        assert_eq!(code(refused), ErrorCode::InvalidInput, "key {bad:?}");
    }
    assert_eq!(answers(&p), 1);
    // Ben's own key works.
    must(p.submit(&p.who("ben"), &keyed(&p, &bens, "bens-own-key")));
    assert_eq!(answers(&p), 2);
}

/// Twelfth hostile pass (HIGH): one annotator correcting one item in a loop, with the
/// same answer or with a long comment each time, stored a row each time and filled the
/// disk (1 GB in 100 s), after which nobody could sign in. The same answer again now
/// writes nothing, and an item keeps at most ten answers of one person.
#[test]
fn the_same_answer_again_writes_nothing_and_an_item_keeps_ten_answers_of_a_person() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::ana_and_ben(4, dir.path(), &clock);
    let item = next(&mut p, "ana");
    let mut answer = keyed(&p, &item, "unused");
    answer.key = None;
    answer.comment = Some("first look".into());
    let first = must(p.submit(&p.who("ana"), &answer));
    for _ in 0..50 {
        let again = must(p.submit(&p.who("ana"), &answer));
        assert_eq!(again, first, "the stored answer's ack");
    }
    assert_eq!(answers(&p), 1, "the same answer again writes nothing");
    // Nine corrections are taken; the tenth is refused, saying why, and writes nothing.
    for n in 1..10 {
        answer.comment = Some(format!("correction {n}"));
        must(p.submit(&p.who("ana"), &answer));
    }
    assert_eq!(answers(&p), 10);
    answer.comment = Some("one more".into());
    let refused = p.submit(&p.who("ana"), &answer);
    let Err(e) = refused else {
        panic!("an eleventh answer to one item was taken")
    };
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(
        e.message.contains("the most an item keeps"),
        "{}",
        e.message
    );
    assert_eq!(answers(&p), 10);
    // Ben's answers to his own item are his own count.
    let bens = next(&mut p, "ben");
    must(p.submit(&p.who("ben"), &keyed(&p, &bens, "bens-key")));
    assert_eq!(answers(&p), 11);
}
