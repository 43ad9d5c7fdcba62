//! A study's stratified sample (issue 33): the items of a kind grouped by word overlap
//! with their best candidate, by label or by a metadata field, and as many drawn from
//! each group. `factdesk sample` shows a draw before it is made a study.

use super::invalid;
use crate::tasks::TaskKind;
use crate::{Lead, Project, Result};
use factdesk_core::strata::{self, Strata, Stratum, NONE};
use factdesk_store::studies::SampleRow;
use std::collections::HashSet;

/// The most Jaccard bins a sample takes: each must hold the number drawn.
pub const MAX_BINS: u32 = 100;

/// A draw by strata, before it is a study.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct StratifiedSample {
    pub kind: TaskKind,
    /// How the items were grouped: "jaccard-bins:10", "label", "field:topic".
    pub strata: String,
    #[ts(type = "number")]
    pub seed: u64,
    pub per_stratum: u32,
    /// Every group, bins in order, other groups sorted by name.
    pub drawn: Vec<Stratum>,
    /// Items left out because they have nothing to group by: no candidate to measure
    /// word overlap with.
    pub left_out: u32,
    /// What each drawn item was grouped by, in task order.
    pub items: Vec<SampledItem>,
}

/// A drawn item and what put it in its stratum.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct SampledItem {
    pub task_id: i64,
    /// The claim's id as imported.
    pub claim: String,
    pub stratum: String,
    /// With jaccard-bins: the claim's text, the candidate sentence it was compared with,
    /// and their word overlap.
    pub compared: Option<(String, String)>,
    pub jaccard: Option<f64>,
}

/// Items grouped for a draw.
pub(super) struct Grouped {
    /// Each item's task id and stratum.
    pub(super) keys: Vec<(i64, String)>,
    /// The strata listed even when empty, first and in this order (bins).
    pub(super) order: Vec<String>,
    /// Items with nothing to group by.
    pub(super) left_out: u32,
}

/// Each row's stratum under `by`.
pub(super) fn keys(rows: &[SampleRow], by: &Strata) -> Result<Grouped> {
    let mut left_out = 0u32;
    let (keys, order) = match by {
        Strata::JaccardBins { bins } => {
            if !(1..=MAX_BINS).contains(bins) {
                return Err(invalid(format!(
                    "--bins {bins}: give between 1 and {MAX_BINS} bins"
                )));
            }
            let keys = rows
                .iter()
                .filter_map(|r| {
                    let Some(top) = &r.top_candidate else {
                        left_out += 1;
                        return None;
                    };
                    let jaccard = strata::stemmed_jaccard(&r.claim, top);
                    Some((r.task_id, strata::jaccard_bin(jaccard, *bins)))
                })
                .collect();
            (keys, strata::jaccard_bin_names(*bins))
        }
        Strata::Label => (
            rows.iter()
                .map(|r| (r.task_id, r.label.clone().unwrap_or_else(|| NONE.into())))
                .collect(),
            Vec::new(),
        ),
        Strata::Field { name } => {
            if name.trim().is_empty() {
                return Err(invalid(
                    "--by: name a metadata field, a label, or jaccard-bins",
                ));
            }
            (
                rows.iter()
                    .map(|r| (r.task_id, field_value(&r.metadata, name)))
                    .collect(),
                Vec::new(),
            )
        }
    };
    Ok(Grouped {
        keys,
        order,
        left_out,
    })
}

/// A metadata field's value as a stratum's name: text as it is, other values as JSON,
/// a missing or null field "none".
fn field_value(metadata: &str, name: &str) -> String {
    let value = serde_json::from_str::<serde_json::Value>(metadata)
        .ok()
        .and_then(|m| m.get(name).cloned());
    match value {
        None | Some(serde_json::Value::Null) => NONE.into(),
        Some(serde_json::Value::String(s)) => s,
        Some(other) => other.to_string(),
    }
}

/// The draw, or an error naming every stratum that holds too few items.
pub(super) fn drawn(
    keys: &[(i64, String)],
    order: &[String],
    per: u32,
    seed: u64,
    kind: TaskKind,
) -> Result<Vec<Stratum>> {
    if per == 0 {
        return Err(invalid("draw at least 1 item from each stratum"));
    }
    strata::draw(keys, order, per, seed, &format!("study:{kind}")).map_err(|short| {
        let listed: Vec<String> = short
            .iter()
            .map(|s| match s.available {
                1 => format!("{} (1 item)", s.name),
                n => format!("{} ({n} items)", s.name),
            })
            .collect();
        let (count, verb) = match short.len() {
            1 => ("1 stratum".to_string(), "holds"),
            n => (format!("{n} strata"), "hold"),
        };
        invalid(format!(
            "{count} {verb} fewer than the {per} items to draw from each: {}; the items counted are {kind} tasks in no study yet (and unseen by the group, for a study). Draw fewer from each, group them otherwise, or create more tasks",
            listed.join(", ")
        ))
    })
}

impl Project {
    /// What a stratified study of `kind` would sample now, without drawing it: every
    /// stratum with its items, `per` from each, seeded (the project's seed when absent).
    pub fn sample_strata(
        &self,
        lead: &Lead,
        kind: TaskKind,
        by: &Strata,
        per: u32,
        seed: Option<u64>,
    ) -> Result<StratifiedSample> {
        self.acting_lead(lead)?;
        let seed = match seed {
            Some(seed) => seed,
            None => self.settings()?.seed,
        };
        let rows = factdesk_store::studies::sample_rows(self.store.read(), kind)?;
        let Grouped {
            keys,
            order,
            left_out,
        } = keys(&rows, by)?;
        let drawn = drawn(&keys, &order, per, seed, kind)?;
        // Rows are by task id (`sample_rows` orders them so).
        let row_of = |task: i64| {
            rows.binary_search_by_key(&task, |r| r.task_id)
                .ok()
                .map(|i| &rows[i])
        };
        let mut items: Vec<SampledItem> = Vec::new();
        for stratum in &drawn {
            for &task in &stratum.items {
                let Some(row) = row_of(task) else {
                    continue;
                };
                let compared = match (by, &row.top_candidate) {
                    (Strata::JaccardBins { .. }, Some(top)) => {
                        Some((row.claim.clone(), top.clone()))
                    }
                    _ => None,
                };
                items.push(SampledItem {
                    task_id: row.task_id,
                    claim: row.ext_id.clone(),
                    stratum: stratum.name.clone(),
                    jaccard: compared
                        .as_ref()
                        .map(|(a, b)| strata::stemmed_jaccard(a, b)),
                    compared,
                });
            }
        }
        items.sort_by_key(|i| i.task_id);
        Ok(StratifiedSample {
            kind,
            strata: by.spec(),
            seed,
            per_stratum: per,
            drawn,
            left_out,
            items,
        })
    }
}

/// The rows whose task is not in `met`.
pub(super) fn unmet(rows: Vec<SampleRow>, met: &HashSet<i64>) -> Vec<SampleRow> {
    rows.into_iter()
        .filter(|r| !met.contains(&r.task_id))
        .collect()
}
