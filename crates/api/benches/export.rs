//! Export at scale: 100,000 claims, each with an evidence task (5 ranked candidates)
//! answered by 3 annotators — 300,000 answers — then the gold export, the agreement of
//! every kind (as `factdesk agreement` computes it) and the report, each timed through
//! the api on a freshly opened project. The project is built once and kept in the
//! system's temporary folder between runs (`--rebuild` builds it again). Run with
//! `cargo bench -p factdesk-api --bench export`; figures go to docs/performance.md.
// A bench reads best top to bottom: its functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::gold::{ExportFormat, GoldRequest};
use factdesk_api::report::ReportFiles;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{Project, SystemClock};
use factdesk_core::answer::{Response, Selection};
use factdesk_store::annotations::{insert, NewAnnotation};
use std::path::{Path, PathBuf};
use std::time::Instant;

// The allocator of the `factdesk` binary, whose commands these figures stand for.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod common;
use common::Acting;
use common::{candidates_by_claim, generated_project, Generated, Lcg};

const NAMES: [&str; 3] = ["ana", "ben", "caro"];

fn build(dir: &Path, path: &Path, claims: usize) {
    let mut rng = Lcg(13);
    let input = dir.join(format!("export-claims-{claims}.jsonl"));
    let (mut p, people) = generated_project(
        path,
        &Generated {
            claims,
            numbered: true,
            labelled: true,
            input: &input,
            tasks: &[(TaskKind::Evidence, 3)],
            people: &NAMES,
        },
        &mut rng,
    );
    let candidates = candidates_by_claim(&p);
    let conn = p.store().read();
    let mut stmt = conn
        .prepare("SELECT id, claim_id FROM tasks WHERE kind = 'evidence' ORDER BY id")
        .unwrap_or_else(|e| panic!("{e}"));
    let tasks: Vec<(i64, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap_or_else(|e| panic!("{e}"))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    drop(stmt);
    // Written straight into the table in one transaction: submitting 300,000 answers one
    // fsync at a time is not what is measured here.
    let conn = p
        .store_mut()
        .transaction()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut at = 1_700_000_000_000i64;
    for (i, (task, claim)) in tasks.iter().enumerate() {
        let shown = candidates.get(claim).cloned().unwrap_or_default();
        for &who in &people {
            at += 700;
            // Mostly the item's "truth" (the first candidate, the first two, or none),
            // one answer in five something else.
            let truth = if rng.next().is_multiple_of(5) {
                (rng.next() % 3) as usize
            } else {
                i % 3
            };
            let selected: Vec<i64> = shown.iter().take([1, 2, 0][truth]).copied().collect();
            let selection = if selected.is_empty() {
                Selection::NoEvidence
            } else {
                Selection::sentences(selected)
            };
            insert(
                &conn,
                &NewAnnotation {
                    uuid: &format!("{task}-{who}"),
                    task_id: *task,
                    annotator_id: who,
                    response: &Response::Evidence { selection },
                    comment: None,
                    trick_failed: false,
                    duration_ms: Some(3_500),
                    supersedes: None,
                    created_at: at,
                },
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    conn.commit().unwrap_or_else(|e| panic!("{e}"));
}

fn seconds(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// This process's CPU time so far (user + system), from /proc; `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start at state, field 3.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // Linux reports these in USER_HZ, 100 on every mainstream configuration.
    Some(ticks / 100.0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

/// One step's wall and CPU time, from the instant and CPU reading it started at.
struct Step {
    figure: &'static str,
    wall: f64,
    cpu: Option<f64>,
    target: f64,
}

impl Step {
    fn new(figure: &'static str, started: (Instant, Option<f64>), target: f64) -> Step {
        Step {
            figure,
            wall: seconds(started.0),
            cpu: cpu_seconds().zip(started.1).map(|(now, then)| now - then),
            target,
        }
    }
}

fn start() -> (Instant, Option<f64>) {
    (Instant::now(), cpu_seconds())
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rebuild = std::env::args().any(|a| a == "--rebuild");
    let claims = if full { 100_000 } else { 300 };
    let dir = std::env::temp_dir().join(format!("factdesk-bench-export-{claims}"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path: PathBuf = dir.join(format!("export-{claims}-v1.fdesk"));
    // A run cut short leaves no marker, so a half-built project is never reused.
    let ready = dir.join(format!("export-{claims}-v1.ready"));
    if rebuild || !ready.exists() {
        std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let t = Instant::now();
        build(&dir, &path, claims);
        std::fs::write(&ready, b"").unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{claims} claims, 3 answers each: project built in {:.1} s ({})",
            seconds(t),
            path.display()
        );
    } else {
        println!("{claims} claims: reusing {}", path.display());
    }
    let out = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let load_before = load_average();
    let mut steps = Vec::new();

    let started = start();
    let p = Project::open(&path, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
    let lead = p.lead();
    let report = p
        .export_gold(
            &lead,
            &GoldRequest::default(),
            &out.path().join("gold.jsonl"),
            ExportFormat::Factdesk,
            false,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    drop(p);
    steps.push(Step::new("export (gold, factdesk format)", started, 2.0));
    println!(
        "export (open, aggregate, write {} lines, {} dropped): {:.2} s",
        report.preview.lines,
        report.preview.dropped.len(),
        steps[0].wall
    );

    let started = start();
    let p = Project::open(&path, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
    let lead = p.lead();
    let req = AgreementRequest::default();
    let mut units = Vec::new();
    // As `factdesk agreement` does: every kind from one read of the answers, then the
    // project's design (none here).
    for (kind, r) in p.agreements(&lead, &req).unwrap_or_else(|e| panic!("{e}")) {
        units.push(format!(
            "{}: {} units, {} ratings",
            kind.as_str(),
            r.units,
            r.ratings
        ));
    }
    let design = p
        .design_agreement(&lead, &req)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(design.is_none(), "the bench's project declares no design");
    drop(p);
    steps.push(Step::new(
        "agreement, every kind, 1,000 replicates",
        started,
        1.0,
    ));
    println!(
        "agreement, {} bootstrap replicates ({}): {:.2} s",
        req.bootstrap_reps,
        units.join("; "),
        steps[1].wall
    );

    let started = start();
    let p = Project::open(&path, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
    let lead = p.lead();
    let files = ReportFiles {
        html: out.path().join("report.html"),
        json: Some(out.path().join("report.json")),
        csv: None,
    };
    p.write_report(&lead, &req, &files)
        .unwrap_or_else(|e| panic!("{e}"));
    drop(p);
    steps.push(Step::new("report (HTML and JSON)", started, 3.0));
    println!("report (HTML and JSON): {:.2} s", steps[2].wall);

    println!();
    println!(
        "{claims} claims, 3 answers each; load average (1, 5, 15 min) before: {load_before}; after: {}",
        load_average()
    );
    println!(
        "| {:<40} | {:<24} | {:<8} | {:<4} |",
        "figure", "measured", "target", ""
    );
    println!("|{:-<42}|{:-<26}|{:-<10}|{:-<6}|", "", "", "", "");
    for step in &steps {
        let cpu = step
            .cpu
            .map_or_else(String::new, |cpu| format!(" (CPU {cpu:.2} s)"));
        println!(
            "| {:<40} | {:<24} | {:<8} | {:<4} |",
            step.figure,
            format!("{:.2} s{cpu}", step.wall),
            format!("<= {} s", step.target),
            if step.wall <= step.target {
                "PASS"
            } else {
                "FAIL"
            }
        );
    }
}
