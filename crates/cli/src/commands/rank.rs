use crate::progress::Bar;
use factdesk_api::rank::RankingOverrides;
use factdesk_core::ranking::Ranker;
use std::path::PathBuf;

/// Ranker settings for one run, over the project's `ranking.*` settings.
#[derive(Debug, Clone, clap::Args)]
pub struct RankingFlags {
    /// BM25's term-frequency saturation k1 (project setting ranking.bm25_k1; default 1.2).
    #[arg(long, value_name = "K1")]
    bm25_k1: Option<f32>,
    /// BM25's length normalisation b, 0 to 1 (ranking.bm25_b; default 0.75).
    #[arg(long, value_name = "B")]
    bm25_b: Option<f32>,
    /// Jaccard over word stems, web addresses and numbers folded
    /// (ranking.jaccard_stemming).
    #[arg(long)]
    jaccard_stemming: bool,
}

impl RankingFlags {
    /// The overrides these flags make, with the model folder if one was named.
    pub fn overrides(&self, model: Option<PathBuf>) -> RankingOverrides {
        RankingOverrides {
            model,
            bm25_k1: self.bm25_k1,
            bm25_b: self.bm25_b,
            jaccard_stemming: self.jaccard_stemming.then_some(true),
        }
    }
}

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
    /// The ranker: semantic scores sentence embeddings over BM25's best and the sentences
    /// it cannot score; fused is weighted reciprocal rank fusion of the others, with the
    /// semantic ranker when the project's ranking.semantic is on or --model is given.
    #[arg(long, value_enum, ignore_case = true, default_value = "fused")]
    ranker: Ranker,
    /// The sentence-embedding model's folder (model.safetensors, config.json,
    /// tokenizer.json); default: the project's ranking.model_dir, else the folder
    /// scripts/setup fills, else the Hugging Face cache.
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    #[command(flatten)]
    ranking: RankingFlags,
    /// Candidates per claim.
    #[arg(long, default_value_t = factdesk_api::rank::DEFAULT_K)]
    k: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let ranker = a.ranker;
    let mut project = super::open(&a.project)?;
    let by = a.by.lead(&project, "rank candidates")?;
    let report = project.rank_with(
        &by,
        ranker,
        a.k,
        false,
        &a.ranking.overrides(a.model),
        &mut Bar::cancellable(),
    )?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "ranked {} with {}: {}",
        count(report.claims, "claim"),
        report.ranker,
        count(report.candidates, "candidate")
    );
    if let Some(model) = &report.semantic_model {
        println!(
            "semantic model: {model} ({} embedded, the rest from the project's cache)",
            count(report.embedded, "text")
        );
    }
    if report.kept > 0 {
        println!(
            "kept the candidates of {} as they were: their items have been shown to someone, and answers stay facts about what was shown (docs/ranking.md)",
            count(report.kept, "claim")
        );
    }
    if report.unscored > 0 {
        println!(
            "kept the candidates of {} as they were: {} scores none of their sentences (they share no word with the claim); fused ranks every sentence",
            count(report.unscored, "claim"),
            report.ranker
        );
    }
    Ok(())
}

/// `n` and a noun, plural unless `n` is 1.
fn count(n: u64, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}
