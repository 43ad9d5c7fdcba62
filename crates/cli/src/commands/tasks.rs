use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Create tasks of one kind for every eligible claim.
///
/// evidence: claims with candidates; refute: original claims of at most 15 tokens;
/// verify: refutations (imported or written); label: claims with documents.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    /// evidence, refute, verify or label.
    #[arg(long)]
    kind: String,
    /// Annotators per item (default: the project's, 3).
    #[arg(long)]
    overlap: Option<u32>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let kind: TaskKind = a.kind.parse()?;
    let report = super::open(&a.project)?.create_tasks(kind, a.overlap)?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "created {} {} tasks (overlap {}); {} claims already had one",
        report.created,
        kind.as_str(),
        report.overlap,
        report.existing
    );
    if report.without_trick > 0 {
        println!(
            "{} evidence tasks show no trick: no sentence sharing no word with their claim was found in other claims' documents",
            report.without_trick
        );
    }
    Ok(())
}
