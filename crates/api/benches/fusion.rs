//! How the fused ranking with the semantic ranker was chosen, and what it costs, on the
//! COVID-Fact evaluation sets of docs/ranking.md (made from ../shared/data/covidfact.jsonl
//! at run time). For each seed: the set is made and imported, `eval-ranking --semantic`
//! runs end to end (timed, embedding everything it needs), then every claim's rankings
//! are computed again from the project's embedding cache, every sentence of the claim's
//! documents is embedded too (to try re-ranking past BM25's best), and the candidate
//! fusions are scored on them (recall@5 per seed), the shipped one first: weighted
//! reciprocal rank fusion, score fusion (per-claim normalised scores, weighted) and the
//! sum of both.
//!
//! `cargo bench -p factdesk-api --bench fusion -- --seeds 1,2` (the tuning seeds); add
//! `--dir DIR` to keep the projects (and their embeddings) between runs, `--bm25-k1`,
//! `--bm25-b` and `--jaccard-stemming` to change the lexical rankers. Needs the model
//! (scripts/setup).
// A bench reads best top to bottom: its functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::rank::{
    rank_lexical, with_semantic, DocumentSet, RankOptions, RankingOverrides, SEMANTIC_FUSED_K,
    SEMANTIC_FUSED_WEIGHTS,
};
use factdesk_api::semantic::{semantic_for, Need};
use factdesk_api::RawSql as _;
use factdesk_api::{NoProgress, Project, SystemClock};
use factdesk_core::ranking::{by_cosine, fuse_weighted, Scored};
use factdesk_semantic::Locations;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;
use common::Acting;

/// Issue 18's targets: fused recall@5 on every seed, and the evaluation set ranked end
/// to end.
const RECALL_TARGET: f64 = 0.92;
const END_TO_END_TARGET_S: f64 = 60.0;

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
    /// BM25's best sentences (the semantic ranker's depth) by cosine, as shipped.
    semantic: Vec<Scored>,
    /// Every sentence the rankers kept, by cosine.
    semantic_all: Vec<Scored>,
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
        .read()
        .query_row("SELECT count(*) FROM sentence_embeddings", [], |r| {
            r.get::<usize, i64>(0)
        })
        .unwrap_or(0);
    let start = Instant::now();
    let report = project
        .eval_ranking_with(&lead, &gold, true, overrides)
        .unwrap_or_else(|e| panic!("{e}"));
    let secs = start.elapsed().as_secs_f64();
    println!(
        "seed {seed}: eval-ranking --semantic end to end {secs:.1} s ({} embeddings cached before), load average {}",
        cached,
        load_average()
    );
    for r in &report.rankers {
        println!(
            "  {:<12} recall@1 {:.3} recall@3 {:.3} recall@5 {:.3} hit@5 {:.3} MRR@5 {:.3}",
            r.ranker, r.recall_at_1, r.recall_at_3, r.recall_at_5, r.hit_at_5, r.mrr_at_5
        );
    }
    let pass = |ok: bool| if ok { "PASS" } else { "FAIL" };
    let cache = if cached == 0 {
        "cold"
    } else {
        "embeddings cached"
    };
    println!(
        "{} seed {seed}: the evaluation ranked end to end in at most {END_TO_END_TARGET_S} s ({cache}): {secs:.1} s",
        pass(secs <= END_TO_END_TARGET_S)
    );
    if let Some(fused) = report.rankers.iter().find(|r| r.ranker == "fused") {
        println!(
            "{} seed {seed}: fused recall@5 at least {RECALL_TARGET}: {:.3}",
            pass(fused.recall_at_5 >= RECALL_TARGET),
            fused.recall_at_5
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
    let mut ranked = Vec::new();
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
            DocumentSet::for_claim(store.read(), claim.id, None).unwrap_or_else(|e| panic!("{e}"));
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
        ranked.push((claim.text, docs, relevant, lexical));
    }
    // Every sentence the rankers kept (Levenshtein scores them all), embedded in one call
    // and cached in the project for the next run.
    let all_texts: Vec<&str> = ranked
        .iter()
        .flat_map(|(claim, docs, _, r)| {
            let kept: HashSet<i64> = r.levenshtein.iter().map(|s| s.sentence_id).collect();
            std::iter::once(claim.as_str()).chain(
                docs.sentences()
                    .filter(move |(id, _)| kept.contains(id))
                    .map(|(_, t)| t.as_str()),
            )
        })
        .collect();
    model
        .prefill(store.read(), all_texts.iter().copied())
        .unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    model.vectors(&all_texts).unwrap_or_else(|e| panic!("{e}"));
    let stored = {
        let mut project = project;
        let tx = project
            .store_mut()
            .transaction()
            .unwrap_or_else(|e| panic!("{e}"));
        let stored = model.save(&tx).unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        stored
    };
    println!(
        "  every kept sentence embedded: {} texts, {stored} new, {:.1} s",
        all_texts.len(),
        start.elapsed().as_secs_f64()
    );
    let (mut gold_total, mut gold_unscored) = (0usize, 0usize);
    let out: Vec<Claim> = ranked
        .into_iter()
        .map(|(claim, docs, relevant, lexical)| {
            let kept: HashSet<i64> = lexical.levenshtein.iter().map(|s| s.sentence_id).collect();
            let scored: HashSet<i64> = lexical.bm25.iter().map(|s| s.sentence_id).collect();
            gold_total += relevant.len();
            gold_unscored += relevant.iter().filter(|id| !scored.contains(id)).count();
            let pairs: Vec<(i64, &str)> = docs
                .sentences()
                .filter(|(id, _)| kept.contains(id))
                .map(|(id, t)| (*id, t.as_str()))
                .collect();
            let mut texts = vec![claim.as_str()];
            texts.extend(pairs.iter().map(|(_, t)| *t));
            let vectors = model.vectors(&texts).unwrap_or_else(|e| panic!("{e}"));
            let semantic_all = by_cosine(
                &vectors[0],
                pairs
                    .iter()
                    .zip(&vectors[1..])
                    .map(|((id, _), v)| (*id, &v[..])),
            );
            let r = with_semantic(lexical, &claim, &docs, &model).unwrap_or_else(|e| panic!("{e}"));
            Claim {
                relevant,
                bm25: r.bm25,
                levenshtein: r.levenshtein,
                jaccard: r.jaccard,
                semantic: r.semantic,
                semantic_all,
                shipped: r.fused,
            }
        })
        .collect();
    println!(
        "  gold sentences BM25 gives no score (no word shared with the claim): {gold_unscored} of {gold_total}"
    );
    out
}

/// A way of fusing the separate rankings of one claim.
type Fusion = Box<dyn Fn(&Claim) -> Vec<Scored>>;

fn rank_fusion(w: [f64; 4], k: f64, all: bool) -> Fusion {
    Box::new(move |c: &Claim| {
        fuse_weighted(
            &[
                (&c.bm25, w[0]),
                (&c.levenshtein, w[1]),
                (&c.jaccard, w[2]),
                (if all { &c.semantic_all } else { &c.semantic }, w[3]),
            ],
            k,
        )
    })
}

/// How one ranker's scores are put on a common scale within a claim.
#[derive(Clone, Copy, Debug)]
enum Norm {
    /// Divided by the claim's best (cosine kept as it is).
    Max,
    /// Best 1, worst 0.
    MinMax,
    /// Mean 0, standard deviation 1.
    Z,
}

/// `ranking`'s scores on the `norm` scale, by sentence; `cosine` says the scores already
/// lie in -1..=1 (kept raw under [`Norm::Max`]).
fn normalised(ranking: &[Scored], norm: Norm, cosine: bool) -> HashMap<i64, f64> {
    let n = ranking.len().max(1) as f64;
    let max = ranking.iter().map(|s| s.score).fold(f64::MIN, f64::max);
    let min = ranking.iter().map(|s| s.score).fold(f64::MAX, f64::min);
    let mean = ranking.iter().map(|s| s.score).sum::<f64>() / n;
    let sd = (ranking
        .iter()
        .map(|s| (s.score - mean).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    ranking
        .iter()
        .map(|s| {
            let v = match norm {
                Norm::Max if cosine => s.score,
                Norm::Max => s.score / max.max(f64::MIN_POSITIVE),
                Norm::MinMax if max > min => (s.score - min) / (max - min),
                Norm::MinMax => 0.0,
                Norm::Z if sd > 0.0 => (s.score - mean) / sd,
                Norm::Z => 0.0,
            };
            (s.sentence_id, v)
        })
        .collect()
}

/// Score fusion: the normalised cosine plus the weighted normalised BM25, Jaccard and
/// Levenshtein scores (a sentence BM25 does not score gets BM25's lowest), over the
/// sentences the semantic ranking holds (BM25's best, or all); the rest follow in BM25's
/// order.
fn score_fusion(norm: Norm, w: [f64; 3], all: bool) -> Fusion {
    Box::new(move |c: &Claim| fused_scores(c, norm, w, all))
}

fn fused_scores(c: &Claim, norm: Norm, w: [f64; 3], all: bool) -> Vec<Scored> {
    let semantic = if all { &c.semantic_all } else { &c.semantic };
    let cos = normalised(semantic, norm, true);
    let bm25 = normalised(&c.bm25, norm, false);
    let floor = bm25.values().copied().fold(0.0, f64::min);
    let jac = normalised(&c.jaccard, norm, false);
    let lev = normalised(&c.levenshtein, norm, false);
    let mut out: Vec<Scored> = semantic
        .iter()
        .map(|s| {
            let id = s.sentence_id;
            let get = |m: &HashMap<i64, f64>, none: f64| m.get(&id).copied().unwrap_or(none);
            Scored {
                sentence_id: id,
                score: 1e3
                    + get(&cos, 0.0)
                    + w[0] * get(&bm25, floor)
                    + w[1] * get(&jac, 0.0)
                    + w[2] * get(&lev, 0.0),
            }
        })
        .collect();
    factdesk_core::ranking::rank_order(&mut out);
    let seen: HashSet<i64> = out.iter().map(|s| s.sentence_id).collect();
    out.extend(c.bm25.iter().filter(|s| !seen.contains(&s.sentence_id)));
    out
}

/// The sum of a rank fusion and `share` times a score fusion (the score fusion's constant
/// offset taken off).
fn hybrid(w: [f64; 4], k: f64, share: f64, norm: Norm, sw: [f64; 3], all: bool) -> Fusion {
    Box::new(move |c: &Claim| {
        let rank = rank_fusion(w, k, all)(c);
        let scores: HashMap<i64, f64> = fused_scores(c, norm, sw, all)
            .into_iter()
            .map(|s| {
                (
                    s.sentence_id,
                    if s.score > 500.0 { s.score - 1e3 } else { 0.0 },
                )
            })
            .collect();
        let mut out: Vec<Scored> = rank
            .iter()
            .map(|s| Scored {
                sentence_id: s.sentence_id,
                score: s.score + share * scores.get(&s.sentence_id).copied().unwrap_or(0.0),
            })
            .collect();
        factdesk_core::ranking::rank_order(&mut out);
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
    for (name, pick) in [
        (
            "bm25",
            (|c: &Claim| c.bm25.clone()) as fn(&Claim) -> Vec<Scored>,
        ),
        ("semantic (depth)", |c: &Claim| c.semantic.clone()),
        ("semantic (all)", |c: &Claim| c.semantic_all.clone()),
    ] {
        println!("{name}: recall@5 {:.3?}", score(&pick));
    }
    let mut tried: Vec<(String, Vec<f64>)> = Vec::new();
    let mut tally = |name: String, fusion: Fusion| {
        let r = score(&*fusion);
        tried.push((name, r));
    };
    for all in [false, true] {
        for k in [0.25, 0.5, 1.0, 2.0, 5.0] {
            for lev in [0.0, 0.05, 0.1] {
                for jac in [0.0, 0.1, 0.2, 0.3] {
                    for sem in [0.75, 1.0, 1.25, 1.5, 2.0] {
                        let w = [1.0, lev, jac, sem];
                        tally(
                            format!("rank fusion {w:?} k {k} all {all}"),
                            rank_fusion(w, k, all),
                        );
                    }
                }
            }
        }
        for norm in [Norm::Max, Norm::MinMax, Norm::Z] {
            for b in [0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5] {
                for j in [0.0, 0.1, 0.25, 0.5] {
                    for l in [0.0, 0.1, 0.25] {
                        let w = [b, j, l];
                        tally(
                            format!("score fusion {norm:?} cosine + {w:?} (bm25, jaccard, levenshtein) all {all}"),
                            score_fusion(norm, w, all),
                        );
                    }
                }
            }
        }
        for share in [0.1, 0.25, 0.5, 1.0] {
            for norm in [Norm::Max, Norm::MinMax, Norm::Z] {
                for b in [0.25, 0.5, 1.0] {
                    for j in [0.0, 0.25] {
                        let w = SEMANTIC_FUSED_WEIGHTS;
                        let sw = [b, j, 0.0];
                        tally(
                            format!("hybrid: rank fusion {w:?} k {SEMANTIC_FUSED_K} + {share} x score fusion {norm:?} {sw:?} all {all}"),
                            hybrid(w, SEMANTIC_FUSED_K, share, norm, sw, all),
                        );
                    }
                }
            }
        }
    }
    let mean = |r: &[f64]| r.iter().sum::<f64>() / r.len().max(1) as f64;
    let worst = |r: &[f64]| r.iter().copied().fold(f64::MAX, f64::min);
    tried.sort_by(|a, b| mean(&b.1).total_cmp(&mean(&a.1)));
    println!("best of {} fusions by mean recall@5:", tried.len());
    for (name, r) in tried.iter().take(15) {
        println!("  {:.4} {name}: {r:.3?}", mean(r));
    }
    tried.sort_by(|a, b| worst(&b.1).total_cmp(&worst(&a.1)));
    println!("best by the worst seed's recall@5:");
    for (name, r) in tried.iter().take(15) {
        println!("  {:.4} {name}: {r:.3?}", worst(r));
    }
    for family in ["rank fusion", "score fusion", "hybrid"] {
        if let Some((name, r)) = tried.iter().find(|(n, _)| n.starts_with(family)) {
            println!("best {family:?} by the worst seed: {name}: {r:.3?}");
        }
    }
}
