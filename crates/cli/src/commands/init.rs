use std::path::PathBuf;

/// Create a new, empty project file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file to create, e.g. covid.fdesk. It must not exist yet.
    project: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let p = factdesk_api::Project::create(&a.project, Box::new(factdesk_api::SystemClock))?;
    println!("created {}", p.path().display());
    Ok(())
}
