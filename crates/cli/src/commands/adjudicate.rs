//! `factdesk adjudicate`: the lead's queue of disagreements, and decisions for scripts.

use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::{GoldMethod, GoldRequest, HandAnswer, Ruling};
use std::path::PathBuf;

/// List the tasks annotators disagree on, most disagreement first, or decide one.
///
/// A decision takes one annotator's answer (--take NAME) or gives one (--answer JSON, as
/// stored: {"selected": [sentence ids]} or {"no_evidence": true} for evidence,
/// {"label": ...} for verify and label); --undo removes the current decision. Each records
/// the lead (--as), the time and --reason; a decision also records --category, one of the
/// project's disagreement categories (`factdesk settings`), which the report counts.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// List the queue.
    #[arg(long, conflicts_with_all = ["decide", "undo"])]
    list: bool,
    /// Print the queue as JSON.
    #[arg(long, requires = "list")]
    json: bool,
    /// Decide this task.
    #[arg(long, value_name = "TASK", conflicts_with = "undo")]
    decide: Option<i64>,
    /// Take this annotator's current answer.
    #[arg(
        long,
        value_name = "NAME",
        requires = "decide",
        conflicts_with = "answer"
    )]
    take: Option<String>,
    /// Give this answer (JSON).
    #[arg(long, value_name = "JSON", requires = "decide")]
    answer: Option<String>,
    /// Undo the decision on this task.
    #[arg(long, value_name = "TASK")]
    undo: Option<i64>,
    /// Why (kept with the decision).
    #[arg(long)]
    reason: Option<String>,
    /// The disagreement's category, one of the project's (kept with the decision).
    #[arg(long, value_name = "NAME", requires = "decide")]
    category: Option<String>,
    /// How the queue's outcomes are computed.
    #[arg(long, value_enum, default_value = "majority")]
    method: GoldMethod,
    /// Count annotators flagged for failing trick sentences (not those the lead
    /// excluded with `annotators P flag NAME --exclude`).
    #[arg(long)]
    include_flagged: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let lead = a.by.lead(&project, "adjudicate")?;
    if let Some(task) = a.decide {
        let ruling = match (a.take, a.answer.as_deref()) {
            (Some(name), None) => Ruling::Take(name),
            (None, Some(json)) => {
                let written: HandAnswer = serde_json::from_str(json).map_err(|e| {
                    if e.is_syntax() || e.is_eof() {
                        anyhow::anyhow!("--answer: not JSON: {e}")
                    } else {
                        anyhow::anyhow!("--answer: {e}")
                    }
                })?;
                Ruling::Answer(project.hand_answer(&lead, task, &written)?)
            }
            // clap refuses both already; said again so the match needs no default.
            (Some(_), Some(_)) => anyhow::bail!("give --take NAME or --answer JSON, not both"),
            (None, None) => anyhow::bail!("--decide needs --take NAME or --answer JSON"),
        };
        let note = DecisionNote {
            category: a.category,
            reason: a.reason,
        };
        let outcome = project.decide(&lead, task, ruling, &note)?;
        println!("task {task} decided: {}", serde_json::to_string(&outcome)?);
        return Ok(());
    }
    if let Some(task) = a.undo {
        project.undo_decision(&lead, task, a.reason.as_deref())?;
        println!("task {task}: decision undone");
        return Ok(());
    }
    if !a.list {
        anyhow::bail!("say --list, --decide TASK or --undo TASK");
    }
    let req = GoldRequest {
        method: a.method,
        include_flagged: a.include_flagged,
        ..GoldRequest::default()
    };
    let queue = project.adjudication_queue(&lead, &req)?;
    if a.json {
        return super::print_json(&queue);
    }
    if queue.is_empty() {
        println!("nothing to adjudicate");
    }
    for item in queue {
        let share = item
            .share_agreeing
            .map_or_else(|| "-".to_string(), |s| format!("{s:.2}"));
        println!(
            "task {} ({}, agreeing {share}): claim {} {}",
            item.task_id,
            item.kind.as_str(),
            factdesk_core::claim::number_text(item.claim_number),
            item.claim
        );
        for ans in &item.answers {
            println!(
                "  {}{}: {}{}",
                ans.annotator,
                if ans.rejected {
                    " (rejected: picked the trick)"
                } else if ans.counted {
                    ""
                } else {
                    " (not counted)"
                },
                serde_json::to_string(&ans.answer)?,
                ans.comment
                    .as_deref()
                    .map(|c| format!("  // {c}"))
                    .unwrap_or_default()
            );
        }
        if let Some(d) = &item.decision {
            println!(
                "  decided by {}: {}{}{}",
                d.lead,
                serde_json::to_string(&d.answer)?,
                d.category
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default(),
                d.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(())
}
