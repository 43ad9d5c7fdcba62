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
    /// bm25, levenshtein, jaccard, or fused (reciprocal rank fusion of the three).
    #[arg(long, default_value = "fused")]
    ranker: String,
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
    let report = project.rank(&by, ranker, a.k, false, &mut Bar::cancellable())?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "ranked {} claims with {}: {} candidates",
        report.claims, report.ranker, report.candidates
    );
    Ok(())
}
