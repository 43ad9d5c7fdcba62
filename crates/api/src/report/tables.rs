//! The report as CSV files, one per table, for spreadsheets and scripts. Undefined values
//! are empty cells; numbers are written in full precision; text that starts like a
//! formula (an annotator's name, a negation cue) gets a leading apostrophe.

use super::Report;
use crate::{Error, ErrorCode, Result};

/// One CSV file: its name, header and rows.
struct Table {
    name: &'static str,
    header: &'static [&'static str],
    rows: Vec<Vec<String>>,
}

/// Every table as (file name, CSV bytes); [`crate::Project::write_report`] writes them.
pub fn render_all(r: &Report) -> Result<Vec<(String, Vec<u8>)>> {
    [
        labels(r),
        lengths(r),
        length_summary(r),
        negation(r),
        negation_cues(r),
        agreement(r),
        cohen_pairs(r),
        annotators(r),
        kappa_over_time(r),
        studies(r),
        metrics(r),
        disagreements(r),
        design(r),
    ]
    .into_iter()
    .map(render)
    .collect()
}

fn render(t: Table) -> Result<(String, Vec<u8>)> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(t.header).map_err(|e| io(t.name, e))?;
    for row in &t.rows {
        w.write_record(row.iter().map(|c| crate::csv_cell::cell(c).into_owned()))
            .map_err(|e| io(t.name, e))?;
    }
    let bytes = w.into_inner().map_err(|e| io(t.name, e.error()))?;
    Ok((t.name.to_string(), bytes))
}

fn labels(r: &Report) -> Table {
    Table {
        name: "labels.csv",
        header: &["kind", "label", "count"],
        rows: r
            .labels
            .iter()
            .flat_map(|d| {
                d.counts
                    .iter()
                    .map(|c| vec![d.kind.clone(), c.label.clone(), c.count.to_string()])
            })
            .collect(),
    }
}

fn lengths(r: &Report) -> Table {
    Table {
        name: "lengths.csv",
        header: &["of", "tokens", "count"],
        rows: r
            .lengths
            .iter()
            .flat_map(|d| {
                d.histogram
                    .iter()
                    .map(|h| vec![d.of.clone(), h.tokens.to_string(), h.count.to_string()])
            })
            .collect(),
    }
}

fn length_summary(r: &Report) -> Table {
    Table {
        name: "length_summary.csv",
        header: &["of", "count", "min", "max", "mean", "median"],
        rows: r
            .lengths
            .iter()
            .map(|d| {
                vec![
                    d.of.clone(),
                    d.count.to_string(),
                    opt(d.min),
                    opt(d.max),
                    opt(d.mean),
                    opt(d.median),
                ]
            })
            .collect(),
    }
}

fn negation(r: &Report) -> Table {
    Table {
        name: "negation.csv",
        header: &[
            "label",
            "claims",
            "with_cue",
            "share_with_cue",
            "tokens",
            "cue_tokens",
            "cues_per_100_tokens",
        ],
        rows: r
            .negation
            .groups
            .iter()
            .map(|g| {
                vec![
                    g.label.clone(),
                    g.claims.to_string(),
                    g.with_cue.to_string(),
                    opt(g.share_with_cue),
                    g.tokens.to_string(),
                    g.cue_tokens.to_string(),
                    opt(g.cues_per_100_tokens),
                ]
            })
            .collect(),
    }
}

fn negation_cues(r: &Report) -> Table {
    Table {
        name: "negation_cues.csv",
        header: &["cue", "supported", "refuted"],
        rows: r
            .negation
            .cues
            .iter()
            .map(|c| {
                vec![
                    c.cue.clone(),
                    c.supported.to_string(),
                    c.refuted.to_string(),
                ]
            })
            .collect(),
    }
}

fn agreement(r: &Report) -> Table {
    Table {
        name: "agreement.csv",
        header: &[
            "kind",
            "statistic",
            "metric",
            "value",
            "reason",
            "ci95_low",
            "ci95_high",
            "reading",
        ],
        rows: r
            .agreement
            .kinds
            .iter()
            .flat_map(|k| {
                [
                    ("fleiss", Some(&k.fleiss)),
                    ("alpha", Some(&k.alpha)),
                    ("masi_alpha", k.masi.as_ref()),
                ]
                .into_iter()
                .filter_map(|(what, st)| st.map(|st| (what, st)))
                .map(|(what, st)| {
                    vec![
                        k.kind.as_str().to_string(),
                        what.to_string(),
                        st.metric.clone(),
                        opt(st.value),
                        st.reason.clone().unwrap_or_default(),
                        opt(st.ci95.map(|c| c.0)),
                        opt(st.ci95.map(|c| c.1)),
                        st.reading.clone().unwrap_or_default(),
                    ]
                })
            })
            .collect(),
    }
}

fn cohen_pairs(r: &Report) -> Table {
    let mut rows = Vec::new();
    for k in &r.agreement.kinds {
        for table in super::pairs::pair_tables(r, k) {
            for p in &table.pairs {
                rows.push(vec![
                    k.kind.as_str().to_string(),
                    table.metric.to_string(),
                    table.unit.to_string(),
                    p.a.clone(),
                    p.b.clone(),
                    p.units.to_string(),
                    opt(p.value),
                    p.reason.clone().unwrap_or_default(),
                ]);
            }
        }
    }
    Table {
        name: "cohen_pairs.csv",
        header: &[
            "kind", "metric", "unit", "a", "b", "units", "value", "reason",
        ],
        rows,
    }
}

fn annotators(r: &Report) -> Table {
    Table {
        name: "annotators.csv",
        header: &[
            "kind",
            "name",
            "counted",
            "flagged",
            "answers",
            "rejected",
            "active_ms",
            "pace_per_hour",
            "tricks_seen",
            "trick_failure_rate",
            "majority_units",
            "majority_agreement",
        ],
        rows: r
            .agreement
            .kinds
            .iter()
            .flat_map(|k| {
                k.people.iter().map(|p| {
                    vec![
                        k.kind.as_str().to_string(),
                        p.name.clone(),
                        p.counted.to_string(),
                        p.flagged.to_string(),
                        p.answers.to_string(),
                        p.rejected.to_string(),
                        p.active_ms.to_string(),
                        opt(p.pace_per_hour),
                        p.tricks_seen.to_string(),
                        opt(p.trick_failure_rate),
                        p.majority_units.to_string(),
                        opt(p.majority_agreement),
                    ]
                })
            })
            .collect(),
    }
}

fn kappa_over_time(r: &Report) -> Table {
    Table {
        name: "kappa_over_time.csv",
        header: &["kind", "answers", "at_ms", "value"],
        rows: r
            .agreement
            .kinds
            .iter()
            .flat_map(|k| {
                k.series.iter().map(|p| {
                    vec![
                        k.kind.as_str().to_string(),
                        p.answers.to_string(),
                        p.at_ms.to_string(),
                        opt(p.value),
                    ]
                })
            })
            .collect(),
    }
}

fn studies(r: &Report) -> Table {
    Table {
        name: "studies.csv",
        header: &[
            "study",
            "kind",
            "sample_size",
            "seed",
            "group_a",
            "group_b",
            "items_answered",
            "statistic",
            "metric",
            "value",
            "reason",
            "ci95_low",
            "ci95_high",
        ],
        rows: r
            .agreement
            .studies
            .iter()
            .flat_map(|st| {
                [
                    ("majority_kappa", &st.majority_kappa),
                    ("fleiss_a", &st.fleiss_a),
                    ("fleiss_b", &st.fleiss_b),
                ]
                .map(|(what, m)| {
                    let mut row = vec![
                        st.study.id.to_string(),
                        st.study.kind.as_str().to_string(),
                        st.study.sample_size.to_string(),
                        st.study.seed.to_string(),
                        st.group_a.join(" "),
                        st.study.members.join(" "),
                        st.items_answered.to_string(),
                        what.to_string(),
                        m.metric.clone(),
                    ];
                    row.extend(stat_cells(m.value, &m.reason, m.ci95));
                    row
                })
            })
            .collect(),
    }
}

fn metrics(r: &Report) -> Table {
    Table {
        name: "metrics.csv",
        header: &["kind", "metric", "value", "reason", "ci95_low", "ci95_high"],
        rows: r
            .metrics
            .iter()
            .flat_map(|(kind, a)| {
                a.metrics.iter().map(move |(name, m)| {
                    let mut row = vec![kind.clone(), name.clone()];
                    row.extend(stat_cells(m.value, &m.reason, m.ci95));
                    row
                })
            })
            .collect(),
    }
}

/// A statistic's value, reason when undefined, and interval, as CSV cells.
/// Current decisions per disagreement category; a last row with an empty category
/// counts those without one.
fn disagreements(r: &Report) -> Table {
    let c = &r.disagreements;
    Table {
        name: "disagreements.csv",
        header: &["category", "decisions"],
        rows: c
            .by_category
            .iter()
            .map(|row| vec![row.category.clone(), row.decisions.to_string()])
            .chain([vec![String::new(), c.uncategorised.to_string()]])
            .collect(),
    }
}

/// Every statistic of every question of the project's design (no rows without one).
fn design(r: &Report) -> Table {
    let rows = r
        .design
        .iter()
        .flat_map(|d| &d.questions)
        .flat_map(|q| {
            let metrics = q.report.iter().flat_map(|a| &a.metrics);
            metrics.map(move |(name, m)| {
                let mut row = vec![q.question.clone(), q.unit.to_string(), name.clone()];
                row.extend(stat_cells(m.value, &m.reason, m.ci95));
                row
            })
        })
        .collect();
    Table {
        name: "design_agreement.csv",
        header: &[
            "question",
            "unit",
            "statistic",
            "value",
            "reason",
            "ci95_low",
            "ci95_high",
        ],
        rows,
    }
}

fn stat_cells(
    value: Option<f64>,
    reason: &Option<String>,
    ci95: Option<(f64, f64)>,
) -> [String; 4] {
    [
        opt(value),
        reason.clone().unwrap_or_default(),
        opt(ci95.map(|c| c.0)),
        opt(ci95.map(|c| c.1)),
    ]
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn io(name: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::Io, format!("cannot render {name}: {e}"))
}
