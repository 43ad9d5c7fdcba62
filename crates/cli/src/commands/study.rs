use factdesk_api::agreement::AgreementRequest;
use factdesk_api::agreement::StudyAgreement;
use factdesk_api::dashboard::Statistic;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Re-annotation studies: draw a seeded sample of items for a second group of annotators,
/// or list the studies with their figures.
///
/// With --sample, draws a study: N items of --kind that are in no study yet, chosen from
/// --seed (the project's seed by default); each gets room for the --group, whose members
/// are served these items first. Without --sample, lists every study with Cohen's kappa
/// between the two groups' majority votes (bootstrap 95% interval over items) and Fleiss'
/// kappa within each group. Group A is everyone else with a counted answer on the items.
/// The sample holds only items no member of the group has answered, been served, carried
/// in a pack or written; the group names annotators, not leads or disabled people.
/// --delete ID removes a study drawn by mistake: its items get back their overlap, and
/// its members' answers on them count as ordinary answers.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    /// The kind of the items: evidence, verify or label.
    #[arg(long, value_enum)]
    kind: Option<TaskKind>,
    /// How many items to sample (draws a new study).
    #[arg(long, conflicts_with = "delete")]
    sample: Option<u32>,
    /// Delete the study with this id (as listed).
    #[arg(long, value_name = "ID")]
    delete: Option<i64>,
    /// The second group's annotators: ana,ben,caro
    #[arg(long, value_delimiter = ',')]
    group: Vec<String>,
    /// Seed of the sample.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    by: super::Acting,
    /// Bootstrap replicates for the intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let lead = a.by.lead(&project, "run re-annotation studies")?;
    if let Some(id) = a.delete {
        let deleted = project.delete_study(&lead, id)?;
        if a.json {
            return super::print_json(&deleted);
        }
        println!(
            "study {}: deleted; {} items back to their overlap, {} answers of its group now count as ordinary answers",
            deleted.id, deleted.items, deleted.member_answers
        );
        return Ok(());
    }
    let kind = a.kind;
    if let Some(sample) = a.sample {
        let Some(kind) = kind else {
            anyhow::bail!("--sample needs --kind (evidence, verify or label)");
        };
        let study = project.create_study(
            &lead,
            &StudyRequest {
                kind,
                sample,
                members: a.group,
                seed: a.seed,
                strata: None,
            },
        )?;
        if a.json {
            return super::print_json(&study);
        }
        println!(
            "study {}: {} {} items for {} (seed {})",
            study.id,
            study.items.len(),
            study.kind.as_str(),
            study.members.join(", "),
            study.seed
        );
        if study.members.len() < 2 {
            println!("note: a group of one has no agreement within it, so Fleiss' kappa for group B stays undefined; the majority kappa compares this person with group A");
        }
        return Ok(());
    }
    let req = AgreementRequest {
        bootstrap_reps: a.bootstrap,
        ..AgreementRequest::default()
    };
    let studies = project.study_agreements(&lead, kind, &req)?;
    if a.json {
        return super::print_json(&studies);
    }
    if studies.is_empty() {
        println!("no studies yet; draw one with --kind K --sample N --group a,b,c");
    }
    for s in &studies {
        show(s);
    }
    Ok(())
}

/// One study as text (also used by `factdesk agreement`).
pub fn show(s: &StudyAgreement) {
    let study = &s.study;
    println!(
        "  study {} ({}, {} items, seed {}): {} answered by both groups",
        study.id,
        study.kind.as_str(),
        study.sample_size,
        study.seed,
        s.items_answered
    );
    let group_a = if s.group_a.is_empty() {
        "nobody yet".to_string()
    } else {
        s.group_a.join(", ")
    };
    println!(
        "    group A: {group_a}; group B: {}",
        study.members.join(", ")
    );
    for (title, st) in [
        (
            format!("Cohen's kappa, majorities ({} units)", s.majority_units),
            &s.majority_kappa,
        ),
        ("Fleiss' kappa, group A".to_string(), &s.fleiss_a),
        ("Fleiss' kappa, group B".to_string(), &s.fleiss_b),
    ] {
        println!("    {title:<44}{}", value(st));
    }
}

fn value(st: &Statistic) -> String {
    let v = match (st.value, &st.reason) {
        (Some(v), _) => format!("{v:.4}"),
        (None, Some(reason)) => format!("undefined ({reason})"),
        (None, None) => "undefined".to_string(),
    };
    let ci = st
        .ci95
        .map(|(lo, hi)| format!("  [{lo:.3}, {hi:.3}]"))
        .unwrap_or_default();
    format!("{v}{ci}")
}
