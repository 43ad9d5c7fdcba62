//! Annotators working at once, each through a connection of their own (as a team server's
//! requests or several laptops on one database do): the store, not the caller, keeps
//! every task within its overlap and every annotator to one answer per task. Runs on a
//! file, and on PostgreSQL when FACTDESK_TEST_PG is set.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Project};

use crate::common;
use common::Acting;
use common::{project, trick_option};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `act` again while it fails as "unavailable", as a client does with the server's
/// 503 and Retry-After: another connection held the lock past the store's busy timeout
/// (SQLite, on a machine busy enough to stall a writer for seconds) or PostgreSQL aborted
/// the same decision more often than its retries. Nothing of a failed attempt was written,
/// so the race's invariants hold either way; every other error is returned as it came.
fn retrying<T>(mut act: impl FnMut() -> factdesk_api::Result<T>) -> factdesk_api::Result<T> {
    let mut tries = 0;
    loop {
        match act() {
            Err(e) if e.code == factdesk_api::ErrorCode::Unavailable && tries < 20 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50 * tries));
            }
            other => return other,
        }
    }
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
    while let Some(item) = ok(retrying(|| p.next_item(&me, TaskKind::Evidence))).item {
        let trick = trick_option(&p, &item).unwrap_or_default();
        let real = item
            .options
            .iter()
            .find(|o| o.id != trick)
            .map(|o| o.id.clone())
            .unwrap_or_default();
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![real],
            ..Default::default()
        };
        ok(retrying(|| p.submit(&me, &answer)));
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

    let conn = p.store().read();
    let count = |sql: &str| -> i64 { ok(conn.query_row(sql, [], |r| r.get(0))) };
    assert_eq!(
        count("SELECT count(*) FROM annotations"),
        (CLAIMS * OVERLAP as usize) as i64
    );
    assert_overlap_kept(&count);
    assert_eq!(
        count("SELECT coalesce(sum(open), 0) FROM open_tasks"),
        0,
        "the open-task count kept by triggers"
    );
}

const RACERS: usize = 12;

/// Runs `act` for each of `RACERS` annotators at once, each on a connection of its own,
/// all released together; returns what each returned, by annotator.
fn race<T: Send + 'static>(
    location: &std::path::Path,
    clock: &ManualClock,
    act: impl Fn(&mut Project, &factdesk_api::Actor) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let act = std::sync::Arc::new(act);
    let start = std::sync::Arc::new(std::sync::Barrier::new(RACERS));
    let workers: Vec<_> = (0..RACERS)
        .map(|i| {
            let (location, clock) = (location.to_path_buf(), clock.clone());
            let (act, start) = (act.clone(), start.clone());
            std::thread::spawn(move || {
                let mut p = ok(Project::open(&location, Box::new(clock)));
                let me = p.who(&format!("racer{i}"));
                start.wait();
                act(&mut p, &me)
            })
        })
        .collect();
    workers
        .into_iter()
        .map(|w| {
            w.join()
                .unwrap_or_else(|_| panic!("a racer's thread failed"))
        })
        .collect()
}

/// Serves every racer each of the three tasks, every reservation lapsing before the
/// next round: each round three groups of three fill the tasks' places in walk order (a
/// fourth group sits out), and the groups rotate so each meets every task once.
fn serve_all_then_lapse(p: &mut Project, clock: &ManualClock) {
    let lapse = i64::from(ok(p.settings()).reservation_minutes) * 60_000 + 1;
    let groups = RACERS / OVERLAP as usize;
    for round in 0..groups {
        for g in (0..OVERLAP as usize).map(|k| (round + k) % groups) {
            for i in 0..OVERLAP as usize {
                let me = p.who(&format!("racer{}", g * OVERLAP as usize + i));
                assert!(ok(p.next_item(&me, TaskKind::Evidence)).item.is_some());
            }
        }
        clock.advance_ms(lapse);
    }
}

#[test]
fn more_writers_than_the_overlap_racing_for_one_task_fill_it_exactly() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(OVERLAP)));
    for i in 0..RACERS {
        ok(p.add_annotator(&p.lead(), &format!("racer{i}"), Role::Annotator));
    }
    let location = common::location(dir.path(), "p.fdesk");
    serve_all_then_lapse(&mut p, &clock);
    let conn = p.store().read();
    let count = |sql: &str| -> i64 { ok(conn.query_row(sql, [], |r| r.get(0))) };
    let last = count("SELECT max(id) FROM tasks");
    assert_eq!(count("SELECT count(*) FROM assignments"), 3 * RACERS as i64);

    // Everyone answers the same task at once, none holding it (all were served it and
    // let it lapse, as answers are taken only on items given): the first three to
    // commit take its places, the others are refused, none waits forever.
    let answers = race(&location, &clock, move |p, me| {
        let answer = Answer {
            task_id: last,
            no_evidence: true,
            ..Default::default()
        };
        retrying(|| p.submit(me, &answer)).map_err(|e| e.code)
    });
    let taken = answers.iter().filter(|a| a.is_ok()).count();
    assert_eq!(taken, OVERLAP as usize, "{answers:?}");
    assert!(
        answers
            .iter()
            .all(|a| a.is_ok() || *a == Err(factdesk_api::ErrorCode::Conflict)),
        "{answers:?}"
    );

    // Everyone asks for an item at once: the two other tasks' six places go to six
    // people, three each, and the other six are told nothing is left, not kept waiting.
    let items = race(&location, &clock, |p, me| {
        ok(retrying(|| p.next_item(me, TaskKind::Evidence)))
            .item
            .map(|i| i.task_id)
    });
    let mut served: Vec<i64> = items.iter().flatten().copied().collect();
    served.sort_unstable();
    assert_eq!(served.len(), 2 * OVERLAP as usize, "{items:?}");
    assert!(served.iter().all(|&t| t != last), "{items:?}");
    for t in &served {
        assert_eq!(served.iter().filter(|s| *s == t).count(), OVERLAP as usize);
    }

    // Those served answer at once; the others' answers to the same tasks find no place.
    let held = std::sync::Arc::new(items);
    let answers = race(&location, &clock, {
        let held = held.clone();
        move |p, me| {
            let i: usize = me.name().trim_start_matches("racer").parse().unwrap_or(0);
            let task_id =
                held[i].unwrap_or_else(|| held.iter().flatten().copied().next().unwrap_or(0));
            let answer = Answer {
                task_id,
                no_evidence: true,
                ..Default::default()
            };
            retrying(|| p.submit(me, &answer))
                .map(|_| ())
                .map_err(|e| e.code)
        }
    });
    for (i, a) in answers.iter().enumerate() {
        match held[i] {
            Some(_) => assert_eq!(*a, Ok(()), "racer{i} held an item"),
            None => assert_eq!(*a, Err(factdesk_api::ErrorCode::Conflict), "racer{i}"),
        }
    }

    assert_eq!(count("SELECT count(*) FROM annotations"), 9);
    assert_overlap_kept(&count);
    assert_eq!(count("SELECT coalesce(sum(open), 0) FROM open_tasks"), 0);
}

/// No task above its overlap of 3, no one answering a task twice, and every task full:
/// what every race here must leave behind, read from the project by `count`.
fn assert_overlap_kept(count: &dyn Fn(&str) -> i64) {
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
}
