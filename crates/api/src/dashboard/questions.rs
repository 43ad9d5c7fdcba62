//! The dashboard's figures for the project's own design: each question's headline
//! statistics with their bootstrap intervals, computed with the other intervals (a full
//! pass over the answers), as `factdesk agreement --kind design` computes them.

use crate::agreement::Statistic;
use crate::declared::agreement::DesignAgreement;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Agreement on one question of the project's design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct QuestionStatistics {
    pub question: String,
    /// What a unit is: "item", "item and label" or "token".
    pub unit: String,
    pub units: u64,
    pub annotators: u64,
    /// Fleiss' kappa, Krippendorff's alpha, the mean pairwise Cohen's kappa and percent
    /// agreement, by their `factdesk agreement --json` names (the `setsel_*` ones for a
    /// multiple-choice question); none for a free-text question.
    pub statistics: Vec<Statistic>,
}

const HEADLINE: [&str; 4] = [
    "fleiss_kappa",
    "krippendorff_alpha_nominal",
    "cohen_kappa_mean_pairwise",
    "percent_agreement",
];

const HEADLINE_SETS: [&str; 4] = [
    "setsel_pooled_fleiss_kappa",
    "setsel_masi_krippendorff_alpha",
    "setsel_pooled_cohen_kappa_mean_pairwise",
    "setsel_pooled_percent_agreement",
];

/// The headline statistics' names for a question measured on `unit`.
pub fn headline_names(unit: &str) -> [&'static str; 4] {
    if unit == "item and label" {
        HEADLINE_SETS
    } else {
        HEADLINE
    }
}

/// Each question's headline statistics.
pub(crate) fn question_statistics(d: &DesignAgreement) -> Vec<QuestionStatistics> {
    d.questions
        .iter()
        .map(|q| {
            let statistics = q
                .report
                .iter()
                .flat_map(|r| {
                    headline_names(q.unit).into_iter().filter_map(|name| {
                        let m = r.metrics.get(name)?;
                        let mut st = Statistic {
                            metric: name.to_string(),
                            value: m.value,
                            reason: m.reason.clone(),
                            ci95: m.ci95,
                            reading: None,
                        };
                        st.read();
                        Some(st)
                    })
                })
                .collect();
            QuestionStatistics {
                question: q.question.clone(),
                unit: q.unit.to_string(),
                units: q.report.as_ref().map_or(0, |r| r.units as u64),
                annotators: q.report.as_ref().map_or(0, |r| r.annotators as u64),
                statistics,
            }
        })
        .collect()
}
