//! Finding the real sentence that stands as an evidence item's trick under the
//! `supports_or_refutes` stance, in a bounded number of looks per claim.
//!
//! A sentence fits a claim when it is a candidate of another claim, from a document
//! outside the claim's family, with a text none of the family's sentences has, and shares
//! no content word with the claim (nor one the highlighting would mark). It is drawn under
//! the project's secret: random draws first, then a pass over consecutive sentences from a
//! drawn start. The pass looks at every sentence of a small project, but at most
//! [`TOTAL_LOOKS`] spread over the claims of a large one: where nothing fits (documents
//! drawn from a few hundred words), a pass over every sentence for every claim made
//! creating tasks quadratic (13 minutes for 5,000 claims).

use factdesk_core::key_hash::KeyHasher;
use factdesk_core::trick;
use factdesk_store::tricks::Donor;
use std::cell::OnceCell;
use std::collections::HashSet;
use std::hash::Hasher;
use std::ops::RangeInclusive;

/// Looks the passes of one run of task creation share at most (each a comparison of two
/// short sorted lists): about a second's work.
pub(crate) const TOTAL_LOOKS: usize = 20_000_000;
/// The fewest sentences a claim's pass looks at, however many claims there are.
pub(crate) const LEAST_PASS: usize = 256;
/// Random draws of a sentence as long as the claim's candidates, then of any length.
const SIZED_DRAWS: usize = 128;
const ANY_DRAWS: usize = 32;

/// A sentence's content words, hashed and sorted, and its length in characters.
#[derive(Debug)]
struct Words {
    hashes: Vec<u64>,
    chars: usize,
}

fn hashed_words(text: &str) -> Vec<u64> {
    let mut hashes: Vec<u64> = trick::content_words(text)
        .iter()
        .map(|w| {
            let mut h = KeyHasher::default();
            h.write(w.as_bytes());
            h.finish()
        })
        .collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// Whether two sorted lists share no value.
fn disjoint(a: &[u64], b: &[u64]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return false,
        }
    }
    true
}

/// What a claim needs of its trick: the claim, its family's documents and sentence
/// texts, and the lengths its own candidates span.
#[derive(Debug)]
pub(crate) struct TrickFor<'a> {
    pub claim: &'a str,
    pub family: &'a [i64],
    pub family_texts: &'a HashSet<String>,
    pub lengths: RangeInclusive<usize>,
}

/// The search over one run's donor sentences, their words read once each, when first
/// looked at.
#[derive(Debug)]
pub(crate) struct TrickSearch<'a> {
    donors: &'a [Donor],
    words: Vec<OnceCell<Words>>,
    /// How many consecutive sentences a claim's pass looks at.
    pass: usize,
    /// Sentences looked at so far, draws and passes together.
    pub looked: u64,
}

impl<'a> TrickSearch<'a> {
    /// A search over `donors` for the tricks of up to `claims` claims.
    pub fn new(donors: &'a [Donor], claims: usize) -> TrickSearch<'a> {
        let pass = (TOTAL_LOOKS / claims.max(1))
            .max(LEAST_PASS)
            .min(donors.len());
        TrickSearch {
            donors,
            words: donors.iter().map(|_| OnceCell::new()).collect(),
            pass,
            looked: 0,
        }
    }

    /// How many consecutive sentences a claim's pass looks at.
    pub fn pass(&self) -> usize {
        self.pass
    }

    fn words(&self, i: usize) -> &Words {
        self.words[i].get_or_init(|| {
            let text = &self.donors[i].text;
            Words {
                hashes: hashed_words(text),
                chars: text.chars().count(),
            }
        })
    }

    /// The trick sentence for `wanted`, drawn with `rng`; `None` when no sentence looked
    /// at fits.
    pub fn find(
        &mut self,
        rng: &mut factdesk_core::seeded::Seeded,
        wanted: &TrickFor,
    ) -> Option<i64> {
        if self.donors.is_empty() {
            return None;
        }
        let claim_words = hashed_words(wanted.claim);
        let n = self.donors.len();
        // The cheap word comparison first: it settles almost every look.
        let fits = |search: &TrickSearch, i: usize, sized: bool| {
            let words = search.words(i);
            let d = &search.donors[i];
            !words.hashes.is_empty()
                && disjoint(&words.hashes, &claim_words)
                && (!sized || wanted.lengths.contains(&words.chars))
                && !wanted.family.contains(&d.document_id)
                && !wanted.family_texts.contains(&d.text)
                && trick::unrelated(&d.text, wanted.claim)
        };
        // As long as the claim's own candidates, when one such sentence is drawn: a
        // sentence sharing no word with the claim tends to be short, and "the shortest
        // option" would then find the trick.
        for (times, sized) in [(SIZED_DRAWS, true), (ANY_DRAWS, false)] {
            for _ in 0..times {
                let i = rng.below(n as u64) as usize;
                self.looked += 1;
                if fits(self, i, sized) {
                    return Some(self.donors[i].sentence_id);
                }
            }
        }
        let start = rng.below(n as u64) as usize;
        for k in 0..self.pass {
            let i = (start + k) % n;
            self.looked += 1;
            if fits(self, i, false) {
                return Some(self.donors[i].sentence_id);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_core::seeded::Seeded;

    fn donor(id: i64, text: &str) -> Donor {
        Donor {
            sentence_id: id,
            document_id: 1000 + id,
            text: text.to_owned(),
        }
    }

    fn wanted<'a>(claim: &'a str, texts: &'a HashSet<String>) -> TrickFor<'a> {
        TrickFor {
            claim,
            family: &[],
            family_texts: texts,
            lengths: 0..=usize::MAX,
        }
    }

    #[test]
    fn a_claim_where_nothing_fits_costs_a_bounded_number_of_looks() {
        // 200,000 sentences, every one sharing "harbour" with the claim: before, each claim
        // looked at all of them.
        let donors: Vec<Donor> = (0..200_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        let claims = 100_000;
        let mut search = TrickSearch::new(&donors, claims);
        let texts = HashSet::new();
        let mut rng = Seeded::new(7);
        for _ in 0..10 {
            assert_eq!(
                search.find(&mut rng, &wanted("A harbour for boats", &texts)),
                None
            );
        }
        let per_claim = (SIZED_DRAWS + ANY_DRAWS + LEAST_PASS) as u64;
        assert_eq!(search.pass(), LEAST_PASS);
        assert_eq!(search.looked, 10 * per_claim);
    }

    #[test]
    fn a_small_project_passes_over_every_sentence() {
        // One sentence in 5,000 fits: the draws miss it, the pass finds it.
        let mut donors: Vec<Donor> = (0..5_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        donors[3_000] = donor(3_000, "Volcanic glass shatters easily.");
        let mut search = TrickSearch::new(&donors, 20);
        assert_eq!(search.pass(), 5_000);
        let texts = HashSet::new();
        let mut rng = Seeded::new(11);
        assert_eq!(
            search.find(&mut rng, &wanted("A harbour for boats", &texts)),
            Some(3_000)
        );
    }

    #[test]
    fn a_sentence_of_the_family_or_sharing_a_word_never_fits() {
        let donors = vec![
            donor(1, "The harbour held ships."),
            donor(2, "Volcanic glass shatters easily."),
        ];
        let mut search = TrickSearch::new(&donors, 1);
        let texts: HashSet<String> = ["Volcanic glass shatters easily.".to_owned()].into();
        let mut rng = Seeded::new(3);
        assert_eq!(
            search.find(&mut rng, &wanted("A harbour for boats", &texts)),
            None
        );
        let none = HashSet::new();
        assert_eq!(
            search.find(&mut rng, &wanted("A harbour for boats", &none)),
            Some(2)
        );
    }
}
