use std::path::PathBuf;

/// Review written refutations: a new writer's first ones wait for the lead.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Accept the written refutation with this answer id.
    #[arg(long, value_name = "ID", conflicts_with = "reject")]
    accept: Option<i64>,
    /// Reject the written refutation with this answer id.
    #[arg(long, value_name = "ID")]
    reject: Option<i64>,
    /// Why (kept with the decision).
    #[arg(long)]
    note: Option<String>,
    /// Print the waiting refutations as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let lead = a.by.lead(&project, "review refutations")?;
    let decision = a
        .accept
        .map(|id| (id, true))
        .or(a.reject.map(|id| (id, false)));
    if let Some((id, accepted)) = decision {
        project.review(&lead, id, accepted, a.note.as_deref())?;
        println!(
            "{} refutation {id}",
            if accepted { "accepted" } else { "rejected" }
        );
        return Ok(());
    }
    let pending = project.pending_reviews(&lead)?;
    if a.json {
        return super::print_json(&pending);
    }
    if pending.is_empty() {
        println!("no refutations waiting for review");
    }
    for p in pending {
        println!(
            "{:>6}  {}\n        original #{}: {}\n        written  #{}: {}",
            p.annotation_id,
            p.annotator,
            p.original_number,
            p.original,
            p.written_number,
            p.written
        );
    }
    Ok(())
}
