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

use super::item_draws::{ItemGroups, ITEMS_PER_CLASS};
use super::multinomial;
use super::packed::{self, Packed};
use super::profiles::{Profiles, Weighted, UNPAIRABLE};
use super::Outcome;
use crate::key_hash::KeyMap;
use crate::seeded::Seeded;

/// A statistic of one population's weighted profiles.
pub(crate) type Statistic<'a> = dyn Fn(&Weighted) -> Outcome + Sync + 'a;

/// Units whose statistics are computed from the same resampled items: the items
/// themselves, or the (item, candidate) units of the drawn items.
pub(crate) struct Population<'a> {
    pub profiles: &'a Profiles,
    pub expansion: Expansion,
    pub statistics: Vec<&'a Statistic<'a>>,
    /// Per-profile columns the statistics sum over the weights (alpha's observed
    /// disagreement), summed in the pass that updates the weights.
    pub columns: Vec<&'a [f64]>,
    /// The profiles by shape, when every statistic reads only what a packed replicate
    /// sums: used where draws are counted per profile.
    pub packed: Option<Packed>,
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

    /// Class `class`'s profiles and how many units of each.
    pub(super) fn entries(&self, class: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let range = self.starts[class]..self.starts[class + 1];
        self.profiles[range.clone()]
            .iter()
            .copied()
            .zip(self.units[range].iter().copied())
    }

    /// Adds `drawn` copies of every class to the profile weights.
    pub(super) fn weigh(&self, drawn: &[u32], weights: &mut [f64]) {
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
    // Keyed by the item profile (first, with a count no pooled profile has) and the
    // pooled profiles' counts; looked up as a slice, so only a new class allocates.
    let mut index: KeyMap<Vec<(u32, u32)>, u32> =
        KeyMap::with_capacity_and_hasher(items.profile_of_unit.len(), Default::default());
    let mut pooled_profiles: Vec<u32> = Vec::new();
    let mut key: Vec<(u32, u32)> = Vec::new();
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
        key.clear();
        key.push((profile, u32::MAX));
        for &p in &pooled_profiles {
            match key.last_mut() {
                Some((last, count)) if *last == p && *count != u32::MAX => *count += 1,
                _ => key.push((p, 1)),
            }
        }
        let class = match index.get(key.as_slice()) {
            Some(&class) => class,
            None => {
                let class = item_expansion.classes() as u32;
                item_expansion.push_class([(profile, 1.0)]);
                pooled_expansion.push_class(key[1..].iter().map(|&(p, c)| (p, f64::from(c))));
                index.insert(key.clone(), class);
                class
            }
        };
        class_of_item.push(class);
    }
    (class_of_item, item_expansion, pooled_expansion)
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
    let draws = Draws::new(class_of_item, class_count, populations);
    let run = |seeds: &[u64]| -> Vec<Vec<Option<f64>>> {
        let mut worker = Worker::new(&draws);
        seeds.iter().map(|&s| worker.replicate(s)).collect()
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
    percentile_intervals(populations, &per_rep, reps)
}

/// How a replicate draws: counts per class as a multinomial (`plan`), or the items
/// themselves (`groups`) when most classes hold an item or two.
struct Draws<'p, 'a> {
    class_count: usize,
    populations: &'p [Population<'a>],
    plan: Option<multinomial::Plan>,
    groups: Option<ItemGroups>,
}

impl<'p, 'a> Draws<'p, 'a> {
    fn new(class_of_item: &[u32], class_count: usize, populations: &'p [Population<'a>]) -> Self {
        // Items per class: a resample is a multinomial draw over them.
        let mut sizes = vec![0u64; class_count];
        for &class in class_of_item {
            sizes[class as usize] += 1;
        }
        let by_items = class_count.saturating_mul(ITEMS_PER_CLASS) > class_of_item.len();
        let (plan, groups) = if by_items {
            (None, Some(ItemGroups::new(class_of_item, populations)))
        } else {
            (Some(multinomial::Plan::new(&sizes)), None)
        };
        Draws {
            class_count,
            populations,
            plan,
            groups,
        }
    }

    /// Whether population `p`'s draw counts are its weights (no expansion to apply).
    fn counts_are_weights(&self, p: usize) -> bool {
        self.groups
            .as_ref()
            .is_some_and(|g| g.expansion[p].is_none())
    }
}

/// One thread's replicates, with buffers allocated once and reused.
struct Worker<'d, 'p, 'a> {
    draws: &'d Draws<'p, 'a>,
    drawn: Vec<u32>,
    drawn_items: Vec<u32>,
    group_counts: Vec<Vec<u32>>,
    weighted: Vec<Weighted>,
    packed_scratch: Vec<packed::Scratch>,
}

impl<'d, 'p, 'a> Worker<'d, 'p, 'a> {
    fn new(draws: &'d Draws<'p, 'a>) -> Self {
        let populations = draws.populations;
        Worker {
            draws,
            drawn: vec![0u32; draws.class_count],
            drawn_items: Vec::new(),
            group_counts: draws
                .groups
                .as_ref()
                .map(|g| g.groups.iter().map(|&n| vec![0u32; n]).collect())
                .unwrap_or_default(),
            // A packed population's replicates fill no weights or totals.
            weighted: populations
                .iter()
                .enumerate()
                .map(|(i, p)| match p.packed {
                    Some(_) if draws.counts_are_weights(i) => Weighted::unfilled(),
                    _ => Weighted::new(p.profiles),
                })
                .collect(),
            packed_scratch: populations
                .iter()
                .map(|p| p.packed.as_ref().map(Packed::scratch).unwrap_or_default())
                .collect(),
        }
    }

    /// Every population's statistics on the resample drawn from `rep_seed`, in order.
    fn replicate(&mut self, rep_seed: u64) -> Vec<Option<f64>> {
        let draws = self.draws;
        let mut rng = Seeded::new(rep_seed);
        match (&draws.plan, &draws.groups) {
            (Some(plan), _) => multinomial::draw(&mut rng, plan, &mut self.drawn),
            (None, Some(groups)) => {
                groups.draw(&mut rng, &mut self.drawn_items, &mut self.group_counts);
            }
            (None, None) => {}
        }
        let mut values = Vec::new();
        for (p, population) in draws.populations.iter().enumerate() {
            let weighted = &mut self.weighted[p];
            match (&draws.groups, &population.packed) {
                // The counts are the weights.
                (Some(_), Some(packed)) if draws.counts_are_weights(p) => {
                    packed.update(&self.group_counts[p], weighted, &mut self.packed_scratch[p]);
                }
                // The counts are the weights: set in the pass that sums them.
                (Some(_), None) if draws.counts_are_weights(p) => weighted.update_counts(
                    population.profiles,
                    &self.group_counts[p],
                    &population.columns,
                ),
                (Some(groups), _) => {
                    groups.weigh(p, &self.group_counts[p], &mut weighted.weights);
                    weighted.update_with(population.profiles, &population.columns);
                }
                (None, _) => {
                    population
                        .expansion
                        .weigh(&self.drawn, &mut weighted.weights);
                    weighted.update_with(population.profiles, &population.columns);
                }
            }
            values.extend(
                population
                    .statistics
                    .iter()
                    .map(|statistic| statistic(weighted).ok().filter(|v| v.is_finite())),
            );
        }
        values
    }
}

/// Each statistic's 2.5th and 97.5th percentiles over the replicates (`per_rep`, one row
/// of every population's statistics each); `None` where too few were defined.
fn percentile_intervals(
    populations: &[Population<'_>],
    per_rep: &[Vec<Option<f64>>],
    reps: usize,
) -> Vec<Vec<Option<(f64, f64)>>> {
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
    use crate::agreement::item_draws::draw_index;

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
        // Items drawn one by one into groups that are the classes themselves.
        let items = ItemGroups::from_groups(
            std::slice::from_ref(&class_of_item),
            vec![None],
            vec![sizes.len()],
        );
        let mut drawn = Vec::new();
        let plan = multinomial::Plan::new(&sizes);
        for by_items in [true, false] {
            let mut rng = Seeded::new(7);
            let mut counts = vec![vec![0u32; sizes.len()]];
            let mut sum = vec![0.0; sizes.len()];
            let mut squares = vec![0.0; sizes.len()];
            for _ in 0..reps {
                if by_items {
                    items.draw(&mut rng, &mut drawn, &mut counts);
                } else {
                    multinomial::draw(&mut rng, &plan, &mut counts[0]);
                }
                let counts = &counts[0];
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

    /// Counting each draw into its group gives, replicate by replicate, the very weights
    /// (bit for bit) of counting it into its class and weighing the classes: on set labels,
    /// where items and pooled (item, candidate) units both come from one draw.
    #[test]
    fn weights_by_groups_equal_weights_by_classes() {
        use super::super::sets::pooled_units;
        use super::super::{Label, Rating, RatingTable};
        let mut rng = Seeded::new(3);
        let mut ratings = Vec::new();
        for item in 0..300 {
            for annotator in ["a", "b", "c"] {
                // A few shapes, so classes repeat and groups are fewer than classes.
                let picked: Vec<String> = (0..5)
                    .filter(|_| rng.below(3) == 0)
                    .map(|c| format!("{}-{c}", item % 7))
                    .collect();
                ratings.push(Rating {
                    item: format!("i{item}"),
                    annotator: annotator.to_string(),
                    label: Label::Set(picked),
                });
            }
        }
        let table = RatingTable::new(&ratings, None, None).unwrap_or_else(|e| panic!("{e}"));
        let sets = table.sets.as_ref().unwrap_or_else(|| panic!("set labels"));
        let items = Profiles::new(&table.units);
        let (pooled_table, starts) = pooled_units(&table.units, sets);
        let pooled = Profiles::new(&pooled_table);
        let (class_of_item, item_expansion, pooled_expansion) =
            item_classes(&items, Some((&pooled, &starts)));
        let populations = [
            Population {
                profiles: &items,
                expansion: item_expansion,
                statistics: Vec::new(),
                columns: Vec::new(),
                packed: None,
            },
            Population {
                profiles: &pooled,
                expansion: pooled_expansion,
                statistics: Vec::new(),
                columns: Vec::new(),
                packed: None,
            },
        ];
        let groups = ItemGroups::new(&class_of_item, &populations);
        assert!(groups.expansion[0].is_none() && groups.expansion[1].is_some());
        let classes = populations[0].expansion.classes();
        let n = class_of_item.len() as u64;
        let mut group_counts: Vec<Vec<u32>> =
            groups.groups.iter().map(|&g| vec![0u32; g]).collect();
        for seed in 0..50 {
            let mut by_class = vec![0u32; classes];
            let mut rng = Seeded::new(seed);
            for _ in 0..n {
                by_class[class_of_item[draw_index(&mut rng, n)] as usize] += 1;
            }
            groups.draw(&mut Seeded::new(seed), &mut Vec::new(), &mut group_counts);
            for (p, population) in populations.iter().enumerate() {
                let mut want = vec![0.0; population.profiles.len()];
                population.expansion.weigh(&by_class, &mut want);
                let mut got = vec![1.0; population.profiles.len()];
                groups.weigh(p, &group_counts[p], &mut got);
                let bits = |w: &[f64]| w.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "seed {seed}, population {p}");
            }
        }
    }
}
