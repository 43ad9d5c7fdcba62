//! The pairwise Cohen's kappas of one kind, each set under its own metric name and unit,
//! as both the HTML page and `cohen_pairs.csv` print them.

use super::Report;
use crate::dashboard::{KindDashboard, PairAgreement};
use crate::tasks::TaskKind;

/// Every pair's kappa under one metric.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PairTable {
    /// The `factdesk agreement --json` metric whose pairs these are.
    pub metric: &'static str,
    /// What one unit is, in words.
    pub unit: &'static str,
    pub pairs: Vec<PairAgreement>,
}

/// The dashboard's pairs (per candidate sentence for evidence, per item otherwise) and,
/// for evidence, the exact-set pairs `factdesk agreement` gives as `cohen_kappa_pairs`.
pub(crate) fn pair_tables(r: &Report, k: &KindDashboard) -> Vec<PairTable> {
    let evidence = k.kind == TaskKind::Evidence;
    let mut tables = vec![PairTable {
        metric: crate::dashboard::pair_metric_name(k.kind),
        unit: crate::dashboard::pair_unit_name(k.kind),
        pairs: k.pairs.clone(),
    }];
    if evidence {
        if let Some(all) = r.metrics.get(k.kind.as_str()) {
            tables.push(PairTable {
                metric: "cohen_kappa",
                unit: "item (exact evidence set)",
                pairs: all
                    .cohen_kappa_pairs
                    .iter()
                    .map(|p| PairAgreement {
                        a: p.a.clone(),
                        b: p.b.clone(),
                        units: p.units as u64,
                        value: p.value,
                        reason: p.reason.clone(),
                    })
                    .collect(),
            });
        }
    }
    tables.retain(|t| !t.pairs.is_empty());
    tables
}
