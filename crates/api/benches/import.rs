//! Import throughput: claims per second on a generated 100,000-claim JSONL, and MB/s of
//! document text (split into sentences and stored) on generated documents totalling
//! 200 MB. Run with `cargo bench -p factdesk-api --bench import`; figures go to
//! docs/performance.md.

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::{NoProgress, Project, SystemClock};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

mod common;
use common::Acting;
use common::{sentence, Lcg};

fn write_claims(path: &Path, n: usize) -> u64 {
    let mut rng = Lcg(7);
    let mut w =
        std::io::BufWriter::new(std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}")));
    for i in 0..n {
        let mut claim = String::new();
        sentence(&mut rng, &mut claim);
        let mut context = String::new();
        sentence(&mut rng, &mut context);
        sentence(&mut rng, &mut context);
        let row = serde_json::json!({
            "id": format!("c{i}"),
            "claim": claim.trim(),
            "context": context.trim(),
            "label": if i % 3 == 0 { "REFUTED" } else { "SUPPORTED" },
            "source_url": format!("https://example.org/{i}"),
            "metadata": {"batch": i % 17},
        });
        writeln!(w, "{row}").unwrap_or_else(|e| panic!("{e}"));
    }
    drop(w);
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Writes documents of about 20 KB each until `total` bytes of text; returns the text size.
fn write_documents(path: &Path, total: usize) -> u64 {
    let mut rng = Lcg(11);
    let mut w =
        std::io::BufWriter::new(std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}")));
    let (mut written, mut i) = (0usize, 0usize);
    while written < total {
        let mut text = String::with_capacity(21_000);
        while text.len() < 20_000 {
            sentence(&mut rng, &mut text);
            if rng.next().is_multiple_of(9) {
                text.push_str("\n\n");
            }
        }
        written += text.len();
        let row = serde_json::json!({"id": format!("d{i}"), "title": format!("Document {i}"), "text": text});
        writeln!(w, "{row}").unwrap_or_else(|e| panic!("{e}"));
        i += 1;
    }
    drop(w);
    written as u64
}

/// Imports into a fresh project and returns the seconds taken, the median of `runs`.
fn time_import(dir: &Path, req: &ImportRequest, runs: usize) -> f64 {
    let mut times = Vec::new();
    for r in 0..runs {
        let p: PathBuf = dir.join(format!("bench-{r}-{}.fdesk", times.len()));
        let mut project =
            Project::create(&p, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
        let start = Instant::now();
        let owner = project.lead();
        import(&mut project, &owner, req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64());
        drop(project);
        for ext in ["", "-wal", "-shm"] {
            std::fs::remove_file(format!("{}{ext}", p.display())).ok();
        }
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not and wants it quick.
    let full = std::env::args().any(|a| a == "--bench");
    let (claims_n, doc_bytes, runs) = if full {
        (100_000, 200_000_000, 3)
    } else {
        (2_000, 2_000_000, 1)
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));

    let claims = dir.path().join("claims.jsonl");
    let claims_size = write_claims(&claims, claims_n);
    let req = ImportRequest {
        claims: vec![claims],
        ..Default::default()
    };
    let secs = time_import(dir.path(), &req, runs);
    println!(
        "claims: {claims_n} claims ({:.1} MB JSONL) in {secs:.3} s = {:.0} claims/s",
        claims_size as f64 / 1e6,
        claims_n as f64 / secs
    );

    let docs = dir.path().join("documents.jsonl");
    let text = write_documents(&docs, doc_bytes);
    let req = ImportRequest {
        documents: vec![docs],
        ..Default::default()
    };
    let secs = time_import(dir.path(), &req, runs);
    println!(
        "documents: {:.1} MB of text split, stored and indexed in {secs:.3} s = {:.1} MB/s",
        text as f64 / 1e6,
        text as f64 / 1e6 / secs
    );

    // Indexing alone: rebuild the index of a project holding the documents.
    let p = dir.path().join("reindex.fdesk");
    let mut project = Project::create(&p, Box::new(SystemClock)).unwrap_or_else(|e| panic!("{e}"));
    let owner = project.lead();
    import(&mut project, &owner, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        project
            .reindex(&project.lead())
            .unwrap_or_else(|e| panic!("{e}"));
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let secs = times[times.len() / 2];
    println!(
        "index: {:.1} MB of sentences indexed in {secs:.3} s = {:.1} MB/s",
        text as f64 / 1e6,
        text as f64 / 1e6 / secs
    );
}
