//! Units reduced to their rating profiles.
//!
//! Fleiss' kappa, percent agreement and Krippendorff's alpha depend on a unit only through
//! how many of its ratings fall in each category. Units with the same counts are therefore
//! interchangeable: the statistics are sums over distinct profiles weighted by how often
//! each occurs. That makes the full computation and every bootstrap replicate cost
//! O(distinct profiles) instead of O(units).

use super::table::Units;
use crate::key_hash::KeyMap;

/// No profile: the unit has fewer than 2 ratings and carries no agreement.
pub(crate) const UNPAIRABLE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Profiles {
    /// Profile `k` holds entries `offsets[k]..offsets[k + 1]` of `values` / `counts`.
    offsets: Vec<usize>,
    values: Vec<u32>,
    counts: Vec<f64>,
    /// Ratings in each profile (always at least 2).
    pub sizes: Vec<f64>,
    /// Share of agreeing rater pairs: Σ_c n_c (n_c − 1) / (n (n − 1)).
    pub pair_agreement: Vec<f64>,
    /// 1 when every rating in the profile is the same category, else 0.
    pub unanimous: Vec<f64>,
    /// How many units have each profile.
    pub multiplicity: Vec<f64>,
    /// Per unit of the table: its profile, or `UNPAIRABLE`.
    pub profile_of_unit: Vec<u32>,
    pub value_count: usize,
}

/// Profile weights with the per-value totals every statistic needs, computed once per
/// weighting; the buffers are reused across bootstrap replicates.
#[derive(Debug)]
pub(crate) struct Weighted {
    pub weights: Vec<f64>,
    /// Ratings per value, pooled over the weighted profiles.
    pub totals: Vec<f64>,
    /// Values with a positive total, in the order first met.
    pub used: Vec<usize>,
    /// Σ totals.
    pub ratings: f64,
    /// Σ weights: the number of (pairable) units.
    pub units: f64,
    /// Σ w_k · (share of agreeing pairs in profile k).
    pub agreement: f64,
    /// Σ w_k over unanimous profiles.
    pub unanimous: f64,
    /// Σ_k w_k x_k of the per-profile columns handed to [`Weighted::update_with`], each
    /// with the address of its column, so [`Weighted::sum_of`] finds it.
    pub(crate) sums: Vec<(usize, f64)>,
    /// Set by a packed bootstrap replicate (see `packed`), which leaves `weights`,
    /// `totals` and `used` unfilled: the sums the statistics would take from them.
    pub(crate) packed: Option<PackedSums>,
}

/// What the statistics of set labels read from the per-value totals, summed by a packed
/// replicate with the additions, in the order, of the loops over `used` they replace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackedSums {
    /// How many values have a positive total (`used.len()`).
    pub distinct: usize,
    /// Fleiss' chance agreement: Σ over `used`, in its order, of (total / ratings)².
    pub chance: f64,
    /// Σ total² over `used`.
    pub squares: f64,
    /// The MASI model's Σ over its similar pairs of total · total · similarity.
    pub similar: Option<f64>,
}

impl Weighted {
    /// Zero weights for these profiles.
    pub fn new(profiles: &Profiles) -> Weighted {
        Weighted {
            weights: vec![0.0; profiles.len()],
            totals: vec![0.0; profiles.value_count],
            used: Vec::new(),
            ratings: 0.0,
            units: 0.0,
            agreement: 0.0,
            unanimous: 0.0,
            sums: Vec::new(),
            packed: None,
        }
    }

    /// No weights or totals: for a packed replicate (see `packed`), which fills neither.
    pub fn unfilled() -> Weighted {
        Weighted {
            weights: Vec::new(),
            totals: Vec::new(),
            used: Vec::new(),
            ratings: 0.0,
            units: 0.0,
            agreement: 0.0,
            unanimous: 0.0,
            sums: Vec::new(),
            packed: None,
        }
    }

    /// How many values have a positive total.
    pub fn distinct(&self) -> usize {
        self.packed.map_or(self.used.len(), |p| p.distinct)
    }

    /// Recomputes the sums after `weights` changed, in one pass over the profiles; clears
    /// only the values used before, so a replicate costs O(profiles), not O(values).
    pub fn update(&mut self, profiles: &Profiles) {
        self.update_with(profiles, &[]);
    }

    /// [`Weighted::update`], also summing each of `columns` (one value per profile) over
    /// the weights in the same pass, in the order and with the operations of
    /// [`Profiles::weighted_sum`], so each sum is that function's, bit for bit: a bootstrap
    /// replicate then walks the profiles once instead of once more per alpha.
    pub fn update_with(&mut self, profiles: &Profiles, columns: &[&[f64]]) {
        self.refresh::<false>(profiles, &[], columns);
    }

    /// [`Weighted::update_with`] after setting each weight to its count (`counts` has one
    /// per profile), in the same pass.
    pub fn update_counts(&mut self, profiles: &Profiles, counts: &[u32], columns: &[&[f64]]) {
        if counts.len() == self.weights.len() {
            self.refresh::<true>(profiles, counts, columns);
        } else {
            for (w, &c) in self.weights.iter_mut().zip(counts) {
                *w = f64::from(c);
            }
            self.refresh::<false>(profiles, &[], columns);
        }
    }

    /// The pass behind both updates; with `FROM_COUNTS`, weight k is set to `counts[k]`
    /// as it is read.
    fn refresh<const FROM_COUNTS: bool>(
        &mut self,
        profiles: &Profiles,
        counts: &[u32],
        columns: &[&[f64]],
    ) {
        self.clear_totals();
        self.packed = None;
        self.units = 0.0;
        self.agreement = 0.0;
        self.unanimous = 0.0;
        // `Sum for f64` starts from -0.0.
        let mut sums = [-0.0f64; MAX_COLUMNS];
        let fused =
            columns.len() <= MAX_COLUMNS && columns.iter().all(|c| c.len() == self.weights.len());
        let fused_columns = if fused { columns } else { &[] };
        for k in 0..self.weights.len() {
            let w = if FROM_COUNTS {
                let w = f64::from(counts[k]);
                self.weights[k] = w;
                w
            } else {
                self.weights[k]
            };
            if w != 0.0 {
                self.units += w;
                self.agreement += w * profiles.pair_agreement[k];
                self.unanimous += w * profiles.unanimous[k];
                for (sum, column) in sums.iter_mut().zip(fused_columns) {
                    *sum += w * column[k];
                }
                let (values, ratings) = profiles.slices(k);
                for (&value, &count) in values.iter().zip(ratings) {
                    let total = &mut self.totals[value as usize];
                    if *total == 0.0 {
                        self.used.push(value as usize);
                    }
                    *total += w * count;
                }
            }
        }
        self.ratings = self.used.iter().map(|&c| self.totals[c]).sum();
        self.sums.clear();
        if fused {
            self.sums.extend(
                columns
                    .iter()
                    .zip(sums)
                    .map(|(column, sum)| (column.as_ptr() as usize, sum)),
            );
        }
    }

    /// Zeroes the totals of the values used, and forgets them.
    pub(crate) fn clear_totals(&mut self) {
        for &c in &self.used {
            self.totals[c] = 0.0;
        }
        self.used.clear();
    }

    /// Σ_k w_k x_k over profiles with nonzero weight: the sum from the last update when
    /// it was handed this very column, else computed now.
    pub fn sum_of(&self, per_profile: &[f64]) -> f64 {
        let address = per_profile.as_ptr() as usize;
        match self.sums.iter().find(|&&(at, _)| at == address) {
            Some(&(_, sum)) => sum,
            None => Profiles::weighted_sum(self, per_profile),
        }
    }
}

/// Most columns [`Weighted::update_with`] sums in its pass (one per alpha on a population).
pub(crate) const MAX_COLUMNS: usize = 4;

impl Profiles {
    /// Profiles of the units with at least 2 ratings; the others carry no agreement.
    pub fn new(units: &Units) -> Profiles {
        let mut index: KeyMap<Vec<(u32, u32)>, u32> = KeyMap::default();
        let mut profiles = Profiles {
            offsets: vec![0],
            values: Vec::new(),
            counts: Vec::new(),
            sizes: Vec::new(),
            pair_agreement: Vec::new(),
            unanimous: Vec::new(),
            multiplicity: Vec::new(),
            profile_of_unit: Vec::with_capacity(units.len()),
            value_count: units.value_count,
        };
        let mut scratch: Vec<u32> = Vec::new();
        let mut key: Vec<(u32, u32)> = Vec::new();
        for unit in 0..units.len() {
            let range = units.range(unit);
            if range.len() < 2 {
                profiles.profile_of_unit.push(UNPAIRABLE);
                continue;
            }
            scratch.clear();
            scratch.extend_from_slice(&units.values[range]);
            scratch.sort_unstable();
            key.clear();
            for &value in &scratch {
                match key.last_mut() {
                    Some((last, count)) if *last == value => *count += 1,
                    _ => key.push((value, 1)),
                }
            }
            let profile = match index.get(key.as_slice()) {
                Some(&k) => k,
                None => {
                    let k = profiles.sizes.len() as u32;
                    profiles.push(&key);
                    index.insert(key.clone(), k);
                    k
                }
            };
            profiles.multiplicity[profile as usize] += 1.0;
            profiles.profile_of_unit.push(profile);
        }
        profiles
    }

    fn push(&mut self, key: &[(u32, u32)]) {
        let size: f64 = key.iter().map(|&(_, c)| f64::from(c)).sum();
        let agreeing: f64 = key
            .iter()
            .map(|&(_, c)| f64::from(c) * (f64::from(c) - 1.0))
            .sum();
        for &(value, count) in key {
            self.values.push(value);
            self.counts.push(f64::from(count));
        }
        self.offsets.push(self.values.len());
        self.sizes.push(size);
        self.pair_agreement.push(agreeing / (size * (size - 1.0)));
        self.unanimous.push(f64::from(u8::from(key.len() == 1)));
        self.multiplicity.push(0.0);
    }

    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// The value indices of profile `k` and how many ratings each has.
    pub fn slices(&self, k: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[k]..self.offsets[k + 1];
        (&self.values[range.clone()], &self.counts[range])
    }

    /// Totals for the given profile weights.
    pub fn weigh(&self, weights: &[f64]) -> Weighted {
        let mut weighted = Weighted::new(self);
        weighted.weights.copy_from_slice(weights);
        weighted.update(self);
        weighted
    }

    /// Σ_k w_k x_k over profiles with nonzero weight.
    pub fn weighted_sum(weighted: &Weighted, per_profile: &[f64]) -> f64 {
        weighted
            .weights
            .iter()
            .zip(per_profile)
            .filter(|(&w, _)| w != 0.0)
            .map(|(w, x)| w * x)
            .sum()
    }
}
