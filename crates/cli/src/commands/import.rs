use crate::progress::Bar;
use anyhow::Context;
use factdesk_api::import::{import, ImportRequest, Preset};
use std::path::PathBuf;

/// Import claims (JSONL, CSV or TSV) and evidence documents into a project.
///
/// The import is all or nothing: a bad row stops it with the file, line and field, and
/// the project is left unchanged. Importing the same rows again adds nothing. Ctrl-C
/// stops it with the project unchanged (a second Ctrl-C ends the process at once, which
/// also changes nothing).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Claims files: a name ending .csv is read as CSV, .tsv or .tab as TSV, any other as
    /// JSON Lines.
    files: Vec<PathBuf>,
    /// The input's format: Factdesk's own fields, a published dataset's, or generic with
    /// --map.
    #[arg(long, value_enum, default_value = "native")]
    preset: Preset,
    /// Evidence documents: a JSONL file (id, url, title, text) or a folder of .txt files.
    #[arg(long = "docs", value_name = "FILE|DIR")]
    docs: Vec<PathBuf>,
    /// Rename fields for the generic preset: claim=statement,id=row_id,...
    #[arg(long, value_delimiter = ',', value_name = "FIELD=COLUMN")]
    map: Vec<String>,
    /// Import the good rows and write the rejected ones, with reasons, to
    /// <input>.rejects.jsonl.
    #[arg(long)]
    skip_invalid: bool,
    /// Paragraph evidence: merge the --docs documents' sentences into paragraphs of more
    /// than CHARS characters (1000 if none given), each led by its document's title;
    /// they are ranked and chosen as candidates as sentences are otherwise.
    #[arg(long, value_name = "CHARS", num_args = 0..=1, default_missing_value = "1000")]
    paragraphs: Option<usize>,
    /// Print the import report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let map = a
        .map
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(f, c)| (f.trim().to_string(), c.trim().to_string()))
                .with_context(|| format!("--map {pair:?}: expected FIELD=COLUMN"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let req = ImportRequest {
        claims: a.files,
        documents: a.docs,
        preset: a.preset,
        map,
        skip_invalid: a.skip_invalid,
        paragraphs: a.paragraphs,
    };
    let mut project = super::open(&a.project)?;
    let by = a.by.lead(&project, "import data")?;
    let mut bar = Bar::cancellable();
    let result = import(&mut project, &by, &req, &mut bar);
    let late = bar.interrupted();
    drop(bar);
    let report = result?;
    if late {
        // Past its last check the import commits whatever comes: say that it did.
        eprintln!(
            "Ctrl-C came after the import was written, too late to cancel it: the import is kept"
        );
    }
    if req.skip_invalid {
        // An earlier run's rejects stay (they may hold notes); say they are not this run's.
        for input in req.claims.iter().chain(&req.documents) {
            let old = factdesk_api::import::rejects_path(input);
            let shown = old.display().to_string();
            if old.is_file() && !report.rejects_files.contains(&shown) {
                eprintln!(
                    "note: {shown} is from an earlier run; this run set no row of {} aside",
                    input.display()
                );
            }
        }
    }
    if a.json {
        return super::print_json(&report);
    }
    let units = if a.paragraphs.is_some() {
        "paragraphs"
    } else {
        "sentences"
    };
    println!(
        "imported {} claims, {} documents ({} {units}); {} rows already present",
        report.claims_added, report.documents_added, report.sentences_added, report.unchanged
    );
    if !report.rejects_files.is_empty() {
        println!(
            "set aside {} invalid rows: see {}",
            report.rejected,
            report.rejects_files.join(" and "),
        );
    }
    if let Some(stance) = report.evidence_stance {
        println!(
            "evidence stance set to {} (the {} preset's dataset); change it with `settings --set evidence_stance=...` before making evidence tasks",
            stance.as_str(),
            a.preset.name()
        );
    }
    if report.gold_only_candidates > 0 {
        println!(
            "warning: the documents of {} claims hold only their published evidence sentences, so every candidate is gold and an evidence item has nothing wrong to pass over but the trick; to annotate evidence, add distractors (`factdesk make-eval-set`, or documents with --docs and doc_ids): see docs/formats.md",
            report.gold_only_candidates
        );
    }
    Ok(())
}
