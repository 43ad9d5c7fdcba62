//! Skipping an item: the reservation is released at once, others get the item, the one
//! who skipped it gets it back only when nothing new is left, and a skip racing a submit
//! never lets an item take more answers than its overlap. Also the pace an annotator sees.

use factdesk_api::annotate::{Answer, Item};
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::path::Path;

use crate::common;
use common::project;
use common::Acting;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn next(p: &mut Project, name: &str) -> Option<Item> {
    must(p.next_item(&p.who(name), TaskKind::Evidence)).item
}

/// A real (not trick) sentence picked on `item` by `name`.
fn answer(p: &mut Project, name: &str, item: &Item) -> factdesk_api::Result<()> {
    let chosen = common::real_option(p, item);
    p.submit(
        &p.who(name),
        &Answer {
            task_id: item.task_id,
            selected: vec![chosen],
            ..Default::default()
        },
    )
    .map(|_| ())
}

fn setup(dir: &Path, claims: usize, overlap: u32, clock: &ManualClock) -> Project {
    let mut p = project(dir, claims, clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(overlap)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    p
}

fn answered(p: &Project) -> Vec<(i64, i64, i64)> {
    let conn = p.store().read();
    let mut stmt = must(conn.prepare("SELECT id, answered, overlap FROM tasks ORDER BY id"));
    let rows = must(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))));
    must(rows.collect::<Result<Vec<_>, _>>())
}

#[test]
fn a_skipped_item_goes_to_others_at_once_and_not_back_to_the_skipper() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = setup(dir.path(), 3, 1, &clock);
    let first = next(&mut p, "ana").unwrap_or_else(|| panic!("an item"));
    // Held by ana, the item is not ben's (overlap 1).
    let bens = next(&mut p, "ben").unwrap_or_else(|| panic!("an item"));
    assert_ne!(bens.task_id, first.task_id);
    assert!(must(p.skip_item(&p.who("ana"), first.task_id)));
    // Skipping again, or an item never held, changes nothing.
    assert!(!must(p.skip_item(&p.who("ana"), first.task_id)));
    // Ana is served something new, not the item she skipped, and not ben's.
    let again = next(&mut p, "ana").unwrap_or_else(|| panic!("an item"));
    assert_ne!(again.task_id, first.task_id);
    assert_ne!(again.task_id, bens.task_id);
    // Ben finishes his and gets the skipped item straight away.
    must(answer(&mut p, "ben", &bens));
    let taken = next(&mut p, "ben").unwrap_or_else(|| panic!("the skipped item"));
    assert_eq!(taken.task_id, first.task_id);
}

#[test]
fn skipped_items_come_back_once_nothing_new_is_left_oldest_first() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = setup(dir.path(), 3, 2, &clock);
    let a = next(&mut p, "ana").unwrap_or_else(|| panic!("a"));
    must(p.skip_item(&p.who("ana"), a.task_id));
    clock.advance_ms(1_000);
    let b = next(&mut p, "ana").unwrap_or_else(|| panic!("b"));
    must(p.skip_item(&p.who("ana"), b.task_id));
    clock.advance_ms(1_000);
    let c = next(&mut p, "ana").unwrap_or_else(|| panic!("c"));
    assert!(![a.task_id, b.task_id].contains(&c.task_id));
    must(answer(&mut p, "ana", &c));
    // Nothing new left: the skipped ones, the first skipped first.
    let back = next(&mut p, "ana").unwrap_or_else(|| panic!("a again"));
    assert_eq!(back.task_id, a.task_id);
    must(answer(&mut p, "ana", &back));
    assert_eq!(next(&mut p, "ana").map(|i| i.task_id), Some(b.task_id));
}

#[test]
fn a_late_submit_after_a_skip_never_exceeds_the_overlap() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = setup(dir.path(), 2, 1, &clock);
    let item = next(&mut p, "ana").unwrap_or_else(|| panic!("an item"));
    must(p.skip_item(&p.who("ana"), item.task_id));
    let bens = next(&mut p, "ben").unwrap_or_else(|| panic!("the released item"));
    assert_eq!(bens.task_id, item.task_id);
    // Ana's screen still had the item and sends her answer after the skip: ben holds it.
    let late = answer(&mut p, "ana", &item)
        .err()
        .unwrap_or_else(|| panic!("no place left"));
    assert_eq!(late.code, ErrorCode::Conflict);
    must(answer(&mut p, "ben", &bens));
    // The other order: ana's answer lands before anyone takes the released slot, and then
    // ben, who was served it and skipped it too, cannot answer it.
    let other = next(&mut p, "ana").unwrap_or_else(|| panic!("the second item"));
    must(p.skip_item(&p.who("ana"), other.task_id));
    let bens = next(&mut p, "ben").unwrap_or_else(|| panic!("the released item"));
    assert_eq!(bens.task_id, other.task_id);
    must(p.skip_item(&p.who("ben"), bens.task_id));
    must(answer(&mut p, "ana", &other));
    assert_eq!(next(&mut p, "ben").map(|i| i.task_id), None);
    let late = answer(&mut p, "ben", &bens)
        .err()
        .unwrap_or_else(|| panic!("no place left"));
    assert_eq!(late.code, ErrorCode::Conflict);
    for (task, got, overlap) in answered(&p) {
        assert!(
            got <= overlap,
            "task {task}: {got} answers, overlap {overlap}"
        );
        assert_eq!(got, 1, "task {task}");
    }
}

#[test]
fn skipping_an_answered_item_keeps_the_answer() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = setup(dir.path(), 2, 1, &clock);
    let item = next(&mut p, "ana").unwrap_or_else(|| panic!("an item"));
    must(answer(&mut p, "ana", &item));
    assert!(!must(p.skip_item(&p.who("ana"), item.task_id)));
    let counts = answered(&p);
    assert!(counts.contains(&(item.task_id, 1, 1)), "{counts:?}");
}

#[test]
fn a_burst_of_answers_gives_a_bounded_pace() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = setup(dir.path(), 30, 1, &clock);
    // Twenty answers 50 ms apart.
    for _ in 0..20 {
        let item = next(&mut p, "ana").unwrap_or_else(|| panic!("an item"));
        must(answer(&mut p, "ana", &item));
        clock.advance_ms(50);
    }
    let pace = must(p.paces(&p.who("ana")))
        .into_iter()
        .find(|k| k.kind == TaskKind::Evidence)
        .unwrap_or_else(|| panic!("evidence pace"))
        .pace;
    assert_eq!(pace.done, 20);
    assert_eq!(pace.per_hour.map(f64::round), Some(1200.0));
    // Ten left at 1 200 an hour: half a minute.
    assert_eq!(pace.minutes_left.map(|m| (m * 10.0).round()), Some(5.0));
    // An hour later the burst is history: no pace rather than a stale one.
    clock.advance_ms(3_600_000);
    let pace = &must(p.paces(&p.who("ana")))[0].pace;
    assert_eq!(pace.per_hour, None);
}
