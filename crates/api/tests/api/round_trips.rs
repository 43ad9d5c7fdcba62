//! What serving and answering an item cost on PostgreSQL, in round trips to the server:
//! the team server's latency under load is mostly these (docs/performance.md, "Team
//! server"). Runs when FACTDESK_TEST_PG names a PostgreSQL server (scripts/test-all sets
//! it); a file's statements are calls within the process and are not counted.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

use crate::common;
use common::{project, Acting};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// At most this many round trips for `next` and for an answer, once the connection has
/// prepared its statements: 22 and 18 when first counted (session 7), 9 and 8 once the
/// hot path read its rows together (session 8, `factdesk_store::serving`).
const NEXT_AT_MOST: u64 = 9;
const SUBMIT_AT_MOST: u64 = 8;

fn trips(p: &Project) -> u64 {
    p.store().read().round_trips().unwrap_or_default()
}

/// One next → submit round; returns the round trips of each.
fn round(p: &mut Project, who: &factdesk_api::Actor) -> (u64, u64) {
    let before = trips(p);
    let item = ok(p.next_item(who, TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item"));
    let served = trips(p) - before;
    let before = trips(p);
    ok(p.submit(
        who,
        &Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        },
    ));
    (served, trips(p) - before)
}

#[test]
fn next_and_submit_stay_within_their_round_trips() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the round-trip count did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 12, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let ana = p.who("ana");
    // The first round prepares the connection's statements.
    round(&mut p, &ana);
    let (next, submit) = round(&mut p, &ana);
    let (next2, submit2) = round(&mut p, &ana);
    eprintln!("round trips: next {next}, {next2}; submit {submit}, {submit2}");
    assert_eq!(
        (next, submit),
        (next2, submit2),
        "a round costs the same each time"
    );
    assert!(next <= NEXT_AT_MOST, "next made {next} round trips");
    assert!(submit <= SUBMIT_AT_MOST, "submit made {submit} round trips");
}
