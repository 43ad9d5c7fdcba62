use std::path::PathBuf;

/// Rebuild the project's search index from the project file.
///
/// The index lives beside the project (PROJECT.index/) and is rebuilt on its own when it
/// is missing or stale; this forces it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    project.reindex(&a.by.lead(&project, "rebuild the search index")?)?;
    println!("rebuilt the search index of {}", project.path().display());
    Ok(())
}
