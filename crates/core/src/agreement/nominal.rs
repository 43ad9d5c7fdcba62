//! Multi-rater nominal statistics over unit profiles: percent agreement, the unanimous
//! share, Fleiss' kappa (generalised to unequal ratings per unit), Randolph's
//! free-marginal kappa and Fleiss' per-category kappa.
//!
//! Per unit i with n_i ≥ 2 ratings, n_ij of them in category j:
//! P_i = Σ_j n_ij (n_ij − 1) / (n_i (n_i − 1)), the share of agreeing rater pairs.
//! Fleiss (1971): P̄ = mean P_i, p_j = Σ_i n_ij / Σ_i n_i, P_e = Σ_j p_j²,
//! κ = (P̄ − P_e) / (1 − P_e). With equal n_i this is exactly Fleiss' kappa.
//! Randolph (2005) replaces P_e by 1/q for q possible categories.

use super::profiles::{Profiles, Weighted};
use super::table::RatingTable;
use super::{MetricValue, Outcome, NO_VARIATION};
use std::collections::BTreeMap;

const NO_PAIRABLE_UNIT: &str = "no unit has 2 or more ratings";

/// Mean over units of the share of agreeing rater pairs.
pub(crate) fn percent_agreement(weighted: &Weighted) -> Outcome {
    if weighted.units == 0.0 {
        return Err(NO_PAIRABLE_UNIT.to_string());
    }
    Ok(weighted.agreement / weighted.units)
}

/// Share of units where every rating is the same category.
pub(crate) fn unanimous_share(weighted: &Weighted) -> Outcome {
    if weighted.units == 0.0 {
        return Err(NO_PAIRABLE_UNIT.to_string());
    }
    Ok(weighted.unanimous / weighted.units)
}

pub(crate) fn fleiss_kappa(weighted: &Weighted) -> Outcome {
    let observed = percent_agreement(weighted)?;
    // Decided on counts, not on P_e == 1 in floating point.
    if weighted.distinct() < 2 {
        return Err(NO_VARIATION.to_string());
    }
    let chance: f64 = match weighted.packed {
        Some(packed) => packed.chance,
        None => weighted
            .used
            .iter()
            .map(|&c| chance_term(weighted.totals[c], weighted.ratings))
            .sum(),
    };
    Ok((observed - chance) / (1.0 - chance))
}

/// One value's share of Fleiss' chance agreement: (its total / all ratings)².
pub(crate) fn chance_term(total: f64, ratings: f64) -> f64 {
    (total / ratings).powi(2)
}

/// `possible_categories` is q: the given category list, else the categories observed.
pub(crate) fn randolph_kappa(weighted: &Weighted, possible_categories: usize) -> Outcome {
    let observed = percent_agreement(weighted)?;
    if possible_categories < 2 {
        return Err(format!(
            "{NO_VARIATION}, and no category list gives a second possible category"
        ));
    }
    let chance = 1.0 / possible_categories as f64;
    Ok((observed - chance) / (1.0 - chance))
}

/// Fleiss' kappa for each category against all others (Fleiss 1971):
/// κ_j = 1 − mean_i[n_ij (n_i − n_ij) / (n_i (n_i − 1))] / (p_j (1 − p_j)),
/// which is the (generalised) Fleiss kappa of the table collapsed to "j" / "not j".
pub fn per_category_kappa(table: &RatingTable) -> BTreeMap<String, MetricValue> {
    let profiles = Profiles::new(&table.units);
    let unpairable = table.unpairable_reason();
    per_category_from_profiles(&profiles, &table.categories, unpairable.as_deref())
}

pub(crate) fn per_category_from_profiles(
    profiles: &Profiles,
    categories: &[String],
    unpairable: Option<&str>,
) -> BTreeMap<String, MetricValue> {
    let weighted = profiles.weigh(&profiles.multiplicity);
    let (totals, ratings, units) = (&weighted.totals, weighted.ratings, weighted.units);
    let mut disagreement = vec![0.0; profiles.value_count];
    for (k, &w) in profiles.multiplicity.iter().enumerate() {
        let n = profiles.sizes[k];
        let (values, counts) = profiles.slices(k);
        for (&value, &count) in values.iter().zip(counts) {
            disagreement[value as usize] += w * count * (n - count) / (n * (n - 1.0));
        }
    }
    categories
        .iter()
        .enumerate()
        .map(|(j, name)| {
            let value = if let Some(reason) = unpairable {
                MetricValue::undefined(reason)
            } else if totals[j] == 0.0 {
                MetricValue::undefined("the category is never used in units with 2 or more ratings")
            } else if totals[j] == ratings {
                MetricValue::undefined(NO_VARIATION)
            } else {
                let share = totals[j] / ratings;
                MetricValue::from_outcome(Ok(
                    1.0 - (disagreement[j] / units) / (share * (1.0 - share))
                ))
            };
            (name.clone(), value)
        })
        .collect()
}
