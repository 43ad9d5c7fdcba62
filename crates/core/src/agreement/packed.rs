//! Item profiles packed for the bootstrap of set labels.
//!
//! With set labels nearly every item is a profile of its own (its selected sets are ids of
//! its own candidates), so a replicate walks about as many profiles, and values, as there
//! are items. What a profile adds to the sums depends only on its weight and its shape:
//! its pair agreement, unanimity, size and alpha columns, and for each of its values how
//! many ratings the value has and whether the value is the profile's own (private) or met
//! in other profiles too (shared, such as "no evidence"). Shapes are few, so a replicate
//! reads one weight and one shape index per profile and a small table of shapes, where it
//! read eight arrays as long as the profiles and the values' totals.
//!
//! The sums are those of [`Weighted::update_counts`] and of the statistics' loops over the
//! used values, bit for bit. Sums of whole numbers (units, unanimous units, ratings, each
//! value's total and the totals' squares) are exact in f64 in any order while they stay
//! below 2⁵³, which [`Packed::new`] makes sure of, so they are summed as integers. The
//! others are added in the original order: pair agreement and the alpha columns in profile
//! order (a profile without weight adds +0.0, which leaves these sums of terms that are
//! never negative as they were, once one profile has weight, as a replicate always has), Fleiss'
//! chance agreement in the order the values were first met, MASI's similar pairs in the
//! model's order.

use super::nominal::chance_term;
use super::profiles::{PackedSums, Profiles, Weighted, MAX_COLUMNS};
use crate::key_hash::KeyMap;

/// Most values a packed profile has; more, and the population is not packed.
const MAX_SLOTS: usize = 4;
/// A slot code at or above this is shared value (code − SHARED); below, a private value's
/// ratings in the profile (0 for an unused slot).
const SHARED: u32 = 1 << 31;
/// Fleiss' chance terms are looked up in a per-replicate table for totals up to this.
const TERMS: u64 = 1 << 16;
/// No profile yet.
const NONE: u32 = u32::MAX;

/// What a profile adds per unit of weight.
#[derive(Debug, Clone, Copy)]
struct Shape {
    pair_agreement: f64,
    columns: [f64; MAX_COLUMNS],
    unanimous: u64,
    size: u64,
    /// Σ over private values of their ratings²: the profile's share of Σ total², per w².
    private_squares: u64,
    /// Its values in profile order (see `SHARED`).
    slots: [u32; MAX_SLOTS],
    /// `slots` with the shared values as unused slots: what a profile that is no shared
    /// value's first adds to the used values.
    private: [u32; MAX_SLOTS],
}

/// Where a value's total comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// In no profile: always 0.
    Absent,
    Private {
        profile: u32,
        count: u32,
    },
    Shared(u32),
}

/// A population's profiles by shape.
#[derive(Debug)]
pub(crate) struct Packed {
    shape_of: Vec<u16>,
    shapes: Vec<Shape>,
    /// Slots in use by the widest shape.
    stride: usize,
    /// Ratings of the commonest private value of any profile.
    most_private: u64,
    /// (profile, shared value, its ratings in the profile), in profile order.
    memberships: Vec<(u32, u32, u32)>,
    shared: usize,
    /// Each column's address, as [`Weighted::sum_of`] looks sums up.
    columns: Vec<usize>,
    /// The MASI model's similar pairs, by where their totals come from.
    similar: Option<Vec<(Source, Source, f64)>>,
}

/// What [`Packed::walk`] sums.
struct Walked {
    units: u64,
    unanimous: u64,
    ratings: u64,
    squares: u64,
    heaviest: u32,
    agreement: f64,
    sums: [f64; MAX_COLUMNS],
    found: usize,
}

/// One worker's buffers, reused across replicates.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    used: Vec<u32>,
    shared_totals: Vec<u64>,
    /// Per shared value: the first profile with weight that holds it.
    first: Vec<u32>,
    terms: Vec<f64>,
    shared_terms: Vec<f64>,
    /// The profiles that are some shared value's first, in order.
    firsts: Vec<u32>,
}

/// Whether the profiles' sums stay exact when packed: few enough columns of the right
/// length, no negative (or −0.0) pair agreement or column value (every term added to a
/// sum started at +0.0 is then +0.0 or more, so a profile without weight leaves each sum
/// as it was), and few enough ratings that the sums of squares stay below 2⁵³.
fn packable(profiles: &Profiles, columns: &[&[f64]]) -> bool {
    if columns.len() > MAX_COLUMNS || columns.iter().any(|c| c.len() != profiles.len()) {
        return false;
    }
    let non_negative = |x: &f64| x.is_sign_positive() && !x.is_nan();
    if !profiles.pair_agreement.iter().all(non_negative)
        || !columns.iter().all(|c| c.iter().all(non_negative))
    {
        return false;
    }
    let items: f64 = profiles.multiplicity.iter().sum();
    let widest = profiles.sizes.iter().copied().fold(0.0, f64::max);
    // A replicate draws `items` items of at most `widest` ratings each.
    let most_ratings = items * widest;
    most_ratings * most_ratings < 2f64.powi(53) && most_ratings < f64::from(SHARED)
}

/// Per value: how many profiles hold it; and the first profile holding it, with its count.
type Holders = (Vec<u32>, Vec<(u32, u32)>);

/// Per value: how many profiles hold it, and the first one with its count; `None` when a
/// profile has more than [`MAX_SLOTS`] values.
fn value_holders(profiles: &Profiles) -> Option<Holders> {
    let mut holders = vec![0u32; profiles.value_count];
    let mut first = vec![(0u32, 0u32); profiles.value_count];
    for k in 0..profiles.len() {
        let (values, counts) = profiles.slices(k);
        if values.len() > MAX_SLOTS {
            return None;
        }
        for (&value, &count) in values.iter().zip(counts) {
            let v = value as usize;
            if holders[v] == 0 {
                first[v] = (k as u32, count as u32);
            }
            holders[v] = holders[v].saturating_add(1);
        }
    }
    Some((holders, first))
}

/// The profiles' distinct shapes and which shape each profile has.
struct ShapeTable {
    shape_of: Vec<u16>,
    shapes: Vec<Shape>,
    memberships: Vec<(u32, u32, u32)>,
    stride: usize,
    most_private: u64,
}

impl ShapeTable {
    /// `None` when there are more than 2¹⁶ shapes.
    fn new(profiles: &Profiles, columns: &[&[f64]], shared_index: &[u32]) -> Option<Self> {
        type Key = (u64, [u64; MAX_COLUMNS], u64, u64, [u32; MAX_SLOTS]);
        let mut index: KeyMap<Key, u16> = KeyMap::default();
        let mut table = ShapeTable {
            shape_of: Vec::with_capacity(profiles.len()),
            shapes: Vec::new(),
            memberships: Vec::new(),
            stride: 1,
            most_private: 0,
        };
        for k in 0..profiles.len() {
            let shape = table.shape(profiles, columns, shared_index, k);
            let key = (
                shape.pair_agreement.to_bits(),
                shape.columns.map(f64::to_bits),
                shape.unanimous,
                shape.size,
                shape.slots,
            );
            let s = match index.get(&key) {
                Some(&s) => s,
                None => {
                    let s = u16::try_from(table.shapes.len()).ok()?;
                    index.insert(key, s);
                    table.shapes.push(shape);
                    s
                }
            };
            table.shape_of.push(s);
        }
        Some(table)
    }

    /// Profile `k`'s shape: a shared value's slot names it (`SHARED | index`, its count
    /// recorded in `memberships`), a private one holds its count.
    fn shape(
        &mut self,
        profiles: &Profiles,
        columns: &[&[f64]],
        shared_index: &[u32],
        k: usize,
    ) -> Shape {
        let (values, counts) = profiles.slices(k);
        let mut slots = [0u32; MAX_SLOTS];
        let mut private_squares = 0u64;
        for (slot, (&value, &count)) in slots.iter_mut().zip(values.iter().zip(counts)) {
            let count = count as u32;
            *slot = match shared_index[value as usize] {
                NONE => {
                    private_squares += u64::from(count) * u64::from(count);
                    self.most_private = self.most_private.max(u64::from(count));
                    count
                }
                h => {
                    self.memberships.push((k as u32, h, count));
                    SHARED | h
                }
            };
        }
        self.stride = self.stride.max(values.len());
        let mut column_values = [0.0; MAX_COLUMNS];
        for (x, column) in column_values.iter_mut().zip(columns) {
            *x = column[k];
        }
        Shape {
            pair_agreement: profiles.pair_agreement[k],
            columns: column_values,
            unanimous: profiles.unanimous[k] as u64,
            size: profiles.sizes[k] as u64,
            private_squares,
            slots,
            private: slots.map(|code| if code >= SHARED { 0 } else { code }),
        }
    }
}

impl Packed {
    /// `columns` as handed to [`Weighted::update_with`]; `similar` the MASI model's pairs
    /// when MASI alpha is among the statistics. `None` when the profiles do not pack:
    /// more than [`MAX_SLOTS`] values in a profile, more than 2¹⁶ shapes, too many
    /// columns, a negative (or −0.0) pair agreement or column value, or so many ratings
    /// that the sums of squares could pass 2⁵³.
    pub fn new(
        profiles: &Profiles,
        columns: &[&[f64]],
        similar: Option<&[(u32, u32, f64)]>,
    ) -> Option<Packed> {
        if !packable(profiles, columns) {
            return None;
        }
        let (holders, first) = value_holders(profiles)?;
        let mut shared_index = vec![NONE; profiles.value_count];
        let mut shared = 0u32;
        for (index, &held) in shared_index.iter_mut().zip(&holders) {
            if held > 1 {
                *index = shared;
                shared += 1;
            }
        }
        let table = ShapeTable::new(profiles, columns, &shared_index)?;
        let source = |value: u32| match holders[value as usize] {
            0 => Source::Absent,
            1 => Source::Private {
                profile: first[value as usize].0,
                count: first[value as usize].1,
            },
            _ => Source::Shared(shared_index[value as usize]),
        };
        Some(Packed {
            shape_of: table.shape_of,
            shapes: table.shapes,
            stride: table.stride,
            most_private: table.most_private,
            memberships: table.memberships,
            shared: shared as usize,
            columns: columns.iter().map(|c| c.as_ptr() as usize).collect(),
            similar: similar.map(|pairs| {
                pairs
                    .iter()
                    .map(|&(a, b, s)| (source(a), source(b), s))
                    .collect()
            }),
        })
    }

    /// Buffers for [`Packed::update`].
    pub fn scratch(&self) -> Scratch {
        Scratch {
            used: vec![0; self.shape_of.len() * self.stride],
            shared_totals: vec![0; self.shared],
            first: vec![NONE; self.shared],
            terms: Vec::new(),
            shared_terms: Vec::new(),
            firsts: Vec::new(),
        }
    }

    /// Sets `weighted`'s sums for profile weights `counts` (one per profile), as
    /// [`Weighted::update_counts`] with these columns followed by the statistics' loops
    /// over the used values would; `weighted`'s weights and totals are left unfilled.
    pub fn update(&self, counts: &[u32], weighted: &mut Weighted, scratch: &mut Scratch) {
        weighted.clear_totals();
        let Scratch {
            used,
            shared_totals,
            first,
            terms,
            shared_terms,
            firsts,
        } = scratch;
        // Shared values: their totals, and where each is first met.
        shared_totals.fill(0);
        first.fill(NONE);
        for &(k, h, count) in &self.memberships {
            let w = counts[k as usize];
            shared_totals[h as usize] += u64::from(w) * u64::from(count);
            if w != 0 && first[h as usize] == NONE {
                first[h as usize] = k;
            }
        }
        firsts.clear();
        firsts.extend(first.iter().copied().filter(|&k| k != NONE));
        firsts.sort_unstable();
        firsts.dedup();
        firsts.push(NONE);
        let walked = match self.stride {
            1 => self.walk::<1>(counts, first, firsts, used),
            2 => self.walk::<2>(counts, first, firsts, used),
            3 => self.walk::<3>(counts, first, firsts, used),
            _ => self.walk::<MAX_SLOTS>(counts, first, firsts, used),
        };
        let Walked {
            units,
            unanimous,
            ratings,
            mut squares,
            heaviest,
            agreement,
            sums,
            found,
        } = walked;
        for &total in shared_totals.iter() {
            squares += total * total;
        }
        let ratings = ratings as f64;
        let top = (u64::from(heaviest) * self.most_private).min(TERMS);
        terms.clear();
        terms.extend((0..=top).map(|t| chance_term(t as f64, ratings)));
        shared_terms.clear();
        shared_terms.extend(
            shared_totals
                .iter()
                .map(|&t| chance_term(t as f64, ratings)),
        );
        let chance: f64 = used[..found]
            .iter()
            .map(|&entry| {
                if entry >= SHARED {
                    shared_terms[(entry - SHARED) as usize]
                } else {
                    match terms.get(entry as usize) {
                        Some(&term) => term,
                        None => chance_term(f64::from(entry), ratings),
                    }
                }
            })
            .sum();
        let total_of = |source: Source| match source {
            Source::Absent => 0.0,
            Source::Private { profile, count } => {
                (u64::from(counts[profile as usize]) * u64::from(count)) as f64
            }
            Source::Shared(h) => shared_totals[h as usize] as f64,
        };
        let similar = self.similar.as_ref().map(|pairs| {
            pairs
                .iter()
                .map(|&(a, b, s)| total_of(a) * total_of(b) * s)
                .sum::<f64>()
        });
        weighted.units = units as f64;
        weighted.agreement = agreement;
        weighted.unanimous = unanimous as f64;
        weighted.ratings = ratings;
        weighted.sums.clear();
        weighted.sums.extend(self.columns.iter().copied().zip(sums));
        weighted.packed = Some(PackedSums {
            distinct: found,
            chance,
            squares: squares as f64,
            similar,
        });
    }

    /// The pass over the profiles, for shapes of `STRIDE` slots: every sum but those of
    /// the used values' totals, and the used values in the order first met (a private
    /// value's total, or a shared value's code) in `used`.
    fn walk<const STRIDE: usize>(
        &self,
        counts: &[u32],
        first: &[u32],
        firsts: &[u32],
        used: &mut [u32],
    ) -> Walked {
        let mut out = Walked {
            units: 0,
            unanimous: 0,
            ratings: 0,
            squares: 0,
            heaviest: 0,
            agreement: 0.0,
            sums: [0.0; MAX_COLUMNS],
            found: 0,
        };
        let mut firsts = firsts.iter().copied();
        let mut next_first = firsts.next().unwrap_or(NONE);
        let mut found = 0usize;
        for (k, (&w, &shape)) in counts.iter().zip(&self.shape_of).enumerate() {
            let shape = &self.shapes[usize::from(shape)];
            let weight = f64::from(w);
            let w64 = u64::from(w);
            out.units += w64;
            out.unanimous += w64 * shape.unanimous;
            out.ratings += w64 * shape.size;
            out.squares += w64 * w64 * shape.private_squares;
            out.heaviest = out.heaviest.max(w);
            out.agreement += weight * shape.pair_agreement;
            for (sum, &x) in out.sums.iter_mut().zip(&shape.columns) {
                *sum += weight * x;
            }
            if k as u32 != next_first {
                // Written at `found` and kept by moving past it.
                for &count in &shape.private[..STRIDE] {
                    let total = w * count;
                    if let Some(place) = used.get_mut(found) {
                        *place = total;
                    }
                    found += usize::from(total != 0);
                }
                continue;
            }
            next_first = firsts.next().unwrap_or(NONE);
            for &code in &shape.slots[..STRIDE] {
                let entry = if code >= SHARED {
                    (first[(code - SHARED) as usize] == k as u32).then_some(code)
                } else {
                    (w * code != 0).then_some(w * code)
                };
                if let Some(entry) = entry {
                    used[found] = entry;
                    found += 1;
                }
            }
        }
        out.found = found;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::alpha::{Alpha, Distance};
    use super::super::nominal::{fleiss_kappa, percent_agreement, unanimous_share};
    use super::super::sets::MasiModel;
    use super::super::{Label, Rating, RatingTable};
    use super::*;
    use crate::seeded::Seeded;

    /// Set labels with private sets, sets shared by many items ("no evidence", and ids
    /// shared between items), items with 2, 3 and 4 ratings and a few with 1.
    fn table(seed: u64) -> RatingTable {
        let mut rng = Seeded::new(seed);
        let mut ratings = Vec::new();
        for item in 0..400 {
            let raters = [1, 2, 3, 3, 3, 4][item % 6];
            for annotator in ["a", "b", "c", "d"].iter().take(raters) {
                let shared = rng.below(4) == 0;
                let picked: Vec<String> = (0..3)
                    .filter(|_| rng.below(3) == 0)
                    .map(|c| {
                        if shared {
                            format!("s{c}")
                        } else {
                            format!("{item}-{c}")
                        }
                    })
                    .collect();
                ratings.push(Rating {
                    item: format!("i{item}"),
                    annotator: (*annotator).to_string(),
                    label: Label::Set(picked),
                });
            }
        }
        RatingTable::new(&ratings, None, None).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Every statistic from a packed replicate equals, bit for bit, the same statistic
    /// after `update_with` over the same weights.
    #[test]
    fn packed_replicates_give_the_very_statistics_of_unpacked_ones() {
        for seed in 0..4 {
            let table = table(seed);
            let sets = table.sets.as_ref().unwrap_or_else(|| panic!("set labels"));
            let profiles = Profiles::new(&table.units);
            let model = MasiModel::new(sets);
            let nominal = Alpha::new(&profiles, Distance::Nominal);
            let masi = Alpha::new(&profiles, Distance::Masi(&model));
            let columns: Vec<&[f64]> = [nominal.observed(), masi.observed()]
                .into_iter()
                .flatten()
                .collect();
            let packed = Packed::new(&profiles, &columns, Some(model.similar()))
                .unwrap_or_else(|| panic!("packs"));
            assert!(packed.shared > 0 && packed.stride > 1);
            let mut scratch = packed.scratch();
            let mut plain = Weighted::new(&profiles);
            let mut fast = Weighted::new(&profiles);
            let mut rng = Seeded::new(seed + 100);
            for replicate in 0..300 {
                // Sparse and dense weights, some replicates with most profiles left out.
                let zero_share = [2, 3, 10][replicate % 3];
                let counts: Vec<u32> = (0..profiles.len())
                    .map(|_| {
                        if rng.below(zero_share) == 0 {
                            0
                        } else {
                            rng.below(5) as u32
                        }
                    })
                    .collect();
                plain.update_counts(&profiles, &counts, &columns);
                packed.update(&counts, &mut fast, &mut scratch);
                let bits = |o: Result<f64, String>| o.map(f64::to_bits);
                assert_eq!(fast.distinct(), plain.used.len());
                assert_eq!(
                    bits(fleiss_kappa(&fast)),
                    bits(fleiss_kappa(&plain)),
                    "seed {seed} replicate {replicate}"
                );
                assert_eq!(
                    bits(percent_agreement(&fast)),
                    bits(percent_agreement(&plain))
                );
                assert_eq!(bits(unanimous_share(&fast)), bits(unanimous_share(&plain)));
                for alpha in [&nominal, &masi] {
                    assert_eq!(
                        bits(alpha.evaluate(&profiles, &fast)),
                        bits(alpha.evaluate(&profiles, &plain)),
                        "seed {seed} replicate {replicate}"
                    );
                }
            }
        }
    }

    #[test]
    fn profiles_with_too_many_values_do_not_pack() {
        let ratings: Vec<Rating> = ["a", "b", "c", "d", "e"]
            .iter()
            .enumerate()
            .map(|(i, annotator)| Rating {
                item: "x".to_string(),
                annotator: (*annotator).to_string(),
                label: Label::Set(vec![format!("c{i}")]),
            })
            .collect();
        let table = RatingTable::new(&ratings, None, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(Packed::new(&Profiles::new(&table.units), &[], None).is_none());
    }
}
