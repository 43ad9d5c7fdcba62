//! The semantic ranker's speed on COVID-Fact's own sentences (read from
//! ../shared/data/covidfact.jsonl at run time): embedding throughput, and re-ranking 50
//! candidates per claim once they are embedded (with the new claim's own embedding, and
//! without it). Needs the model (scripts/setup). Run with
//! `cargo bench -p factdesk-api --bench semantic`; figures go to docs/ranking.md.

use factdesk_api::semantic::SemanticRanker;
use factdesk_core::ranking::Scored;
use factdesk_semantic::{locate, Locations};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

/// Most milliseconds per claim for re-ranking 50 embedded candidates (issue 18).
const RERANK_TARGET_MS: f64 = 5.0;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/covidfact.jsonl");
    let text = std::fs::read_to_string(&data).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    let mut claims = Vec::new();
    let mut sentences = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        if let Some(c) = row["claim"].as_str() {
            claims.push(c.to_string());
        }
        for s in row["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
        {
            if seen.insert(s.trim().to_string()) {
                sentences.push(s.trim().to_string());
            }
        }
    }
    let n = if full { 2000 } else { 64 };
    sentences.truncate(n);
    let dir = locate(None, &Locations::from_env()).unwrap_or_else(|e| panic!("{e}"));
    let ranker = SemanticRanker::load(&dir, 50).unwrap_or_else(|e| panic!("{e}"));
    println!("model {} from {}", ranker.model_id(), dir.display());
    println!("load average before: {}", load_average());

    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let start = Instant::now();
    ranker.vectors(&refs).unwrap_or_else(|e| panic!("{e}"));
    let secs = start.elapsed().as_secs_f64();
    println!(
        "embedding: {} distinct COVID-Fact evidence sentences in {:.2} s = {:.0} sentences/s",
        refs.len(),
        secs,
        refs.len() as f64 / secs
    );

    // Claims against 50 embedded sentences each, as a claim's BM25 top 50 would be.
    let ids: Vec<i64> = (0..refs.len() as i64).collect();
    let text_of: HashMap<i64, &str> = ids.iter().map(|&i| (i, refs[i as usize])).collect();
    let rounds = if full { 200 } else { 10 };
    let mut with_claim = Vec::new();
    let mut cached_claim = Vec::new();
    for (round, claim) in claims.iter().take(rounds).enumerate() {
        let first = (round * 7) % (refs.len() - 50);
        let bm25: Vec<Scored> = ids[first..first + 50]
            .iter()
            .map(|&sentence_id| Scored {
                sentence_id,
                score: 1.0,
            })
            .collect();
        let start = Instant::now();
        let ranked = ranker
            .rank(claim, &bm25, &text_of)
            .unwrap_or_else(|e| panic!("{e}"));
        with_claim.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(ranked.len(), 50);
        let start = Instant::now();
        ranker
            .rank(claim, &bm25, &text_of)
            .unwrap_or_else(|e| panic!("{e}"));
        cached_claim.push(start.elapsed().as_secs_f64() * 1e3);
    }
    for (what, times) in [
        ("rerank 50, claim embedded now", &mut with_claim),
        ("rerank 50, claim embedded before", &mut cached_claim),
    ] {
        times.sort_by(f64::total_cmp);
        println!(
            "{what}: median {:.3} ms, p95 {:.3} ms over {} claims",
            percentile(times, 0.5),
            percentile(times, 0.95),
            times.len()
        );
    }
    // The target: re-ranking 50 candidates once the sentences are embedded.
    let p95 = percentile(&cached_claim, 0.95);
    println!(
        "{} rerank of 50 embedded candidates at most {RERANK_TARGET_MS} ms per claim: p95 {p95:.3} ms",
        if p95 <= RERANK_TARGET_MS { "PASS" } else { "FAIL" }
    );
    println!("load average after: {}", load_average());
}
