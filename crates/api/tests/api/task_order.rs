//! A task's id tells nothing of its claim: tasks are written in their (secret) serving
//! order, so an id's parity or rank cannot pick a refutation from its original claim, and
//! with it the label (hostile pass 21, F2: "even id = REFUTED" was right 60 of 60).

use crate::common::{file_project, must, Acting};
use factdesk_api::tasks::TaskKind;
use factdesk_api::ManualClock;

#[test]
fn task_ids_do_not_follow_the_order_of_the_claims() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = file_project(dir.path(), 300, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    let conn = must(rusqlite::Connection::open(p.path()));
    let mut stmt =
        must(conn.prepare("SELECT claim_id FROM tasks WHERE kind = 'label' ORDER BY id"));
    let claims: Vec<i64> = must(stmt.query_map([], |r| r.get(0))).map(must).collect();
    assert_eq!(claims.len(), 300);
    // In claim order all 299 neighbours ascend; in a random order about half do (at least
    // 224 would be 8.7 standard deviations out: never by chance).
    let ascending = claims.windows(2).filter(|w| w[1] > w[0]).count();
    assert!(
        ascending < 224,
        "{ascending} of 299 neighbouring task ids follow their claims' order"
    );
}

/// Hostile pass 22: with ids shuffled only within each chunk of a run (64 claims in a
/// small project), the lowest label ids were all originals and the highest all
/// refutations, imported after them: "a low id is SUPPORTED" was right 270 of 300 times.
#[test]
fn task_ids_follow_the_serving_order_across_the_whole_run() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = file_project(dir.path(), 300, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    let conn = must(rusqlite::Connection::open(p.path()));
    let mut stmt = must(
        conn.prepare("SELECT claim_id, shuffle_key FROM tasks WHERE kind = 'label' ORDER BY id"),
    );
    let tasks: Vec<(i64, i64)> = must(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))))
        .map(must)
        .collect();
    assert_eq!(tasks.len(), 300);
    assert!(
        tasks.windows(2).all(|w| w[0].1 <= w[1].1),
        "task ids ascend with the serving order"
    );
    // Of the 100 lowest ids, about a third are of the 100 first claims at random
    // (hypergeometric: mean 33.3, sd 3.9); 57 would be 6 sd out, about 1e-9 by chance.
    // Shuffled only within chunks, nearly all 100 were.
    let mut first: Vec<i64> = tasks.iter().map(|t| t.0).collect();
    first.sort_unstable();
    let first_claims = &first[..100];
    let early = tasks[..100]
        .iter()
        .filter(|t| first_claims.contains(&t.0))
        .count();
    assert!(
        early < 57,
        "{early} of the 100 lowest task ids are of the first 100 claims"
    );
}
