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
