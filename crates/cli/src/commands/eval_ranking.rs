use std::path::PathBuf;

/// Measure the rankers against gold evidence: hit (at least one gold sentence: COVID-Fact's
/// evidence recall), recall, precision, F1, MRR and MAP at k = 1, 2, 3 and 5 for each
/// (docs/ranking.md defines them). With --semantic, --model or the project's ranking.semantic on, the semantic
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
    let by = a.by.lead(&project, "evaluate the ranking")?;
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
        "{:<12}{:>3}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}",
        "ranker", "k", "hit", "recall", "prec", "F1", "MRR", "MAP"
    );
    for r in report.rankers {
        let rows = [
            (
                1,
                [
                    r.hit_at_1,
                    r.recall_at_1,
                    r.precision_at_1,
                    r.f1_at_1,
                    r.mrr_at_1,
                    r.map_at_1,
                ],
            ),
            (
                2,
                [
                    r.hit_at_2,
                    r.recall_at_2,
                    r.precision_at_2,
                    r.f1_at_2,
                    r.mrr_at_2,
                    r.map_at_2,
                ],
            ),
            (
                3,
                [
                    r.hit_at_3,
                    r.recall_at_3,
                    r.precision_at_3,
                    r.f1_at_3,
                    r.mrr_at_3,
                    r.map_at_3,
                ],
            ),
            (
                5,
                [
                    r.hit_at_5,
                    r.recall_at_5,
                    r.precision_at_5,
                    r.f1_at_5,
                    r.mrr_at_5,
                    r.map_at_5,
                ],
            ),
        ];
        for (k, f) in rows {
            println!(
                "{:<12}{:>3}{:>8.3}{:>8.3}{:>8.3}{:>8.3}{:>8.3}{:>8.3}",
                r.ranker, k, f[0], f[1], f[2], f[3], f[4], f[5]
            );
        }
    }
    Ok(())
}
