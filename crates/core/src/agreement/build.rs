//! Building a [`RatingTable`] from raw ratings: interning items, annotators and labels,
//! putting categories in order, and turning set labels into distinct-set values.

use super::table::{CategoryOrder, RatingTable, SetLabels, TableError, Units};
use super::{Label, Rating};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

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
struct Interner<'a> {
    index: HashMap<&'a str, u32, BuildHasherDefault<NameHasher>>,
    names: Vec<&'a str>,
    /// The last name asked for: ratings usually come grouped by item, so most lookups
    /// repeat it.
    last: Option<(&'a str, u32)>,
}

impl<'a> Interner<'a> {
    /// Room for `names` names: grown by doubling, the table was rebuilt in fresh memory
    /// again and again.
    fn with_capacity(names: usize) -> Interner<'a> {
        Interner {
            index: HashMap::with_capacity_and_hasher(names, Default::default()),
            names: Vec::with_capacity(names),
            last: None,
        }
    }

    fn id(&mut self, name: &'a str) -> u32 {
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

/// A multiply-rotate hash over 8-byte words. Interning hundreds of thousands of short
/// names was a third of `factdesk agreement`'s time with the default SipHash, whose
/// resistance to crafted collisions buys nothing for a lead's own ratings file.
#[derive(Default)]
struct NameHasher(u64);

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown takes its bucket from the low ones.
        self.0 ^ (self.0 >> 29)
    }
}

/// Indices that put `names` in sorted order: `rank[old] = new`.
fn ranks(order: &[usize]) -> Vec<u32> {
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
    let mut annotator_order: Vec<usize> = (0..annotators.names.len()).collect();
    annotator_order.sort_by_key(|&i| annotators.names[i]);
    let annotator_rank = ranks(&annotator_order);

    let labelled = if has_set {
        label_sets(ratings, &items, candidates)?
    } else {
        label_categories(ratings, categories)?
    };
    let mut triples: Vec<(u32, u32, u32)> = Vec::with_capacity(ratings.len());
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
                        item: items.names[triple.0 as usize].to_string(),
                        annotator: annotator_order
                            .get(triple.1 as usize)
                            .map(|&i| annotators.names[i].to_string())
                            .unwrap_or_default(),
                    });
                }
            }
            _ => kept.push(triple),
        }
    }
    let value_count = labelled.categories.len();
    Ok(RatingTable {
        items: items.names.iter().map(|s| s.to_string()).collect(),
        annotators: annotator_order
            .iter()
            .map(|&i| annotators.names[i].to_string())
            .collect(),
        categories: labelled.categories,
        order: labelled.order,
        numbers: labelled.numbers,
        units: Units::from_sorted(items.names.len(), &kept, value_count),
        sets: labelled.sets,
    })
}

struct Labelled {
    value_of_rating: Vec<Option<u32>>,
    categories: Vec<String>,
    order: CategoryOrder,
    numbers: Result<Vec<f64>, String>,
    sets: Option<SetLabels>,
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

fn label_sets<'a>(
    ratings: &'a [Rating],
    items: &Interner<'_>,
    candidates: Candidates<'a>,
) -> Result<Labelled, TableError> {
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
    let mut distinct: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut first_unit: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut value_of_rating = Vec::with_capacity(ratings.len());
    let mut selected_on_unit: Vec<Vec<u32>> = vec![Vec::new(); items.names.len()];
    for rating in ratings {
        let Label::Set(selected) = &rating.label else {
            value_of_rating.push(None);
            continue;
        };
        let mut set = Vec::with_capacity(selected.len());
        for name in selected {
            if fixed_vocabulary && !vocabulary.index.contains_key(name.as_str()) {
                return Err(TableError::UnknownCandidate {
                    item: rating.item.clone(),
                    candidate: name.clone(),
                });
            }
            set.push(vocabulary.id(name));
        }
        set.sort_unstable();
        set.dedup();
        let unit = items.index[rating.item.as_str()] as usize;
        selected_on_unit[unit].extend_from_slice(&set);
        let next = members.len() as u32;
        let value = *distinct.entry(set.clone()).or_insert_with(|| {
            members.push(set);
            first_unit.push(unit as u32);
            next
        });
        first_unit[value as usize] = first_unit[value as usize].min(unit as u32);
        value_of_rating.push(Some(value));
    }
    let candidate_names: Vec<String> = vocabulary.names.iter().map(|s| s.to_string()).collect();
    let mut unit_candidates = Vec::with_capacity(items.names.len());
    for (unit, item) in items.names.iter().enumerate() {
        let mut offered: Vec<u32> = match &candidates {
            Candidates::Everywhere(_) => (0..vocabulary.names.len() as u32).collect(),
            Candidates::PerItem(map) => match map.get(*item) {
                Some(list) => list.iter().map(|n| vocabulary.index[n.as_str()]).collect(),
                None => selected_on_unit[unit].clone(),
            },
            Candidates::Seen => selected_on_unit[unit].clone(),
        };
        offered.sort_unstable();
        offered.dedup();
        if let Some(&outside) = selected_on_unit[unit]
            .iter()
            .find(|c| offered.binary_search(c).is_err())
        {
            return Err(TableError::UnknownCandidate {
                item: item.to_string(),
                candidate: candidate_names[outside as usize].clone(),
            });
        }
        unit_candidates.push(offered);
    }
    let display: Vec<String> = members
        .iter()
        .map(|set| {
            let names: Vec<&str> = set
                .iter()
                .map(|&c| candidate_names[c as usize].as_str())
                .collect();
            serde_json::to_string(&names).unwrap_or_default()
        })
        .collect();
    let mut order: Vec<usize> = (0..members.len()).collect();
    // By first item, so that the sets of one item have neighbouring indices and the
    // per-value sums over items walk memory in order (this matters with ~10⁵ sets).
    order.sort_by(|&a, &b| (first_unit[a], &display[a]).cmp(&(first_unit[b], &display[b])));
    let rank = ranks(&order);
    Ok(Labelled {
        value_of_rating: value_of_rating
            .into_iter()
            .map(|v| v.map(|v| rank[v as usize]))
            .collect(),
        categories: order.iter().map(|&i| display[i].clone()).collect(),
        order: CategoryOrder::Unordered,
        numbers: Err("set labels are not numbers".to_string()),
        sets: Some(SetLabels {
            candidates: candidate_names,
            members: order.iter().map(|&i| members[i].clone()).collect(),
            unit_candidates,
        }),
    })
}
