use std::path::PathBuf;

/// Show how many claims, documents, tasks and answers a project holds (a lead's command).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let stats = project.stats(&a.by.lead(&project, "read the project's counts")?)?;
    if a.json {
        return super::print_json(&stats);
    }
    let rows = [
        ("claims", stats.claims),
        ("  originals", stats.root_claims),
        ("  refutations", stats.refutations),
        ("documents", stats.documents),
        ("sentences", stats.sentences),
        ("candidates", stats.candidates),
        ("tasks", stats.tasks),
        ("annotations", stats.annotations),
        ("annotators", stats.annotators),
    ];
    for (name, n) in rows {
        println!("{name:<16}{n:>10}");
    }
    Ok(())
}
