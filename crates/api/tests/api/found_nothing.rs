//! Asks for a next item that find nothing, or nothing new: what they find stands two
//! seconds, on every connection of a server at once, so that asking again and again does
//! not search every open task each time (hostile passes of session 24).

use factdesk_api::annotate::{Item, NOTHING_STANDS_MS};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{FoundNothing, ManualClock, Project};

use crate::common;
use common::{ana_and_ben, Acting};

/// `name`'s next evidence item, if any.
fn next(p: &mut Project, name: &str) -> Option<Item> {
    p.next_item(&p.who(name), TaskKind::Evidence)
        .unwrap_or_else(|e| panic!("{e}"))
        .item
}

/// `name` skips task `task`.
fn skip(p: &mut Project, name: &str, task: i64) {
    p.skip_item(&p.who(name), task)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Hostile pass of session 24: finding nothing walks every open task of the kind, and one
/// annotator asking again and again from many sessions slowed everyone's next item. An
/// ask that found nothing is answered so for `NOTHING_STANDS_MS` without a search; an
/// item that opens meanwhile is served once that time has passed.
#[test]
fn finding_nothing_stands_for_two_seconds_then_what_opened_is_served() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = ana_and_ben(1, dir.path(), &clock);
    let held = next(&mut p, "ben").unwrap_or_else(|| panic!("ben's item"));
    assert!(next(&mut p, "ana").is_none());
    skip(&mut p, "ben", held.task_id);
    clock.advance_ms(NOTHING_STANDS_MS - 1);
    assert!(next(&mut p, "ana").is_none());
    clock.advance_ms(1);
    let opened = next(&mut p, "ana").unwrap_or_else(|| panic!("the released item for ana"));
    assert_eq!(opened.task_id, held.task_id);
}

/// Second hostile pass of session 24: each of a server's connections kept its own record
/// of asks that found nothing, so asking through all of them searched once a connection.
/// Projects that share the record search once between them.
#[test]
fn projects_that_share_what_found_nothing_search_once_between_them() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let shared = FoundNothing::default();
    let mut p = ana_and_ben(1, dir.path(), &clock).sharing_found_nothing(&shared);
    // `project` made it at `location` "p.fdesk": a file, or a database on PostgreSQL.
    let place = common::location(dir.path(), "p.fdesk");
    let mut q = Project::open(&place, Box::new(clock.clone()))
        .unwrap_or_else(|e| panic!("{e}"))
        .sharing_found_nothing(&shared);
    let held = next(&mut p, "ben").unwrap_or_else(|| panic!("ben's item"));
    assert!(next(&mut p, "ana").is_none());
    skip(&mut p, "ben", held.task_id);
    // Through the other connection, the answer stands too.
    assert!(next(&mut q, "ana").is_none());
    clock.advance_ms(NOTHING_STANDS_MS);
    assert!(next(&mut q, "ana").is_some());
}

/// Third hostile pass of session 24: one who skipped every item was served from their
/// skipped pile only after a search of every open task, on each ask. Nothing new found
/// stands two seconds too: meanwhile their skipped items come straight back, and what
/// opened is served once that time has passed.
#[test]
fn with_nothing_new_found_skipped_items_come_back_without_a_search() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = ana_and_ben(2, dir.path(), &clock);
    let next = |p: &mut Project, name: &str| {
        next(p, name)
            .unwrap_or_else(|| panic!("an item for {name}"))
            .task_id
    };
    let bens = next(&mut p, "ben");
    let anas = next(&mut p, "ana");
    skip(&mut p, "ana", anas);
    // Nothing new: her skipped item comes back.
    assert_eq!(next(&mut p, "ana"), anas);
    skip(&mut p, "ana", anas);
    skip(&mut p, "ben", bens);
    // Ben's item opened, but nothing new stands for two seconds.
    assert_eq!(next(&mut p, "ana"), anas);
    skip(&mut p, "ana", anas);
    clock.advance_ms(NOTHING_STANDS_MS);
    assert_eq!(next(&mut p, "ana"), bens);
}
