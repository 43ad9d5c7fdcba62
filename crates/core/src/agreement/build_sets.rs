//! Set labels (evidence selection) into a [`RatingTable`]: each distinct selected set
//! becomes a value, each item keeps the candidates it offered. Ratings come either as
//! names (`RatingTable::new` and its kin) or already as indices ([`IndexedSets`], for a
//! caller that holds ids and would otherwise write them out as text only for them to be
//! interned again); both go through [`finish`], so the tables are the same.

use super::build::{assemble, ranks, Candidates, Interner, Labelled};
use super::table::{CategoryOrder, RatingTable, SetLabels, TableError};
use super::{Label, Rating};
use crate::key_hash::KeyMap;

/// Set-label ratings as indices into the lists of a [`SetNames`].
#[derive(Debug, Clone, Default)]
pub struct IndexedSets {
    /// Per rating: item and annotator.
    ids: Vec<(u32, u32)>,
    /// Per rating: where its selection lies in `selected`, or `None` for a missing label.
    spans: Vec<Option<(usize, usize)>>,
    selected: Vec<u32>,
}

impl IndexedSets {
    /// Room for `ratings` ratings selecting `selected` candidates in all.
    pub fn with_capacity(ratings: usize, selected: usize) -> IndexedSets {
        IndexedSets {
            ids: Vec::with_capacity(ratings),
            spans: Vec::with_capacity(ratings),
            selected: Vec::with_capacity(selected),
        }
    }

    /// A rating: `annotator` selected `selected` (empty: "no evidence") on `item`.
    pub fn push(&mut self, item: u32, annotator: u32, selected: impl IntoIterator<Item = u32>) {
        let start = self.selected.len();
        self.selected.extend(selected);
        self.ids.push((item, annotator));
        self.spans.push(Some((start, self.selected.len())));
    }

    /// An annotator who saw `item` but gave no usable label: not a rating, but the item
    /// and the annotator are in the table.
    pub fn push_missing(&mut self, item: u32, annotator: u32) {
        self.ids.push((item, annotator));
        self.spans.push(None);
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// The names behind an [`IndexedSets`]' indices.
pub struct SetNames<'a> {
    /// Item names, in the table's unit order. The table `RatingTable::new` builds from
    /// the same ratings as names has the items in the order they are first rated.
    pub items: Vec<String>,
    /// Annotator names, each once (the table sorts them by name).
    pub annotators: Vec<String>,
    /// How many candidates the indices of selections and offers range over.
    pub candidate_count: usize,
    /// A candidate's name, for the sets' display names and errors.
    pub candidate_name: &'a dyn Fn(u32) -> String,
    /// Per item, the candidates it offered; `None`: those anyone selected on it.
    pub offered: Vec<Option<Vec<u32>>>,
}

impl std::fmt::Debug for SetNames<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetNames")
            .field("items", &self.items)
            .field("annotators", &self.annotators)
            .field("candidate_count", &self.candidate_count)
            .field("offered", &self.offered)
            .finish_non_exhaustive()
    }
}

impl RatingTable {
    /// The table of set labels given as indices: the same table as
    /// [`RatingTable::with_item_candidates`] builds from these ratings written as names,
    /// when the candidate indices follow the order in which that would intern the
    /// candidate names (each listed item's candidates in the order of the map, then the
    /// selections in rating order).
    pub fn from_indexed_sets(
        ratings: &IndexedSets,
        names: SetNames<'_>,
    ) -> Result<RatingTable, TableError> {
        let malformed = |what: String| Err(TableError::Malformed(what));
        if names.offered.len() != names.items.len() {
            return malformed(format!(
                "{} items but {} candidate lists",
                names.items.len(),
                names.offered.len()
            ));
        }
        if let Some(&(item, annotator)) = ratings.ids.iter().find(|&&(item, annotator)| {
            item as usize >= names.items.len() || annotator as usize >= names.annotators.len()
        }) {
            return malformed(format!(
                "a rating of item {item} by annotator {annotator}, beyond the names given"
            ));
        }
        let candidates = names.candidate_count;
        let beyond = |list: &[u32]| list.iter().find(|&&c| c as usize >= candidates).copied();
        if let Some(c) = beyond(&ratings.selected)
            .or_else(|| names.offered.iter().flatten().find_map(|list| beyond(list)))
        {
            return malformed(format!("candidate {c} of {candidates}"));
        }
        let mut sorted: Vec<&str> = names.annotators.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return malformed(format!("annotator {:?} named twice", pair[0]));
        }
        let annotators: Vec<&str> = names.annotators.iter().map(String::as_str).collect();
        finish(
            names.items,
            &annotators,
            ratings,
            candidates,
            names.candidate_name,
            names.offered,
        )
    }
}

/// Set labels given as names: interns the candidates (those `candidates` lists first, in
/// its order, then those selected, in rating order) and finishes the table.
pub(super) fn from_ratings(
    ratings: &[Rating],
    ids: &[(u32, u32)],
    items: &Interner<'_>,
    annotators: &[&str],
    candidates: Candidates<'_>,
) -> Result<RatingTable, TableError> {
    let listed = match candidates {
        Candidates::Everywhere(list) => list.len(),
        Candidates::PerItem(map) => map.values().map(Vec::len).sum(),
        Candidates::Seen => 0,
    };
    let mut vocabulary = Interner::with_capacity(listed);
    if let Candidates::Everywhere(list) = candidates {
        for name in list {
            vocabulary.id(name);
        }
    }
    if let Candidates::PerItem(map) = candidates {
        for name in map.values().flatten() {
            vocabulary.id(name);
        }
    }
    let fixed_vocabulary = matches!(candidates, Candidates::Everywhere(_));
    let selections: usize = ratings
        .iter()
        .map(|r| match &r.label {
            Label::Set(selected) => selected.len(),
            Label::Missing | Label::Category(_) => 0,
        })
        .sum();
    let mut indexed = IndexedSets::with_capacity(ratings.len(), selections);
    for (rating, &(item, annotator)) in ratings.iter().zip(ids) {
        let Label::Set(selected) = &rating.label else {
            indexed.push_missing(item, annotator);
            continue;
        };
        let start = indexed.selected.len();
        for name in selected {
            if fixed_vocabulary && !vocabulary.index.contains_key(name.as_str()) {
                return Err(TableError::UnknownCandidate {
                    item: rating.item.clone(),
                    candidate: name.clone(),
                });
            }
            let id = vocabulary.id(name);
            indexed.selected.push(id);
        }
        indexed.ids.push((item, annotator));
        indexed.spans.push(Some((start, indexed.selected.len())));
    }
    let offered: Vec<Option<Vec<u32>>> = match candidates {
        Candidates::Everywhere(_) => {
            let all: Vec<u32> = (0..vocabulary.names.len() as u32).collect();
            vec![Some(all); items.names.len()]
        }
        Candidates::PerItem(map) => items
            .names
            .iter()
            .map(|item| {
                map.get(*item)
                    .map(|list| list.iter().map(|n| vocabulary.index[n.as_str()]).collect())
            })
            .collect(),
        Candidates::Seen => vec![None; items.names.len()],
    };
    let names = &vocabulary.names;
    finish(
        items.names.iter().map(|s| s.to_string()).collect(),
        annotators,
        &indexed,
        names.len(),
        &|c| names[c as usize].to_string(),
        offered,
    )
}

/// The table from interned set labels: one value per distinct selected set, ordered by
/// the first item it was given on, then by its display name.
fn finish(
    items: Vec<String>,
    annotators: &[&str],
    ratings: &IndexedSets,
    candidate_count: usize,
    candidate_name: &dyn Fn(u32) -> String,
    mut offered: Vec<Option<Vec<u32>>>,
) -> Result<RatingTable, TableError> {
    let mut distinct: KeyMap<Vec<u32>, u32> = KeyMap::default();
    let mut first_unit: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut value_of_rating = Vec::with_capacity(ratings.len());
    let mut selected_on_unit: Vec<Vec<u32>> = vec![Vec::new(); items.len()];
    let mut set: Vec<u32> = Vec::new();
    for (&(item, _), span) in ratings.ids.iter().zip(&ratings.spans) {
        let Some((start, end)) = *span else {
            value_of_rating.push(None);
            continue;
        };
        set.clear();
        set.extend_from_slice(&ratings.selected[start..end]);
        set.sort_unstable();
        set.dedup();
        let unit = item as usize;
        selected_on_unit[unit].extend_from_slice(&set);
        let value = match distinct.get(set.as_slice()) {
            Some(&value) => value,
            None => {
                let value = members.len() as u32;
                members.push(set.clone());
                first_unit.push(unit as u32);
                distinct.insert(set.clone(), value);
                value
            }
        };
        first_unit[value as usize] = first_unit[value as usize].min(unit as u32);
        value_of_rating.push(Some(value));
    }
    let mut unit_candidates = Vec::with_capacity(items.len());
    for (unit, item) in items.iter().enumerate() {
        let mut list = offered[unit]
            .take()
            .unwrap_or_else(|| selected_on_unit[unit].clone());
        list.sort_unstable();
        list.dedup();
        if let Some(&outside) = selected_on_unit[unit]
            .iter()
            .find(|c| list.binary_search(c).is_err())
        {
            return Err(TableError::UnknownCandidate {
                item: item.clone(),
                candidate: candidate_name(outside),
            });
        }
        unit_candidates.push(list);
    }
    let display: Vec<String> = members
        .iter()
        .map(|set| {
            let names: Vec<String> = set.iter().map(|&c| candidate_name(c)).collect();
            serde_json::to_string(&names).unwrap_or_default()
        })
        .collect();
    let mut order: Vec<usize> = (0..members.len()).collect();
    // By first item, so that the sets of one item have neighbouring indices and the
    // per-value sums over items walk memory in order (this matters with ~10⁵ sets).
    order.sort_by(|&a, &b| (first_unit[a], &display[a]).cmp(&(first_unit[b], &display[b])));
    let rank = ranks(&order);
    let labelled = Labelled {
        value_of_rating: value_of_rating
            .into_iter()
            .map(|v| v.map(|v| rank[v as usize]))
            .collect(),
        categories: order.iter().map(|&i| display[i].clone()).collect(),
        order: CategoryOrder::Unordered,
        numbers: Err("set labels are not numbers".to_string()),
        sets: Some(SetLabels {
            candidate_count,
            members: order.iter().map(|&i| members[i].clone()).collect(),
            unit_candidates,
        }),
    };
    assemble(items, annotators, &ratings.ids, labelled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agreement::{compute_all, AgreementOptions};
    use crate::seeded::Seeded;
    use std::collections::BTreeMap;

    /// Random set ratings on items whose names sort otherwise than they are first rated
    /// ("task-10" before "task-9"), some items without a candidate list, repeated and
    /// duplicate selections, missing labels; and the same ratings as indices, interned
    /// as `from_ratings` interns the names.
    fn both_ways(
        seed: u64,
        outside: bool,
    ) -> (Vec<Rating>, BTreeMap<String, Vec<String>>, Indexed) {
        let mut rng = Seeded::new(seed);
        let item_ids: Vec<u64> = (0..25).map(|i| 25 - i + rng.below(3) * 100).collect();
        let candidates_of = |item: u64| -> Vec<String> {
            (0..1 + item % 5)
                .map(|c| (item * 10 + c).to_string())
                .collect()
        };
        let mut ratings = Vec::new();
        for _ in 0..120 {
            let item = item_ids[rng.below(item_ids.len() as u64) as usize];
            let annotator = ["ben", "ana", "caro", "dan"][rng.below(4) as usize];
            let offered = candidates_of(item);
            let label = match rng.below(12) {
                0 => Label::Missing,
                _ => Label::Set(
                    offered
                        .iter()
                        .chain(&offered)
                        .filter(|_| rng.below(3) == 0)
                        .cloned()
                        .collect(),
                ),
            };
            ratings.push(Rating {
                item: format!("task-{item}"),
                annotator: annotator.to_string(),
                label,
            });
        }
        // Keep one label per (item, annotator): the first.
        let mut seen = std::collections::HashSet::new();
        ratings.retain(|r| seen.insert((r.item.clone(), r.annotator.clone())));
        if outside {
            if let Some(Label::Set(set)) = ratings
                .iter_mut()
                .map(|r| &mut r.label)
                .find(|l| matches!(l, Label::Set(_)))
            {
                set.push("999999".to_string());
            }
        }
        let listed: BTreeMap<String, Vec<String>> = item_ids
            .iter()
            .filter(|&&item| item % 3 != 0)
            .map(|&item| (format!("task-{item}"), candidates_of(item)))
            .collect();

        let mut items: Vec<String> = Vec::new();
        let mut annotators: Vec<String> = Vec::new();
        let index = |list: &mut Vec<String>, name: &str| match list.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                list.push(name.to_string());
                list.len() as u32 - 1
            }
        };
        let ids: Vec<(u32, u32)> = ratings
            .iter()
            .map(|r| {
                (
                    index(&mut items, &r.item),
                    index(&mut annotators, &r.annotator),
                )
            })
            .collect();
        let mut vocabulary: Vec<String> = Vec::new();
        for name in listed.values().flatten() {
            index(&mut vocabulary, name);
        }
        let mut indexed = IndexedSets::default();
        for (r, &(item, annotator)) in ratings.iter().zip(&ids) {
            match &r.label {
                Label::Set(set) => {
                    let set: Vec<u32> = set.iter().map(|n| index(&mut vocabulary, n)).collect();
                    indexed.push(item, annotator, set);
                }
                _ => indexed.push_missing(item, annotator),
            }
        }
        let offered = items
            .iter()
            .map(|item| {
                listed.get(item).map(|list| {
                    list.iter()
                        .map(|n| vocabulary.iter().position(|v| v == n).unwrap_or(0) as u32)
                        .collect()
                })
            })
            .collect();
        let indexed = Indexed {
            sets: indexed,
            items,
            annotators,
            vocabulary,
            offered,
        };
        (ratings, listed, indexed)
    }

    struct Indexed {
        sets: IndexedSets,
        items: Vec<String>,
        annotators: Vec<String>,
        vocabulary: Vec<String>,
        offered: Vec<Option<Vec<u32>>>,
    }

    impl Indexed {
        fn table(&self) -> Result<RatingTable, TableError> {
            let name = |c: u32| self.vocabulary[c as usize].clone();
            let names = SetNames {
                items: self.items.clone(),
                annotators: self.annotators.clone(),
                candidate_count: self.vocabulary.len(),
                candidate_name: &name,
                offered: self.offered.clone(),
            };
            RatingTable::from_indexed_sets(&self.sets, names)
        }
    }

    #[test]
    fn indexed_sets_make_the_table_their_names_make() {
        for seed in 0..20 {
            let (ratings, listed, indexed) = both_ways(seed, false);
            let by_names = RatingTable::with_item_candidates(&ratings, None, &listed)
                .unwrap_or_else(|e| panic!("{e}"));
            let by_indices = indexed.table().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                format!("{by_names:?}"),
                format!("{by_indices:?}"),
                "seed {seed}"
            );
            let options = AgreementOptions {
                bootstrap_reps: 50,
                seed,
            };
            assert_eq!(
                compute_all(&by_names, &options),
                compute_all(&by_indices, &options)
            );
        }
    }

    #[test]
    fn indexed_sets_refuse_what_their_names_refuse() {
        let (ratings, listed, indexed) = both_ways(3, true);
        let by_names = RatingTable::with_item_candidates(&ratings, None, &listed).err();
        assert!(by_names.is_some());
        assert_eq!(by_names, indexed.table().err());
    }

    #[test]
    fn indices_beyond_the_names_are_refused() {
        let mut sets = IndexedSets::default();
        sets.push(0, 0, [2]);
        let names = |candidate_count| SetNames {
            items: vec!["a".to_string()],
            annotators: vec!["ana".to_string()],
            candidate_count,
            candidate_name: &|c| c.to_string(),
            offered: vec![None],
        };
        assert!(RatingTable::from_indexed_sets(&sets, names(3)).is_ok());
        assert!(matches!(
            RatingTable::from_indexed_sets(&sets, names(2)),
            Err(TableError::Malformed(_))
        ));
        sets.push(1, 0, []);
        assert!(matches!(
            RatingTable::from_indexed_sets(&sets, names(3)),
            Err(TableError::Malformed(_))
        ));
    }
}
