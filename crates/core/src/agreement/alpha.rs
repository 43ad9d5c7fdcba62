//! Krippendorff's alpha in the coincidence-matrix form (Krippendorff 2011).
//!
//! Only units with at least 2 ratings are pairable. With n_uc ratings of value c in unit u
//! (n_u in all), the coincidences are o_cc' = Σ_u n_uc (n_uc' − [c = c']) / (n_u − 1),
//! n_c = Σ_c' o_cc', n = Σ_c n_c, and
//! α = 1 − (n − 1) · Σ_cc' o_cc' δ²_cc' / Σ_cc' n_c n_c' δ²_cc'.
//! Missing ratings simply do not appear. δ² is the level's distance: nominal [c ≠ c'],
//! ordinal (Σ_{g=c..c'} n_g − (n_c + n_c')/2)², interval (v_c − v_c')², ratio
//! ((v_c − v_c')/(v_c + v_c'))², or the MASI distance between two sets.

use super::profiles::{PackedSums, Profiles, Weighted};
use super::sets::MasiModel;
use super::{Outcome, NO_VARIATION};

#[derive(Debug, Clone, Copy)]
pub(crate) enum Distance<'a> {
    Nominal,
    /// Value indices are the category order.
    Ordinal,
    /// The number each value index stands for.
    Interval(&'a [f64]),
    Ratio(&'a [f64]),
    Masi(&'a MasiModel<'a>),
}

impl Distance<'_> {
    /// δ² between two values, for every level whose distance does not depend on the
    /// marginal totals (all but ordinal).
    fn fixed(&self, a: usize, b: usize) -> f64 {
        match *self {
            Distance::Nominal | Distance::Ordinal => f64::from(u8::from(a != b)),
            Distance::Interval(numbers) => (numbers[a] - numbers[b]).powi(2),
            Distance::Ratio(numbers) => ratio_distance(numbers[a], numbers[b]),
            Distance::Masi(model) => model.distance(a, b),
        }
    }

    fn no_variation(&self) -> String {
        match self {
            Distance::Nominal | Distance::Ordinal => NO_VARIATION.to_string(),
            Distance::Interval(_) | Distance::Ratio(_) => {
                "no variation: every rating has the same value".to_string()
            }
            Distance::Masi(_) => "no variation: every rating is the same set".to_string(),
        }
    }
}

/// As the `krippendorff` package: a pair summing to zero has distance zero.
fn ratio_distance(a: f64, b: f64) -> f64 {
    let sum = a + b;
    if sum == 0.0 {
        0.0
    } else {
        ((a - b) / sum).powi(2)
    }
}

/// Alpha for one level over one set of profiles, with the parts that do not depend on
/// the weights computed once (so bootstrap replicates only re-weight).
#[derive(Debug)]
pub(crate) struct Alpha<'a> {
    distance: Distance<'a>,
    /// Per profile: Σ over ordered pairs of its ratings of δ², over (n_u − 1).
    /// Absent for ordinal, whose distances depend on the totals.
    observed: Option<Vec<f64>>,
}

impl<'a> Alpha<'a> {
    /// Per profile, its share of the observed disagreement (none for ordinal alpha).
    pub fn observed(&self) -> Option<&[f64]> {
        self.observed.as_deref()
    }

    pub fn new(profiles: &Profiles, distance: Distance<'a>) -> Alpha<'a> {
        let observed = match distance {
            Distance::Ordinal => None,
            _ => Some(
                (0..profiles.len())
                    .map(|k| unit_disagreement(profiles, k, |a, b| distance.fixed(a, b)))
                    .collect(),
            ),
        };
        Alpha { distance, observed }
    }

    pub fn evaluate(&self, profiles: &Profiles, weighted: &Weighted) -> Outcome {
        let (totals, used, n) = (&weighted.totals, &weighted.used, weighted.ratings);
        if n == 0.0 {
            return Err("no unit has 2 or more ratings".to_string());
        }
        if self.distinct_values(weighted) < 2 {
            return Err(self.distance.no_variation());
        }
        let (observed, expected) = match (&self.observed, weighted.packed) {
            (Some(per_profile), Some(packed)) => (
                weighted.sum_of(per_profile),
                self.expected_packed(&packed, n),
            ),
            (Some(per_profile), None) => (
                weighted.sum_of(per_profile),
                self.expected_fixed(totals, used, n),
            ),
            (None, _) => {
                let cumulative = prefix_sums(totals);
                let delta = |a: usize, b: usize| ordinal_distance(&cumulative, totals, a, b);
                let observed = weighted
                    .weights
                    .iter()
                    .enumerate()
                    .filter(|(_, &w)| w != 0.0)
                    .map(|(k, w)| w * unit_disagreement(profiles, k, delta))
                    .sum::<f64>();
                (observed, expected_by_pairs(totals, used, delta))
            }
        };
        if expected <= 0.0 {
            return Err(self.distance.no_variation());
        }
        Ok(1.0 - (n - 1.0) * observed / expected)
    }

    /// Distinct values among the used ones (numbers for interval and ratio, so that "1"
    /// and "1.0" are one value).
    fn distinct_values(&self, weighted: &Weighted) -> usize {
        match self.distance {
            Distance::Interval(numbers) | Distance::Ratio(numbers) => {
                let mut values: Vec<f64> = weighted.used.iter().map(|&c| numbers[c]).collect();
                values.sort_by(f64::total_cmp);
                values.dedup();
                values.len()
            }
            _ => weighted.distinct(),
        }
    }

    /// Whether a packed replicate (`packed`) can evaluate this alpha: its expected
    /// disagreement needs only the sums it makes.
    pub fn packable(&self) -> bool {
        matches!(self.distance, Distance::Nominal | Distance::Masi(_))
    }

    /// The MASI model, if this is MASI alpha.
    pub fn masi(&self) -> Option<&'a MasiModel<'a>> {
        match self.distance {
            Distance::Masi(model) => Some(model),
            _ => None,
        }
    }

    /// [`Alpha::expected_fixed`] from a packed replicate's sums: the same operations on
    /// the same values.
    fn expected_packed(&self, packed: &PackedSums, n: f64) -> f64 {
        match (self.distance, packed.similar) {
            (Distance::Nominal, _) => n * n - packed.squares,
            (Distance::Masi(_), Some(similar)) => n * n - packed.squares - 2.0 * similar,
            // `packed` never packs a population with another level.
            _ => f64::NAN,
        }
    }

    /// Σ_cc' n_c n_c' δ²_cc' for the levels with fixed distances.
    fn expected_fixed(&self, totals: &[f64], used: &[usize], n: f64) -> f64 {
        match self.distance {
            Distance::Nominal => n * n - used.iter().map(|&c| totals[c] * totals[c]).sum::<f64>(),
            // 2 n Σ n_c (v_c − v̄)², centred so that large values do not cancel.
            Distance::Interval(numbers) => {
                let mean = used.iter().map(|&c| totals[c] * numbers[c]).sum::<f64>() / n;
                2.0 * n
                    * used
                        .iter()
                        .map(|&c| totals[c] * (numbers[c] - mean).powi(2))
                        .sum::<f64>()
            }
            Distance::Masi(model) => model.expected_disagreement(totals, used, n),
            Distance::Ratio(_) | Distance::Ordinal => {
                expected_by_pairs(totals, used, |a, b| self.distance.fixed(a, b))
            }
        }
    }
}

/// Σ over ordered pairs of a profile's ratings of δ², divided by (n_u − 1).
fn unit_disagreement(profiles: &Profiles, k: usize, delta: impl Fn(usize, usize) -> f64) -> f64 {
    let (values, counts) = profiles.slices(k);
    let mut sum = 0.0;
    for i in 0..values.len() {
        for j in i + 1..values.len() {
            sum += 2.0 * counts[i] * counts[j] * delta(values[i] as usize, values[j] as usize);
        }
    }
    sum / (profiles.sizes[k] - 1.0)
}

fn expected_by_pairs(totals: &[f64], used: &[usize], delta: impl Fn(usize, usize) -> f64) -> f64 {
    let mut sum = 0.0;
    for (i, &a) in used.iter().enumerate() {
        for &b in &used[i + 1..] {
            sum += 2.0 * totals[a] * totals[b] * delta(a, b);
        }
    }
    sum
}

/// `cumulative[c]` = Σ_{g < c} n_g.
fn prefix_sums(totals: &[f64]) -> Vec<f64> {
    let mut cumulative = Vec::with_capacity(totals.len() + 1);
    let mut running = 0.0;
    cumulative.push(running);
    for &t in totals {
        running += t;
        cumulative.push(running);
    }
    cumulative
}

fn ordinal_distance(cumulative: &[f64], totals: &[f64], a: usize, b: usize) -> f64 {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    let between = cumulative[high + 1] - cumulative[low];
    (between - (totals[low] + totals[high]) / 2.0).powi(2)
}
