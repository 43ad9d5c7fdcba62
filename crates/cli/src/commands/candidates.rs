use std::path::PathBuf;

/// Show a claim's candidate evidence sentences, best first.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// The claim's number as the app shows it (#1234) or its id as imported (see `factdesk search`).
    #[arg(long)]
    claim: String,
    /// Print a JSON array of {sentence_id, document_id, text, rank, score, placed_by}.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let candidates =
        project.candidates(&a.by.lead(&project, "see a claim's candidates")?, &a.claim)?;
    if a.json {
        return super::print_json(&candidates);
    }
    if candidates.is_empty() {
        println!(
            "claim {} has no candidates (it has no documents, or they have no sentences)",
            a.claim
        );
    }
    for c in candidates {
        // Which rankers' own top k held it: the lead sees why a sentence is shown.
        let placed = if c.placed_by.is_empty() {
            String::new()
        } else {
            format!(" ({})", c.placed_by.join(", "))
        };
        println!(
            "{}. [{} #{}] {:.4}{placed}  {}",
            c.rank, c.document_id, c.sentence_index, c.score, c.text
        );
    }
    Ok(())
}
