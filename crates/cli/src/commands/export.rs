//! `factdesk export`: the gold file, its dataset card beside it, split by root claim.

use factdesk_api::gold::{parse_splits, ExportFormat, GoldMethod, GoldRequest};
use std::path::PathBuf;

/// Write the gold dataset: one claim per line with label, evidence, split, agreement and
/// provenance, and a dataset card (<name>.card.md) beside it. See docs/export.md.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Where to write the gold JSON Lines (with --format hf, the dataset folder).
    #[arg(long)]
    out: PathBuf,
    /// The shape of what is written.
    #[arg(long, value_enum, default_value = "factdesk")]
    format: Format,
    /// Relative split sizes.
    #[arg(long, default_value = "70,15,15")]
    splits: String,
    /// Seed of the split hash.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How answers become one label.
    #[arg(long, value_enum, default_value = "majority")]
    method: GoldMethod,
    /// Count annotators flagged for failing trick sentences (not those the lead
    /// excluded with `annotators P flag NAME --exclude`).
    #[arg(long)]
    include_flagged: bool,
    /// Export claims with fewer counted answers than their overlap, each line marked
    /// "under_annotated": true (factdesk and fever formats); by default they are held
    /// back and listed in the card.
    #[arg(long)]
    include_under_annotated: bool,
    /// --format hf: the license identifier for the dataset card (e.g. cc-by-4.0).
    #[arg(long, default_value = "other")]
    license: String,
    /// Replace existing files (the gold file, its card, FEVER's split files); with
    /// --format hf, replace an earlier Factdesk export in the folder.
    #[arg(long)]
    force: bool,
    /// Write the gold of the project's design tasks instead: one item a line with each
    /// question's gold value and how it was settled (docs/designs.md).
    #[arg(long)]
    design: bool,
    /// Print what was written as JSON.
    #[arg(long)]
    json: bool,
}

/// What `export` writes: a gold file in one of the api's line shapes, or a Hugging Face
/// dataset folder (a use case of its own, so not one of those shapes).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Format {
    /// Factdesk's gold lines (docs/export.md).
    Factdesk,
    /// FEVER's lines, and a file per split.
    Fever,
    /// A Hugging Face dataset folder: Parquet and JSON Lines per split and a README.md
    /// dataset card.
    Hf,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let req = GoldRequest {
        method: a.method,
        include_flagged: a.include_flagged,
        include_under_annotated: a.include_under_annotated,
        splits: parse_splits(&a.splits)?,
        seed: a.seed,
    };
    if a.design {
        return design(a, &req);
    }
    let format = match a.format {
        Format::Hf => return hf(a, &req),
        Format::Factdesk => ExportFormat::Factdesk,
        Format::Fever => ExportFormat::Fever,
    };
    if a.license != "other" {
        anyhow::bail!("--license is for --format hf (nothing was written)");
    }
    let project = super::open(&a.project)?;
    let report = project.export_gold(
        &a.by.lead(&project, "export gold data")?,
        &req,
        &a.out,
        format,
        a.force,
    )?;
    if a.json {
        return super::print_json(&report);
    }
    let p = &report.preview;
    println!("wrote {} claims to {}", p.lines, report.out);
    for (split, n) in &p.per_split {
        println!("  {split}: {n}");
    }
    for (label, n) in &p.per_label {
        println!("  {label}: {n}");
    }
    println!(
        "dropped {} claims (reasons in {})",
        p.dropped.len(),
        report.card
    );
    if !p.excluded_annotators.is_empty() {
        println!("left out (flagged): {}", p.excluded_annotators.join(", "));
    }
    if p.rejected_answers > 0 {
        println!(
            "{} answers rejected: they picked the trick sentence",
            p.rejected_answers
        );
    }
    under_annotated(p);
    for w in &p.split_warnings {
        println!("warning: {w}");
    }
    Ok(())
}

fn hf(a: Args, req: &GoldRequest) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let by = a.by.lead(&project, "export gold data")?;
    let report = project.export_hf(&by, req, &a.out, &a.license, a.force)?;
    if a.json {
        return super::print_json(&report);
    }
    let p = &report.preview;
    println!(
        "wrote a Hugging Face dataset of {} claims to {} (license {})",
        p.lines, report.dir, report.license
    );
    for (split, n) in &report.splits {
        println!("  {split}: {n}");
    }
    println!("dropped {} claims (reasons in README.md)", p.dropped.len());
    under_annotated(p);
    for w in &p.split_warnings {
        println!("warning: {w}");
    }
    Ok(())
}

/// Says how many claims were short of answers, and what became of them.
fn under_annotated(p: &factdesk_api::gold::ExportPreview) {
    let n = p.under_annotated.len();
    if n == 0 {
        return;
    }
    if p.include_under_annotated {
        println!("{n} claims with fewer counted answers than the overlap exported, marked \"under_annotated\"");
    } else {
        println!("{n} claims held back: fewer counted answers than the overlap (listed in the card; --include-under-annotated exports them marked)");
    }
}

fn design(a: Args, req: &GoldRequest) -> anyhow::Result<()> {
    if !matches!(a.format, Format::Factdesk) || a.license != "other" {
        anyhow::bail!("--design writes Factdesk's design lines: drop --format and --license (nothing was written)");
    }
    let project = super::open(&a.project)?;
    let by = a.by.lead(&project, "export gold data")?;
    let report = project.export_design_gold(&by, req, &a.out, a.force)?;
    if a.json {
        return super::print_json(&report);
    }
    println!("wrote {} items to {}", report.lines, report.out);
    for (split, n) in &report.per_split {
        println!("  {split}: {n}");
    }
    if !report.held_back.is_empty() {
        println!(
            "held back {} items (reasons in {})",
            report.held_back.len(),
            report.card
        );
    }
    Ok(())
}
