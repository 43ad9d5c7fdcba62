//! Ranking time per claim, for documents of about 1 KB, 20 KB and 1 MB: loading the
//! claim's sentences, BM25 through the index, Levenshtein, Jaccard and fusion, as
//! `factdesk rank` does for each claim. Run with `cargo bench -p factdesk-api --bench
//! ranking`; figures go to docs/performance.md.

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::rank::rank_sentences;
use factdesk_api::{NoProgress, Project, SystemClock};
use std::io::Write;
use std::time::Instant;

mod common;
use common::{sentence, Lcg};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let claims_per_doc = if full { 200 } else { 5 };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let sizes = [("1 KB", 1_000usize), ("20 KB", 20_000), ("1 MB", 1_000_000)];
    let mut rng = Lcg(5);
    let docs_path = dir.path().join("docs.jsonl");
    let claims_path = dir.path().join("claims.jsonl");
    let mut docs = std::io::BufWriter::new(
        std::fs::File::create(&docs_path).unwrap_or_else(|e| panic!("{e}")),
    );
    let mut claims = std::io::BufWriter::new(
        std::fs::File::create(&claims_path).unwrap_or_else(|e| panic!("{e}")),
    );
    for (name, size) in sizes {
        let mut text = String::new();
        while text.len() < size {
            sentence(&mut rng, &mut text);
        }
        writeln!(docs, "{}", serde_json::json!({"id": name, "text": text}))
            .unwrap_or_else(|e| panic!("{e}"));
        for i in 0..claims_per_doc {
            let mut claim = String::new();
            sentence(&mut rng, &mut claim);
            let row = serde_json::json!({"id": format!("{name}-{i}"), "claim": claim.trim(), "doc_ids": [name]});
            writeln!(claims, "{row}").unwrap_or_else(|e| panic!("{e}"));
        }
    }
    drop((docs, claims));
    let p = dir.path().join("rank.fdesk");
    let mut project = Project::create(&p, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
    let req = ImportRequest {
        claims: vec![claims_path],
        documents: vec![docs_path],
        ..Default::default()
    };
    import(&mut project, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    let index = project.search_index().unwrap_or_else(|e| panic!("{e}"));
    let store = project.store();

    for (name, _) in sizes {
        let mut times = Vec::new();
        let mut sentences_n = 0;
        for i in 0..claims_per_doc {
            let claim = store
                .claim_by_ext_id(&format!("{name}-{i}"))
                .ok()
                .flatten()
                .unwrap_or_else(|| panic!("claim {name}-{i} missing"));
            let start = Instant::now();
            let docs = store
                .claim_document_ids(claim.id)
                .unwrap_or_else(|e| panic!("{e}"));
            let sentences = store
                .document_sentences(&docs)
                .unwrap_or_else(|e| panic!("{e}"));
            let r = rank_sentences(&index, &claim.text, &docs, &sentences)
                .unwrap_or_else(|e| panic!("{e}"));
            times.push(start.elapsed().as_secs_f64() * 1e3);
            sentences_n = sentences.len();
            assert!(!r.fused.is_empty());
            if std::env::var_os("FACTDESK_BENCH_PARTS").is_some() && i == 0 {
                let t = Instant::now();
                let _ = store.document_sentences(&docs);
                let load = t.elapsed();
                let t = Instant::now();
                let _ = index.bm25(&claim.text, &docs, sentences.len());
                let bm = t.elapsed();
                let cands: Vec<factdesk_core::ranking::Candidate<'_>> = sentences
                    .iter()
                    .map(|(id, t)| factdesk_core::ranking::Candidate {
                        sentence_id: *id,
                        text: t,
                    })
                    .collect();
                let t = Instant::now();
                let kept = factdesk_core::ranking::drop_self_containing(&claim.text, &cands);
                let selfc = t.elapsed();
                let t = Instant::now();
                let _ = factdesk_core::ranking::levenshtein(&claim.text, &kept);
                let lev = t.elapsed();
                let t = Instant::now();
                let _ = factdesk_core::ranking::jaccard(&claim.text, &kept);
                let jac = t.elapsed();
                println!(
                    "  parts: load {load:?} bm25 {bm:?} self {selfc:?} lev {lev:?} jaccard {jac:?}"
                );
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "rank {name:>6} document ({sentences_n} sentences), {} claims: p50 {:.2} ms, p95 {:.2} ms",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.95)
        );
    }
}
