//! Embedding speed on COVID-Fact's own evidence sentences (read from
//! ../shared/data/covidfact.jsonl at run time), beside sentence-transformers on the same
//! sentences and thread count in the same run, and beside what this machine's matrix
//! products can do at all. Needs the model (scripts/setup). Run it with
//! `scripts/bench-embed`, which makes the reference's Python environment first; or
//! `cargo bench -p factdesk-semantic --bench embed -- [--limit N] [--threads 1,2]
//! [--reference PYTHON]`. Figures go to docs/ranking.md. The machine may be shared, so
//! the CPU time used is printed beside the wall time, and a PASS/FAIL line per target.

#![allow(clippy::too_many_lines)] // a bench reads best top to bottom

use factdesk_semantic::{cosine, locate, product_ceiling, Embedder, Locations};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

/// all-MiniLM-L6-v2's shape: layers, hidden width, feed-forward width.
const LAYERS: f64 = 6.0;
const HIDDEN: f64 = 384.0;
const FEED_FORWARD: f64 = 1536.0;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Multiply-adds counted twice, of one text of `t` word pieces through the encoder: the
/// four attention projections and the two feed-forward products per token, and the two
/// attention products (scores, weighted values) per pair of tokens.
fn flops(t: f64) -> f64 {
    LAYERS
        * (t * 2.0 * (4.0 * HIDDEN * HIDDEN + 2.0 * HIDDEN * FEED_FORWARD) + 4.0 * t * t * HIDDEN)
}

/// Share of the ceiling's sentences per second the encoder must reach (issue 35).
const TARGET_SHARE: f64 = 0.6;

/// CPU seconds (user + system, every thread) this process has used, from
/// /proc/self/stat (in clock ticks of 1/100 s on Linux).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // The command name may hold spaces; the fields after it are numbers.
            let rest = s.rsplit_once(')')?.1.split_whitespace().collect::<Vec<_>>();
            let utime: f64 = rest.get(11)?.parse().ok()?;
            let stime: f64 = rest.get(12)?.parse().ok()?;
            Some((utime + stime) / 100.0)
        })
        .unwrap_or(f64::NAN)
}

/// Distinct evidence sentences, in file order.
fn sentences() -> Vec<String> {
    let data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/covidfact.jsonl");
    let text = std::fs::read_to_string(&data).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        for s in row["evidence"].as_array().into_iter().flatten() {
            if let Some(s) = s.as_str().map(str::trim) {
                if seen.insert(s.to_string()) {
                    out.push(s.to_string());
                }
            }
        }
    }
    out
}

/// What sentence-transformers reported for one run.
#[derive(serde::Deserialize)]
struct Reference {
    seconds: f64,
    cpu_seconds: f64,
    threads: usize,
    versions: String,
    vectors: Vec<Vec<f32>>,
}

/// Runs benches/embed_reference.py with `python` on the same sentences.
fn reference(python: &str, dir: &std::path::Path, threads: usize, texts: &[&str]) -> Reference {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/embed_reference.py");
    let mut child = Command::new(python)
        .arg(&script)
        .arg(dir)
        .arg(threads.to_string())
        .env("OMP_NUM_THREADS", threads.to_string())
        .env("MKL_NUM_THREADS", threads.to_string())
        .env("HF_HUB_OFFLINE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{python}: {e}"));
    let input = serde_json::to_vec(texts).unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&input).unwrap_or_else(|e| panic!("{e}"));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "the reference failed");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("reference output: {e}"))
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit = arg(&args, "--limit")
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let thread_counts: Vec<usize> = arg(&args, "--threads")
        .map(|list| {
            list.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| {
            (1..=cores)
                .filter(|n| n.is_power_of_two() || *n == cores)
                .collect()
        });
    let python = arg(&args, "--reference");
    let mut sentences = sentences();
    sentences.truncate(limit);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let dir = locate(None, &Locations::from_env()).unwrap_or_else(|e| panic!("{e}"));
    let embedder = Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    println!("model {} from {}", embedder.id(), dir.display());
    println!("cores: {cores}; load average before: {}", load_average());

    let start = Instant::now();
    let counts = embedder
        .token_counts(&refs)
        .unwrap_or_else(|e| panic!("{e}"));
    let tokenize = start.elapsed().as_secs_f64();
    let tokens: usize = counts.iter().sum();
    let work: f64 = counts.iter().map(|&t| flops(t as f64)).sum();
    println!(
        "{} sentences, {:.1} word pieces each on average (longest {}), {:.2} GFLOP each",
        refs.len(),
        tokens as f64 / refs.len() as f64,
        counts.iter().max().unwrap_or(&0),
        work / refs.len() as f64 / 1e9
    );
    println!(
        "tokenizing alone: {:.3} s ({:.0} sentences/s)",
        tokenize,
        refs.len() as f64 / tokenize
    );
    let mut failed = false;
    for &threads in &thread_counts {
        println!("\n== {threads} thread(s)");
        let embedder = Embedder::load(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .with_threads(threads);
        // A short warm-up: the first chunk pays for allocations.
        embedder
            .embed(&refs[..refs.len().min(64)])
            .unwrap_or_else(|e| panic!("{e}"));
        let cpu = cpu_seconds();
        let start = Instant::now();
        let vectors = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));
        let secs = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        let ours = refs.len() as f64 / secs;
        println!(
            "factdesk: {} sentences in {secs:.2} s = {ours:.1} sentences/s ({:.1} GFLOP/s of model work; {:.2} CPU-s)",
            refs.len(),
            work / secs / 1e9,
            cpu
        );
        let ceiling = [512, 2048]
            .map(|rows| product_ceiling(rows, HIDDEN as usize, FEED_FORWARD as usize, threads))
            .into_iter()
            .fold(0.0, f64::max);
        let allowed = ceiling * 1e9 / (work / refs.len() as f64);
        let share = ours / allowed;
        println!(
            "ceiling: f32 products at {ceiling:.1} GFLOP/s (best of {threads} independent or one split, 512 and 2048 rows) = {allowed:.1} sentences/s if the encoder were all products"
        );
        println!(
            "{} at least {:.0} % of the ceiling: {:.1} % ({ours:.1} of {allowed:.1} sentences/s)",
            if share >= TARGET_SHARE {
                "PASS"
            } else {
                "FAIL"
            },
            TARGET_SHARE * 100.0,
            share * 100.0
        );
        failed |= share < TARGET_SHARE;
        let Some(python) = &python else { continue };
        let peer = reference(python, &dir, threads, &refs);
        let theirs = refs.len() as f64 / peer.seconds;
        println!(
            "sentence-transformers ({}, {} thread(s)): {theirs:.1} sentences/s ({:.2} CPU-s)",
            peer.versions, peer.threads, peer.cpu_seconds
        );
        let worst = vectors
            .iter()
            .zip(&peer.vectors)
            .map(|(a, b)| 1.0 - cosine(a, b))
            .fold(0.0f32, f32::max);
        println!(
            "{} every embedding within 1e-4 cosine of sentence-transformers': largest gap {worst:.2e}",
            if worst <= 1e-4 { "PASS" } else { "FAIL" }
        );
        println!(
            "{} at least as fast as sentence-transformers: {:.2}x",
            if ours >= theirs { "PASS" } else { "FAIL" },
            ours / theirs
        );
        failed |= worst > 1e-4 || ours < theirs;
    }
    println!("\nload average after: {}", load_average());
    if failed {
        std::process::exit(1);
    }
}
