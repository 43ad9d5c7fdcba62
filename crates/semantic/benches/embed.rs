//! Embedding speed on COVID-Fact's own evidence sentences (read from
//! ../shared/data/covidfact.jsonl at run time), beside what this machine's matrix
//! products can do at all, so the figure can be judged against a ceiling. Needs the model
//! (scripts/setup). Run with `cargo bench -p factdesk-semantic --bench embed`
//! (`-- --limit N` embeds only the first N sentences); figures go to docs/ranking.md.
//! Candle's thread count follows RAYON_NUM_THREADS (default: one per core). The machine
//! may be shared, so the CPU time the process used (user + system, all threads) is
//! printed beside the wall time, and a PASS/FAIL line per target.

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};
use factdesk_semantic::{locate, Embedder, Locations};
use std::path::PathBuf;
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

/// Sentences per second the issue asks for (on this 2-core machine).
const TARGET_PER_SECOND: f64 = 500.0;

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

/// GFLOP/s of candle's f32 matrix product at the feed-forward layer's shape.
fn matmul_gflops(rows: usize) -> f64 {
    let dev = Device::Cpu;
    let a = Tensor::ones((rows, HIDDEN as usize), candle_core::DType::F32, &dev);
    let b = Tensor::ones(
        (HIDDEN as usize, FEED_FORWARD as usize),
        candle_core::DType::F32,
        &dev,
    );
    let (Ok(a), Ok(b)) = (a, b) else {
        panic!("cannot make tensors")
    };
    let run = || a.matmul(&b).unwrap_or_else(|e| panic!("{e}"));
    run();
    let reps = 20;
    let start = Instant::now();
    for _ in 0..reps {
        run();
    }
    let secs = start.elapsed().as_secs_f64();
    reps as f64 * 2.0 * rows as f64 * HIDDEN * FEED_FORWARD / secs / 1e9
}

/// GFLOP/s of candle's int8 (q8_0) matrix product at the same shape: the weights
/// quantised in blocks of 32, the activations quantised on the fly.
fn q8_matmul_gflops(rows: usize) -> f64 {
    let dev = Device::Cpu;
    let run = || -> candle_core::Result<f64> {
        let a = Tensor::randn(0f32, 1.0, (rows, HIDDEN as usize), &dev)?;
        // QMatMul multiplies by the transpose: (out, in) as BERT's linear layers store it.
        let w = Tensor::randn(0f32, 1.0, (FEED_FORWARD as usize, HIDDEN as usize), &dev)?;
        let q = QMatMul::from_qtensor(QTensor::quantize(&w, GgmlDType::Q8_0)?)?;
        q.forward(&a)?;
        let reps = 20;
        let start = Instant::now();
        for _ in 0..reps {
            q.forward(&a)?;
        }
        let secs = start.elapsed().as_secs_f64();
        Ok(reps as f64 * 2.0 * rows as f64 * HIDDEN * FEED_FORWARD / secs / 1e9)
    };
    run().unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let mut sentences = sentences();
    sentences.truncate(limit);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let dir = locate(None, &Locations::from_env()).unwrap_or_else(|e| panic!("{e}"));
    let embedder = Embedder::load(&dir).unwrap_or_else(|e| panic!("{e}"));
    println!("model {} from {}", embedder.id(), dir.display());
    println!(
        "threads: {} (RAYON_NUM_THREADS={})",
        std::thread::available_parallelism().map_or(1, usize::from),
        std::env::var("RAYON_NUM_THREADS").unwrap_or_default()
    );
    println!("load average before: {}", load_average());

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

    // A short warm-up: the first batch pays for allocations and the thread pool.
    embedder
        .embed(&refs[..refs.len().min(64)])
        .unwrap_or_else(|e| panic!("{e}"));
    let cpu = cpu_seconds();
    let start = Instant::now();
    let vectors = embedder.embed(&refs).unwrap_or_else(|e| panic!("{e}"));
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    assert_eq!(vectors.len(), refs.len());
    let per_second = refs.len() as f64 / secs;
    println!(
        "embedding: {} sentences in {:.2} s = {:.0} sentences/s, {:.1} GFLOP/s of model work",
        refs.len(),
        secs,
        per_second,
        work / secs / 1e9
    );
    println!(
        "embedding CPU time: {:.2} s = {:.2} CPU-s per 1000 sentences ({:.0} sentences per CPU-second; \
         two idle cores would give {:.0} sentences/s)",
        cpu,
        cpu / refs.len() as f64 * 1000.0,
        refs.len() as f64 / cpu,
        2.0 * refs.len() as f64 / cpu
    );
    for rows in [512, 4096] {
        println!(
            "candle f32 matmul ({rows}x384 by 384x1536): {:.1} GFLOP/s",
            matmul_gflops(rows)
        );
        println!(
            "candle q8_0 matmul ({rows}x384 by 384x1536): {:.1} GFLOP/s",
            q8_matmul_gflops(rows)
        );
    }
    println!(
        "{} embedding at least {TARGET_PER_SECOND:.0} sentences/s: {per_second:.0} (wall), {:.0} per two CPU-seconds",
        if per_second >= TARGET_PER_SECOND { "PASS" } else { "FAIL" },
        2.0 * refs.len() as f64 / cpu
    );
    println!("load average after: {}", load_average());
}
