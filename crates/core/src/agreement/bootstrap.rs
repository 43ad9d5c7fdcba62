//! Percentile bootstrap over units (Efron & Tibshirani 1993, ch. 13).
//!
//! Each replicate draws as many items as there are items with 2 or more ratings, with
//! replacement, and re-evaluates every statistic on the same draw. For set labels the
//! (item, candidate) units of a drawn item come along with it: a cluster bootstrap, since
//! the candidates of one claim are not independent. Because the statistics depend on a
//! unit only through its profile (see `profiles`), a replicate is a vector of counts per
//! class of item. With few classes the counts are drawn directly as a multinomial (see
//! `multinomial`), one binomial per class; when most classes hold an item or two (set
//! labels, whose selected sets are ids of the item's own candidates, make every item its
//! own class) that costs an `exp` per class, and drawing the items themselves, one
//! uniform index each, is cheaper. Both give the same distribution of counts.
//! Replicate r uses its own generator seeded from the r-th draw of `Seeded::new(seed)`,
//! so the result depends only on the seed, not on how replicates are spread over threads.

use super::multinomial;
use super::profiles::{Profiles, Weighted, UNPAIRABLE};
use super::Outcome;
use crate::seeded::Seeded;
use std::collections::HashMap;

/// A statistic of one population's weighted profiles.
pub(crate) type Statistic<'a> = dyn Fn(&Weighted) -> Outcome + Sync + 'a;

/// Units whose statistics are computed from the same resampled items: the items
/// themselves, or the (item, candidate) units of the drawn items.
pub(crate) struct Population<'a> {
    pub profiles: &'a Profiles,
    pub expansion: Expansion,
    pub statistics: Vec<&'a Statistic<'a>>,
}

/// Per class of resampled item: which profiles its units have, and how many of each.
#[derive(Debug, Default)]
pub(crate) struct Expansion {
    starts: Vec<usize>,
    profiles: Vec<u32>,
    units: Vec<f64>,
}

impl Expansion {
    pub fn push_class(&mut self, profiles: impl IntoIterator<Item = (u32, f64)>) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        for (profile, units) in profiles {
            self.profiles.push(profile);
            self.units.push(units);
        }
        self.starts.push(self.profiles.len());
    }

    pub fn classes(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Adds `drawn` copies of every class to the profile weights.
    fn weigh(&self, drawn: &[u32], weights: &mut [f64]) {
        weights.fill(0.0);
        for (class, &times) in drawn.iter().enumerate() {
            if times > 0 {
                for e in self.starts[class]..self.starts[class + 1] {
                    weights[self.profiles[e] as usize] += f64::from(times) * self.units[e];
                }
            }
        }
    }
}

/// Items with 2 or more ratings grouped into classes that contribute identically: the
/// same item profile and, for set labels, the same multiset of pooled profiles (`pooled`:
/// the pooled profiles and where each item's pooled units start). Returns each such
/// item's class and, per class, its item and pooled profile counts.
pub(crate) fn item_classes(
    items: &Profiles,
    pooled: Option<(&Profiles, &[usize])>,
) -> (Vec<u32>, Expansion, Expansion) {
    let mut class_of_item = Vec::new();
    let mut item_expansion = Expansion::default();
    let mut pooled_expansion = Expansion::default();
    let mut index: HashMap<(u32, Vec<(u32, u32)>), u32> = HashMap::new();
    let mut pooled_profiles: Vec<u32> = Vec::new();
    for (item, &profile) in items.profile_of_unit.iter().enumerate() {
        if profile == UNPAIRABLE {
            continue;
        }
        pooled_profiles.clear();
        if let Some((pooled, starts)) = pooled {
            pooled_profiles.extend(
                pooled.profile_of_unit[starts[item]..starts[item + 1]]
                    .iter()
                    .filter(|&&p| p != UNPAIRABLE),
            );
            pooled_profiles.sort_unstable();
        }
        let mut key: Vec<(u32, u32)> = Vec::new();
        for &p in &pooled_profiles {
            match key.last_mut() {
                Some((last, count)) if *last == p => *count += 1,
                _ => key.push((p, 1)),
            }
        }
        let next = item_expansion.classes() as u32;
        let class = *index
            .entry((profile, key))
            .or_insert_with_key(|(profile, key)| {
                item_expansion.push_class([(*profile, 1.0)]);
                pooled_expansion.push_class(key.iter().map(|&(p, c)| (p, f64::from(c))));
                next
            });
        class_of_item.push(class);
    }
    (class_of_item, item_expansion, pooled_expansion)
}

/// Below this many items per class on average, items are drawn one by one rather than
/// counts class by class: a class's binomial costs about as much as a few uniform draws.
const ITEMS_PER_CLASS: usize = 4;

/// How a replicate's counts per class are drawn.
enum Draw<'a> {
    /// One binomial per class.
    Classes(multinomial::Plan),
    /// One uniform item per resampled item; the slice gives each item's class.
    Items(&'a [u32]),
}

impl Draw<'_> {
    /// Fills `counts[k]` with how often class k is drawn in as many draws as there are
    /// items.
    fn counts(&self, rng: &mut Seeded, counts: &mut [u32]) {
        match self {
            Draw::Classes(plan) => multinomial::draw(rng, plan, counts),
            Draw::Items(class_of_item) => {
                counts.fill(0);
                let n = class_of_item.len() as u64;
                for _ in 0..n {
                    // The top 64 bits of a 64 × 64-bit product: uniform over 0..n up to a
                    // bias below n / 2^64, which no interval can show.
                    let item = ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as usize;
                    counts[class_of_item[item] as usize] += 1;
                }
            }
        }
    }
}

/// Draws (resampled items × replicates) below which threads are not worth starting.
const PARALLEL_DRAWS: usize = 2_000_000;

/// Replicates defined for less than this share of draws give no interval: dropping the
/// undefined ones would bias it.
pub(crate) const MIN_DEFINED_SHARE: f64 = 0.95;

/// 95% percentile intervals for each population's statistics, in order; `None` where
/// too few replicates were defined. `class_of_item` lists the resampled items (those with
/// 2 or more ratings) by class: items of one class contribute identically everywhere.
pub(crate) fn intervals(
    class_of_item: &[u32],
    class_count: usize,
    populations: &[Population<'_>],
    seed: u64,
    reps: usize,
) -> Vec<Vec<Option<(f64, f64)>>> {
    let undefined = || {
        populations
            .iter()
            .map(|p| vec![None; p.statistics.len()])
            .collect()
    };
    if reps == 0 || class_of_item.is_empty() {
        return undefined();
    }
    let mut master = Seeded::new(seed);
    let rep_seeds: Vec<u64> = (0..reps).map(|_| master.next_u64()).collect();
    // Items per class: a resample is a multinomial draw over them.
    let mut sizes = vec![0u64; class_count];
    for &class in class_of_item {
        sizes[class as usize] += 1;
    }
    let draw = if class_count.saturating_mul(ITEMS_PER_CLASS) > class_of_item.len() {
        Draw::Items(class_of_item)
    } else {
        Draw::Classes(multinomial::Plan::new(&sizes))
    };
    // One worker's replicates, with buffers allocated once and reused.
    let run = |seeds: &[u64]| -> Vec<Vec<Option<f64>>> {
        let mut drawn = vec![0u32; class_count];
        let mut scratch: Vec<Weighted> = populations
            .iter()
            .map(|p| Weighted::new(p.profiles))
            .collect();
        seeds
            .iter()
            .map(|&rep_seed| {
                draw.counts(&mut Seeded::new(rep_seed), &mut drawn);
                let mut values = Vec::new();
                for (population, weighted) in populations.iter().zip(&mut scratch) {
                    population.expansion.weigh(&drawn, &mut weighted.weights);
                    weighted.update(population.profiles);
                    values.extend(
                        population
                            .statistics
                            .iter()
                            .map(|statistic| statistic(weighted).ok().filter(|v| v.is_finite())),
                    );
                }
                values
            })
            .collect()
    };
    let threads = if class_of_item.len().saturating_mul(reps) < PARALLEL_DRAWS {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(reps)
    };
    let per_rep: Vec<Vec<Option<f64>>> = if threads <= 1 {
        run(&rep_seeds)
    } else {
        let chunk = reps.div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = rep_seeds
                .chunks(chunk)
                .map(|seeds| scope.spawn(|| run(seeds)))
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().unwrap_or_default())
                .collect()
        })
    };
    if per_rep.len() != reps {
        return undefined();
    }
    let mut column = 0;
    populations
        .iter()
        .map(|population| {
            population
                .statistics
                .iter()
                .map(|_| {
                    let mut values: Vec<f64> =
                        per_rep.iter().filter_map(|rep| rep[column]).collect();
                    column += 1;
                    if (values.len() as f64) < MIN_DEFINED_SHARE * reps as f64 {
                        return None;
                    }
                    values.sort_by(f64::total_cmp);
                    Some((percentile(&values, 0.025), percentile(&values, 0.975)))
                })
                .collect()
        })
        .collect()
}

/// Linear interpolation between order statistics (numpy's default).
pub(crate) fn percentile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let fraction = position - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of drawing give every class its multinomial mean n·p and variance
    /// n·p·(1 − p), and always n draws in all.
    #[test]
    fn drawing_items_and_drawing_classes_agree_in_distribution() {
        let sizes: Vec<u64> = [1, 1, 2, 3, 1, 8, 1, 1, 2, 20].to_vec();
        let class_of_item: Vec<u32> = sizes
            .iter()
            .enumerate()
            .flat_map(|(class, &size)| std::iter::repeat_n(class as u32, size as usize))
            .collect();
        let n = class_of_item.len() as f64;
        let reps = 40_000;
        for draw in [
            Draw::Items(&class_of_item),
            Draw::Classes(multinomial::Plan::new(&sizes)),
        ] {
            let mut rng = Seeded::new(7);
            let mut counts = vec![0u32; sizes.len()];
            let mut sum = vec![0.0; sizes.len()];
            let mut squares = vec![0.0; sizes.len()];
            for _ in 0..reps {
                draw.counts(&mut rng, &mut counts);
                assert_eq!(counts.iter().map(|&c| f64::from(c)).sum::<f64>(), n);
                for (k, &c) in counts.iter().enumerate() {
                    sum[k] += f64::from(c);
                    squares[k] += f64::from(c) * f64::from(c);
                }
            }
            for (k, &size) in sizes.iter().enumerate() {
                let p = size as f64 / n;
                let mean = sum[k] / f64::from(reps);
                let variance = squares[k] / f64::from(reps) - mean * mean;
                let want_variance = n * p * (1.0 - p);
                let se = (want_variance / f64::from(reps)).sqrt();
                assert!((mean - n * p).abs() < 5.0 * se, "class {k}: mean {mean}");
                assert!(
                    (variance / want_variance - 1.0).abs() < 0.05,
                    "class {k}: variance {variance} against {want_variance}"
                );
            }
        }
    }
}
