//! Ranking time per claim, for documents of about 1 KB, 20 KB and 1 MB: loading the
//! claim's sentences, BM25 through the index, Levenshtein, Jaccard and fusion, as
//! `factdesk rank` does for each claim. Run with `cargo bench -p factdesk-api --bench
//! ranking`; figures go to docs/performance.md.

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::rank::{rank_sentences, DocumentSet};
use factdesk_api::{NoProgress, Project, SystemClock};
use std::io::Write;
use std::time::Instant;

mod common;
use common::Acting;
use common::{percentile, sentence, Lcg};

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
    let owner = project.lead();
    import(&mut project, &owner, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    let mut bm25 = project
        .search_index(&owner)
        .and_then(|i| Ok(i.bm25_corpus()?))
        .unwrap_or_else(|e| panic!("{e}"));
    let store = project.store();

    for (name, _) in sizes {
        let mut times = Vec::new();
        let mut cold_ms = 0.0;
        let mut sentences_n = 0;
        // As `factdesk rank` does: a document's sentences are loaded and prepared once,
        // then every claim on it is ranked against them.
        let mut docs: Option<DocumentSet> = None;
        for i in 0..claims_per_doc {
            let claim = store
                .claim_by_ext_id(&format!("{name}-{i}"))
                .ok()
                .flatten()
                .unwrap_or_else(|| panic!("claim {name}-{i} missing"));
            let start = Instant::now();
            let set = DocumentSet::for_claim(store.read(), claim.id, docs.take())
                .unwrap_or_else(|e| panic!("{e}"));
            let loaded = start.elapsed().as_secs_f64() * 1e3;
            let r = rank_sentences(&mut bm25, &claim.text, &set).unwrap_or_else(|e| panic!("{e}"));
            let total = start.elapsed().as_secs_f64() * 1e3;
            if i == 0 {
                cold_ms = total;
                println!("  {name}: loading the document took {loaded:.2} ms");
            } else {
                times.push(total);
            }
            sentences_n = set.sentences().count();
            assert!(!r.fused.is_empty());
            docs = Some(set);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "rank {name:>6} document ({sentences_n} sentences), {} claims: p50 {:.2} ms, p95 {:.2} ms (first claim, cold: {cold_ms:.2} ms)",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.95)
        );
    }
}
