//! Work across laptops: `factdesk pack` hands an annotator a pack of items, `factdesk
//! merge` takes the answered packs back, `factdesk packs` lists what is out.

use factdesk_api::packs::{PackRequest, Unanswered};
use factdesk_api::tasks::TaskKind;
use factdesk_api::ErrorCode;
use std::path::PathBuf;

/// Write a pack of open items for one annotator to take away (a .fdpack file).
///
/// The pack opens in Factdesk in annotator mode; answers are saved in it as they are
/// made. It holds each item as the annotator's screen shows it and nothing else: no other
/// annotator, no gold, no seed, nothing that marks the trick sentence. Its items are
/// reserved for the annotator until it is merged back or expires.
#[derive(Debug, clap::Args)]
pub struct PackArgs {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// The annotator the pack is for.
    #[arg(long = "for", value_name = "NAME")]
    annotator: String,
    /// Items to put in the pack at most.
    #[arg(long, default_value_t = 50)]
    count: u64,
    /// Only this kind: evidence, verify or label (refutation writing stays in the project).
    #[arg(long, value_enum)]
    kind: Option<TaskKind>,
    /// Days until the pack expires and its items go back to the pool.
    #[arg(
        long = "days",
        visible_alias = "expires",
        value_name = "DAYS",
        default_value_t = 14
    )]
    expires: u32,
    /// Where to write the pack.
    #[arg(long, value_name = "FILE.fdpack")]
    out: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Merge answered packs back into the project.
///
/// Each pack is checked first: it must have been issued by this project (its id and a
/// signature only this project can make), be unaltered, and not have expired. A pack that
/// fails is refused and changes nothing. Each answer then goes through the same checks as
/// `submit`; one that fails is refused with its reason and not stored. The pack is only
/// read, never written. Merging a pack again adds nothing; items left unanswered go back
/// to the pool.
///
/// A pack still out that holds no answer at all is refused, changing nothing: it is most
/// likely the file as issued while its annotator works on their own copy. To take the work
/// back anyway (the pack is marked returned, its items go back to the pool), pass
/// --allow-empty.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// The returned pack files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON line per pack.
    #[arg(long)]
    json: bool,
    /// Merge a pack with no answers too, taking its items back from the annotator.
    #[arg(long)]
    allow_empty: bool,
}

/// List the packs handed out: out, returned or expired, and the answers merged from each.
#[derive(Debug, clap::Args)]
pub struct PacksArgs {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Print one JSON array.
    #[arg(long)]
    json: bool,
}

pub fn pack(a: PackArgs) -> anyhow::Result<()> {
    let mut p = super::open(&a.project)?;
    let req = PackRequest {
        annotator: a.annotator,
        count: a.count,
        kind: a.kind,
        expires_days: a.expires,
    };
    let by = a.by.lead(&p, "issue packs")?;
    let issued = p.issue_pack(&by, &req, &a.out)?;
    if a.json {
        return super::print_json(&issued);
    }
    println!(
        "{}: {} items for {}, pack {}, expires {} UTC",
        issued.path,
        issued.items,
        issued.annotator,
        issued.pack_id,
        factdesk_core::time::utc_minute(issued.expires_at)
    );
    Ok(())
}

pub fn merge(a: MergeArgs) -> anyhow::Result<()> {
    let mut p = super::open(&a.project)?;
    let by = a.by.lead(&p, "merge packs")?;
    let mut refused = 0;
    let mut refused_answers = 0;
    for file in &a.files {
        let unanswered = if a.allow_empty {
            Unanswered::GiveBack
        } else {
            Unanswered::Refuse
        };
        let merged = p.merge_pack_with(&by, file, unanswered);
        if let Ok(r) = &merged {
            refused_answers += r.refused.len();
        }
        match merged {
            Ok(r) if a.json => super::print_json(&r)?,
            Ok(r) => {
                println!(
                    "{}: {} new answers from {} ({} merged before), {} items back in the pool{}{}",
                    r.file,
                    r.added,
                    r.annotator,
                    r.already,
                    r.released,
                    if r.late > 0 {
                        format!(
                            ", {} late answers left out (others finished those items)",
                            r.late
                        )
                    } else {
                        String::new()
                    },
                    if r.clamped > 0 {
                        format!(
                            ", {} with a time or duration out of range brought into range",
                            r.clamped
                        )
                    } else {
                        String::new()
                    }
                );
                if r.problems > 0 {
                    println!(
                        "{}: {} reported problems added to the lead's list (the app shows them on the lead's home)",
                        r.file, r.problems
                    );
                }
                for a in &r.refused {
                    println!("{}: answer {} refused: {}", r.file, a.uuid, a.reason);
                }
            }
            Err(e) if e.code == ErrorCode::Unanswered => {
                eprintln!("error: {e}; to do that, merge it again with --allow-empty");
                refused += 1;
            }
            Err(e) => {
                eprintln!("error: {e}");
                refused += 1;
            }
        }
    }
    if refused > 0 {
        anyhow::bail!("{refused} of {} packs refused", a.files.len());
    }
    // The rest of each pack merged; the exit status still says something was left out,
    // as `submit` does for a refused line.
    if refused_answers > 0 {
        anyhow::bail!("{refused_answers} answers were refused; see the lines above");
    }
    Ok(())
}

pub fn packs(a: PacksArgs) -> anyhow::Result<()> {
    let project = super::open(&a.project)?;
    let list = project.packs(&a.by.lead(&project, "list packs")?)?;
    if a.json {
        return super::print_json(&list);
    }
    if list.is_empty() {
        println!("no packs issued");
    }
    for p in list {
        println!(
            "{}  {:<12} {:<9} {:>4} items  {:>4} answers merged  issued {}  expires {}",
            p.id,
            p.annotator,
            p.state,
            p.items,
            p.merged,
            factdesk_core::time::utc_minute(p.created_at),
            factdesk_core::time::utc_minute(p.expires_at)
        );
    }
    Ok(())
}
