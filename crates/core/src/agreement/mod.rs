//! Inter-annotator agreement statistics, exact and without IO.
//!
//! Ratings are gathered once into a [`RatingTable`] (units × annotators, labels as category
//! indices) and every metric reads that table, so computing all of them stays cheap. An
//! undefined statistic is a [`MetricValue`] with `value: None` and the reason, never NaN.
//!
//! Formula sources:
//! - Cohen's kappa and its large-sample standard error: Cohen (1960); Fleiss, Cohen &
//!   Everitt (1969), as in SAS PROC FREQ and `statsmodels.stats.inter_rater.cohens_kappa`.
//!   Weighted kappa: Cohen (1968) with Cicchetti–Allison (linear) and Fleiss–Cohen
//!   (quadratic) weights over category positions, as `sklearn.metrics.cohen_kappa_score`.
//! - Fleiss' kappa: Fleiss (1971), Psychol. Bull. 76:378; with unequal numbers of ratings
//!   per unit each unit's agreement uses its own n_i and category proportions are pooled
//!   over all ratings (DESIGN.md, "Agreement, defined"). Per-category kappa: Fleiss (1971).
//! - Randolph's free-marginal kappa: Randolph (2005), chance agreement 1/q.
//! - Krippendorff's alpha: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
//!   coincidence-matrix form with nominal, ordinal, interval and ratio distances.
//! - MASI distance for set labels: Passonneau (2006), used as alpha's distance.
//! - Landis & Koch (1977) for the verbal reading of kappa.

mod alpha;
mod bootstrap;
mod build;
mod build_sets;
mod cohen;
mod groups;
mod item_draws;
mod multinomial;
mod names;
mod nominal;
mod packed;
mod profiles;
mod report;
mod sets;
mod table;

pub use build_sets::{IndexedSets, SetNames};
pub use cohen::{cohen_kappa, pairs, CohenKappa, PairKappa, Weighting};
pub use groups::{group_majority_cohen, group_majority_kappa, GroupKappa};
pub use names::definition;
pub use nominal::per_category_kappa;
pub use report::{
    bootstrap, compute, compute_all, compute_all_with_pairs, pooled_pairs, WithPairs, METRIC_NAMES,
};
pub use sets::masi_distance;
pub use table::{CategoryOrder, RatingTable, TableError};

use serde::{Deserialize, Deserializer, Serialize};

/// One annotator's label, as the annotator gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Label {
    /// The annotator saw the item but gave no usable answer; it is not a rating.
    Missing,
    Category(String),
    /// Evidence selection: the candidate ids the annotator selected. Empty = "no evidence".
    Set(Vec<String>),
}

impl<'de> Deserialize<'de> for Label {
    /// Accepts `null`, a string, a number (kept as its text, so "3" and 3 are one
    /// category) or a list of strings or numbers (a set label).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Label, D::Error> {
        use serde::de::Error;
        use serde_json::Value;
        fn scalar(value: &Value) -> Option<String> {
            match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                Value::Bool(flag) => Some(flag.to_string()),
                Value::Null | Value::Array(_) | Value::Object(_) => None,
            }
        }
        match Value::deserialize(deserializer)? {
            Value::Null => Ok(Label::Missing),
            Value::Array(members) => members
                .iter()
                .map(|member| {
                    scalar(member).ok_or_else(|| {
                        D::Error::custom("a set label holds only strings or numbers")
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Label::Set),
            other => scalar(&other).map(Label::Category).ok_or_else(|| {
                D::Error::custom("a label is a string, a number, a list of strings or null")
            }),
        }
    }
}

/// One rating: an annotator's label for an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rating {
    pub item: String,
    pub annotator: String,
    pub label: Label,
}

/// A statistic, or the reason it is undefined for this data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricValue {
    /// Always finite when present.
    pub value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// 95% interval: bootstrap percentiles over units, or Wald (kappa ± 1.96·SE) for Cohen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci95: Option<(f64, f64)>,
    /// A kappa's or an alpha's verbal [`reading`], once it has an interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<&'static str>,
}

impl MetricValue {
    pub fn defined(value: f64) -> MetricValue {
        MetricValue::from_outcome(Ok(value))
    }

    pub fn undefined(reason: impl Into<String>) -> MetricValue {
        MetricValue {
            value: None,
            reason: Some(reason.into()),
            ci95: None,
            reading: None,
        }
    }

    /// The single place where a computed number becomes a value, so a non-finite result
    /// can never leak out as NaN or infinity.
    pub(crate) fn from_outcome(outcome: Outcome) -> MetricValue {
        match outcome {
            Ok(value) if value.is_finite() => MetricValue {
                value: Some(value),
                reason: None,
                ci95: None,
                reading: None,
            },
            Ok(_) => MetricValue::undefined("the statistic is not a finite number for this data"),
            Err(reason) => MetricValue::undefined(reason),
        }
    }
}

/// How `compute_all` works; categories and candidates belong to the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgreementOptions {
    /// Bootstrap replicates for the 95% intervals; 0 leaves bootstrap intervals out.
    pub bootstrap_reps: usize,
    pub seed: u64,
}

impl Default for AgreementOptions {
    fn default() -> AgreementOptions {
        AgreementOptions {
            bootstrap_reps: 1000,
            seed: 0,
        }
    }
}

/// A computed statistic or the reason it is undefined.
pub(crate) type Outcome = Result<f64, String>;

pub(crate) const NO_VARIATION: &str = "no variation: every rating is the same category";

/// What a statistic's [`reading`] is when its interval spans more than one band.
pub const UNCERTAIN: &str = "uncertain";

/// Whether the metric `name` is chance-corrected (a kappa or an alpha): the statistics a
/// Landis & Koch reading is for, and not percent agreement or a distance.
pub fn is_chance_corrected(name: &str) -> bool {
    name.contains("kappa") || name.contains("alpha")
}

/// The verbal reading of a chance-corrected statistic and its 95% interval: the Landis &
/// Koch (1977) band when the value and both ends of the interval lie in one band,
/// [`UNCERTAIN`] when the interval reaches into another, and none without an interval.
/// A κ of 0.458 over 8 units with an interval from −0.143 to 0.851 is not "moderate":
/// the data allow anything from poor to almost perfect.
pub fn reading(value: f64, ci95: Option<(f64, f64)>) -> Option<&'static str> {
    let (low, high) = ci95?;
    let band = landis_koch(value);
    Some(if landis_koch(low) == band && landis_koch(high) == band {
        band
    } else {
        UNCERTAIN
    })
}

impl MetricValue {
    /// Sets the [`reading`] of the metric `name` from its value and interval.
    pub fn read_as(&mut self, name: &str) {
        self.reading = match self.value {
            Some(v) if is_chance_corrected(name) => reading(v, self.ci95),
            _ => None,
        };
    }
}

/// The verbal reading of a kappa by Landis & Koch (1977); upper bounds are inclusive.
pub fn landis_koch(kappa: f64) -> &'static str {
    if kappa.is_nan() {
        "undefined"
    } else if kappa < 0.0 {
        "poor"
    } else if kappa <= 0.20 {
        "slight"
    } else if kappa <= 0.40 {
        "fair"
    } else if kappa <= 0.60 {
        "moderate"
    } else if kappa <= 0.80 {
        "substantial"
    } else {
        "almost perfect"
    }
}

#[cfg(test)]
mod tests;
