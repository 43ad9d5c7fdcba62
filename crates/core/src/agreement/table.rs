//! The prepared rating table every metric reads: units with their ratings as
//! (annotator index, value index). The types only: `build` makes one from the raw
//! ratings, so this module depends on nothing of its neighbours.

use std::fmt;

/// Why ratings cannot form a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// One annotator gave one item two different labels.
    ConflictingRatings { item: String, annotator: String },
    /// Category labels and set labels in one table.
    MixedLabelKinds,
    /// A label that the given category list does not contain.
    UnknownCategory(String),
    /// A category listed twice in the given order.
    DuplicateCategory(String),
    /// A selected candidate that the given candidate list does not contain.
    UnknownCandidate { item: String, candidate: String },
    /// Ratings given as indices that do not fit the names given with them.
    Malformed(String),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::ConflictingRatings { item, annotator } => write!(
                f,
                "annotator {annotator:?} gave item {item:?} two different labels"
            ),
            TableError::MixedLabelKinds => {
                f.write_str("some labels are categories and some are sets of candidates")
            }
            TableError::UnknownCategory(label) => {
                write!(f, "label {label:?} is not in the given categories")
            }
            TableError::DuplicateCategory(label) => {
                write!(f, "category {label:?} is listed twice")
            }
            TableError::UnknownCandidate { item, candidate } => write!(
                f,
                "item {item:?}: selected candidate {candidate:?} is not in the candidate list"
            ),
            TableError::Malformed(what) => write!(f, "malformed indexed ratings: {what}"),
        }
    }
}

impl std::error::Error for TableError {}

/// Where the order of the categories comes from; weighted kappa and ordinal alpha need one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoryOrder {
    /// The caller's category list.
    Given,
    /// Every label reads as a number, so the categories are in numeric order.
    Numeric,
    /// No meaningful order (sorted by name only for a stable display).
    Unordered,
}

/// Ratings in index form: unit `u` holds entries `offsets[u]..offsets[u + 1]`, sorted by
/// annotator, each an annotator index and a value (category) index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Units {
    pub offsets: Vec<usize>,
    pub annotators: Vec<u32>,
    pub values: Vec<u32>,
    pub value_count: usize,
}

impl Units {
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn range(&self, unit: usize) -> std::ops::Range<usize> {
        self.offsets[unit]..self.offsets[unit + 1]
    }

    /// From (unit, annotator, value) triples sorted by unit then annotator.
    pub fn from_sorted(
        unit_count: usize,
        triples: &[(u32, u32, u32)],
        value_count: usize,
    ) -> Units {
        let mut offsets = vec![0usize; unit_count + 1];
        for &(unit, _, _) in triples {
            offsets[unit as usize + 1] += 1;
        }
        for u in 0..unit_count {
            offsets[u + 1] += offsets[u];
        }
        Units {
            offsets,
            annotators: triples.iter().map(|t| t.1).collect(),
            values: triples.iter().map(|t| t.2).collect(),
            value_count,
        }
    }
}

/// Set labels: each value index names one distinct selected set.
#[derive(Debug, Clone)]
pub(crate) struct SetLabels {
    /// How many candidates there are (indices `0..candidate_count`).
    pub candidate_count: usize,
    /// Per value: the sorted candidate indices of that set.
    pub members: Vec<Vec<u32>>,
    /// Per unit: the sorted candidate indices that could have been selected.
    pub unit_candidates: Vec<Vec<u32>>,
}

/// Ratings prepared once (items × annotators, labels as category indices) for every metric.
#[derive(Debug, Clone)]
pub struct RatingTable {
    pub(crate) items: Vec<String>,
    pub(crate) annotators: Vec<String>,
    pub(crate) categories: Vec<String>,
    pub(crate) order: CategoryOrder,
    /// Each category as a number, or why the labels are not numbers.
    pub(crate) numbers: Result<Vec<f64>, String>,
    pub(crate) units: Units,
    pub(crate) sets: Option<SetLabels>,
}

impl RatingTable {
    /// Items (units), including those with no rating.
    pub fn items(&self) -> &[String] {
        &self.items
    }

    /// Annotators, sorted by name.
    pub fn annotators(&self) -> &[String] {
        &self.annotators
    }

    /// Category names in table order; for set labels each distinct set as a JSON list, in
    /// order of the first item it was given on.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    pub fn category_order(&self) -> CategoryOrder {
        self.order
    }

    /// Number of ratings that are not missing.
    pub fn rating_count(&self) -> usize {
        self.units.values.len()
    }

    pub fn has_set_labels(&self) -> bool {
        self.sets.is_some()
    }

    /// Whether every label reads as a (finite) number.
    pub fn is_numeric(&self) -> bool {
        self.numbers.is_ok()
    }

    pub(crate) fn annotator_index(&self, name: &str) -> Option<u32> {
        self.annotators
            .binary_search_by(|a| a.as_str().cmp(name))
            .ok()
            .map(|i| i as u32)
    }

    /// Why no unit-level agreement can be computed, if that is so.
    pub(crate) fn unpairable_reason(&self) -> Option<String> {
        if self.annotators.len() < 2 {
            return Some("fewer than 2 annotators".to_string());
        }
        let pairable = (0..self.units.len()).any(|u| self.units.range(u).len() >= 2);
        (!pairable).then(|| "no unit has 2 or more ratings".to_string())
    }
}
