//! How the fused ranking with the semantic ranker was chosen, and what it costs, on the
//! COVID-Fact evaluation sets of docs/ranking.md (made from ../shared/data/covidfact.jsonl
//! at run time). For each seed: the set is made and imported, `eval-ranking --semantic`
//! runs end to end (timed, embedding everything it needs), then every claim's rankings
//! are computed again from the project's embedding cache and the candidate fusions are
//! scored on them (recall@5, averaged over the seeds), the shipped one first.
//!
//! `cargo bench -p factdesk-api --bench fusion -- --seeds 1,2` (the tuning seeds); add
//! `--dir DIR` to keep the projects (and their embeddings) between runs, `--bm25-k1`,
//! `--bm25-b` and `--jaccard-stemming` to change the lexical rankers. Needs the model
//! (scripts/setup).

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::rank::{
    rank_lexical, semantic_texts, with_semantic, DocumentSet, RankOptions, RankingOverrides,
    SEMANTIC_FUSED_K, SEMANTIC_FUSED_WEIGHTS,
};
use factdesk_api::semantic::{semantic_for, Need};
use factdesk_api::{NoProgress, Project, SystemClock};
use factdesk_core::ranking::{fuse_weighted, Scored};
use factdesk_semantic::Locations;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;
use common::Acting;

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// One claim's separate rankings and its gold sentences.
struct Claim {
    relevant: HashSet<i64>,
    bm25: Vec<Scored>,
    levenshtein: Vec<Scored>,
    jaccard: Vec<Scored>,
    semantic: Vec<Scored>,
    shipped: Vec<Scored>,
}

fn recall_at(order: &[Scored], relevant: &HashSet<i64>, k: usize) -> f64 {
    let found = order
        .iter()
        .take(k)
        .filter(|s| relevant.contains(&s.sentence_id))
        .count();
    found as f64 / relevant.len().min(k) as f64
}

/// Makes (or reuses) the seed's set and project, runs the timed evaluation, and returns
/// every claim's rankings.
fn claims_of_seed(dir: &Path, seed: u64, overrides: &RankingOverrides) -> Vec<Claim> {
    let data =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/covidfact.jsonl");
    let set = dir.join(format!("set-{seed}"));
    if !set.join("gold.jsonl").exists() {
        factdesk_api::eval::covid_fact_eval_set(&data, &set, 45, seed)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let path = dir.join(format!("seed-{seed}.fdesk"));
    let fresh = !path.exists();
    let mut project = if fresh {
        Project::create(&path, Box::new(SystemClock))
    } else {
        Project::open(&path, Box::new(SystemClock))
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let lead = project.lead();
    if fresh {
        let req = ImportRequest {
            claims: vec![set.join("claims.jsonl")],
            documents: vec![set.join("documents.jsonl")],
            ..Default::default()
        };
        import(&mut project, &lead, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    }
    let gold = set.join("gold.jsonl");
    let cached = project
        .store()
        .conn()
        .query_row("SELECT count(*) FROM sentence_embeddings", [], |r| {
            r.get::<usize, i64>(0)
        })
        .unwrap_or(0);
    let start = Instant::now();
    let report = project
        .eval_ranking_with(&lead, &gold, true, overrides)
        .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "seed {seed}: eval-ranking --semantic end to end {:.1} s ({} embeddings cached before), load average {}",
        start.elapsed().as_secs_f64(),
        cached,
        load_average()
    );
    for r in &report.rankers {
        println!(
            "  {:<12} R@1 {:.3} R@3 {:.3} R@5 {:.3} MRR {:.3}",
            r.ranker, r.recall_at_1, r.recall_at_3, r.recall_at_5, r.mrr
        );
    }

    let settings = overrides
        .apply(project.settings().unwrap_or_else(|e| panic!("{e}")).ranking)
        .unwrap_or_else(|e| panic!("{e}"));
    let options = RankOptions::of(&settings);
    let model = semantic_for(&settings, None, Need::Required, &Locations::from_env())
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("no model"));
    let store = project.store();
    let mut bm25 = project
        .search_index(&lead)
        .and_then(|i| Ok(i.bm25_corpus_with(options.bm25)?))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&gold).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        let id = row["claim"].as_str().unwrap_or_default();
        let wanted: HashSet<&str> = row["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::trim))
            .collect();
        let claim = store
            .claim_by_ext_id(id)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("claim {id} missing"));
        let docs =
            DocumentSet::for_claim(store.conn(), claim.id, None).unwrap_or_else(|e| panic!("{e}"));
        let relevant: HashSet<i64> = docs
            .sentences()
            .filter(|(_, t)| wanted.contains(t.trim()))
            .map(|(id, _)| *id)
            .collect();
        if relevant.is_empty() {
            continue;
        }
        let lexical =
            rank_lexical(&mut bm25, &claim.text, &docs, options).unwrap_or_else(|e| panic!("{e}"));
        let texts = semantic_texts(&claim.text, &lexical, &docs, model.depth());
        model
            .prefill(store.conn(), texts.iter().copied())
            .unwrap_or_else(|e| panic!("{e}"));
        let r =
            with_semantic(lexical, &claim.text, &docs, &model).unwrap_or_else(|e| panic!("{e}"));
        out.push(Claim {
            relevant,
            bm25: r.bm25,
            levenshtein: r.levenshtein,
            jaccard: r.jaccard,
            semantic: r.semantic,
            shipped: r.fused,
        });
    }
    out
}

/// A way of fusing the separate rankings of one claim.
type Fusion = Box<dyn Fn(&Claim) -> Vec<Scored>>;

fn rank_fusion(w: [f64; 4], k: f64) -> Fusion {
    Box::new(move |c: &Claim| {
        fuse_weighted(
            &[
                (&c.bm25, w[0]),
                (&c.levenshtein, w[1]),
                (&c.jaccard, w[2]),
                (&c.semantic, w[3]),
            ],
            k,
        )
    })
}

/// Score fusion: cosine plus BM25 divided by the claim's best BM25 and Jaccard, each
/// weighted, over the sentences the semantic ranker scored (BM25's best); the rest follow
/// in BM25's order.
fn score_fusion(bm25_w: f64, jaccard_w: f64) -> Fusion {
    Box::new(move |c: &Claim| {
        let best = c
            .bm25
            .first()
            .map_or(1.0, |s| s.score.max(f64::MIN_POSITIVE));
        let of = |list: &[Scored], id: i64| {
            list.iter()
                .find(|s| s.sentence_id == id)
                .map_or(0.0, |s| s.score)
        };
        let mut out: Vec<Scored> = c
            .semantic
            .iter()
            .map(|s| Scored {
                sentence_id: s.sentence_id,
                score: 10.0
                    + s.score
                    + bm25_w * of(&c.bm25, s.sentence_id) / best
                    + jaccard_w * of(&c.jaccard, s.sentence_id),
            })
            .collect();
        factdesk_core::ranking::rank_order(&mut out);
        let seen: HashSet<i64> = out.iter().map(|s| s.sentence_id).collect();
        out.extend(c.bm25.iter().filter(|s| !seen.contains(&s.sentence_id)));
        out
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: Vec<u64> = arg(&args, "--seeds")
        .unwrap_or_else(|| "1,2".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let temp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dir = arg(&args, "--dir").map_or_else(|| temp.path().to_path_buf(), PathBuf::from);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let number = |name: &str| arg(&args, name).and_then(|v| v.parse::<f32>().ok());
    let overrides = RankingOverrides {
        model: None,
        bm25_k1: number("--bm25-k1"),
        bm25_b: number("--bm25-b"),
        jaccard_stemming: args
            .iter()
            .any(|a| a == "--jaccard-stemming")
            .then_some(true),
    };
    let per_seed: Vec<Vec<Claim>> = seeds
        .iter()
        .map(|&seed| claims_of_seed(&dir, seed, &overrides))
        .collect();

    let score = |fusion: &dyn Fn(&Claim) -> Vec<Scored>| -> Vec<f64> {
        per_seed
            .iter()
            .map(|claims| {
                claims
                    .iter()
                    .map(|c| recall_at(&fusion(c), &c.relevant, 5))
                    .sum::<f64>()
                    / claims.len().max(1) as f64
            })
            .collect()
    };
    let shipped = score(&|c: &Claim| c.shipped.clone());
    println!(
        "shipped fusion {SEMANTIC_FUSED_WEIGHTS:?} k {SEMANTIC_FUSED_K}: recall@5 {shipped:.3?}"
    );
    let mut tried: Vec<(f64, String, Vec<f64>)> = Vec::new();
    for k in [0.25, 0.5, 1.0, 2.0, 5.0] {
        for lev in [0.0, 0.05, 0.1] {
            for jac in [0.0, 0.1, 0.2, 0.3] {
                for sem in [0.75, 1.0, 1.25, 1.5, 2.0] {
                    let w = [1.0, lev, jac, sem];
                    let r = score(&*rank_fusion(w, k));
                    let mean = r.iter().sum::<f64>() / r.len().max(1) as f64;
                    tried.push((mean, format!("rank fusion {w:?} k {k}"), r));
                }
            }
        }
    }
    for bm25_w in [0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0] {
        for jaccard_w in [0.0, 0.1, 0.25, 0.5] {
            let r = score(&*score_fusion(bm25_w, jaccard_w));
            let mean = r.iter().sum::<f64>() / r.len().max(1) as f64;
            tried.push((
                mean,
                format!("score fusion cosine + {bm25_w} bm25/best + {jaccard_w} jaccard"),
                r,
            ));
        }
    }
    tried.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("best of {} fusions by mean recall@5:", tried.len());
    for (mean, name, r) in tried.iter().take(10) {
        println!("  {mean:.4} {name}: {r:.3?}");
    }
}
