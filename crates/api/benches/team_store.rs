//! Several annotators working at once on one project, each through a connection of their
//! own: latency of `next_item` and `submit`, throughput, and afterwards the overlap (of
//! counted answers: each annotator picks the first option, the trick now and then) and
//! one-answer-per-annotator invariants checked in the database. On a file, or on
//! PostgreSQL when FACTDESK_BENCH_PG names a server (a URL of a role that may create
//! databases; the bench makes a database of its own and drops it).
//!
//! `cargo bench -p factdesk-api --bench team_store` (8 annotators, 2,000 claims, 100
//! rounds each); `-- --quick` for a short run.

use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{Project, SystemClock};
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;
use common::Acting;
use common::{generated_project, percentile, Generated, Lcg, Rounds};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The project's place, and the database to drop afterwards (server URL, name).
fn location(dir: &Path) -> (PathBuf, Option<(String, String)>) {
    match std::env::var("FACTDESK_BENCH_PG") {
        Ok(server) if !server.is_empty() => {
            let name = format!("fdbench_{}", std::process::id());
            let mut admin = ok(postgres::Client::connect(&server, postgres::NoTls));
            ok(admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")));
            let base = server.split('?').next().unwrap_or(&server);
            let (head, _) = base.rsplit_once('/').unwrap_or((base, ""));
            (
                PathBuf::from(format!("{head}/{name}")),
                Some((server, name)),
            )
        }
        _ => (dir.join("team.fdesk"), None),
    }
}

fn setup(dir: &Path, at: &Path, claims: usize, people: &[String]) -> Project {
    let people: Vec<&str> = people.iter().map(String::as_str).collect();
    generated_project(
        at,
        &Generated {
            claims,
            numbered: false,
            labelled: false,
            input: &dir.join("claims.jsonl"),
            tasks: &[(TaskKind::Evidence, 3)],
            people: &people,
        },
        &mut Lcg(9),
    )
    .0
}

/// One annotator's rounds on their own connection: (next ms, submit ms) of each.
fn work(at: PathBuf, name: String, rounds: usize) -> (Vec<f64>, Vec<f64>) {
    let mut p = ok(Project::open(&at, Box::new(SystemClock)));
    let me = p.who(&name);
    let mut timed = Rounds::default();
    for _ in 0..rounds {
        if !timed.one(&mut p, &me) {
            break;
        }
    }
    (timed.next_ms, timed.submit_ms)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (claims, annotators, rounds) = if quick { (200, 4, 20) } else { (2_000, 8, 100) };
    let dir = ok(tempfile::tempdir());
    let (at, database) = location(dir.path());
    let people: Vec<String> = (0..annotators).map(|i| format!("a{i}")).collect();
    let started = Instant::now();
    let p = setup(dir.path(), &at, claims, &people);
    let engine = if database.is_some() {
        "PostgreSQL"
    } else {
        "file"
    };
    println!(
        "{engine}: {claims} claims imported in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let workers: Vec<_> = people
        .iter()
        .map(|name| {
            let (at, name) = (at.clone(), name.clone());
            std::thread::spawn(move || work(at, name, rounds))
        })
        .collect();
    let (mut next_ms, mut submit_ms) = (Vec::new(), Vec::new());
    for w in workers {
        let (n, s) = w.join().unwrap_or_else(|_| panic!("an annotator failed"));
        next_ms.extend(n);
        submit_ms.extend(s);
    }
    let seconds = started.elapsed().as_secs_f64();
    next_ms.sort_by(f64::total_cmp);
    submit_ms.sort_by(f64::total_cmp);
    println!(
        "{engine}: {annotators} annotators at once: next p50 {:.2} ms, p95 {:.2} ms; submit p50 {:.2} ms, p95 {:.2} ms; {} answers in {seconds:.1} s ({:.0} answers/s)",
        percentile(&next_ms, 0.5),
        percentile(&next_ms, 0.95),
        percentile(&submit_ms, 0.5),
        percentile(&submit_ms, 0.95),
        submit_ms.len(),
        submit_ms.len() as f64 / seconds
    );
    let conn = p.store().read();
    let count = |sql: &str| -> i64 { ok(conn.query_row(sql, [], |r| r.get(0))) };
    // An answer that picked the trick, or of an annotator flagged for picking tricks,
    // counts for nothing and its slot reopens: only counted current answers fill a task.
    let above = count(
        "SELECT count(*) FROM (SELECT a.task_id FROM annotations a
           JOIN annotators p ON p.id = a.annotator_id JOIN tasks t ON t.id = a.task_id
         WHERE a.trick_failed = 0 AND p.counted = 1
           AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
         GROUP BY a.task_id, t.overlap HAVING count(*) > t.overlap) AS over",
    );
    let twice = count(
        "SELECT count(*) FROM (SELECT task_id, annotator_id FROM annotations
         GROUP BY task_id, annotator_id HAVING count(*) > 1) AS twice",
    );
    println!("{engine}: {above} tasks above overlap, {twice} double answers");
    drop(p);
    if let Some((server, name)) = database {
        let mut admin = ok(postgres::Client::connect(&server, postgres::NoTls));
        ok(admin.batch_execute(&format!("DROP DATABASE \"{name}\" WITH (FORCE)")));
    }
    assert_eq!((above, twice), (0, 0), "the invariants broke under load");
}
