use std::path::PathBuf;

/// Build a ranking test set from COVID-Fact: each SUPPORTED claim gets a document of its
/// evidence sentences hidden among sentences from other claims of the same flair.
///
/// Writes claims.jsonl, documents.jsonl and gold.jsonl into --out; import the first two
/// and run `factdesk eval-ranking --gold gold.jsonl`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// COVID-Fact JSONL.
    covidfact: PathBuf,
    /// The folder to write into.
    #[arg(long)]
    out: PathBuf,
    /// Distractor sentences per document.
    #[arg(long, default_value_t = 45)]
    distractors: usize,
    /// Seed for the mixing.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let n = factdesk_api::eval::covid_fact_eval_set(&a.covidfact, &a.out, a.distractors, a.seed)?;
    println!(
        "wrote {n} claims with documents and gold evidence to {}",
        a.out.display()
    );
    Ok(())
}
