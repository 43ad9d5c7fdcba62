use std::path::PathBuf;

/// Create a new, empty project file (or project database).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file to create, e.g. covid.fdesk. It must not exist yet. Or a
    /// postgres://user@host/database URL of an empty database (password: PGPASSWORD).
    project: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let p = factdesk_api::Project::create(&a.project, Box::new(factdesk_api::SystemClock))?;
    println!("created {}", p.path().display());
    Ok(())
}
