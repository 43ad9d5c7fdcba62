//! Stratified samples (issue 33): items grouped by a key, and the same number drawn from
//! each group with a seed. CrowdChecked sampled its claim–tweet pairs from ten bins of
//! word overlap (Jaccard between Porter-stemmed word sets, 15 pairs a bin), so that a
//! kappa is not measured only on the easy, near-identical pairs; a label-stratified
//! sample (50 a class) keeps a rare class in view.

use crate::ranking::stemmed_hashes;
use crate::seeded::Seeded;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How items are grouped before drawing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Strata {
    /// Equal-width bins of stemmed word overlap between a claim and its best candidate:
    /// bin `i` of `n` holds Jaccard in `[i/n, (i+1)/n)`, the last one also 1.
    JaccardBins { bins: u32 },
    /// The claim's imported label (items without one form the stratum "none").
    Label,
    /// A field of the claim's imported metadata (missing: "none").
    Field { name: String },
}

impl Strata {
    /// How a study's strata are named where they are printed: "jaccard-bins:10",
    /// "label", "field:topic".
    pub fn spec(&self) -> String {
        match self {
            Strata::JaccardBins { bins } => format!("jaccard-bins:{bins}"),
            Strata::Label => "label".to_string(),
            Strata::Field { name } => format!("field:{name}"),
        }
    }
}

/// The stratum an item falls in when it has no value to group by.
pub const NONE: &str = "none";

/// Jaccard between the stemmed word sets of `a` and `b`, in the form CrowdChecked
/// compared them ([`stemmed_hashes`]): shared words over all words; 0 when both are empty.
pub fn stemmed_jaccard(a: &str, b: &str) -> f64 {
    let (a, b) = (stemmed_hashes(a), stemmed_hashes(b));
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let all = a.len() + b.len() - shared;
    if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    }
}

/// The bin of a Jaccard value among `bins` equal-width bins over [0, 1] ("0.3–0.4"), named
/// by its bounds so that bins sort and read alike everywhere.
pub fn jaccard_bin(jaccard: f64, bins: u32) -> String {
    let bins = bins.max(1);
    let scaled = (jaccard.clamp(0.0, 1.0) * f64::from(bins)).floor();
    // A value a hair under a bound must not land above it by rounding: bins of tenths
    // of 0.3 are 2.9999… scaled, bin 2.
    let bin = (scaled as u32).min(bins - 1);
    let bound = |i: u32| format!("{:.2}", f64::from(i) / f64::from(bins));
    format!("{}–{}", bound(bin), bound(bin + 1))
}

/// Every bin's name, in order, so a bin with no item is still listed (and refused).
pub fn jaccard_bin_names(bins: u32) -> Vec<String> {
    let bins = bins.max(1);
    (0..bins)
        .map(|i| jaccard_bin((f64::from(i) + 0.5) / f64::from(bins), bins))
        .collect()
}

/// One stratum of a draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Stratum {
    pub name: String,
    /// Items in it that could be drawn.
    pub available: u32,
    /// The items drawn, ascending.
    pub items: Vec<i64>,
}

/// Draws `per` items from each stratum, seeded: strata in `order` first (bins listed even
/// when empty), then any other key met, sorted. Items are `(id, stratum)`. Every stratum
/// holding fewer than `per` is returned as the error, the fullest draw being impossible.
pub fn draw(
    items: &[(i64, String)],
    order: &[String],
    per: u32,
    seed: u64,
    purpose: &str,
) -> Result<Vec<Stratum>, Vec<Stratum>> {
    let mut names: Vec<String> = order.to_vec();
    let mut others: Vec<String> = items
        .iter()
        .map(|(_, s)| s.clone())
        .filter(|s| !order.contains(s))
        .collect();
    others.sort_unstable();
    others.dedup();
    names.extend(others);
    let mut strata = Vec::with_capacity(names.len());
    let mut short = Vec::new();
    for name in names {
        let mut ids: Vec<i64> = items
            .iter()
            .filter(|(_, s)| *s == name)
            .map(|&(id, _)| id)
            .collect();
        ids.sort_unstable();
        let available = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        Seeded::for_purpose(seed, &format!("{purpose}:{name}")).shuffle(&mut ids);
        ids.truncate(per as usize);
        ids.sort_unstable();
        let stratum = Stratum {
            name,
            available,
            items: ids,
        };
        if available < per {
            short.push(stratum.clone());
        }
        strata.push(stratum);
    }
    if short.is_empty() {
        Ok(strata)
    } else {
        Err(short)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_named_by_their_bounds_and_the_last_holds_one() {
        assert_eq!(jaccard_bin(0.0, 10), "0.00–0.10");
        assert_eq!(jaccard_bin(0.3, 10), "0.30–0.40");
        assert_eq!(jaccard_bin(0.299_999, 10), "0.20–0.30");
        assert_eq!(jaccard_bin(1.0, 10), "0.90–1.00");
        assert_eq!(
            jaccard_bin_names(4),
            ["0.00–0.25", "0.25–0.50", "0.50–0.75", "0.75–1.00"]
        );
    }

    #[test]
    fn stemmed_jaccard_counts_shared_stems_over_all() {
        // vaccin, reduc, infect shared; hospit only on one side: 3 of 4.
        let j = stemmed_jaccard(
            "Vaccines reduced infections",
            "vaccine reduces infection in hospitals",
        );
        assert!((j - 0.75).abs() < 1e-12, "{j}");
        assert_eq!(stemmed_jaccard("the of", "and"), 0.0);
    }

    #[test]
    fn a_draw_takes_as_many_from_each_stratum_reproducibly() {
        let items: Vec<(i64, String)> = (0..60)
            .map(|i| (i, if i % 3 == 0 { "a" } else { "b" }.to_string()))
            .collect();
        let order = ["b".to_string(), "a".to_string(), "c".to_string()];
        let drawn = draw(&items, &order[..2], 5, 7, "t").unwrap_or_default();
        assert_eq!(drawn.len(), 2);
        assert_eq!((drawn[0].name.as_str(), drawn[0].available), ("b", 40));
        assert!(drawn.iter().all(|s| s.items.len() == 5));
        assert!(drawn[1].items.iter().all(|id| id % 3 == 0));
        assert_eq!(draw(&items, &order[..2], 5, 7, "t"), Ok(drawn.clone()));
        assert_ne!(draw(&items, &order[..2], 5, 8, "t"), Ok(drawn));
        // A listed stratum with too few items (here none) is said, with what it holds.
        let short = draw(&items, &order, 5, 7, "t").err().unwrap_or_default();
        assert_eq!(short.len(), 1);
        assert_eq!((short[0].name.as_str(), short[0].available), ("c", 0));
    }
}
