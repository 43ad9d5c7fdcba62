use std::path::PathBuf;

/// Search claims and evidence sentences by words or a "quoted phrase"; "#12" finds claim
/// number 12 (an annotator's search shows and finds claims by their own reference).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Words to find (all must match) and "quoted phrases"; kind:claim or kind:sentence
    /// keeps one kind of hit. Nothing else is syntax: other punctuation separates words,
    /// but a hyphen or apostrophe within a word keeps it whole ("SARS-CoV-2" and "don't"
    /// are one word each: "caspase" does not find "caspase-8").
    query: String,
    /// How many hits to show (at least 1).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    limit: u32,
    /// Print a JSON array of hits.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let hits = project.search(&a.by.resolve(&project)?, &a.query, a.limit as usize)?;
    if a.json {
        return super::print_json(&hits);
    }
    if hits.is_empty() {
        println!("no matches for {:?}", a.query);
    }
    for h in hits {
        // A claim by its reference (a lead's "#12", an annotator's own), its imported id
        // after it as provenance; a sentence by its document.
        let kind = match h.kind {
            factdesk_api::dto::SearchHitKind::Claim => "claim",
            factdesk_api::dto::SearchHitKind::Sentence => "sentence",
        };
        // An annotator's hits carry no score.
        let score = h.score.map_or_else(String::new, |s| format!("{s:.2}"));
        println!(
            "{kind:<9}{:<8}{:<28}{score:>7}  {}",
            h.reference, h.ext_id, h.text
        );
    }
    Ok(())
}
