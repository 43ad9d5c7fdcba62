//! `factdesk report`: the agreement report a lead hands on with a dataset.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::report::ReportFiles;
use std::path::PathBuf;

/// Write a self-contained HTML report of a project: agreement per task kind (with 95%
/// intervals and the pairwise Cohen matrix), label distributions, claim and refutation
/// lengths in tokens, and negation cue words in refuted versus supported claims.
///
/// The HTML has its styles and SVG charts inline and loads nothing, so it opens offline.
/// --json writes the same figures as one JSON object; --csv writes one CSV per table.
/// The files appear all together or not at all, and none may be a project file or the
/// project's own files.
/// Flagged annotators are left out unless the lead included them (`factdesk annotators`),
/// as on the dashboard; trick sentences never count.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file (.fdesk).
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Where to write the HTML report.
    #[arg(long)]
    out: PathBuf,
    /// Also write the figures as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write one CSV file per table into this directory (created if missing).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Bootstrap replicates for the 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Seed for the bootstrap.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let req = AgreementRequest {
        bootstrap_reps: a.bootstrap,
        seed: a.seed,
        ..AgreementRequest::default()
    };
    let files = ReportFiles {
        html: a.out,
        json: a.json,
        csv: a.csv,
    };
    project.write_report(&a.by.lead(&project, "write reports")?, &req, &files)?;
    println!("wrote {}", files.html.display());
    Ok(())
}
