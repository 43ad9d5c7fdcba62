//! Running agreement sums over nominal units, changed one rating at a time.
//!
//! Fleiss' kappa and nominal Krippendorff's alpha depend on a unit only through its
//! category counts, so the tally keeps, per unit size n, the number of pairable units and
//! Σ_j n_j (n_j − 1), plus category totals over pairable units: all integers, so adding
//! and removing ratings never drifts. Cohen's kappa per pair keeps a confusion count per
//! pair of annotators, and each annotator's agreement with the majority of the others
//! keeps two counters. A change to one unit touches only that unit's few ratings, so the
//! statistics of 500,000 answers are read in microseconds.

use std::collections::BTreeMap;

pub(crate) const NO_VARIATION: &str = "no variation: every rating is the same category";
pub(crate) const MASI_NO_VARIATION: &str = "no variation: every rating is the same set";

/// A value, or the reason it is undefined (the same reasons `factdesk agreement` gives).
pub(crate) type Outcome = Result<f64, String>;

#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    /// Per unit: (annotator, value) ratings.
    units: Vec<Vec<(u32, u32)>>,
    /// Indexed by unit size n ≥ 2: (pairable units, Σ over them of Σ_j n_j (n_j − 1)).
    by_size: Vec<(i64, i64)>,
    /// Ratings per value over pairable units.
    totals: Vec<i64>,
    /// Per pair (a < b): confusion counts (value of a, value of b) over units both rated.
    pairs: BTreeMap<(u32, u32), BTreeMap<(u32, u32), i64>>,
    /// Per annotator: (units where the others have a strict majority, of those agreeing).
    majority: Vec<(i64, i64)>,
}

impl Tally {
    pub fn add_unit(&mut self) -> usize {
        self.units.push(Vec::new());
        self.units.len() - 1
    }

    /// One annotator's rating of a unit.
    pub fn rating(&self, unit: usize, annotator: u32) -> Option<u32> {
        self.units
            .get(unit)?
            .iter()
            .find(|r| r.0 == annotator)
            .map(|r| r.1)
    }

    /// Sets (`Some`) or removes (`None`) one annotator's rating of a unit.
    pub fn set(&mut self, unit: usize, annotator: u32, value: Option<u32>) {
        let Some(ratings) = self.units.get(unit) else {
            return;
        };
        let old = ratings.iter().find(|r| r.0 == annotator).map(|r| r.1);
        if old == value {
            return;
        }
        self.account(unit, -1);
        let mut ratings = std::mem::take(&mut self.units[unit]);
        if let Some(old) = old {
            self.pair_counts(&ratings, annotator, old, -1);
            ratings.retain(|r| r.0 != annotator);
        }
        if let Some(value) = value {
            self.pair_counts(&ratings, annotator, value, 1);
            ratings.push((annotator, value));
        }
        self.units[unit] = ratings;
        self.account(unit, 1);
    }

    /// Adds (`sign` 1) or removes (−1) a unit's part of the sums.
    fn account(&mut self, unit: usize, sign: i64) {
        let ratings = &self.units[unit];
        let n = ratings.len();
        if n < 2 {
            return;
        }
        let mut counts: Vec<(u32, i64)> = Vec::with_capacity(n);
        for &(_, v) in ratings {
            match counts.iter_mut().find(|c| c.0 == v) {
                Some(c) => c.1 += 1,
                None => counts.push((v, 1)),
            }
        }
        if self.by_size.len() <= n {
            self.by_size.resize(n + 1, (0, 0));
        }
        let agreeing: i64 = counts.iter().map(|&(_, c)| c * (c - 1)).sum();
        self.by_size[n].0 += sign;
        self.by_size[n].1 += sign * agreeing;
        for &(v, c) in &counts {
            if self.totals.len() <= v as usize {
                self.totals.resize(v as usize + 1, 0);
            }
            self.totals[v as usize] += sign * c;
        }
        let others = n as i64 - 1;
        for &(a, v) in ratings {
            if self.majority.len() <= a as usize {
                self.majority.resize(a as usize + 1, (0, 0));
            }
            // The others' counts are the unit's counts less this rating.
            let leader = counts
                .iter()
                .map(|&(w, c)| (w, c - i64::from(w == v)))
                .find(|&(_, c)| 2 * c > others);
            if let Some((w, _)) = leader {
                self.majority[a as usize].0 += sign;
                self.majority[a as usize].1 += sign * i64::from(w == v);
            }
        }
    }

    fn pair_counts(&mut self, others: &[(u32, u32)], annotator: u32, value: u32, sign: i64) {
        for &(b, w) in others {
            let (key, cell) = if annotator < b {
                ((annotator, b), (value, w))
            } else {
                ((b, annotator), (w, value))
            };
            let cells = self.pairs.entry(key).or_default();
            let count = cells.entry(cell).or_insert(0);
            *count += sign;
            if *count == 0 {
                cells.remove(&cell);
            }
        }
    }

    fn pairable_units(&self) -> i64 {
        self.by_size.iter().map(|s| s.0).sum()
    }

    /// Categories in use over pairable units.
    fn used(&self) -> impl Iterator<Item = i64> + '_ {
        self.totals.iter().copied().filter(|&t| t > 0)
    }

    /// Fleiss' kappa with each unit's own n_i (DESIGN.md); `rated_by` is how many
    /// annotators gave any rating, for the "fewer than 2 annotators" reason.
    pub fn fleiss(&self, rated_by: usize) -> Outcome {
        self.pairable(rated_by)?;
        if self.used().count() < 2 {
            return Err(NO_VARIATION.to_string());
        }
        let units = self.pairable_units() as f64;
        let observed = self
            .by_size
            .iter()
            .enumerate()
            .filter(|(_, s)| s.0 > 0)
            .map(|(n, s)| s.1 as f64 / (n * (n - 1)) as f64)
            .sum::<f64>()
            / units;
        let ratings: i64 = self.used().sum();
        let chance: f64 = self
            .used()
            .map(|t| (t as f64 / ratings as f64).powi(2))
            .sum();
        finite((observed - chance) / (1.0 - chance))
    }

    /// Krippendorff's alpha, nominal: 1 − (n − 1) D_o / D_e over pairable units.
    pub fn alpha(&self, rated_by: usize) -> Outcome {
        self.pairable(rated_by)?;
        if self.used().count() < 2 {
            return Err(NO_VARIATION.to_string());
        }
        let n: i64 = self.used().sum();
        // Σ_u (n_u (n_u − 1) − Σ_j n_uj (n_uj − 1)) / (n_u − 1) = n − Σ_u S_u / (n_u − 1).
        let observed = n as f64
            - self
                .by_size
                .iter()
                .enumerate()
                .filter(|(_, s)| s.0 > 0)
                .map(|(size, s)| s.1 as f64 / (size - 1) as f64)
                .sum::<f64>();
        let expected = (n as f64) * (n as f64) - self.used().map(|t| (t * t) as f64).sum::<f64>();
        if expected <= 0.0 {
            return Err(NO_VARIATION.to_string());
        }
        finite(1.0 - (n as f64 - 1.0) * observed / expected)
    }

    fn pairable(&self, rated_by: usize) -> Result<(), String> {
        if rated_by < 2 {
            return Err("fewer than 2 annotators".to_string());
        }
        if self.pairable_units() == 0 {
            return Err("no unit has 2 or more ratings".to_string());
        }
        Ok(())
    }

    /// Unweighted Cohen's kappa of two annotators on the units both rated, with that
    /// number of units.
    pub fn cohen(&self, a: u32, b: u32) -> (usize, Outcome) {
        let key = if a < b { (a, b) } else { (b, a) };
        let Some(cells) = self.pairs.get(&key).filter(|c| !c.is_empty()) else {
            return (0, Err("no unit was rated by both annotators".to_string()));
        };
        let n: i64 = cells.values().sum();
        let mut rows: BTreeMap<u32, i64> = BTreeMap::new();
        let mut cols: BTreeMap<u32, i64> = BTreeMap::new();
        let mut agreeing = 0;
        for (&(x, y), &c) in cells {
            *rows.entry(x).or_default() += c;
            *cols.entry(y).or_default() += c;
            if x == y {
                agreeing += c;
            }
        }
        if cells.len() == 1 && cells.keys().all(|&(x, y)| x == y) {
            return (
                n as usize,
                Err(format!("{NO_VARIATION} for both annotators")),
            );
        }
        let chance: i64 = rows
            .iter()
            .map(|(v, r)| r * cols.get(v).copied().unwrap_or(0))
            .sum();
        let chance = chance as f64 / (n as f64 * n as f64);
        (
            n as usize,
            finite((agreeing as f64 / n as f64 - chance) / (1.0 - chance)),
        )
    }

    /// (units where the others had a strict majority, share of them agreeing with it).
    pub fn with_majority(&self, annotator: u32) -> (u64, Option<f64>) {
        let (units, agreeing) = self
            .majority
            .get(annotator as usize)
            .copied()
            .unwrap_or((0, 0));
        (
            units.max(0) as u64,
            (units > 0).then(|| agreeing as f64 / units as f64),
        )
    }
}

pub(super) fn finite(value: f64) -> Outcome {
    if value.is_finite() {
        Ok(value)
    } else {
        Err("the statistic is not a finite number for this data".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacing_and_removing_ratings_returns_to_the_same_sums() {
        let mut tally = Tally::default();
        let (u, v) = (tally.add_unit(), tally.add_unit());
        tally.set(u, 0, Some(0));
        tally.set(u, 1, Some(0));
        tally.set(v, 0, Some(1));
        tally.set(v, 1, Some(0));
        let before = (tally.fleiss(2), tally.alpha(2), tally.cohen(0, 1));
        tally.set(v, 2, Some(1));
        tally.set(v, 1, Some(1));
        tally.set(v, 1, Some(0));
        tally.set(v, 2, None);
        assert_eq!((tally.fleiss(2), tally.alpha(2), tally.cohen(0, 1)), before);
        assert_eq!(tally.with_majority(0), (2, Some(0.5)));
    }

    #[test]
    fn undefined_values_say_why() {
        let mut tally = Tally::default();
        let u = tally.add_unit();
        tally.set(u, 0, Some(0));
        assert_eq!(tally.fleiss(1), Err("fewer than 2 annotators".to_string()));
        assert_eq!(
            tally.fleiss(2),
            Err("no unit has 2 or more ratings".to_string())
        );
        tally.set(u, 1, Some(0));
        assert_eq!(tally.alpha(2), Err(NO_VARIATION.to_string()));
        assert!(tally.cohen(0, 1).1.is_err());
    }
}
