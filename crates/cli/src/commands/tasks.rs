use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Create tasks of one kind for every eligible claim.
///
/// evidence: claims with candidates; refute: original claims of at most 15 tokens;
/// verify: imported refutations and accepted written ones; label: claims with documents.
/// Evidence and label tasks leave out refutations, whose evidence is their parent's,
/// unless --include-children. Claims that get no task are listed with the reason.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// The kind of task to create.
    #[arg(long, value_enum)]
    kind: TaskKind,
    /// Annotators per item (default: the project's, 3).
    #[arg(long)]
    overlap: Option<u32>,
    /// Evidence and label: make tasks for refutations too (imported or written with a
    /// parent), whose evidence otherwise comes from the parent.
    #[arg(long)]
    include_children: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let kind = a.kind;
    let mut project = super::open(&a.project)?;
    let by = a.by.lead(&project, "create tasks")?;
    let report = project.create_tasks_with(
        &by,
        kind,
        a.overlap,
        a.include_children,
        &mut crate::progress::Bar::new(),
    )?;
    if a.json {
        return super::print_json(&report);
    }
    println!(
        "created {} {} tasks (overlap {}); {} claims already had one",
        report.created,
        kind.as_str(),
        report.overlap,
        report.existing
    );
    for group in &report.skipped {
        let shown: Vec<&str> = group.claims.iter().take(5).map(String::as_str).collect();
        let more = if group.claims.len() > shown.len() {
            format!(", and {} more", group.claims.len() - shown.len())
        } else {
            String::new()
        };
        let hint = if group.reason == factdesk_api::tasks::SkipReason::EvidenceFromParent {
            "; --include-children gives them one"
        } else {
            ""
        };
        println!(
            "{} claims got no task: {} ({}{more}){hint}",
            group.count,
            group.message,
            shown.join(", ")
        );
    }
    if report.without_trick > 0 {
        println!(
            "{} evidence tasks show no trick: no sentence sharing no word with their claim was found in other claims' documents",
            report.without_trick
        );
    }
    if report.tricks_unlike_options > 0 {
        println!(
            "{} evidence tasks show a trick that other items show more or less often than their real options, which a script comparing many items can tell: import documents no claim names (--docs) to give tricks sentences of their own (docs/annotation.md)",
            report.tricks_unlike_options
        );
    }
    Ok(())
}
