//! The subcommands, one module each.

mod import;
mod init;
mod reindex;
mod search;
mod stats;

use clap::{Parser, Subcommand};

/// Factdesk: build fact-checking datasets with your team.
#[derive(Debug, Parser)]
#[command(name = "factdesk", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(init::Args),
    Import(import::Args),
    Stats(stats::Args),
    Search(search::Args),
    Reindex(reindex::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Init(a) => init::run(a),
        Command::Import(a) => import::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Search(a) => search::run(a),
        Command::Reindex(a) => reindex::run(a),
    }
}

/// Opens a project for a command, with the wall clock.
fn open(path: &std::path::Path) -> anyhow::Result<factdesk_api::Project> {
    Ok(factdesk_api::Project::open(
        path,
        Box::new(factdesk_api::SystemClock),
    )?)
}

/// Prints a value as one line of JSON.
fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}
