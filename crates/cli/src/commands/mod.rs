//! The subcommands, one module each.

mod adjudicate;
mod agreement;
mod annotators;
mod answers;
mod candidates;
mod claims;
mod eval_ranking;
mod export;
mod import;
mod init;
mod make_eval_set;
mod next;
mod predictions;
mod rank;
mod recipes;
mod reindex;
mod report;
mod review;
mod sample;
mod search;
mod serve;
mod settings;
mod stats;
mod study;
mod submit;
mod tasks;
mod team;

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
    Recipes(recipes::Args),
    Import(import::Args),
    Stats(stats::Args),
    Search(search::Args),
    Reindex(reindex::Args),
    Rank(rank::Args),
    Candidates(candidates::Args),
    EvalRanking(eval_ranking::Args),
    MakeEvalSet(make_eval_set::Args),
    Annotators(annotators::Args),
    Tasks(tasks::Args),
    Next(next::Args),
    Submit(submit::Args),
    Review(review::Args),
    Settings(settings::Args),
    Agreement(agreement::Args),
    Study(study::Args),
    Sample(sample::Args),
    Report(report::Args),
    Pack(team::PackArgs),
    Merge(team::MergeArgs),
    Packs(team::PacksArgs),
    Adjudicate(adjudicate::Args),
    Export(export::Args),
    Claims(claims::Args),
    Answers(answers::Args),
    Predictions(predictions::Args),
    Serve(serve::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Init(a) => init::run(a),
        Command::Recipes(a) => recipes::run(a),
        Command::Import(a) => import::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Search(a) => search::run(a),
        Command::Reindex(a) => reindex::run(a),
        Command::Rank(a) => rank::run(a),
        Command::Candidates(a) => candidates::run(a),
        Command::EvalRanking(a) => eval_ranking::run(a),
        Command::MakeEvalSet(a) => make_eval_set::run(a),
        Command::Annotators(a) => annotators::run(a),
        Command::Tasks(a) => tasks::run(a),
        Command::Next(a) => next::run(a),
        Command::Submit(a) => submit::run(a),
        Command::Review(a) => review::run(a),
        Command::Settings(a) => settings::run(a),
        Command::Agreement(a) => agreement::run(a),
        Command::Study(a) => study::run(a),
        Command::Sample(a) => sample::run(a),
        Command::Report(a) => report::run(a),
        Command::Adjudicate(a) => adjudicate::run(a),
        Command::Export(a) => export::run(a),
        Command::Answers(a) => answers::run(a),
        Command::Predictions(a) => predictions::run(a),
        Command::Pack(a) => team::pack(a),
        Command::Merge(a) => team::merge(a),
        Command::Packs(a) => team::packs(a),
        Command::Claims(a) => claims::run(a),
        Command::Serve(a) => serve::run(a),
    }
}

/// Who a command acts as: `--as NAME`, else the project's first lead. The api resolves
/// the name and each use case checks the role itself; the CLI checks nothing.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Acting {
    /// Act as this person [default: the project's first lead; a project with no lead yet
    /// is run by whoever holds the file]. A lead's command run as an annotator is refused.
    #[arg(long = "as", value_name = "NAME")]
    name: Option<String>,
}

impl Acting {
    fn resolve(&self, project: &factdesk_api::Project) -> anyhow::Result<factdesk_api::Actor> {
        Ok(project.lead_or_owner(self.name.as_deref())?)
    }

    /// The person, proven a lead by the api's gate, for a lead's command; `what`
    /// completes "… may not …".
    fn lead(
        &self,
        project: &factdesk_api::Project,
        what: &str,
    ) -> anyhow::Result<factdesk_api::Lead> {
        Ok(project.as_lead(&self.resolve(project)?, what)?)
    }
}

/// Opens a project for a command, with the wall clock.
fn open(path: &std::path::Path) -> anyhow::Result<factdesk_api::Project> {
    Ok(factdesk_api::Project::open(
        path,
        Box::new(factdesk_api::SystemClock),
    )?)
}

/// Opens a project or a pack for the annotator's work (next, submit), with the wall clock.
fn open_work(path: &std::path::Path) -> anyhow::Result<factdesk_api::packs::Workplace> {
    Ok(factdesk_api::packs::Workplace::open(
        path,
        Box::new(factdesk_api::SystemClock),
    )?)
}

/// Prints a value as one line of JSON.
fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string(value)?);
    Ok(())
}
