//! The report as CSV files, one per table, for spreadsheets and scripts. Undefined values
//! are empty cells; numbers are written in full precision.

use super::Report;
use crate::{Error, ErrorCode, Result};

/// Every table as (file name, CSV bytes); [`crate::Project::write_report`] writes them.
pub fn render_all(r: &Report) -> Result<Vec<(String, Vec<u8>)>> {
    let mut written = Vec::new();
    let mut table = |name: &str, header: &[&str], rows: Vec<Vec<String>>| -> Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(header).map_err(|e| io(name, e))?;
        for row in rows {
            w.write_record(&row).map_err(|e| io(name, e))?;
        }
        let bytes = w.into_inner().map_err(|e| io(name, e.error()))?;
        written.push((name.to_string(), bytes));
        Ok(())
    };
    table(
        "labels.csv",
        &["kind", "label", "count"],
        r.labels
            .iter()
            .flat_map(|d| {
                d.counts
                    .iter()
                    .map(|c| vec![d.kind.clone(), c.label.clone(), c.count.to_string()])
            })
            .collect(),
    )?;
    table(
        "lengths.csv",
        &["of", "tokens", "count"],
        r.lengths
            .iter()
            .flat_map(|d| {
                d.histogram
                    .iter()
                    .map(|h| vec![d.of.clone(), h.tokens.to_string(), h.count.to_string()])
            })
            .collect(),
    )?;
    table(
        "length_summary.csv",
        &["of", "count", "min", "max", "mean", "median"],
        r.lengths
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
    )?;
    table(
        "negation.csv",
        &[
            "label",
            "claims",
            "with_cue",
            "share_with_cue",
            "tokens",
            "cue_tokens",
            "cues_per_100_tokens",
        ],
        r.negation
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
    )?;
    table(
        "negation_cues.csv",
        &["cue", "supported", "refuted"],
        r.negation
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
    )?;
    table(
        "agreement.csv",
        &[
            "kind",
            "statistic",
            "metric",
            "value",
            "reason",
            "ci95_low",
            "ci95_high",
            "reading",
        ],
        r.agreement
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
    )?;
    table(
        "cohen_pairs.csv",
        &["kind", "a", "b", "units", "value", "reason"],
        r.agreement
            .kinds
            .iter()
            .flat_map(|k| {
                k.pairs.iter().map(|p| {
                    vec![
                        k.kind.as_str().to_string(),
                        p.a.clone(),
                        p.b.clone(),
                        p.units.to_string(),
                        opt(p.value),
                        p.reason.clone().unwrap_or_default(),
                    ]
                })
            })
            .collect(),
    )?;
    table(
        "annotators.csv",
        &[
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
        r.agreement
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
    )?;
    table(
        "kappa_over_time.csv",
        &["kind", "answers", "at_ms", "value"],
        r.agreement
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
    )?;
    table(
        "studies.csv",
        &[
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
        r.agreement
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
    )?;
    table(
        "metrics.csv",
        &["kind", "metric", "value", "reason", "ci95_low", "ci95_high"],
        r.metrics
            .iter()
            .flat_map(|(kind, a)| {
                a.metrics.iter().map(move |(name, m)| {
                    let mut row = vec![kind.clone(), name.clone()];
                    row.extend(stat_cells(m.value, &m.reason, m.ci95));
                    row
                })
            })
            .collect(),
    )?;
    Ok(written)
}

/// A statistic's value, reason when undefined, and interval, as CSV cells.
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
