//! The serving audit the load and fault benches end with: it finds tasks over their
//! overlap, double answers and acknowledged answers that are missing.

use crate::common;
use common::Acting;
use factdesk_api::RawSql as _;

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Result};

fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_audit_is_clean_after_serving_and_finds_a_task_over_its_overlap() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = common::project(dir.path(), 3, &clock);
    ok(p.add_annotator(&p.lead(), "maria", Role::Lead));
    let maria = p.lead_named("maria");
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&maria, name, Role::Annotator));
    }
    ok(p.create_tasks(&maria, TaskKind::Evidence, Some(2)));
    let mut acks = Vec::new();
    for name in ["ana", "ben", "ana"] {
        let who = p.who(name);
        let item = ok(p.next_item(&who, TaskKind::Evidence)).item;
        let Some(item) = item else {
            panic!("no item for {name}")
        };
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        };
        acks.push(ok(p.submit(&who, &answer)).ack);
    }
    let audit = ok(p.serving_audit(&maria));
    assert_eq!((audit.tasks_over_overlap, audit.double_answers), (0, 0));
    assert!(ok(p.missing_answers(&maria, &acks)).is_empty());
    let unknown = vec!["not-an-ack".to_string()];
    assert_eq!(ok(p.missing_answers(&maria, &unknown)), unknown);
    assert_eq!(
        p.as_lead(&p.who("ana"), "audit the answers")
            .map(|_| ())
            .map_err(|e| e.code),
        Err(ErrorCode::Forbidden)
    );
    // The database itself refuses a second current answer of one person to a task...
    let conn = p.store().read();
    let forged = conn.execute(
        "INSERT INTO annotations (uuid, task_id, annotator_id, answer, created_at)
         SELECT 'forged', task_id, annotator_id, answer, created_at FROM annotations WHERE uuid = ?1",
        [&acks[0]],
    );
    assert!(forged.is_err());
    // ...and a task whose overlap is lowered behind the api's back shows up as over it.
    conn.execute("UPDATE tasks SET overlap = 1", [])
        .unwrap_or_else(|e| panic!("{e}"));
    let audit = ok(p.serving_audit(&maria));
    assert_eq!(audit.tasks_over_overlap, 1);
}
