//! Latency of serving and answering work through the api: `next_item` (find, reserve and
//! build an evidence item) and `submit` (check and commit an answer, fsync included), at
//! 1,000 and 300,000 claims. Run with `cargo bench -p factdesk-api --bench work`;
//! figures go to docs/performance.md.

use factdesk_api::tasks::TaskKind;
use factdesk_api::Project;
use std::time::Instant;

mod common;
use common::Acting;
use common::{generated_project, percentile, Generated, Lcg, Rounds};

fn setup(dir: &std::path::Path, claims: usize) -> Project {
    generated_project(
        &dir.join(format!("work-{claims}.fdesk")),
        &Generated {
            claims,
            numbered: false,
            labelled: false,
            input: &dir.join(format!("claims-{claims}.jsonl")),
            tasks: &[(TaskKind::Evidence, 3)],
            people: &["ana", "ben", "caro"],
        },
        &mut Lcg(9),
    )
    .0
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if full { &[1_000, 300_000] } else { &[200] };
    let rounds = if full { 300 } else { 20 };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for &n in sizes {
        let started = Instant::now();
        let mut p = setup(dir.path(), n);
        println!(
            "{n} claims: project ready in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        // Resolved once, as a front end does when a session starts: the lookup is not
        // part of serving an item.
        let people = ["ana", "ben", "caro"].map(|name| p.who(name));
        let mut timed = Rounds::default();
        for i in 0..rounds {
            if !timed.one(&mut p, &people[i % 3]) {
                break;
            }
        }
        let Rounds {
            mut next_ms,
            mut submit_ms,
        } = timed;
        next_ms.sort_by(f64::total_cmp);
        submit_ms.sort_by(f64::total_cmp);
        println!(
            "{n} claims: next p50 {:.2} ms, p95 {:.2} ms; submit p50 {:.2} ms, p95 {:.2} ms ({} rounds)",
            percentile(&next_ms, 0.5),
            percentile(&next_ms, 0.95),
            percentile(&submit_ms, 0.5),
            percentile(&submit_ms, 0.95),
            submit_ms.len()
        );
    }
}
