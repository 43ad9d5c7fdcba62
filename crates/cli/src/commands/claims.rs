use factdesk_api::claim_view::ClaimStanding;
use std::path::PathBuf;

/// List the project's claims by number (#12), with their imported ids and how their
/// tasks stand, as the lead's Claims screen does.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Only claims whose imported id or text holds these words, or the claim "#12".
    #[arg(long)]
    filter: Option<String>,
    /// Only claims whose tasks stand so.
    #[arg(long, value_enum, default_value_t = Standing::Any)]
    standing: Standing,
    /// How many claims to show (at most 500).
    #[arg(long, default_value_t = 50)]
    limit: u64,
    /// Skip this many first.
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Print one JSON object (total, offset, lines).
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Standing {
    Any,
    /// No open task.
    NoTasks,
    /// Some task still wants answers.
    Open,
    /// Every task has its answers.
    Complete,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let standing = match a.standing {
        Standing::Any => ClaimStanding::Any,
        Standing::NoTasks => ClaimStanding::NoTasks,
        Standing::Open => ClaimStanding::Open,
        Standing::Complete => ClaimStanding::Complete,
    };
    let page = project.claims_list(
        &a.by.resolve(&project)?,
        a.filter.as_deref(),
        standing,
        a.offset,
        a.limit,
    )?;
    if a.json {
        return super::print_json(&page);
    }
    for l in &page.lines {
        let tasks = if l.tasks == 0 {
            "no tasks".to_string()
        } else {
            format!("{}/{} answers", l.answered, l.wanted)
        };
        println!(
            "{:<8}{:<28}{tasks:<14}{}",
            factdesk_core::claim::number_text(l.id),
            l.ext_id,
            l.text
        );
    }
    let shown = page.lines.len() as u64;
    println!(
        "{} claim{} match{}",
        page.total,
        if page.total == 1 { "" } else { "s" },
        if shown < page.total {
            format!(", {}–{} shown", page.offset + 1, page.offset + shown)
        } else {
            String::new()
        }
    );
    Ok(())
}
