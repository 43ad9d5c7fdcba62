//! The pack attack of `tests/api/attackers.rs` over many project secrets: how often chance
//! alone makes a strategy beat the test's bound (which the test states as at most 1e-6 a
//! run), and how often it beat the 3.5-standard-deviation bound the test used before.
//!
//! `cargo bench -p factdesk-api --bench attackers` sweeps 10,000 secrets;
//! `-- --seeds N --first S` sweeps others, `-- --data wikifactcheck` attacks the
//! WikiFactCheck pages of the test instead of its made-up topics. It exits non-zero when
//! any secret fails the test's bound. It also pools every secret's items: each
//! strategy's hits against chance over all of them, where a tell too weak to fail one
//! run of 200 items shows (a rate above chance by more than the printed margin).
//! Figures in docs/testing.md.

use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Project};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[path = "../tests/api/common/attack.rs"]
#[allow(dead_code)]
mod attack;
#[path = "../tests/api/common/mod.rs"]
#[allow(unused_imports)]
mod common;
use common::{must, Acting};

/// Claims in the attacked project, as in the test.
const CLAIMS: usize = 200;

struct Args {
    seeds: u64,
    first: u64,
    threads: usize,
    wikifactcheck: bool,
}

fn args() -> Args {
    let mut out = Args {
        seeds: 10_000,
        first: 1,
        threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        wikifactcheck: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--seeds" => out.seeds = value().unwrap_or(out.seeds),
            "--first" => out.first = value().unwrap_or(out.first),
            "--threads" => out.threads = value().map_or(out.threads, |v| v as usize),
            "--data" => out.wikifactcheck = it.next().as_deref() == Some("wikifactcheck"),
            // cargo bench passes --bench; anything else is ignored.
            _ => {}
        }
    }
    out
}

/// Copies the template project (its file and index folder) into `to`.
fn copy_project(from: &Path, to: &Path) -> PathBuf {
    let file = to.join("topics.fdesk");
    must(std::fs::copy(from, &file));
    let index = factdesk_store::index_dir(from);
    if index.is_dir() {
        let into = factdesk_store::index_dir(&file);
        must(std::fs::create_dir_all(&into));
        for entry in must(std::fs::read_dir(&index)) {
            let entry = must(entry);
            must(std::fs::copy(entry.path(), into.join(entry.file_name())));
        }
    }
    file
}

/// The bound the test used before: chance plus 3.5 standard deviations of a binomial at
/// the mean chance.
fn old_bound(chances: &[f64]) -> usize {
    let n = chances.len() as f64;
    let p = chances.iter().sum::<f64>() / n.max(1.0);
    (n * p + 3.5 * (n * p * (1.0 - p)).sqrt()).ceil() as usize
}

/// What one secret gave: strategies beating the test's bound, and the old one.
struct Outcome {
    beaten: Vec<String>,
    beaten_before: usize,
    false_failure: f64,
    /// Each strategy's name, hits and the hits chance gives on average.
    pooled: Vec<(String, usize, f64)>,
    /// The same for the strategies that read the options' words (measured, not judged:
    /// the trick's words are meant to tell a reader).
    content: Vec<(String, usize, f64)>,
}

fn attack_with_secret(template: &Path, seed: u64) -> Outcome {
    let dir = must(tempfile::tempdir());
    let file = copy_project(template, dir.path());
    let clock = ManualClock::new(5_000_000);
    let mut lead = must(Project::open(&file, Box::new(clock)));
    let secret = blake3::hash(&seed.to_le_bytes());
    must(lead.store().read().execute(
        "UPDATE project SET secret = ?1",
        [secret.as_bytes().to_vec()],
    ));
    let mut settings = must(lead.settings());
    settings.seed = seed;
    must(lead.set_settings(&lead.lead(), &settings));
    must(lead.create_tasks(&lead.lead(), TaskKind::Evidence, Some(1)));
    let pack = attack::pack_for_holder(&mut lead, dir.path(), TaskKind::Evidence, CLAIMS as u64);
    let guessers = attack::trick_attack(&lead, &pack, attack::structural_guesses);
    let content = attack::trick_attack(&lead, &pack, attack::content_guesses);
    let verdicts = attack::judge(&guessers, attack::FALSE_FAILURE);
    Outcome {
        beaten: verdicts
            .iter()
            .filter(|v| v.beats_chance())
            .map(|v| format!("{} ({} hits, bound {})", v.name, v.hits, v.bound.count))
            .collect(),
        beaten_before: guessers
            .iter()
            .filter(|g| g.hits > old_bound(&g.chances))
            .count(),
        false_failure: attack::false_failure(&verdicts),
        pooled: pooled(&guessers),
        content: pooled(&content),
    }
}

fn pooled(guessers: &[attack::Guesser]) -> Vec<(String, usize, f64)> {
    guessers
        .iter()
        .map(|g| (g.name.clone(), g.hits, g.chances.iter().sum()))
        .collect()
}

fn main() {
    let args = args();
    let root = must(tempfile::tempdir());
    let template = {
        let clock = ManualClock::new(5_000_000);
        let p = if args.wikifactcheck {
            attack::project_of_wikifactcheck_pages(root.path(), CLAIMS, &clock)
        } else {
            attack::project_of_distinct_topics(root.path(), CLAIMS, &clock)
        };
        p.path().to_path_buf()
    };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Vec<(u64, Outcome)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..args.threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed) as u64;
                        if k >= args.seeds {
                            break mine;
                        }
                        let seed = args.first + k;
                        mine.push((seed, attack_with_secret(&template, seed)));
                        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                        if n.is_multiple_of(500) {
                            eprintln!(
                                "{n} of {} secrets, {:.0} s",
                                args.seeds,
                                started.elapsed().as_secs_f64()
                            );
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    let failed: Vec<&(u64, Outcome)> = results
        .iter()
        .filter(|(_, o)| !o.beaten.is_empty())
        .collect();
    let failed_before = results.iter().filter(|(_, o)| o.beaten_before > 0).count();
    let stated = results
        .iter()
        .map(|(_, o)| o.false_failure)
        .fold(0.0, f64::max);
    let n = results.len();
    println!("pack attack over {n} project secrets ({} to {}), {CLAIMS} items each, {:.0} s on {} threads",
        args.first, args.first + args.seeds - 1, started.elapsed().as_secs_f64(), args.threads);
    println!(
        "  the test's bound (exact tail, {:.0e} shared by the strategies): {} failed, {:.2e} observed; stated false-failure probability at most {stated:.2e} a run",
        attack::FALSE_FAILURE,
        failed.len(),
        failed.len() as f64 / n.max(1) as f64
    );
    println!(
        "  the old bound (chance + 3.5 sd per strategy): {failed_before} failed, {:.2e} observed",
        failed_before as f64 / n.max(1) as f64
    );
    println!("  pooled over {} items:", n * CLAIMS);
    print_pooled(&results, |o| &o.pooled);
    println!("  reading the words (the trick's designed tell, not judged):");
    print_pooled(&results, |o| &o.content);
    for (seed, o) in &failed {
        println!("  secret {seed}: {}", o.beaten.join(", "));
    }
    if !failed.is_empty() {
        std::process::exit(1);
    }
}

/// Every strategy's hits over all secrets' items beside chance: the rate, chance's rate
/// and the margin (4 standard deviations of the pooled count under chance, a Poisson
/// binomial bounded by its binomial variance).
fn print_pooled(results: &[(u64, Outcome)], of: impl Fn(&Outcome) -> &[(String, usize, f64)]) {
    let Some((_, first)) = results.first() else {
        return;
    };
    let items: usize = results.len() * CLAIMS;
    for (k, (name, _, _)) in of(first).iter().enumerate() {
        let hits: usize = results.iter().map(|(_, o)| of(o)[k].1).sum();
        let expected: f64 = results.iter().map(|(_, o)| of(o)[k].2).sum();
        let p = expected / items as f64;
        let margin = 4.0 * (items as f64 * p * (1.0 - p)).sqrt();
        let flag = if hits as f64 > expected + margin {
            "  ABOVE CHANCE"
        } else {
            ""
        };
        println!(
            "    {name:<28} {:>6.2}% (chance {:>6.2}%, margin {:.2} points){flag}",
            100.0 * hits as f64 / items as f64,
            100.0 * p,
            100.0 * margin / items as f64
        );
    }
}
