//! Issue 31: an import into a live project was one transaction, so every answer
//! submitted meanwhile waited for the whole import (3.2 s at p99 for 20,000 claims). It
//! now writes in chunks, each a transaction of its own, with its claims hidden from the
//! team (no task) until the last one; an import stopped midway is removed.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Progress, Project};
use factdesk_store::unfinished::{self, Removed};
use factdesk_store::{ProjectLocation, Store};
use std::io::Write;
use std::path::Path;

use crate::common;
use common::{must, Acting};

/// Claims `c{from}`..`c{to}`, each with a document of its own (two chunks' worth and
/// more: an import of them into a live project writes in several transactions).
/// `clash`: that claim takes the id `c5`, which the project holds with another text.
fn inputs(dir: &Path, from: usize, to: usize, clash: Option<usize>) -> ImportRequest {
    let claims = dir.join(format!("claims-{from}-{to}.jsonl"));
    let docs = dir.join(format!("docs-{from}-{to}.jsonl"));
    let mut c = must(std::fs::File::create(&claims));
    let mut d = must(std::fs::File::create(&docs));
    for i in from..to {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. The mayor of town {i} opened a museum. A ferry linked town {i} to the island.",
            1800 + i
        );
        must(writeln!(
            d,
            "{}",
            serde_json::json!({"id": format!("d{i}"), "text": text})
        ));
        let id = match clash == Some(i) {
            true => "c5".to_string(),
            false => format!("c{i}"),
        };
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        must(writeln!(
            c,
            "{}",
            serde_json::json!({"id": id, "claim": claim, "doc_ids": [format!("d{i}")]})
        ));
    }
    ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    }
}

/// A live project: `n` claims with label tasks, and an annotator.
fn live(dir: &Path, n: usize, clock: &ManualClock) -> Project {
    let mut p = common::project(dir, n, clock);
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    p
}

/// A second connection to the project, as the team server holds, that gives up on a
/// lock after a moment rather than the usual 5 s: a write that has to wait for the
/// import fails at once instead of passing late.
fn team_connection(dir: &Path, clock: &ManualClock) -> Project {
    let other = must(Project::open(
        &common::location(dir, "p.fdesk"),
        Box::new(clock.clone()),
    ));
    let impatient = match common::on_postgres() {
        true => "SET lock_timeout = '1s'",
        false => "PRAGMA busy_timeout = 100",
    };
    must(other.store().read().execute_batch(impatient));
    other
}

fn count(p: &Project, sql: &str) -> i64 {
    must(p.store().read().query_row(sql, [], |r| r.get(0)))
}

/// Claims with documents but no candidates: none may ever be given to anyone.
const UNRANKED: &str = "SELECT count(*) FROM claims c WHERE EXISTS (SELECT 1 FROM claim_documents d WHERE d.claim_id = c.id) AND NOT EXISTS (SELECT 1 FROM candidates k WHERE k.claim_id = c.id)";

/// The team's side while the import writes: between its chunks, an answer goes in and
/// the lead's `tasks` runs, making no task for the import's claims, which are written
/// (some without candidates yet) but not finished.
struct Team {
    other: Project,
    answered: usize,
    /// Claims the team's connection sees at each answer.
    seen: Vec<i64>,
    phase: String,
    /// Panics when this phase starts, as a kill would stop the import.
    die_at: Option<&'static str>,
}

impl Team {
    fn new(other: Project, die_at: Option<&'static str>) -> Team {
        Team {
            other,
            answered: 0,
            seen: Vec::new(),
            phase: String::new(),
            die_at,
        }
    }
}

impl Progress for Team {
    fn phase(&mut self, name: &str, _total: u64) {
        if self.die_at == Some(name) {
            panic!("killed at {name}");
        }
        self.phase = name.to_string();
    }

    fn set(&mut self, _done: u64) {
        if !matches!(self.phase.as_str(), "documents" | "claims" | "ranking") {
            return;
        }
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
        self.seen
            .push(count(&self.other, "SELECT count(*) FROM claims"));
        let lead = self.other.lead();
        for kind in [TaskKind::Label, TaskKind::Evidence, TaskKind::Refute] {
            let made = must(self.other.create_tasks(&lead, kind, Some(1)));
            let tasks = count(&self.other, "SELECT max(claim_id) FROM tasks");
            assert!(
                tasks <= 20,
                "{kind:?}: a task for a claim of the unfinished import ({made:?})"
            );
        }
    }
}

/// Regression: with the import one transaction, the answer given between two of its
/// chunks waited for the whole import (and here, with a short wait, failed).
#[test]
fn answers_go_in_while_an_import_into_a_live_project_writes() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = live(dir.path(), 20, &clock);
    let mut team = Team::new(team_connection(dir.path(), &clock), None);
    let lead = p.lead();
    let report = must(import(
        &mut p,
        &lead,
        &inputs(dir.path(), 20, 2520, None),
        &mut team,
    ));
    assert_eq!((report.claims_added, report.claims_ranked), (2500, 2500));
    // Three chunks of documents, three of claims, ranking: an answer after each.
    assert!(team.answered >= 7, "{} answers", team.answered);
    // The claims were committed chunk by chunk, not at the end.
    assert!(
        team.seen.iter().any(|&n| n > 20 && n < 2520),
        "{:?}",
        team.seen
    );
    // Finished, the claims are the team's: each gets its task.
    let made = must(p.create_tasks(&lead, TaskKind::Label, Some(1)));
    assert_eq!(made.created, 2500);
    assert_eq!(count(&p, UNRANKED), 0);
}

/// Regression (hostile pass of session 33): an import of at most 1,000 rows into a live
/// project was written and ranked in one transaction, so with the semantic ranker every
/// answer waited for its embeddings (82 s for 17 long claims). However small, an import
/// into a live project now goes in chunks with its claims ranked outside them.
#[test]
fn answers_go_in_while_a_small_import_into_a_live_project_ranks() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = live(dir.path(), 20, &clock);
    let mut team = Team::new(team_connection(dir.path(), &clock), None);
    let lead = p.lead();
    let report = must(import(
        &mut p,
        &lead,
        &inputs(dir.path(), 20, 25, None),
        &mut team,
    ));
    assert_eq!((report.claims_added, report.claims_ranked), (5, 5));
    assert!(team.answered >= 1, "{} answers", team.answered);
    assert_eq!(count(&p, UNRANKED), 0);
}

/// An import stopped midway (here a panic where a kill would land, between storing the
/// claims and storing their candidates) left claims without candidates: nobody may be
/// given them, and the next opening of the project removes them, after which the same
/// import goes through whole.
#[test]
fn an_import_killed_midway_leaves_nothing_to_answer_and_is_removed() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = live(dir.path(), 20, &clock);
    let tables = [
        "claims",
        "documents",
        "sentences",
        "candidates",
        "claim_documents",
        "imports",
    ];
    let counts = |p: &Project| -> Vec<i64> {
        tables
            .iter()
            .map(|t| count(p, &format!("SELECT count(*) FROM {t}")))
            .collect()
    };
    let before = counts(&p);
    let mut team = Team::new(team_connection(dir.path(), &clock), Some("ranking"));
    let req = inputs(dir.path(), 20, 2520, None);
    let lead = p.lead();
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        import(&mut p, &lead, &req, &mut team)
    }));
    assert!(died.is_err(), "the import was not stopped");
    let mut other = team.other;
    // Written, not finished: every claim without candidates is one of the import's.
    assert_eq!(count(&other, "SELECT count(*) FROM claims"), 2520);
    assert_eq!(count(&other, UNRANKED), 2500);
    for kind in [TaskKind::Label, TaskKind::Evidence, TaskKind::Refute] {
        let lead = other.lead();
        must(other.create_tasks(&lead, kind, Some(1)));
    }
    assert_eq!(
        count(&other, "SELECT count(*) FROM tasks WHERE claim_id > 20"),
        0
    );
    // The process is gone (its connection with it); the next opening removes the rows.
    drop(p);
    let tasks = count(&other, "SELECT count(*) FROM tasks");
    drop(other);
    let mut p = must(Project::open(
        &common::location(dir.path(), "p.fdesk"),
        Box::new(clock.clone()),
    ));
    assert_eq!(counts(&p), before);
    assert_eq!(count(&p, "SELECT count(*) FROM tasks"), tasks);
    // Nor does the search index keep them (town 2400's lighthouse was built in 4200).
    assert!(must(p.search(&p.lead(), "4200", 10)).is_empty());
    let lead = p.lead();
    let report = must(import(&mut p, &lead, &req, &mut NoProgress));
    assert_eq!((report.claims_added, report.claims_ranked), (2500, 2500));
    assert_eq!(count(&p, UNRANKED), 0);
    assert_eq!(
        count(&p, "SELECT count(*) FROM imports WHERE rows_added < 0"),
        0
    );
    let made = must(p.create_tasks(&lead, TaskKind::Evidence, Some(1)));
    assert_eq!(made.created, 2500);
}

/// A clash (an id the project holds with other content) past the first chunk's rows
/// refuses the import before anything is written: no chunk was committed first.
#[test]
fn a_clash_late_in_a_large_import_refuses_it_with_nothing_written() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = live(dir.path(), 20, &clock);
    let before = common::project_values(&p);
    let req = inputs(dir.path(), 20, 2520, Some(2300));
    let mut watch = Watch {
        other: team_connection(dir.path(), &clock),
        most: 0,
    };
    let lead = p.lead();
    let err = match import(&mut p, &lead, &req, &mut watch) {
        Ok(r) => panic!("a clash was imported: {r:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::Conflict, "{err}");
    let at = err
        .location
        .clone()
        .unwrap_or_else(|| panic!("{err}: no place"));
    assert_eq!((at.line, at.field.as_deref()), (2281, Some("id")), "{err}");
    assert!(at.file.ends_with("claims-20-2520.jsonl"), "{err}");
    assert_eq!(
        watch.most, 20,
        "rows were committed before the clash was found"
    );
    assert_eq!(common::project_values(&p), before);
    // Set aside under --skip-invalid, the row alone stays out.
    let req = ImportRequest {
        skip_invalid: true,
        ..req
    };
    let report = must(import(&mut p, &lead, &req, &mut NoProgress));
    assert_eq!((report.claims_added, report.rejected), (2499, 1));
    assert_eq!(count(&p, UNRANKED), 0);
}

/// Counts the claims another connection sees while an import runs.
struct Watch {
    other: Project,
    most: i64,
}

impl Progress for Watch {
    fn phase(&mut self, _name: &str, _total: u64) {}

    fn set(&mut self, _done: u64) {
        self.most = self
            .most
            .max(count(&self.other, "SELECT count(*) FROM claims"));
    }
}

/// Regression (7dfdd56): removing a killed import, a chunk at a time with the highest ids
/// first, spares the claims that something outside the import refers to, with the claims
/// those refute. A refutation imported with its claim comes a chunk before it. When a
/// prediction named the refutation between two of the removal's transactions (as the
/// lead's `predictions`, which finds a claim by its id, may), the refutation's chunk kept
/// it and named its claim, but only that chunk's own ids were spared: the claim's chunk
/// deleted it, leaving the refutation pointing at nothing on a file, and failing the
/// removal on PostgreSQL, whose check refuses the delete.
#[test]
fn a_refutation_kept_in_one_chunk_of_a_removal_keeps_its_claim_in_a_later_chunk() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = live(dir.path(), 20, &clock);
    let req = inputs(dir.path(), 20, 2520, None);
    refute(&req.claims[0], "c520");
    let mut team = Team::new(team_connection(dir.path(), &clock), Some("ranking"));
    let lead = p.lead();
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        import(&mut p, &lead, &req, &mut team)
    }));
    assert!(died.is_err(), "the import was not stopped");
    drop(p);
    let other = team.other;
    let claim = claim_id(&other, "c520");
    let refutation = claim_id(&other, "c520/refuted");
    let import_id = count(&other, "SELECT max(id) FROM imports");
    let order = import_claims(&other, import_id);
    // 1,000 claims to a chunk on a file, 50 on PostgreSQL: the refutation, written right
    // after its claim, ends a chunk and its claim starts the next.
    let at = |id: i64| order.iter().position(|&c| c == id);
    assert_eq!((at(refutation), at(claim)), (Some(1999), Some(2000)));
    // The prediction comes with the first chunk, before the refutation's chunk is checked.
    let location = common::location(dir.path(), "p.fdesk");
    between_chunks(&location, order[0], refutation, true);
    // Opened while the import lock is held, the project is left as it is; the removal
    // runs here, to see what it reports.
    let lock = must(other.store().try_lock_imports()).unwrap_or_else(|| panic!("lock held"));
    let mut store = must(Store::open_at(&ProjectLocation::parse(&location)));
    must(other.store().unlock_imports(lock));
    let removed = must(unfinished::remove_dead(&mut store));
    between_chunks(&location, order[0], refutation, false);
    let kept = Removed {
        claims: 2499,
        documents: 2499,
        kept_claims: 2,
    };
    assert_eq!(removed, kept);
    // The refutation and its claim stay, as many as reported, hidden in the unfinished
    // import: nobody is given them.
    drop(store);
    let mut p = must(Project::open(&location, Box::new(clock.clone())));
    let left = |p: &Project| {
        let sql =
            format!("SELECT id, parent_id FROM claims WHERE import_id = {import_id} ORDER BY id");
        let mut stmt = must(p.store().read().prepare(&sql));
        let rows = must(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))));
        must(rows.collect::<Result<Vec<(i64, Option<i64>)>, _>>())
    };
    assert_eq!(left(&p), [(claim, None), (refutation, Some(claim))]);
    assert_eq!(
        count(&p, "SELECT count(*) FROM imports WHERE rows_added < 0"),
        1
    );
    let lead = p.lead();
    for kind in [TaskKind::Label, TaskKind::Evidence, TaskKind::Verify] {
        must(p.create_tasks(&lead, kind, Some(1)));
    }
    assert_eq!(
        count(&p, "SELECT count(*) FROM tasks WHERE claim_id > 20"),
        0
    );
}

/// Gives claim `id` of the claims file at `path` a refutation, imported with it.
fn refute(path: &Path, id: &str) {
    let text = must(std::fs::read_to_string(path));
    let mut out = String::new();
    for line in text.lines() {
        let mut row: serde_json::Value = must(serde_json::from_str(line));
        if row["id"] == id {
            row["refuted"] = serde_json::json!(format!("Claim {id} is false"));
        }
        out.push_str(&format!("{row}\n"));
    }
    must(std::fs::write(path, out));
}

fn claim_id(p: &Project, ext_id: &str) -> i64 {
    must(
        p.store()
            .read()
            .query_row("SELECT id FROM claims WHERE ext_id = ?1", [ext_id], |r| {
                r.get(0)
            }),
    )
}

/// The claims of import `import_id`, in the order its removal takes them.
fn import_claims(p: &Project, import_id: i64) -> Vec<i64> {
    let sql = "SELECT id FROM claims WHERE import_id = ?1 ORDER BY id DESC";
    let mut stmt = must(p.store().read().prepare(sql));
    let rows = must(stmt.query_map([import_id], |r| r.get(0)));
    must(rows.collect::<Result<_, _>>())
}

/// With `on`, has the deletion of claim `first` record a model's prediction on claim
/// `named` in the same transaction, as another command could between two of a removal's
/// transactions; without, takes that back.
fn between_chunks(location: &Path, first: i64, named: i64, on: bool) {
    let insert = format!(
        "INSERT INTO predictions (claim_id, model, label, created_at) VALUES ({named}, 'model-a', 'REFUTED', 0)"
    );
    if common::on_postgres() {
        let url = location.to_string_lossy();
        let mut db = must(postgres::Client::connect(&url, postgres::NoTls));
        must(db.batch_execute(&match on {
            true => format!(
                "CREATE FUNCTION between_chunks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {insert}; RETURN NULL; END $$;
                 CREATE TRIGGER between_chunks AFTER DELETE ON claims FOR EACH ROW WHEN (OLD.id = {first}) EXECUTE FUNCTION between_chunks();"
            ),
            false => "DROP TRIGGER between_chunks ON claims; DROP FUNCTION between_chunks();".to_string(),
        }));
    } else {
        let db = must(rusqlite::Connection::open(location));
        must(db.execute_batch(&match on {
            true => format!(
                "CREATE TRIGGER between_chunks AFTER DELETE ON claims WHEN OLD.id = {first} BEGIN {insert}; END;"
            ),
            false => "DROP TRIGGER between_chunks;".to_string(),
        }));
    }
}
