//! `factdesk predictions`: model predictions in (labels, counter-claims to verify), kept
//! apart from the annotators' answers, and compared with the gold data.

use factdesk_api::gold::{parse_splits, GoldMethod, GoldRequest};
use std::path::PathBuf;

/// Import a model's predicted labels or counter-claims, or compare them with the gold
/// data. Predictions never count as answers. See docs/export.md.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project file.
    project: PathBuf,
    #[command(flatten)]
    by: super::Acting,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Read a JSON Lines file: {"claim_id", "model", "prediction" and/or "refuted", "score"}.
    Import {
        file: PathBuf,
        /// The model of lines that name none.
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Accuracy per model and label, confusion matrices, and how many counter-claims
    /// people verified as contradicting.
    Compare {
        /// How answers become one label.
        #[arg(long, value_enum, default_value = "majority")]
        method: GoldMethod,
        /// Count annotators flagged for failing trick sentences (not those the lead
        /// excluded with `annotators P flag NAME --exclude`).
        #[arg(long)]
        include_flagged: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let mut project = super::open(&a.project)?;
    let by = a.by.lead(&project, "work with model predictions")?;
    match a.action {
        Action::Import { file, model, json } => {
            let r = project.import_predictions(&by, &file, model.as_deref())?;
            if json {
                return super::print_json(&r);
            }
            println!(
                "read {} lines from {} (models: {}): {} labels recorded, {} counter-claims added to verify, {} already known",
                r.lines,
                r.file,
                r.models.join(", "),
                r.labels,
                r.counter_claims,
                r.counter_claims_known
            );
        }
        Action::Compare {
            method,
            include_flagged,
            json,
        } => {
            let req = GoldRequest {
                method,
                include_flagged,
                splits: parse_splits("70,15,15")?,
                seed: 1,
                ..GoldRequest::default()
            };
            let c = project.compare_predictions(&by, &req)?;
            if json {
                return super::print_json(&c);
            }
            if c.models.is_empty() {
                println!("no predictions in this project");
            }
            for m in &c.models {
                println!("{}", m.model);
                if let Some(l) = &m.labels {
                    println!(
                        "  labels: {} predicted, {} compared, {} correct, accuracy {}",
                        l.predicted,
                        l.compared,
                        l.correct,
                        percent(l.accuracy)
                    );
                    for r in &l.per_label {
                        println!(
                            "    {}: {} gold, accuracy {}, precision {}",
                            r.label,
                            r.gold,
                            percent(r.accuracy),
                            percent(r.precision)
                        );
                    }
                    print_score(l.score.as_ref());
                }
                if let Some(s) = &m.counter_claims {
                    println!(
                        "  counter-claims: {} written, {} in the gold data ({})",
                        s.written,
                        s.in_gold,
                        percent(s.share_in_gold)
                    );
                    for (why, n) in &s.not_in_gold {
                        println!("    {n}: {why}");
                    }
                    print_score(s.score.as_ref());
                }
            }
        }
    }
    Ok(())
}

fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "undefined".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// The score's analysis in two lines; the whole sweep is in --json.
fn print_score(score: Option<&factdesk_api::predictions::ScoreAnalysis>) {
    let Some(s) = score else {
        return;
    };
    let r = s
        .point_biserial
        .map_or_else(|| "undefined".into(), |r| format!("{r:.3}"));
    println!(
        "    score against \"{}\": {} scored ({} yes, {} without a score), point-biserial r {r}",
        s.outcome, s.scored, s.positives, s.unscored
    );
    if let Some(b) = &s.best_f1 {
        println!(
            "    best F1 {} taking score >= {}: {} taken, precision {}, recall {} ({} thresholds in --json)",
            percent(b.f1),
            b.threshold,
            b.taken,
            percent(Some(b.precision)),
            percent(b.recall),
            s.sweep.len()
        );
    }
}
