//! `factdesk answers`: every answer ever given, one row each, for analysing annotators.

use factdesk_api::answers::AnswersFormat;
use std::path::PathBuf;

/// Write every answer (superseded, rejected and not-counted ones too, each marked) as
/// JSON Lines, CSV or Parquet. See docs/export.md.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Where to write the answers; an existing file is replaced only with --force.
    #[arg(long)]
    out: PathBuf,
    /// jsonl, csv or parquet; by default from --out's extension (.csv, .parquet), else jsonl.
    #[arg(long, value_enum)]
    format: Option<AnswersFormat>,
    /// Replace an existing file at --out (never a project).
    #[arg(long)]
    force: bool,
    /// Print what was written as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let format = a.format.unwrap_or_else(|| AnswersFormat::from_path(&a.out));
    let project = super::open(&a.project)?;
    let report = project.export_answers(
        &a.by.lead(&project, "export the raw answers")?,
        &a.out,
        format,
        a.force,
    )?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "wrote {} answers to {} ({}): {} counted, {} superseded, {} rejected",
        report.rows,
        report.out,
        report.format.as_str(),
        report.counted,
        report.superseded,
        report.rejected
    );
    Ok(())
}
