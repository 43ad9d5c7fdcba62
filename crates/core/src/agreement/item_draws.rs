//! The bootstrap's draw when classes are small: items drawn one by one, one uniform
//! index each, counted into their items and then into each population's groups.

use super::bootstrap::{Expansion, Population};
use crate::key_hash::KeyMap;
use crate::seeded::Seeded;

/// Below this many items per class on average, items are drawn one by one rather than
/// counts class by class: a class's binomial costs about as much as a few uniform draws.
pub(super) const ITEMS_PER_CLASS: usize = 4;

/// A uniform index below `n`: the top 64 bits of a 64 × 64-bit product, uniform over
/// 0..n up to a bias below n / 2^64, which no interval can show.
pub(super) fn draw_index(rng: &mut Seeded, n: u64) -> usize {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as usize
}

/// Items drawn one by one, each draw counted into its item, then each population's
/// groups summed from their items' counts (rather than counted into classes whose
/// profiles were then weighed class by class: a pass over every class per replicate, as
/// many classes as items with set labels). A group is a distinct list of (profile, units)
/// among the classes; where every class has one profile with one unit (the items
/// themselves), the groups are the profiles and the counts are the weights. Every weight
/// is a whole number, exact in f64 whatever the order of the additions, so the weights
/// equal those of weighing class by class.
pub(super) struct ItemGroups {
    /// How many items are resampled.
    pub(super) items: usize,
    /// Per population: each group's items.
    pub(super) members: Vec<Members>,
    /// Per population: each group's profiles, or `None` when group k is profile k.
    pub(super) expansion: Vec<Option<Expansion>>,
    /// Per population: how many groups (profiles, when `expansion` is `None`).
    pub(super) groups: Vec<usize>,
}

/// The items of each group of one population, for summing their draws: a group's only
/// item, or its items listed apart when it has several (or none).
pub(super) struct Members {
    pub(super) only: Vec<u32>,
    /// (group, start, end) of the groups with several items, in `listed`.
    pub(super) several: Vec<(u32, u32, u32)>,
    pub(super) listed: Vec<u32>,
}

/// A group without a single item.
pub(super) const SEVERAL: u32 = u32::MAX;

impl Members {
    pub(super) fn new(group_of_item: &[u32], groups: usize) -> Members {
        // Each group's items, by counting: no list per group (10⁵ of them with set labels).
        let mut sizes = vec![0u32; groups];
        for &group in group_of_item {
            sizes[group as usize] += 1;
        }
        let mut only = vec![SEVERAL; groups];
        let mut several = Vec::new();
        let mut next = 0u32;
        let mut at = vec![0u32; groups];
        for (group, &size) in sizes.iter().enumerate() {
            if size != 1 {
                several.push((group as u32, next, next + size));
                at[group] = next;
                next += size;
            }
        }
        let mut listed = vec![0u32; next as usize];
        for (item, &group) in group_of_item.iter().enumerate() {
            let g = group as usize;
            if sizes[g] == 1 {
                only[g] = item as u32;
            } else {
                listed[at[g] as usize] = item as u32;
                at[g] += 1;
            }
        }
        Members {
            only,
            several,
            listed,
        }
    }

    /// Each group's draws from its items'.
    pub(super) fn count(&self, drawn: &[u32], counts: &mut [u32]) {
        for (count, &item) in counts.iter_mut().zip(&self.only) {
            *count = drawn.get(item as usize).copied().unwrap_or(0);
        }
        for &(group, start, end) in &self.several {
            counts[group as usize] = self.listed[start as usize..end as usize]
                .iter()
                .map(|&item| drawn[item as usize])
                .sum();
        }
    }
}

impl ItemGroups {
    pub(super) fn new(class_of_item: &[u32], populations: &[Population<'_>]) -> ItemGroups {
        let mut group_of_item = Vec::new();
        let mut expansion = Vec::new();
        let mut groups = Vec::new();
        for population in populations {
            let classes = &population.expansion;
            let single = (0..classes.classes()).all(|c| {
                let mut entries = classes.entries(c);
                matches!((entries.next(), entries.next()), (Some((_, units)), None) if units == 1.0)
            });
            let group_of_class: Vec<u32> = if single {
                expansion.push(None);
                groups.push(population.profiles.len());
                (0..classes.classes())
                    .map(|c| classes.entries(c).next().map_or(0, |(profile, _)| profile))
                    .collect()
            } else {
                let mut index: KeyMap<Vec<(u32, u64)>, u32> = KeyMap::default();
                let mut of_groups = Expansion::default();
                let of_class = (0..classes.classes())
                    .map(|c| {
                        let key: Vec<(u32, u64)> =
                            classes.entries(c).map(|(p, u)| (p, u.to_bits())).collect();
                        let next = of_groups.classes() as u32;
                        *index.entry(key).or_insert_with_key(|key| {
                            of_groups.push_class(key.iter().map(|&(p, u)| (p, f64::from_bits(u))));
                            next
                        })
                    })
                    .collect();
                groups.push(of_groups.classes());
                expansion.push(Some(of_groups));
                of_class
            };
            group_of_item.push(
                class_of_item
                    .iter()
                    .map(|&class| group_of_class[class as usize])
                    .collect(),
            );
        }
        ItemGroups::from_groups(&group_of_item, expansion, groups)
    }

    /// From each population's group of each item.
    pub(super) fn from_groups(
        group_of_item: &[Vec<u32>],
        expansion: Vec<Option<Expansion>>,
        groups: Vec<usize>,
    ) -> ItemGroups {
        ItemGroups {
            items: group_of_item.first().map_or(0, Vec::len),
            members: group_of_item
                .iter()
                .zip(&groups)
                .map(|(of_item, &n)| Members::new(of_item, n))
                .collect(),
            expansion,
            groups,
        }
    }

    /// Draws as many items as there are (`drawn`: how often each was drawn) and counts
    /// each population's groups.
    pub(super) fn draw(&self, rng: &mut Seeded, drawn: &mut Vec<u32>, counts: &mut [Vec<u32>]) {
        drawn.clear();
        drawn.resize(self.items, 0);
        let n = self.items as u64;
        for _ in 0..n {
            drawn[draw_index(rng, n)] += 1;
        }
        for (members, counts) in self.members.iter().zip(counts) {
            members.count(drawn, counts);
        }
    }

    /// Population `p`'s profile weights from its group counts.
    pub(super) fn weigh(&self, p: usize, counts: &[u32], weights: &mut [f64]) {
        match &self.expansion[p] {
            Some(groups) => groups.weigh(counts, weights),
            None => {
                for (w, &c) in weights.iter_mut().zip(counts) {
                    *w = f64::from(c);
                }
            }
        }
    }
}
