//! Building a [`RatingTable`] from raw ratings: interning items, annotators and labels,
//! putting categories in order, and turning set labels into distinct-set values.

use super::table::{CategoryOrder, RatingTable, SetLabels, TableError, Units};
use super::{Label, Rating};
use crate::key_hash::KeyMap;
use std::collections::{BTreeMap, HashMap};

/// Which candidates each item offers when labels are sets.
pub(crate) enum Candidates<'a> {
    Seen,
    Everywhere(&'a [String]),
    PerItem(&'a BTreeMap<String, Vec<String>>),
}

impl<'a> Candidates<'a> {
    pub(crate) fn from_list(list: Option<&'a [String]>) -> Candidates<'a> {
        list.map_or(Candidates::Seen, Candidates::Everywhere)
    }
}

/// Interns names in first-seen order.
#[derive(Default)]
pub(super) struct Interner<'a> {
    pub index: KeyMap<&'a str, u32>,
    pub names: Vec<&'a str>,
    /// The last name asked for: ratings usually come grouped by item, so most lookups
    /// repeat it.
    last: Option<(&'a str, u32)>,
}

impl<'a> Interner<'a> {
    /// Room for `names` names: grown by doubling, the table was rebuilt in fresh memory
    /// again and again.
    pub fn with_capacity(names: usize) -> Interner<'a> {
        Interner {
            index: HashMap::with_capacity_and_hasher(names, Default::default()),
            names: Vec::with_capacity(names),
            last: None,
        }
    }

    pub fn id(&mut self, name: &'a str) -> u32 {
        if let Some((last, id)) = self.last {
            if last == name {
                return id;
            }
        }
        let next = self.names.len() as u32;
        let id = *self.index.entry(name).or_insert(next);
        if id == next {
            self.names.push(name);
        }
        self.last = Some((name, id));
        id
    }
}

/// Indices that put `names` in sorted order: `rank[old] = new`.
pub(super) fn ranks(order: &[usize]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old] = new as u32;
    }
    rank
}

fn parse_number(label: &str) -> Option<f64> {
    label.parse::<f64>().ok().filter(|x| x.is_finite())
}

impl RatingTable {
    /// `categories` gives the category order (and the number of possible categories);
    /// `candidates` the candidate ids every item offers when labels are sets (else each
    /// item's candidates are those anyone selected on it). Missing labels are not ratings.
    pub fn new(
        ratings: &[Rating],
        categories: Option<&[String]>,
        candidates: Option<&[String]>,
    ) -> Result<RatingTable, TableError> {
        build(ratings, categories, Candidates::from_list(candidates))
    }

    /// As [`RatingTable::new`], with each item's own candidate list for set labels; items
    /// not in the map offer the candidates anyone selected on them.
    pub fn with_item_candidates(
        ratings: &[Rating],
        categories: Option<&[String]>,
        item_candidates: &BTreeMap<String, Vec<String>>,
    ) -> Result<RatingTable, TableError> {
        build(ratings, categories, Candidates::PerItem(item_candidates))
    }
}

pub(crate) fn build(
    ratings: &[Rating],
    categories: Option<&[String]>,
    candidates: Candidates<'_>,
) -> Result<RatingTable, TableError> {
    let has_category = ratings
        .iter()
        .any(|r| matches!(r.label, Label::Category(_)));
    let has_set = ratings.iter().any(|r| matches!(r.label, Label::Set(_)));
    if has_category && has_set {
        return Err(TableError::MixedLabelKinds);
    }
    let mut items = Interner::with_capacity(ratings.len());
    let mut annotators = Interner::default();
    let ids: Vec<(u32, u32)> = ratings
        .iter()
        .map(|r| (items.id(&r.item), annotators.id(&r.annotator)))
        .collect();
    if has_set {
        return super::build_sets::from_ratings(
            ratings,
            &ids,
            &items,
            &annotators.names,
            candidates,
        );
    }
    let labelled = label_categories(ratings, categories)?;
    assemble(
        items.names.iter().map(|s| s.to_string()).collect(),
        &annotators.names,
        &ids,
        labelled,
    )
}

/// The table from interned ratings: `items` and `annotators` in the order the ratings'
/// indices name them (annotators are then sorted by name), one entry of `ids` and of
/// `labelled.value_of_rating` per rating.
pub(super) fn assemble(
    items: Vec<String>,
    annotators: &[&str],
    ids: &[(u32, u32)],
    labelled: Labelled,
) -> Result<RatingTable, TableError> {
    let mut annotator_order: Vec<usize> = (0..annotators.len()).collect();
    annotator_order.sort_by_key(|&i| annotators[i]);
    let annotator_rank = ranks(&annotator_order);
    let mut triples: Vec<(u32, u32, u32)> = Vec::with_capacity(ids.len());
    for (&(item, annotator), value) in ids.iter().zip(&labelled.value_of_rating) {
        if let Some(value) = value {
            let annotator = annotator_rank[annotator as usize];
            triples.push((item, annotator, *value));
        }
    }
    triples.sort_unstable();
    let mut kept: Vec<(u32, u32, u32)> = Vec::with_capacity(triples.len());
    for triple in triples {
        match kept.last() {
            Some(last) if (last.0, last.1) == (triple.0, triple.1) => {
                if last.2 != triple.2 {
                    return Err(TableError::ConflictingRatings {
                        item: items[triple.0 as usize].clone(),
                        annotator: annotator_order
                            .get(triple.1 as usize)
                            .map(|&i| annotators[i].to_string())
                            .unwrap_or_default(),
                    });
                }
            }
            _ => kept.push(triple),
        }
    }
    let value_count = labelled.categories.len();
    let unit_count = items.len();
    Ok(RatingTable {
        items,
        annotators: annotator_order
            .iter()
            .map(|&i| annotators[i].to_string())
            .collect(),
        categories: labelled.categories,
        order: labelled.order,
        numbers: labelled.numbers,
        units: Units::from_sorted(unit_count, &kept, value_count),
        sets: labelled.sets,
    })
}

pub(super) struct Labelled {
    pub value_of_rating: Vec<Option<u32>>,
    pub categories: Vec<String>,
    pub order: CategoryOrder,
    pub numbers: Result<Vec<f64>, String>,
    pub sets: Option<SetLabels>,
}

fn label_categories(ratings: &[Rating], given: Option<&[String]>) -> Result<Labelled, TableError> {
    let mut seen = Interner::default();
    let raw: Vec<Option<u32>> = ratings
        .iter()
        .map(|r| match &r.label {
            Label::Category(name) => Some(seen.id(name)),
            Label::Missing | Label::Set(_) => None,
        })
        .collect();
    let (categories, order, rank) = match given {
        Some(list) => {
            let mut position: HashMap<&str, u32> = HashMap::with_capacity(list.len());
            for (i, name) in list.iter().enumerate() {
                if position.insert(name, i as u32).is_some() {
                    return Err(TableError::DuplicateCategory(name.clone()));
                }
            }
            let rank = seen
                .names
                .iter()
                .map(|name| {
                    position
                        .get(name)
                        .copied()
                        .ok_or_else(|| TableError::UnknownCategory(name.to_string()))
                })
                .collect::<Result<Vec<u32>, _>>()?;
            (list.to_vec(), CategoryOrder::Given, rank)
        }
        None => {
            let numbers: Option<Vec<f64>> = seen.names.iter().map(|n| parse_number(n)).collect();
            let mut order: Vec<usize> = (0..seen.names.len()).collect();
            let kind = match &numbers {
                Some(values) => {
                    order.sort_by(|&a, &b| {
                        values[a]
                            .total_cmp(&values[b])
                            .then_with(|| seen.names[a].cmp(seen.names[b]))
                    });
                    CategoryOrder::Numeric
                }
                None => {
                    order.sort_by_key(|&i| seen.names[i]);
                    CategoryOrder::Unordered
                }
            };
            let names = order.iter().map(|&i| seen.names[i].to_string()).collect();
            (names, kind, ranks(&order))
        }
    };
    let numbers = categories
        .iter()
        .map(|name| parse_number(name).ok_or_else(|| format!("label {name:?} is not a number")))
        .collect();
    Ok(Labelled {
        value_of_rating: raw
            .into_iter()
            .map(|v| v.map(|v| rank[v as usize]))
            .collect(),
        categories,
        order,
        numbers,
        sets: None,
    })
}
