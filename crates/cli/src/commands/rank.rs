use crate::progress::Bar;
use factdesk_core::ranking::Ranker;
use std::path::PathBuf;

/// Recompute the candidate evidence sentences of every claim that has documents.
///
/// Import ranks new claims already; run this to change the ranker or the number of
/// candidates.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// bm25, levenshtein, jaccard, semantic (sentence embeddings over BM25's best), or
    /// fused (weighted reciprocal rank fusion of the others; with the semantic ranker when
    /// the project's ranking.semantic is on or --model is given).
    #[arg(long, default_value = "fused")]
    ranker: String,
    /// The sentence-embedding model's folder (model.safetensors, config.json,
    /// tokenizer.json); default: the project's ranking.model_dir, else the folder
    /// scripts/setup fills, else the Hugging Face cache.
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Candidates per claim.
    #[arg(long, default_value_t = factdesk_api::rank::DEFAULT_K)]
    k: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let ranker: Ranker = a.ranker.parse()?;
    let mut project = super::open(&a.project)?;
    let by = a.by.resolve(&project)?;
    let report = project.rank_with_model(
        &by,
        ranker,
        a.k,
        false,
        a.model.as_deref(),
        &mut Bar::cancellable(),
    )?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "ranked {} claims with {}: {} candidates",
        report.claims, report.ranker, report.candidates
    );
    if let Some(model) = &report.semantic_model {
        println!("semantic model: {model}");
    }
    Ok(())
}
