//! Cohen's kappa between two annotators (or two groups' majority votes), unweighted or
//! with linear / quadratic weights over category positions, with the large-sample
//! standard error of Fleiss, Cohen & Everitt (1969) as SAS PROC FREQ and statsmodels
//! compute it.
//!
//! With p_ij the share of units rated i by the first and j by the second annotator and
//! r_i, c_j the marginal shares: κ = (p_o − p_e) / (1 − p_e), p_o = Σ p_ii,
//! p_e = Σ r_i c_i. Weighted (Cohen 1968): κ_w = 1 − Σ W_ij p_ij / Σ W_ij r_i c_j with
//! W_ij = |i − j|/(k − 1) (linear) or (i − j)²/(k − 1)² (quadratic) over the k categories
//! in order — the positions, as scikit-learn and R irr do.

use super::table::{CategoryOrder, RatingTable, Units};
use super::{MetricValue, Outcome, NO_VARIATION};
use serde::Serialize;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    Unweighted,
    Linear,
    Quadratic,
}

/// Cohen's kappa between two annotators, with its analytic standard error; `value.ci95`
/// is the Wald interval κ ± 1.96·SE.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CohenKappa {
    /// Units both annotators rated.
    pub units: usize,
    pub value: MetricValue,
    pub standard_error: Option<f64>,
}

/// Unweighted Cohen's kappa for one pair of annotators, on the units both rated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairKappa {
    pub a: String,
    pub b: String,
    pub units: usize,
    pub value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Cohen's kappa between annotators `a` and `b` on the units both rated. Weighted kappa
/// needs a category order (given, or numeric labels).
pub fn cohen_kappa(table: &RatingTable, a: &str, b: &str, weighting: Weighting) -> CohenKappa {
    let undefined = |reason: String| CohenKappa {
        units: 0,
        value: MetricValue::undefined(reason),
        standard_error: None,
    };
    let (Some(first), Some(second)) = (table.annotator_index(a), table.annotator_index(b)) else {
        return undefined(format!(
            "annotator {a:?} or {b:?} has no ratings in the table"
        ));
    };
    if first == second {
        return undefined("Cohen's kappa needs two different annotators".to_string());
    }
    if weighting != Weighting::Unweighted && table.order == CategoryOrder::Unordered {
        return undefined(
            "weighted kappa needs a category order: give the categories in order".to_string(),
        );
    }
    let labels = label_pairs(&table.units, first, second);
    kappa_of_pairs(&labels, table.units.value_count, weighting)
}

/// The labels of `a` and `b` on every unit both rated.
pub(crate) fn label_pairs(units: &Units, a: u32, b: u32) -> Vec<(u32, u32)> {
    let mut labels = Vec::new();
    for unit in 0..units.len() {
        let range = units.range(unit);
        let raters = &units.annotators[range.clone()];
        if let (Ok(i), Ok(j)) = (raters.binary_search(&a), raters.binary_search(&b)) {
            labels.push((units.values[range.start + i], units.values[range.start + j]));
        }
    }
    labels
}

/// Kappa, standard error and Wald interval from the two annotators' label pairs.
pub(crate) fn kappa_of_pairs(
    labels: &[(u32, u32)],
    value_count: usize,
    weighting: Weighting,
) -> CohenKappa {
    let units = labels.len();
    let outcome = match Confusion::new(labels, value_count) {
        None => Err("no unit was rated by both annotators".to_string()),
        Some(confusion) => match weighting {
            Weighting::Unweighted => confusion.unweighted(),
            Weighting::Linear => confusion.weighted(|d| d),
            Weighting::Quadratic => confusion.weighted(|d| d * d),
        },
    };
    match outcome {
        Ok((kappa, se)) => {
            let mut value = MetricValue::from_outcome(Ok(kappa));
            let se = se.is_finite().then_some(se.max(0.0));
            if let (Some(k), Some(s)) = (value.value, se) {
                // Kappa lies in [-1, 1]; a Wald interval reaching past it says nothing more.
                value.ci95 = Some(((k - Z95 * s).max(-1.0), (k + Z95 * s).min(1.0)));
            }
            let standard_error = se.filter(|_| value.value.is_some());
            CohenKappa {
                units,
                value,
                standard_error,
            }
        }
        Err(reason) => CohenKappa {
            units,
            value: MetricValue::undefined(reason),
            standard_error: None,
        },
    }
}

/// The two annotators' joint label shares.
struct Confusion {
    n: f64,
    /// Nonzero cells (row label, column label, share).
    cells: Vec<(usize, usize, f64)>,
    rows: Vec<f64>,
    cols: Vec<f64>,
}

impl Confusion {
    fn new(labels: &[(u32, u32)], value_count: usize) -> Option<Confusion> {
        if labels.is_empty() {
            return None;
        }
        let n = labels.len() as f64;
        let mut keys: Vec<u64> = labels
            .iter()
            .map(|&(a, b)| (u64::from(a) << 32) | u64::from(b))
            .collect();
        keys.sort_unstable();
        let mut cells: Vec<(usize, usize, f64)> = Vec::new();
        let mut rows = vec![0.0; value_count];
        let mut cols = vec![0.0; value_count];
        for key in keys {
            let (a, b) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
            rows[a] += 1.0;
            cols[b] += 1.0;
            match cells.last_mut() {
                Some(cell) if (cell.0, cell.1) == (a, b) => cell.2 += 1.0,
                _ => cells.push((a, b, 1.0)),
            }
        }
        for cell in &mut cells {
            cell.2 /= n;
        }
        rows.iter_mut().chain(cols.iter_mut()).for_each(|x| *x /= n);
        Some(Confusion {
            n,
            cells,
            rows,
            cols,
        })
    }

    fn both_constant_and_equal(&self) -> bool {
        self.cells.len() == 1 && self.cells[0].0 == self.cells[0].1
    }

    /// (κ, SE) with the Fleiss–Cohen–Everitt (1969) variance.
    fn unweighted(&self) -> Result<(f64, f64), String> {
        if self.both_constant_and_equal() {
            return Err(format!("{NO_VARIATION} for both annotators"));
        }
        let observed: f64 = self.cells.iter().filter(|c| c.0 == c.1).map(|c| c.2).sum();
        let chance: f64 = self.rows.iter().zip(&self.cols).map(|(r, c)| r * c).sum();
        let kappa = (observed - chance) / (1.0 - chance);
        let spread = 1.0 - kappa;
        let mut diagonal = 0.0;
        let mut off_diagonal = 0.0;
        for &(i, j, p) in &self.cells {
            if i == j {
                diagonal += p * (1.0 - (self.rows[i] + self.cols[i]) * spread).powi(2);
            } else {
                off_diagonal += p * (self.cols[i] + self.rows[j]).powi(2);
            }
        }
        let correction = (kappa - chance * spread).powi(2);
        let variance = (diagonal + spread * spread * off_diagonal - correction)
            / ((1.0 - chance).powi(2) * self.n);
        Ok((kappa, variance.sqrt()))
    }

    /// (κ_w, SE) with disagreement weights `shape(|i − j| / (k − 1))`; the variance is
    /// statsmodels' (SAS) formula on agreement weights 1 − W.
    fn weighted(&self, shape: impl Fn(f64) -> f64) -> Result<(f64, f64), String> {
        let k = self.rows.len();
        if k < 2 || self.both_constant_and_equal() {
            return Err(format!("{NO_VARIATION} for both annotators"));
        }
        let span = (k - 1) as f64;
        let disagreement = |i: usize, j: usize| shape(i.abs_diff(j) as f64 / span);
        let observed: f64 = self
            .cells
            .iter()
            .map(|&(i, j, p)| p * disagreement(i, j))
            .sum();
        let used_rows: Vec<usize> = (0..k).filter(|&i| self.rows[i] > 0.0).collect();
        let used_cols: Vec<usize> = (0..k).filter(|&j| self.cols[j] > 0.0).collect();
        let mut expected = 0.0;
        for &i in &used_rows {
            for &j in &used_cols {
                expected += self.rows[i] * self.cols[j] * disagreement(i, j);
            }
        }
        if expected <= 0.0 {
            return Err(format!("{NO_VARIATION} for both annotators"));
        }
        let kappa = 1.0 - observed / expected;
        let spread = 1.0 - kappa;
        // Agreement weights w = 1 − W, averaged over the other annotator's marginal.
        let row_weight = |i: usize| -> f64 {
            used_cols
                .iter()
                .map(|&j| self.cols[j] * (1.0 - disagreement(i, j)))
                .sum()
        };
        let col_weight = |j: usize| -> f64 {
            used_rows
                .iter()
                .map(|&i| self.rows[i] * (1.0 - disagreement(i, j)))
                .sum()
        };
        let row_weights: Vec<f64> = (0..k).map(row_weight).collect();
        let col_weights: Vec<f64> = (0..k).map(col_weight).collect();
        let chance_agreement = 1.0 - expected;
        let spread_terms: f64 = self
            .cells
            .iter()
            .map(|&(i, j, p)| {
                p * ((1.0 - disagreement(i, j)) - (col_weights[j] + row_weights[i]) * spread)
                    .powi(2)
            })
            .sum();
        let variance = (spread_terms - (kappa - chance_agreement * spread).powi(2))
            / ((1.0 - chance_agreement).powi(2) * self.n);
        Ok((kappa, variance.sqrt()))
    }
}

/// Unweighted kappa only, from marginals: what the pair matrix needs, in O(units + k).
fn quick_kappa(labels: &[(u32, u32)], rows: &mut [f64], cols: &mut [f64]) -> Outcome {
    if labels.is_empty() {
        return Err("no unit was rated by both annotators".to_string());
    }
    let n = labels.len() as f64;
    let mut agreeing = 0.0;
    for &(a, b) in labels {
        rows[a as usize] += 1.0;
        cols[b as usize] += 1.0;
        agreeing += f64::from(u8::from(a == b));
    }
    let mut chance = 0.0;
    // Each used row label is counted once: its row total is cleared after use.
    for &(a, _) in labels {
        chance += rows[a as usize] * cols[a as usize];
        rows[a as usize] = 0.0;
    }
    for &(_, b) in labels {
        cols[b as usize] = 0.0;
    }
    let first = labels[0].0;
    let constant = labels.iter().all(|&pair| pair == (first, first));
    if constant {
        return Err(format!("{NO_VARIATION} for both annotators"));
    }
    let chance = chance / (n * n);
    Ok((agreeing / n - chance) / (1.0 - chance))
}

/// Unweighted Cohen's kappa for every pair of annotators (names in sorted order), over
/// the table's units: for set labels (evidence) each distinct set is one category, so
/// two annotators agree on an item only when they chose exactly the same sentences.
/// `report::pooled_pairs` gives the per-candidate kappas instead.
pub fn pairs(table: &RatingTable) -> Vec<PairKappa> {
    pairs_over(&table.units, &table.annotators)
}

/// Unweighted Cohen's kappa for every pair of `annotators` over `units`.
pub(crate) fn pairs_over(units: &Units, annotators: &[String]) -> Vec<PairKappa> {
    let count = annotators.len();
    let index = |i: usize, j: usize| i * (2 * count - i - 1) / 2 + (j - i - 1);
    let mut labels: Vec<Vec<(u32, u32)>> = vec![Vec::new(); count * count.saturating_sub(1) / 2];
    for unit in 0..units.len() {
        let range = units.range(unit);
        for x in range.clone() {
            for y in x + 1..range.end {
                let (i, j) = (units.annotators[x] as usize, units.annotators[y] as usize);
                labels[index(i, j)].push((units.values[x], units.values[y]));
            }
        }
    }
    let mut rows = vec![0.0; units.value_count];
    let mut cols = vec![0.0; units.value_count];
    let mut result = Vec::with_capacity(labels.len());
    for i in 0..count {
        for j in i + 1..count {
            let pair = &labels[index(i, j)];
            let outcome = MetricValue::from_outcome(quick_kappa(pair, &mut rows, &mut cols));
            result.push(PairKappa {
                a: annotators[i].clone(),
                b: annotators[j].clone(),
                units: pair.len(),
                value: outcome.value,
                reason: outcome.reason,
            });
        }
    }
    result
}

/// Mean of the defined pairwise kappas (Light's kappa when every pair rated every unit).
pub(crate) fn mean_pairwise(annotators: usize, pair_kappas: &[PairKappa]) -> MetricValue {
    if annotators < 2 {
        return MetricValue::undefined("fewer than 2 annotators");
    }
    let defined: Vec<f64> = pair_kappas.iter().filter_map(|p| p.value).collect();
    if defined.is_empty() {
        return MetricValue::undefined("no pair of annotators has a defined kappa");
    }
    MetricValue::from_outcome(Ok(defined.iter().sum::<f64>() / defined.len() as f64))
}
