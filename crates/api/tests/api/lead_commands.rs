//! Issue 31, item 7: a lead's `tasks` run on a live project froze the team. It wrote every
//! claim's task in one transaction: on a file every submit meanwhile waited for the whole
//! run and then failed as busy; on PostgreSQL one waited 22.5 s. Now each chunk of claims
//! is a transaction of its own, and an answer waits for one chunk at most.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Progress, Project};

use crate::common;
use common::{must, Acting};

/// Between two chunks of the run, a second connection (another process: the team server)
/// answers a label item and counts the evidence tasks committed so far.
struct Team {
    other: Project,
    done: Vec<u64>,
    committed: Vec<i64>,
    answered: usize,
}

impl Progress for Team {
    fn phase(&mut self, _name: &str, _total: u64) {}

    fn set(&mut self, done: u64) {
        self.done.push(done);
        self.committed
            .push(must(self.other.store().read().query_row(
                "SELECT count(*) FROM tasks WHERE kind = 'evidence'",
                [],
                |r| r.get(0),
            )));
        let ana = self.other.who("ana");
        if let Some(item) = must(self.other.next_item(&ana, TaskKind::Label)).item {
            let answer = Answer {
                task_id: item.task_id,
                label: Some("SUPPORTED".to_string()),
                ..Default::default()
            };
            must(self.other.submit(&ana, &answer));
            self.answered += 1;
        }
    }
}

#[test]
fn answers_go_in_between_the_chunks_of_a_tasks_run() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    // Four chunks of claims (a run this small is cut in chunks of 64).
    let mut p = common::project(dir.path(), 200, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let other = must(Project::open(
        &common::location(dir.path(), "p.fdesk"),
        Box::new(clock.clone()),
    ));
    let mut team = Team {
        other,
        done: Vec::new(),
        committed: Vec::new(),
        answered: 0,
    };
    let report =
        must(p.create_tasks_with(&p.lead(), TaskKind::Evidence, Some(2), false, &mut team));
    assert_eq!(report.created, 200);
    assert_eq!(team.done, vec![64, 128, 192, 200]);
    // What the run had made was committed as it went, and the answers went in meanwhile.
    assert_eq!(team.committed, vec![64, 128, 192, 200]);
    assert_eq!(team.answered, 4);
    // A run cut short leaves whole chunks; the next run makes only the rest.
    let again = must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    assert_eq!((again.created, again.existing), (0, 200));
}

/// The chunks before the last commit without waiting for the disk; afterwards every
/// commit of the project's connection waits for it again (answers among them).
#[test]
fn commits_wait_for_the_disk_again_after_a_tasks_run() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 200, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    let conn = p.store().read();
    let durable = match conn.engine() {
        factdesk_store::Engine::Sqlite => {
            let pragma = |name: &str| {
                must(conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0)))
            };
            // And the run's larger page cache and its pause of checkpoints end with it.
            assert_eq!(pragma("wal_autocheckpoint"), 1000);
            assert_eq!(pragma("cache_size"), -2000);
            pragma("synchronous") == 2
        }
        factdesk_store::Engine::Postgres => {
            must(conn.query_row("SHOW synchronous_commit", [], |r| r.get::<_, String>(0))) == "on"
        }
    };
    assert!(durable, "commits no longer wait for the disk");
}
