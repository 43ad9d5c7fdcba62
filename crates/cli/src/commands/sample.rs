use factdesk_api::study::{Strata, StratifiedSample, StudyRequest};
use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Stratified samples: the same number of items from each group, seeded, as CrowdChecked
/// drew 15 claim–tweet pairs from each of 10 bins of word overlap.
///
/// Groups the items of --kind that are in no study yet by --by: `jaccard-bins`, the word
/// overlap (Jaccard of Porter-2-stemmed word sets without stop words, web addresses and
/// numbers each one word) between a pair's two texts, or the claim and its best-ranked
/// candidate sentence, in
/// --bins equal-width bins; `label`, the claim's imported label; or any other name, that
/// field of the claim's imported metadata. Draws --per items from each group. Without
/// --group it only shows the draw; with --group it makes it a re-annotation study for
/// those annotators (see `factdesk study`), each item keeping the group it was drawn from.
/// A group holding fewer than --per items is named and nothing is drawn.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    /// The kind of the items: evidence, verify, label or design.
    #[arg(long, value_enum, default_value = "evidence")]
    kind: TaskKind,
    /// How to group the items: jaccard-bins, label, or a metadata field's name.
    #[arg(long, value_name = "GROUPING")]
    by: String,
    /// Bins of word overlap, with --by jaccard-bins.
    #[arg(long, default_value_t = 10)]
    bins: u32,
    /// Items to draw from each group.
    #[arg(long, alias = "per-bin", alias = "per-label", alias = "per-stratum")]
    per: u32,
    /// Seed of the draw [default: the project's seed].
    #[arg(long)]
    seed: Option<u64>,
    /// Make the draw a study for these annotators: ana,ben,caro
    #[arg(long, value_delimiter = ',')]
    group: Vec<String>,
    /// Make the draw the kind's task set: its other tasks are closed (only before any is
    /// given to an annotator). The strata are printed in the dataset card.
    #[arg(long, conflicts_with = "group")]
    keep_only: bool,
    #[command(flatten)]
    by_person: super::Acting,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let strata = match a.by.trim() {
        "jaccard-bins" => Strata::JaccardBins { bins: a.bins },
        "label" => Strata::Label,
        field => Strata::Field {
            name: field.to_string(),
        },
    };
    let mut project = super::open(&a.project)?;
    let lead = a.by_person.lead(&project, "draw samples")?;
    if a.keep_only {
        let (sample, closed) = project.keep_sample(&lead, a.kind, &strata, a.per, a.seed)?;
        if a.json {
            return super::print_json(&sample);
        }
        show(&sample);
        println!(
            "kept: the {} drawn items are the {} task set; {closed} others closed",
            sample.items.len(),
            a.kind.as_str()
        );
        return Ok(());
    }
    if a.group.is_empty() {
        let sample = project.sample_strata(&lead, a.kind, &strata, a.per, a.seed)?;
        if a.json {
            return super::print_json(&sample);
        }
        show(&sample);
        return Ok(());
    }
    let study = project.create_study(
        &lead,
        &StudyRequest {
            kind: a.kind,
            sample: a.per,
            members: a.group,
            seed: a.seed,
            strata: Some(strata),
        },
    )?;
    if a.json {
        return super::print_json(&study);
    }
    println!(
        "study {}: {} {} items for {} (seed {}), {} from each of {} groups by {}",
        study.id,
        study.items.len(),
        study.kind.as_str(),
        study.members.join(", "),
        study.seed,
        a.per,
        study.by_stratum.len(),
        study.strata.unwrap_or_default(),
    );
    Ok(())
}

fn show(s: &StratifiedSample) {
    let drawn: usize = s.drawn.iter().map(|d| d.items.len()).sum();
    println!(
        "{drawn} {} items by {} (seed {}), {} from each group; nothing drawn yet: add --group to make it a study",
        s.kind.as_str(),
        s.strata,
        s.seed,
        s.per_stratum
    );
    let width = s
        .drawn
        .iter()
        .map(|d| d.name.chars().count())
        .max()
        .unwrap_or(0);
    for d in &s.drawn {
        println!(
            "  {:width$}  {:>6} items, drew {}",
            d.name,
            d.available,
            d.items.len()
        );
    }
    if s.left_out > 0 {
        println!(
            "  {} items have no candidate sentence to measure word overlap with and were left out (rank them: `factdesk rank P`)",
            s.left_out
        );
    }
}
