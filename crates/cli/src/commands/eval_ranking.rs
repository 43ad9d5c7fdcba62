use std::path::PathBuf;

/// Measure the rankers against gold evidence: recall@1/3/5 and MRR for each.
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
    /// Print the figures as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let report = project.eval_ranking(&a.by.resolve(&project)?, &a.gold)?;
    if a.json {
        return super::print_json(&report);
    }
    println!("{} claims with gold evidence", report.claims);
    println!(
        "{:<12}{:>10}{:>10}{:>10}{:>8}",
        "ranker", "recall@1", "recall@3", "recall@5", "MRR"
    );
    for r in report.rankers {
        println!(
            "{:<12}{:>10.3}{:>10.3}{:>10.3}{:>8.3}",
            r.ranker, r.recall_at_1, r.recall_at_3, r.recall_at_5, r.mrr
        );
    }
    Ok(())
}
