//! Agreement on evidence sets: the MASI distance between selected sets (Passonneau 2006),
//! its use as Krippendorff's alpha distance, and the pooled per-candidate view where each
//! (item, candidate) pair is a unit labelled selected / not selected.

use super::table::{SetLabels, Units};
use std::collections::BTreeSet;

/// MASI distance 1 − J·M between two selected sets (duplicates ignored): J is the
/// Jaccard index and M is 1 for equal sets, 2/3 when one contains the other, 1/3 when they
/// overlap otherwise and 0 when disjoint. Two empty sets ("no evidence" twice) agree: 0.
pub fn masi_distance(a: &[String], b: &[String]) -> f64 {
    let a: BTreeSet<&str> = a.iter().map(String::as_str).collect();
    let b: BTreeSet<&str> = b.iter().map(String::as_str).collect();
    let common = a.intersection(&b).count();
    1.0 - masi_similarity(a.len(), b.len(), common)
}

/// J·M from the set sizes and the size of their intersection.
fn masi_similarity(len_a: usize, len_b: usize, common: usize) -> f64 {
    if len_a == len_b && common == len_a {
        return 1.0;
    }
    if common == 0 {
        return 0.0;
    }
    let union = len_a + len_b - common;
    let jaccard = common as f64 / union as f64;
    let monotonicity = if common == len_a.min(len_b) {
        2.0 / 3.0
    } else {
        1.0 / 3.0
    };
    jaccard * monotonicity
}

/// Size of the intersection of two sorted, duplicate-free id lists.
fn common_members(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// The distinct selected sets of a table, with every pair of them that is not at MASI
/// distance 1 found once, so alpha's expected disagreement over all pairs of ratings
/// costs O(similar pairs) rather than O(sets²): with per-item candidate ids almost every
/// pair of sets from different items is disjoint.
#[derive(Debug)]
pub(crate) struct MasiModel<'a> {
    members: &'a [Vec<u32>],
    /// (set, other set, similarity) for pairs of different sets (set < other) with
    /// similarity > 0; each set's similarity with itself is 1.
    similar: Vec<(u32, u32, f64)>,
}

impl<'a> MasiModel<'a> {
    pub fn new(sets: &'a SetLabels) -> MasiModel<'a> {
        let members = sets.members.as_slice();
        // The sets holding each candidate, in set order, in one list (a list per candidate
        // was 10⁵ allocations with per-item candidates).
        let mut starts = vec![0usize; sets.candidate_count + 1];
        for &id in members.iter().flatten() {
            starts[id as usize + 1] += 1;
        }
        for c in 0..sets.candidate_count {
            starts[c + 1] += starts[c];
        }
        let mut held = vec![0u32; starts[sets.candidate_count]];
        let mut at = starts.clone();
        for (set, ids) in members.iter().enumerate() {
            for &id in ids {
                held[at[id as usize]] = set as u32;
                at[id as usize] += 1;
            }
        }
        let holders = |id: u32| &held[starts[id as usize]..starts[id as usize + 1]];
        let mut similar = Vec::new();
        let mut seen_with: Vec<u32> = vec![u32::MAX; members.len()];
        for (set, ids) in members.iter().enumerate() {
            seen_with[set] = set as u32;
            for &id in ids {
                for &other in holders(id) {
                    if other <= set as u32 || seen_with[other as usize] == set as u32 {
                        continue;
                    }
                    seen_with[other as usize] = set as u32;
                    let other_ids = &members[other as usize];
                    let common = common_members(ids, other_ids);
                    let similarity = masi_similarity(ids.len(), other_ids.len(), common);
                    if similarity > 0.0 {
                        similar.push((set as u32, other, similarity));
                    }
                }
            }
        }
        MasiModel { members, similar }
    }

    /// (set, other set, similarity) of every pair of sets with a similarity, in the order
    /// [`MasiModel::expected_disagreement`] sums them.
    pub fn similar(&self) -> &[(u32, u32, f64)] {
        &self.similar
    }

    /// MASI distance between the sets with these value indices.
    pub fn distance(&self, a: usize, b: usize) -> f64 {
        if a == b {
            return 0.0;
        }
        let (x, y) = (&self.members[a], &self.members[b]);
        1.0 - masi_similarity(x.len(), y.len(), common_members(x, y))
    }

    /// Σ over ordered pairs of values of n_c n_c' δ(c, c') = n² − Σ n_c n_c' similarity,
    /// where a set's similarity with itself is 1 and unrelated sets have none.
    pub fn expected_disagreement(&self, totals: &[f64], used: &[usize], n: f64) -> f64 {
        let with_itself: f64 = used.iter().map(|&c| totals[c] * totals[c]).sum();
        let with_others: f64 = self
            .similar
            .iter()
            .map(|&(a, b, s)| totals[a as usize] * totals[b as usize] * s)
            .sum();
        n * n - with_itself - 2.0 * with_others
    }
}

/// Value indices of the pooled view.
pub(crate) const NOT_SELECTED: u32 = 0;
pub(crate) const SELECTED: u32 = 1;

/// One unit per (item, candidate the item offers); each annotator who gave the item a set
/// label rates the unit selected or not selected. Also returns where each item's units
/// start (item `u` has pooled units `starts[u]..starts[u + 1]`).
pub(crate) fn pooled_units(units: &Units, sets: &SetLabels) -> (Units, Vec<usize>) {
    let mut starts = Vec::with_capacity(units.len() + 1);
    // Sized once: grown by doubling, millions of entries were copied into fresh memory.
    let (pooled_units, ratings) = (0..units.len()).fold((0, 0), |(n, r), unit| {
        let candidates = sets.unit_candidates[unit].len();
        (n + candidates, r + candidates * units.range(unit).len())
    });
    let mut offsets = Vec::with_capacity(pooled_units + 1);
    offsets.push(0);
    let mut pooled = Units {
        offsets,
        annotators: Vec::with_capacity(ratings),
        values: Vec::with_capacity(ratings),
        value_count: 2,
    };
    for unit in 0..units.len() {
        starts.push(pooled.len());
        let range = units.range(unit);
        for &candidate in &sets.unit_candidates[unit] {
            for i in range.clone() {
                let chosen = &sets.members[units.values[i] as usize];
                let value = if chosen.binary_search(&candidate).is_ok() {
                    SELECTED
                } else {
                    NOT_SELECTED
                };
                pooled.annotators.push(units.annotators[i]);
                pooled.values.push(value);
            }
            pooled.offsets.push(pooled.values.len());
        }
    }
    starts.push(pooled.len());
    (pooled, starts)
}
