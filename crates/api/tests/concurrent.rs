//! Annotators working at once, each through a connection of their own (as a team server's
//! requests or several laptops on one database do): the store, not the caller, keeps
//! every task within its overlap and every annotator to one answer per task. Runs on a
//! file, and on PostgreSQL when FACTDESK_TEST_PG is set.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

mod common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const CLAIMS: usize = 24;
const OVERLAP: u32 = 3;
const PEOPLE: [&str; 6] = ["ana", "ben", "caro", "dev", "eli", "fay"];

/// One annotator's loop on their own connection: next, then submit, until nothing is
/// left; returns the tasks they answered.
fn work(location: std::path::PathBuf, name: &'static str, clock: ManualClock) -> Vec<i64> {
    let mut p = ok(Project::open(&location, Box::new(clock)));
    let me = p.who(name);
    let mut answered = Vec::new();
    while let Some(item) = ok(p.next_item(&me, TaskKind::Evidence)).item {
        let trick = trick_option(&p, &item).unwrap_or_default();
        let real = item
            .options
            .iter()
            .find(|o| o.id != trick)
            .map(|o| o.id.clone())
            .unwrap_or_default();
        ok(p.submit(
            &me,
            &Answer {
                task_id: item.task_id,
                selected: vec![real],
                ..Default::default()
            },
        ));
        answered.push(item.task_id);
    }
    answered
}

#[test]
fn six_annotators_racing_at_overlap_three_never_exceed_it_nor_answer_twice() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), CLAIMS, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(OVERLAP)));
    for n in PEOPLE {
        ok(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let location = common::location(dir.path(), "p.fdesk");
    let workers: Vec<_> = PEOPLE
        .iter()
        .map(|&n| {
            let (location, clock) = (location.clone(), clock.clone());
            std::thread::spawn(move || work(location, n, clock))
        })
        .collect();
    let mut served = 0;
    for w in workers {
        let mine = w
            .join()
            .unwrap_or_else(|_| panic!("an annotator's thread failed"));
        let mut distinct = mine.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            mine.len(),
            "an item was served twice to one annotator"
        );
        served += mine.len();
    }
    assert_eq!(served, CLAIMS * OVERLAP as usize, "every slot filled once");

    let conn = p.store().conn();
    let count = |sql: &str| -> i64 { ok(conn.query_row(sql, [], |r| r.get(0))) };
    assert_eq!(
        count("SELECT count(*) FROM annotations"),
        (CLAIMS * OVERLAP as usize) as i64
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT task_id FROM annotations GROUP BY task_id
             HAVING count(DISTINCT annotator_id) > 3) AS over"
        ),
        0,
        "tasks above overlap"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT task_id, annotator_id FROM annotations
             GROUP BY task_id, annotator_id HAVING count(*) > 1) AS twice"
        ),
        0,
        "double answers"
    );
    assert_eq!(
        count("SELECT count(*) FROM tasks WHERE answered != overlap"),
        0
    );
    assert_eq!(
        count("SELECT coalesce(sum(open), 0) FROM open_tasks"),
        0,
        "the open-task count kept by triggers"
    );
}
