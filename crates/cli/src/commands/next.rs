use factdesk_api::annotate::EvidenceState;
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
    /// The kind of task to serve; `design` for the project's own questions.
    #[arg(long, visible_alias = "task", value_enum, default_value = "evidence")]
    kind: TaskKind,
    /// Print the item as JSON, as the annotator's side receives it.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut work = super::open_work(&a.project)?;
    let actor = work.actor(&a.annotator)?;
    let next = work.next_item(&actor, a.kind)?;
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
            if let Some(b) = &item.text_b {
                println!("text_b: {b}");
            }
            if item.kind == TaskKind::Design {
                for q in item.questions.iter().filter(|q| q.id != "comment") {
                    let labels = q.labels.as_deref().unwrap_or_default().join(" | ");
                    println!("  {} ({:?}) {labels}", q.id, q.kind);
                }
            }
            for (i, o) in item.options.iter().enumerate() {
                println!("  {}. [{}] {}", i + 1, o.id, o.text);
            }
            if let Some(state) = item.evidence_state {
                println!("{}", evidence_line(state, item.evidence.len()));
            }
            let shown = match item.evidence_state {
                Some(state) if !state.is_settled() => "candidate",
                _ => "evidence",
            };
            for e in &item.evidence {
                println!("  {shown}: {e}");
            }
        }
    }
    Ok(())
}

/// What a label item's evidence is, in one line: how it was settled, or that the lines
/// below are candidates because nothing is settled yet.
fn evidence_line(state: EvidenceState, sentences: usize) -> String {
    let by = match state {
        EvidenceState::Adjudicated => "decided by the lead".to_string(),
        EvidenceState::Majority => "settled in the evidence step".to_string(),
        EvidenceState::Imported => "given with the claim when it was imported".to_string(),
        EvidenceState::NotSettled => {
            return "evidence not settled yet: the candidates are shown".to_string()
        }
        EvidenceState::NoEvidenceStep => {
            return "no evidence step for this claim: the candidates are shown".to_string()
        }
    };
    match sentences {
        0 => format!("settled evidence: none ({by})"),
        _ => format!("settled evidence ({by}):"),
    }
}
