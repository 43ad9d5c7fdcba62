use factdesk_api::agreement::{agreement_of_records, AgreementReport, AgreementRequest};
use factdesk_api::tasks::TaskKind;
use std::path::PathBuf;

/// Agreement between annotators, from a project or from ratings made anywhere.
///
/// SOURCE is a project file (agreement per task kind; trick sentences never count;
/// flagged annotators are left out unless --include-flagged) or a records file: JSON Lines
/// of {"item", "annotator", "label"} or CSV with those columns. A label is a string, a
/// list of strings (selected candidates; [] = no evidence), or null for a missing rating.
/// For a project without --kind, --json prints an object keyed by task kind; each kind's
/// report lists its re-annotation studies (`factdesk study`) under "studies".
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A project file (.fdesk), a project database (postgres://…) or a records file
    /// (.jsonl, .csv).
    source: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    /// Projects: only this kind (evidence, verify or label; refutation writing has no
    /// agreement; design: each question of the project's design).
    #[arg(long, value_enum)]
    kind: Option<TaskKind>,
    /// Category order for weighted kappa and ordinal alpha: a,b,c
    #[arg(long, value_delimiter = ',')]
    categories: Option<Vec<String>>,
    /// Candidate list for set labels in a records file: s1,s2,...
    #[arg(long, value_delimiter = ',')]
    candidates: Option<Vec<String>>,
    /// Count annotators flagged for failing trick sentences (not those the lead
    /// excluded with `annotators P flag NAME --exclude`).
    #[arg(long)]
    include_flagged: bool,
    /// Bootstrap replicates for the 95% intervals (0: none).
    #[arg(long, default_value_t = 1000)]
    bootstrap: usize,
    /// Seed for the bootstrap.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let req = AgreementRequest {
        categories: a.categories,
        candidates: a.candidates,
        include_flagged: a.include_flagged,
        bootstrap_reps: a.bootstrap,
        seed: a.seed,
    };
    let is_project = a.source.extension().is_some_and(|e| e == "fdesk")
        || factdesk_api::ProjectLocation::parse(&a.source).is_database();
    if !is_project {
        let report = agreement_of_records(&a.source, &req)?;
        return show(None, &report, a.json);
    }
    let project = super::open(&a.source)?;
    let by = a.by.lead(&project, "see agreement")?;
    if a.kind == Some(TaskKind::Design) {
        let Some(design) = project.design_agreement(&by, &req)? else {
            anyhow::bail!("the project declares no design (docs/designs.md)");
        };
        if a.json {
            return super::print_json(&design);
        }
        return show_design(&design);
    }
    if let Some(kind) = a.kind {
        return show(None, &project.agreement(&by, kind, &req)?, a.json);
    }
    let mut all = serde_json::Map::new();
    // Every kind from one read of the answers.
    for (kind, report) in project.agreements(&by, &req)? {
        if a.json {
            all.insert(kind.as_str().to_string(), serde_json::to_value(&report)?);
        } else {
            show(Some(kind.as_str()), &report, false)?;
        }
    }
    let design = project.design_agreement(&by, &req)?;
    let any_design = design.as_ref().is_some_and(|d| d.answered());
    if let Some(design) = design.filter(|_| any_design) {
        if a.json {
            all.insert("design".into(), serde_json::to_value(&design)?);
        } else {
            show_design(&design)?;
        }
    }
    if a.json {
        super::print_json(&all)?;
    } else if !any_design && project.kinds_with_answers(&by)?.is_empty() {
        println!("no answers yet");
    }
    Ok(())
}

/// Each question of the project's design, on its own unit.
fn show_design(design: &factdesk_api::declared::agreement::DesignAgreement) -> anyhow::Result<()> {
    for q in &design.questions {
        match &q.report {
            Some(r) => {
                let title = format!("{} ({}, per {})", q.question, design.design, q.unit);
                show(Some(&title), r, false)?;
            }
            None => println!(
                "== {}: {}",
                q.question,
                q.reason.as_deref().unwrap_or_default()
            ),
        }
    }
    Ok(())
}

fn show(kind: Option<&str>, r: &AgreementReport, json: bool) -> anyhow::Result<()> {
    if json {
        return super::print_json(r);
    }
    if let Some(kind) = kind {
        println!("== {kind}");
    }
    println!(
        "{} units, {} annotators, {} ratings",
        r.units, r.annotators, r.ratings
    );
    for (name, m) in &r.metrics {
        let value = match (m.value, &m.reason) {
            (Some(v), _) => format!("{v:.4}"),
            (None, Some(reason)) => format!("undefined ({reason})"),
            (None, None) => "undefined".to_string(),
        };
        let ci = m
            .ci95
            .map(|(lo, hi)| format!("  [{lo:.3}, {hi:.3}]"))
            .unwrap_or_default();
        let reading = m.reading.map(|r| format!("  {r}")).unwrap_or_default();
        println!("  {name:<44}{value}{ci}{reading}");
    }
    // Evidence has two pairwise kappas; each heading names its metric and unit.
    let (exact, pooled) = if r.setsel_pooled_cohen_kappa_pairs.is_empty() {
        ("pairwise Cohen's kappa (cohen_kappa_pairs), per item:", "")
    } else {
        (
            "pairwise Cohen's kappa per exact evidence set (cohen_kappa_pairs), per item:",
            "pairwise Cohen's kappa per candidate sentence (setsel_pooled_cohen_kappa_pairs), per (item, candidate) unit:",
        )
    };
    for (heading, pairs) in [
        (exact, &r.cohen_kappa_pairs),
        (pooled, &r.setsel_pooled_cohen_kappa_pairs),
    ] {
        if pairs.is_empty() {
            continue;
        }
        println!("  {heading}");
        for p in pairs {
            let v = p
                .value
                .map(|v| format!("{v:.4}"))
                .unwrap_or_else(|| "undefined".into());
            println!("    {} – {}: {v} ({} units)", p.a, p.b, p.units);
        }
    }
    if !r.studies.is_empty() {
        println!("  re-annotation studies:");
        for s in &r.studies {
            super::study::show(s);
        }
    }
    Ok(())
}
