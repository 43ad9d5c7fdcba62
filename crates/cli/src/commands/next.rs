use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Show the next item an annotator would get, and reserve it for them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file, or a pack.
    project: PathBuf,
    /// The annotator's name.
    #[arg(long = "as", value_name = "NAME")]
    annotator: String,
    /// evidence, refute, verify or label.
    #[arg(long, default_value = "evidence")]
    kind: String,
    /// Print the item as JSON, as the annotator's side receives it.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let kind: TaskKind = a.kind.parse()?;
    let mut work = super::open_work(&a.project)?;
    let actor = work.actor(&a.annotator)?;
    let next = work.next_item(&actor, kind)?;
    if a.json {
        return super::print_json(&next);
    }
    match next.item {
        None => println!("{}", next.reason.unwrap_or_default()),
        Some(item) => {
            println!("task {}: {}", item.task_id, item.claim);
            if let Some(c) = &item.counter_claim {
                println!("counter-claim: {c}");
            }
            for (i, o) in item.options.iter().enumerate() {
                println!("  {}. [{}] {}", i + 1, o.id, o.text);
            }
            for e in &item.evidence {
                println!("  evidence: {e}");
            }
        }
    }
    Ok(())
}
