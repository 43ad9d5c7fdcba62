use std::path::PathBuf;

/// Measure the rankers against gold evidence: recall, precision and F1 at 1/3/5 and MRR
/// for each. With --semantic, --model or the project's ranking.semantic on, the semantic
/// ranker takes part too, alone and in fused.
///
/// The gold file is JSON Lines: {"claim": "<claim id>", "evidence": ["sentence", ...]},
/// sentences matched by their text among the claim's documents.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Gold evidence, JSON Lines.
    #[arg(long)]
    gold: PathBuf,
    /// Evaluate the semantic ranker too (needs the model: scripts/setup installs it).
    #[arg(long)]
    semantic: bool,
    /// The sentence-embedding model's folder (implies --semantic); default: the
    /// project's ranking.model_dir, else the folder scripts/setup fills, else the
    /// Hugging Face cache.
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    #[command(flatten)]
    ranking: super::rank::RankingFlags,
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let by = a.by.resolve(&project)?;
    let overrides = a.ranking.overrides(a.model.clone());
    let report = project.eval_ranking_with(&by, &a.gold, a.semantic, &overrides)?;
    if a.json {
        return super::print_json(&report);
    }
    println!("{} claims with gold evidence", report.claims);
    match &report.semantic_model {
        Some(model) => println!("semantic model: {model}"),
        None => println!("without the semantic ranker (--semantic adds it)"),
    }
    println!(
        "{:<12}{:>6}{:>6}{:>6}{:>8}{:>6}{:>6}{:>6}{:>6}{:>6}{:>7}",
        "ranker", "R@1", "R@3", "R@5", "P@1", "P@3", "P@5", "F1@1", "F1@3", "F1@5", "MRR"
    );
    for r in report.rankers {
        println!(
            "{:<12}{:>6.3}{:>6.3}{:>6.3}{:>8.3}{:>6.3}{:>6.3}{:>6.3}{:>6.3}{:>6.3}{:>7.3}",
            r.ranker,
            r.recall_at_1,
            r.recall_at_3,
            r.recall_at_5,
            r.precision_at_1,
            r.precision_at_3,
            r.precision_at_5,
            r.f1_at_1,
            r.f1_at_3,
            r.f1_at_5,
            r.mrr
        );
    }
    Ok(())
}
