//! Krippendorff's alpha with MASI distance over evidence sets, as running sums.
//!
//! With n_c counted ratings of set c over pairable tasks (2 or more counted answers) and
//! s(c, c') the MASI similarity (1 − distance, 1 for equal sets):
//! D_e = n² − Σ_c n_c² − Σ_{c ≠ c'} n_c n_c' s(c, c'), and over tasks u of n_u ratings
//! D_o = Σ_u (n_u (n_u − 1) − Σ_{i ≠ j} s_ij) / (n_u − 1), so α = 1 − (n − 1) D_o / D_e,
//! exactly as `setsel_masi_krippendorff_alpha` in `factdesk agreement`. A similarity is
//! the Jaccard index times 1, 2/3 or 1/3, a small fraction, so the sums are kept as
//! integer counts per distinct fraction: adding and removing ratings never drifts.

use super::tally::{finite, Outcome, MASI_NO_VARIATION};
use factdesk_core::key_hash::{IdMap, KeyMap};
use std::collections::BTreeMap;

/// A similarity as a reduced fraction (numerator, denominator).
type Ratio = (u64, u64);

const SAME: Ratio = (1, 1);

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// MASI similarity of two sorted, duplicate-free sets (Passonneau 2006).
fn similarity(a: &[i64], b: &[i64]) -> Ratio {
    if a == b {
        return SAME;
    }
    let common = a.iter().filter(|x| b.binary_search(x).is_ok()).count() as u64;
    if common == 0 {
        return (0, 1);
    }
    let union = a.len() as u64 + b.len() as u64 - common;
    let monotonicity = if common == a.len().min(b.len()) as u64 {
        2
    } else {
        1
    };
    let (num, den) = (common * monotonicity, 3 * union);
    let g = gcd(num, den);
    (num / g, den / g)
}

fn weigh(counts: &BTreeMap<Ratio, i64>) -> f64 {
    counts
        .iter()
        .map(|(&(num, den), &c)| c as f64 * num as f64 / den as f64)
        .sum()
}

fn bump(counts: &mut BTreeMap<Ratio, i64>, key: Ratio, by: i64) {
    let entry = counts.entry(key).or_insert(0);
    *entry += by;
    if *entry == 0 {
        counts.remove(&key);
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct MasiTally {
    /// Distinct selected sets and their value ids.
    ids: KeyMap<Vec<i64>, u32>,
    sets: Vec<Vec<i64>>,
    /// Per sentence id: the set values that contain it.
    holders: IdMap<Vec<u32>>,
    /// Ratings of each set value over pairable tasks.
    counts: Vec<i64>,
    /// Set values with a positive count.
    used: i64,
    /// n: ratings over pairable tasks.
    ratings: i64,
    /// Σ_c n_c².
    squares: i64,
    /// Σ over ordered pairs of different values of n_c n_c', by their similarity.
    across: BTreeMap<Ratio, i64>,
    /// Per task: (annotator, set value) of its counted answers.
    tasks: IdMap<Vec<(u32, u32)>>,
    /// By task size n_u ≥ 2: (tasks, ordered pairs of their ratings by similarity).
    by_size: BTreeMap<usize, (i64, BTreeMap<Ratio, i64>)>,
}

impl MasiTally {
    fn intern(&mut self, set: &[i64]) -> u32 {
        if let Some(&id) = self.ids.get(set) {
            return id;
        }
        let id = self.sets.len() as u32;
        self.ids.insert(set.to_vec(), id);
        self.sets.push(set.to_vec());
        self.counts.push(0);
        for &sentence in set {
            self.holders.entry(sentence).or_default().push(id);
        }
        id
    }

    /// Sets (`Some`, sorted ids) or removes (`None`) one annotator's set on a task.
    pub fn set(&mut self, task: i64, annotator: u32, selected: Option<&[i64]>) {
        let value = selected.map(|s| self.intern(s));
        let ratings = self.tasks.get(&task);
        let old = ratings.and_then(|r| r.iter().find(|x| x.0 == annotator).map(|x| x.1));
        if old == value {
            return;
        }
        self.account(task, -1);
        let ratings = self.tasks.entry(task).or_default();
        ratings.retain(|r| r.0 != annotator);
        if let Some(value) = value {
            ratings.push((annotator, value));
        }
        self.account(task, 1);
    }

    /// Adds (`sign` 1) or removes (−1) a task's part of the sums.
    fn account(&mut self, task: i64, sign: i64) {
        let values: Vec<u32> = match self.tasks.get(&task) {
            Some(r) if r.len() >= 2 => r.iter().map(|x| x.1).collect(),
            _ => return,
        };
        let mut pairs: BTreeMap<Ratio, i64> = BTreeMap::new();
        for (i, &a) in values.iter().enumerate() {
            for &b in &values[i + 1..] {
                let s = similarity(&self.sets[a as usize], &self.sets[b as usize]);
                *pairs.entry(s).or_default() += 2;
            }
        }
        let size = self.by_size.entry(values.len()).or_default();
        size.0 += sign;
        for (s, count) in pairs {
            bump(&mut size.1, s, sign * count);
        }
        for value in values {
            self.count(value, sign);
        }
    }

    /// Changes n_c of one value by `sign`, with its cross terms against every set that
    /// shares a sentence with it (all others have similarity 0).
    fn count(&mut self, value: u32, sign: i64) {
        let mut neighbours: Vec<u32> = self.sets[value as usize]
            .iter()
            .flat_map(|s| self.holders.get(s).into_iter().flatten().copied())
            .filter(|&other| other != value && self.counts[other as usize] != 0)
            .collect();
        neighbours.sort_unstable();
        neighbours.dedup();
        for other in neighbours {
            let s = similarity(&self.sets[value as usize], &self.sets[other as usize]);
            if s.0 != 0 {
                bump(&mut self.across, s, 2 * sign * self.counts[other as usize]);
            }
        }
        let n = &mut self.counts[value as usize];
        self.squares += if sign > 0 { 2 * *n + 1 } else { 1 - 2 * *n };
        let before = *n;
        *n += sign;
        match (before, *n) {
            (0, _) => self.used += 1,
            (_, 0) => self.used -= 1,
            _ => {}
        }
        self.ratings += sign;
    }

    /// Alpha with MASI distance; `rated_by` counts the annotators with a counted answer.
    pub fn alpha(&self, rated_by: usize) -> Outcome {
        if rated_by < 2 {
            return Err("fewer than 2 annotators".to_string());
        }
        if self.ratings == 0 {
            return Err("no unit has 2 or more ratings".to_string());
        }
        if self.used < 2 {
            return Err(MASI_NO_VARIATION.to_string());
        }
        let n = self.ratings as f64;
        let expected = n * n - self.squares as f64 - weigh(&self.across);
        let observed: f64 = self
            .by_size
            .iter()
            .filter(|(_, (tasks, _))| *tasks > 0)
            .map(|(&size, (tasks, pairs))| {
                let all = (*tasks * (size * (size - 1)) as i64) as f64;
                (all - weigh(pairs)) / (size - 1) as f64
            })
            .sum();
        if expected <= 0.0 {
            return Err(MASI_NO_VARIATION.to_string());
        }
        finite(1.0 - (n - 1.0) * observed / expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarities_are_masi() {
        assert_eq!(similarity(&[1, 2], &[1, 2, 3, 4]), (1, 3)); // 2/4 · 2/3
        assert_eq!(similarity(&[1, 2, 3, 4], &[3, 4, 5]), (2, 15)); // 2/5 · 1/3
        assert_eq!(similarity(&[], &[]), SAME);
        assert_eq!(similarity(&[], &[1]), (0, 1));
    }

    #[test]
    fn removing_returns_to_the_same_value() {
        let mut t = MasiTally::default();
        t.set(1, 0, Some(&[1, 2]));
        t.set(1, 1, Some(&[1]));
        t.set(2, 0, Some(&[]));
        t.set(2, 1, Some(&[5]));
        let before = t.alpha(2);
        assert!(before.is_ok(), "{before:?}");
        t.set(2, 2, Some(&[5, 6]));
        t.set(1, 1, Some(&[2]));
        t.set(1, 1, Some(&[1]));
        t.set(2, 2, None);
        assert_eq!(t.alpha(2), before);
        t.set(1, 1, None);
        t.set(2, 1, None);
        assert_eq!(t.alpha(2), Err("no unit has 2 or more ratings".to_string()));
    }
}
