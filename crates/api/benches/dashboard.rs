//! The live dashboard's recompute at 100,000 units × 5 annotators, for labelling and for
//! evidence selection (500,000 answers each, a million in the project):
//! the first full read, then, answer by answer, `refresh` (read the new rows, update the
//! running sums, re-check flags) plus `snapshot` (every statistic, pair and annotator),
//! the probe for a new answer, and the bootstrap intervals. Run with
//! `cargo bench -p factdesk-api --bench dashboard`; figures go to docs/performance.md.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::dashboard::DashboardState;
use factdesk_api::tasks::TaskKind;
use factdesk_api::Project;
use factdesk_api::RawSql as _;
use factdesk_core::answer::{Response, Selection};
use factdesk_core::claim::Label;
use factdesk_store::annotations::{insert, NewAnnotation};
use std::collections::HashMap;
use std::time::Instant;

mod common;
use common::Acting;
use common::{candidates_by_claim, generated_project, percentile, Generated, Lcg};

const NAMES: [&str; 5] = ["ana", "ben", "caro", "dev", "eli"];
const LABELS: [Label; 3] = [Label::Supported, Label::Refuted, Label::NotEnoughInfo];

/// A label answer that agrees with the item's "true" label four times in five.
fn label(rng: &mut Lcg, truth: usize) -> Label {
    if rng.next().is_multiple_of(5) {
        LABELS[(rng.next() % 3) as usize]
    } else {
        LABELS[truth]
    }
}

fn setup(dir: &std::path::Path, units: usize) -> (Project, Vec<Task>, Vec<i64>) {
    let mut rng = Lcg(11);
    // Labelling needs a claim with evidence; evidence selection, ranked candidates.
    let (p, people) = generated_project(
        &dir.join(format!("dashboard-{units}.fdesk")),
        &Generated {
            claims: units,
            numbered: true,
            labelled: false,
            input: &dir.join(format!("claims-{units}.jsonl")),
            tasks: &[(TaskKind::Label, 5), (TaskKind::Evidence, 5)],
            people: &NAMES,
        },
        &mut rng,
    );
    let candidates = candidates_by_claim(&p);
    let tasks = tasks(&p, &candidates);
    // Written straight into the table in one transaction: submitting a million answers
    // one fsync at a time is not what is measured here.
    let mut p = p;
    let conn = p
        .store_mut()
        .transaction()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut at = 1_700_000_000_000i64;
    for (i, task) in tasks.iter().enumerate() {
        for &who in &people {
            at += 700;
            let answer = task.answer(&mut rng, i % 3);
            write(
                &conn,
                task.id,
                who,
                &answer,
                None,
                at,
                &format!("{}-{who}", task.id),
            );
        }
    }
    conn.commit().unwrap_or_else(|e| panic!("{e}"));
    (p, tasks, people)
}

/// A task with, for evidence, its claim's candidate sentence ids.
struct Task {
    id: i64,
    candidates: Option<Vec<i64>>,
}

impl Task {
    /// An answer that mostly agrees with the item's "truth": the label, or for evidence
    /// the first candidate (truth 0), the first two (1), or none (2).
    fn answer(&self, rng: &mut Lcg, truth: usize) -> Response {
        let Some(candidates) = &self.candidates else {
            return Response::Label {
                label: label(rng, truth),
            };
        };
        let truth = if rng.next().is_multiple_of(5) {
            (rng.next() % 3) as usize
        } else {
            truth
        };
        let selected: Vec<i64> = candidates.iter().take([1, 2, 0][truth]).copied().collect();
        let selection = if selected.is_empty() {
            Selection::NoEvidence
        } else {
            Selection::sentences(selected)
        };
        Response::Evidence { selection }
    }
}

fn tasks(p: &Project, candidates: &HashMap<i64, Vec<i64>>) -> Vec<Task> {
    let mut stmt = p
        .store()
        .read()
        .prepare(
            "SELECT id, kind, claim_id FROM tasks WHERE kind IN ('label', 'evidence') ORDER BY id",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let rows: Vec<(i64, String, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap_or_else(|e| panic!("{e}"))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    rows.into_iter()
        .map(|(id, kind, claim)| Task {
            id,
            candidates: (kind == "evidence")
                .then(|| candidates.get(&claim).cloned().unwrap_or_default()),
        })
        .collect()
}

fn write(
    conn: &factdesk_store::Tx<'_>,
    task: i64,
    who: i64,
    response: &Response,
    supersedes: Option<i64>,
    at: i64,
    uuid: &str,
) {
    insert(
        conn,
        &NewAnnotation {
            uuid,
            task_id: task,
            annotator_id: who,
            response,
            comment: None,
            trick_failed: false,
            duration_ms: Some(3_500),
            supersedes,
            created_at: at,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let units = if full { 100_000 } else { 300 };
    let rounds = if full { 300 } else { 20 };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    let (mut p, tasks, people) = setup(dir.path(), units);
    println!(
        "{units} claims, label and evidence tasks, {} annotators each: project ready in {:.1} s",
        people.len(),
        started.elapsed().as_secs_f64()
    );

    let mut state = DashboardState::new();
    let t = Instant::now();
    state
        .refresh(&p, &p.lead())
        .unwrap_or_else(|e| panic!("{e}"));
    let first = state.snapshot(0);
    println!("first full read: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    for k in &first.kinds {
        println!(
            "  {}: {} items, {} answers, Fleiss {:?}, alpha {:?}",
            k.kind.as_str(),
            k.units,
            k.answers,
            k.fleiss.value,
            k.alpha.value
        );
    }

    let mut rng = Lcg(5);
    for kind in ["label", "evidence"] {
        let of_kind: Vec<&Task> = tasks
            .iter()
            .filter(|t| t.candidates.is_some() == (kind == "evidence"))
            .collect();
        let (mut probe_ms, mut recompute_ms) = (Vec::new(), Vec::new());
        for i in 0..rounds {
            // A correction of an earlier answer: it supersedes the current one.
            let task = of_kind[(rng.next() as usize) % of_kind.len()];
            let who = people[i % people.len()];
            let earlier: i64 = p
                .store()
                .read()
                .query_row(
                    "SELECT max(id) FROM annotations WHERE task_id = ?1 AND annotator_id = ?2",
                    [task.id, who],
                    |r| r.get(0),
                )
                .unwrap_or_else(|e| panic!("{e}"));
            let answer = task.answer(&mut rng, i % 3);
            let uuid = format!("fix-{kind}-{i}");
            let tx = p
                .store_mut()
                .transaction()
                .unwrap_or_else(|e| panic!("{e}"));
            write(
                &tx,
                task.id,
                who,
                &answer,
                Some(earlier),
                1_800_000_000_000 + i as i64,
                &uuid,
            );
            tx.commit().unwrap_or_else(|e| panic!("{e}"));
            let t = Instant::now();
            let last = p
                .last_annotation_id(&p.lead())
                .unwrap_or_else(|e| panic!("{e}"));
            probe_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            state
                .refresh(&p, &p.lead())
                .unwrap_or_else(|e| panic!("{e}"));
            let snapshot = state.snapshot(0);
            recompute_ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(snapshot.last_annotation_id, last);
        }
        for (name, mut ms) in [("probe (max id)", probe_ms), ("recompute", recompute_ms)] {
            ms.sort_by(f64::total_cmp);
            println!(
                "{kind}: {name} after one answer, {rounds} rounds: median {:.3} ms, p95 {:.3} ms, max {:.3} ms",
                percentile(&ms, 0.5),
                percentile(&ms, 0.95),
                ms[ms.len() - 1]
            );
        }
    }

    let t = Instant::now();
    let reps = AgreementRequest::default().bootstrap_reps;
    let intervals = p
        .dashboard_intervals(&p.lead(), &AgreementRequest::default())
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "bootstrap intervals of both kinds ({reps} replicates, as factdesk agreement): {:.0} ms {:?}",
        t.elapsed().as_secs_f64() * 1e3,
        intervals.by_kind
    );
}
