//! Cohen's kappa between the majority votes of two annotator groups, as in COVID-Fact's
//! re-annotation study (a sample answered again by a second group): per unit each group's
//! strict majority label, then unweighted kappa over the units where both groups have one,
//! with a bootstrap interval that resamples items (a cluster of units, e.g. a claim's
//! candidate sentences, is drawn whole).

use super::bootstrap::{percentile, MIN_DEFINED_SHARE};
use super::cohen::{kappa_of_pairs, Weighting};
use super::table::RatingTable;
use super::MetricValue;
use crate::seeded::Seeded;
use serde::Serialize;
use std::collections::BTreeMap;

/// Group-majority kappa with the number of units both groups had a majority on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupKappa {
    pub units: usize,
    /// `ci95` is the bootstrap percentile interval (absent when undefined in more than 5%
    /// of replicates, or without replicates).
    pub value: MetricValue,
}

/// A unit's index and the two groups' majority labels on it.
type UnitVotes = (usize, (u32, u32));

/// Each unit's pair of majority labels where both groups have a strict majority among the
/// ratings they gave it, with the unit's index; or why there can be none.
fn majority_pairs(
    table: &RatingTable,
    group_a: &[String],
    group_b: &[String],
) -> Result<Vec<UnitVotes>, String> {
    if let Some(shared) = group_a.iter().find(|name| group_b.contains(name)) {
        return Err(format!(
            "annotator {shared:?} is in both groups, so the votes are not independent"
        ));
    }
    let members = |group: &[String]| -> Vec<u32> {
        let mut ids: Vec<u32> = group
            .iter()
            .filter_map(|n| table.annotator_index(n))
            .collect();
        ids.sort_unstable();
        ids
    };
    let (a, b) = (members(group_a), members(group_b));
    if a.is_empty() || b.is_empty() {
        return Err("a group has no annotator with ratings in the table".to_string());
    }
    let units = &table.units;
    let mut labels = Vec::new();
    let mut tally: Vec<(u32, usize)> = Vec::new();
    for unit in 0..units.len() {
        let range = units.range(unit);
        let mut vote = |group: &[u32]| -> Option<u32> {
            tally.clear();
            for i in range.clone() {
                if group.binary_search(&units.annotators[i]).is_ok() {
                    match tally.iter_mut().find(|(v, _)| *v == units.values[i]) {
                        Some(entry) => entry.1 += 1,
                        None => tally.push((units.values[i], 1)),
                    }
                }
            }
            let total: usize = tally.iter().map(|t| t.1).sum();
            tally.iter().find(|t| 2 * t.1 > total).map(|t| t.0)
        };
        if let (Some(x), Some(y)) = (vote(&a), vote(&b)) {
            labels.push((unit, (x, y)));
        }
    }
    if labels.is_empty() {
        return Err("no unit where both groups have a strict majority".to_string());
    }
    Ok(labels)
}

/// Unweighted Cohen's kappa between the majority votes of two annotator groups
/// (re-annotation studies). A unit counts when, among the ratings each group gave it,
/// one category has a strict majority in both groups. `ci95` is the Wald interval.
pub fn group_majority_cohen(
    table: &RatingTable,
    group_a: &[String],
    group_b: &[String],
) -> MetricValue {
    match majority_pairs(table, group_a, group_b) {
        Err(reason) => MetricValue::undefined(reason),
        Ok(pairs) => {
            let labels: Vec<(u32, u32)> = pairs.into_iter().map(|p| p.1).collect();
            kappa_of_pairs(&labels, table.units.value_count, Weighting::Unweighted).value
        }
    }
}

/// As [`group_majority_cohen`], with a seeded bootstrap 95% interval over clusters of
/// units: `cluster_of` names each unit's cluster (the unit itself, or the item a pooled
/// unit belongs to) and a replicate draws as many clusters as there are, with
/// replacement, each bringing all its units.
pub fn group_majority_kappa(
    table: &RatingTable,
    group_a: &[String],
    group_b: &[String],
    cluster_of: &dyn Fn(&str) -> String,
    seed: u64,
    reps: usize,
) -> GroupKappa {
    let pairs = match majority_pairs(table, group_a, group_b) {
        Err(reason) => {
            return GroupKappa {
                units: 0,
                value: MetricValue::undefined(reason),
            }
        }
        Ok(pairs) => pairs,
    };
    let value_count = table.units.value_count;
    let labels: Vec<(u32, u32)> = pairs.iter().map(|p| p.1).collect();
    let mut value = kappa_of_pairs(&labels, value_count, Weighting::Unweighted).value;
    value.ci95 = None;
    if value.value.is_some() && reps > 0 {
        let mut clusters: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        for &(unit, pair) in &pairs {
            clusters
                .entry(cluster_of(&table.items[unit]))
                .or_default()
                .push(pair);
        }
        let clusters: Vec<Vec<(u32, u32)>> = clusters.into_values().collect();
        let mut rng = Seeded::for_purpose(seed, "group-majority-kappa");
        let mut values = Vec::with_capacity(reps);
        let mut drawn: Vec<(u32, u32)> = Vec::with_capacity(labels.len());
        for _ in 0..reps {
            drawn.clear();
            for _ in 0..clusters.len() {
                let pick = rng.below(clusters.len() as u64) as usize;
                drawn.extend_from_slice(&clusters[pick]);
            }
            if let Some(kappa) = kappa_of_pairs(&drawn, value_count, Weighting::Unweighted)
                .value
                .value
            {
                values.push(kappa);
            }
        }
        if !values.is_empty() && values.len() as f64 >= MIN_DEFINED_SHARE * reps as f64 {
            values.sort_by(f64::total_cmp);
            value.ci95 = Some((percentile(&values, 0.025), percentile(&values, 0.975)));
        }
    }
    value.read_as("group_majority_kappa");
    GroupKappa {
        units: pairs.len(),
        value,
    }
}
