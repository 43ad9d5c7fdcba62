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
//!
//! Every sentence's words are read once, up front and on every core, into a
//! [`signature::Signature`] that settles most looks in a few ANDs. Each claim's draws
//! depend only on its own random source, so claims are searched on every core too and
//! the tricks are the same however the work was split.

mod donor_words;
mod signature;

pub(crate) use donor_words::DonorWords;

use factdesk_core::seeded::Seeded;
use factdesk_core::trick;
use factdesk_store::tricks::Donor;
use rayon::prelude::*;
use signature::{word_hash, Bits, Signature};
use std::collections::HashSet;
use std::ops::RangeInclusive;

/// Looks the passes of one run of task creation share at most (each a few ANDs of two
/// word signatures): well under a second's work.
pub(crate) const TOTAL_LOOKS: usize = 20_000_000;
/// The fewest sentences a claim's pass looks at, however many claims there are.
pub(crate) const LEAST_PASS: usize = 256;
/// Random draws of a sentence as long as the claim's candidates, then of any length.
const SIZED_DRAWS: usize = 128;
const ANY_DRAWS: usize = 32;
/// Draws whose quick tests are made together (see [`TrickSearch::find`]).
const BATCH: usize = 16;
/// The fewest claims worth a thread of their own.
const LEAST_CLAIMS_A_THREAD: usize = 64;

/// What a claim needs of its trick: the claim, its family's documents and sentence
/// texts, and the lengths its own candidates span.
#[derive(Debug)]
pub(crate) struct TrickFor<'a> {
    pub claim_id: i64,
    pub claim: &'a str,
    pub family: &'a [i64],
    /// The [`text_hash`] of each.
    pub family_texts: &'a HashSet<u64>,
    pub lengths: RangeInclusive<usize>,
}

/// What the draws read of a sentence, in one cache line: a draw lands anywhere among
/// hundreds of thousands of sentences.
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(64))]
struct Look {
    sig: Signature,
    /// Length in characters.
    chars: u32,
    /// Whether the sentence has a content word at all.
    has_words: bool,
}

/// A claim's words, read once for all its looks.
#[derive(Debug)]
struct ClaimWords {
    sig: Signature,
    rare: Vec<u64>,
    /// The content words the highlighting weighs.
    marks: trick::ClaimMarks,
}

/// The search over one run's donor sentences, their words read once each.
#[derive(Debug)]
pub(crate) struct TrickSearch<'a> {
    donors: &'a [Donor],
    bits: Bits,
    looks: Vec<Look>,
    /// Each sentence's words without a bit of their own, sorted, from `rare_at[i]` to
    /// `rare_at[i + 1]`.
    rare: Vec<u64>,
    rare_at: Vec<usize>,
    /// Each sentence's markable words, each followed by a space, from `marks_at[i]`.
    marks: String,
    marks_at: Vec<usize>,
    /// How many consecutive sentences a claim's pass looks at.
    pass: usize,
}

/// A claim's trick, if one was found, and how many sentences were looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub sentence: Option<i64>,
    pub looked: u64,
}

impl<'a> TrickSearch<'a> {
    /// A search over `words`' donors for the tricks of up to `claims` claims.
    pub fn new(words: &'a DonorWords, claims: usize) -> TrickSearch<'a> {
        let donors: &'a [Donor] = &words.donors;
        let reads = &words.reads;
        let pass = (TOTAL_LOOKS / claims.max(1))
            .max(LEAST_PASS)
            .min(donors.len());
        // Which of `reads` holds sentence `i`, and where in it.
        let starts: Vec<usize> = reads
            .iter()
            .scan(0, |at, r| {
                let start = *at;
                *at += r.len();
                Some(start)
            })
            .collect();
        let at = |i: usize| {
            let r = starts.partition_point(|&s| s <= i).saturating_sub(1);
            (r, i - starts[r])
        };
        let bits = Bits::choose(donors.len(), |i| {
            let (r, k) = at(i);
            reads[r].hashes(k)
        });
        let signed: Vec<_> = reads
            .par_iter()
            .zip(&starts)
            .map(|(read, &start)| {
                let mut rare = Vec::new();
                let mut rare_at = Vec::with_capacity(read.len());
                let looks: Vec<Look> = (0..read.len())
                    .map(|k| {
                        let hashes = read.hashes(k);
                        let sig = bits.sign(hashes, &mut rare);
                        rare_at.push(rare.len());
                        Look {
                            sig,
                            chars: u32::try_from(donors[start + k].chars).unwrap_or(u32::MAX),
                            has_words: !hashes.is_empty(),
                        }
                    })
                    .collect();
                (looks, rare, rare_at)
            })
            .collect();
        let mut search = TrickSearch {
            donors,
            bits,
            looks: Vec::with_capacity(donors.len()),
            rare: Vec::new(),
            rare_at: vec![0],
            marks: String::new(),
            marks_at: vec![0],
            pass,
        };
        for (read, (looks, rare, rare_at)) in reads.iter().zip(signed) {
            search.looks.extend(looks);
            let base = search.rare.len();
            search.rare.extend(rare);
            search.rare_at.extend(rare_at.iter().map(|a| base + a));
            let base = search.marks.len();
            search.marks.push_str(&read.marks);
            search
                .marks_at
                .extend(read.marks_at[1..].iter().map(|a| base + a));
        }
        search
    }

    /// How many consecutive sentences a claim's pass looks at.
    pub fn pass(&self) -> usize {
        self.pass
    }

    fn rare(&self, i: usize) -> &[u64] {
        &self.rare[self.rare_at[i]..self.rare_at[i + 1]]
    }

    /// Whether sentence `i` may fit, from what its [`Look`] holds alone: `false` for
    /// almost every sentence that does not.
    fn may_fit(&self, i: usize, sized: bool, wanted: &TrickFor, claim: &ClaimWords) -> bool {
        let look = &self.looks[i];
        // `&` rather than `&&`: no branch, so the draws of a batch are fetched together.
        look.has_words
            & (!sized | wanted.lengths.contains(&(look.chars as usize)))
            & !look.sig.shares_common(&claim.sig)
    }

    fn marks(&self, i: usize) -> impl Iterator<Item = &str> + '_ {
        self.marks[self.marks_at[i]..self.marks_at[i + 1]].split_terminator(' ')
    }

    fn claim_words(&self, claim: &str) -> ClaimWords {
        let words = trick::content_word_list(claim);
        let mut hashes: Vec<u64> = words.iter().map(|w| word_hash(w)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let mut rare = Vec::new();
        let sig = self.bits.sign(&hashes, &mut rare);
        ClaimWords {
            sig,
            rare,
            marks: trick::ClaimMarks::new(words),
        }
    }

    /// Whether sentence `i` fits `wanted`, whose words are `claim`; `sized`, whether it
    /// must be as long as the claim's candidates.
    fn fits(&self, i: usize, sized: bool, wanted: &TrickFor, claim: &ClaimWords) -> bool {
        // The cheapest tests first: the signature settles almost every look.
        let d = &self.donors[i];
        self.may_fit(i, sized, wanted, claim)
            && (!self.looks[i].sig.may_share_rare(&claim.sig)
                || signature::disjoint(self.rare(i), &claim.rare))
            && !wanted.family.contains(&d.document_id)
            && claim.marks.none_in(self.marks(i))
            && !wanted.family_texts.contains(&d.text_hash)
    }

    /// The trick sentence for `wanted`, drawn with `rng`.
    pub fn find(&self, rng: &mut Seeded, wanted: &TrickFor) -> Found {
        let mut found = Found {
            sentence: None,
            looked: 0,
        };
        if self.donors.is_empty() {
            return found;
        }
        let claim = self.claim_words(wanted.claim);
        let n = self.donors.len();
        // As long as the claim's own candidates, when one such sentence is drawn: a
        // sentence sharing no word with the claim tends to be short, and "the shortest
        // option" would then find the trick.
        // Drawn in the order they are looked at, all before the first look: what is drawn
        // does not depend on what fits.
        let draws: [usize; SIZED_DRAWS + ANY_DRAWS] =
            std::array::from_fn(|_| rng.below(n as u64) as usize);
        let start = rng.below(n as u64) as usize;
        // A draw lands anywhere, so nearly every look waits on memory: the quick test of a
        // batch of draws is made for all of them at once, so that they wait together.
        for (b, batch) in draws.chunks(BATCH).enumerate() {
            let sized = |k: usize| b * BATCH + k < SIZED_DRAWS;
            let quick: [bool; BATCH] = std::array::from_fn(|k| {
                batch
                    .get(k)
                    .is_some_and(|&i| self.may_fit(i, sized(k), wanted, &claim))
            });
            for (k, &i) in batch.iter().enumerate() {
                if quick[k] && self.fits(i, sized(k), wanted, &claim) {
                    found.looked += k as u64 + 1;
                    found.sentence = Some(self.donors[i].sentence_id);
                    return found;
                }
            }
            found.looked += batch.len() as u64;
        }
        for k in 0..self.pass {
            let i = (start + k) % n;
            found.looked += 1;
            if self.fits(i, false, wanted, &claim) {
                found.sentence = Some(self.donors[i].sentence_id);
                return found;
            }
        }
        found
    }

    /// [`TrickSearch::find`] for each of `wanted`, on every core, each claim with its own
    /// random source `draw(claim_id)`: what a claim gets does not depend on the others,
    /// nor on how the claims were split between threads.
    pub fn find_all(
        &self,
        wanted: &[TrickFor],
        draw: &(dyn Fn(i64) -> Seeded + Sync),
    ) -> Vec<Found> {
        wanted
            .par_iter()
            .with_min_len(LEAST_CLAIMS_A_THREAD)
            .map(|w| self.find(&mut draw(w.claim_id), w))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_store::tricks::text_hash;

    /// A donor as a test writes it: with its text.
    struct TextDonor {
        sentence_id: i64,
        document_id: i64,
        text: String,
    }

    fn donor(id: i64, text: &str) -> TextDonor {
        TextDonor {
            sentence_id: id,
            document_id: 1000 + id,
            text: text.to_owned(),
        }
    }

    fn donor_words(donors: &[TextDonor]) -> DonorWords {
        let rows: Vec<(i64, i64, &str)> = donors
            .iter()
            .map(|d| (d.sentence_id, d.document_id, d.text.as_str()))
            .collect();
        DonorWords::of(&rows)
    }

    fn wanted<'a>(claim: &'a str, texts: &'a HashSet<u64>) -> TrickFor<'a> {
        TrickFor {
            claim_id: 1,
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
        let donors: Vec<TextDonor> = (0..200_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        let claims = 100_000;
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims);
        let texts = HashSet::new();
        let mut rng = Seeded::new(7);
        let per_claim = (SIZED_DRAWS + ANY_DRAWS + LEAST_PASS) as u64;
        assert_eq!(search.pass(), LEAST_PASS);
        for _ in 0..10 {
            let found = search.find(&mut rng, &wanted("A harbour for boats", &texts));
            assert_eq!(found.sentence, None);
            assert_eq!(found.looked, per_claim);
        }
    }

    #[test]
    fn a_small_project_passes_over_every_sentence() {
        // One sentence in 5,000 fits: the draws miss it, the pass finds it.
        let mut donors: Vec<TextDonor> = (0..5_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        donors[3_000] = donor(3_000, "Volcanic glass shatters easily.");
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 20);
        assert_eq!(search.pass(), 5_000);
        let texts = HashSet::new();
        let mut rng = Seeded::new(11);
        assert_eq!(
            search
                .find(&mut rng, &wanted("A harbour for boats", &texts))
                .sentence,
            Some(3_000)
        );
    }

    #[test]
    fn a_sentence_of_the_family_or_sharing_a_word_never_fits() {
        let donors = vec![
            donor(1, "The harbour held ships."),
            donor(2, "Volcanic glass shatters easily."),
            donor(3, "Harbours were built."),
        ];
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 1);
        let texts: HashSet<u64> = [text_hash("Volcanic glass shatters easily.")].into();
        let mut rng = Seeded::new(3);
        let claim = "A harbour for boats";
        assert_eq!(search.find(&mut rng, &wanted(claim, &texts)).sentence, None);
        let none = HashSet::new();
        assert_eq!(
            search.find(&mut rng, &wanted(claim, &none)).sentence,
            Some(2)
        );
        let family = [1002];
        let mut of_family = wanted(claim, &none);
        of_family.family = &family;
        assert_eq!(search.find(&mut rng, &of_family).sentence, None);
    }

    /// Sentences and claims over a vocabulary of syllable words, many alike to
    /// Jaro-Winkler, as scripts/bench-tasks writes them.
    fn syllable_text(rng: &mut Seeded, words: usize, vocabulary: u64) -> String {
        const SYLLABLES: [&str; 8] = ["ka", "ter", "lo", "vin", "ma", "sel", "dra", "po"];
        let mut out = vec!["The".to_owned()];
        for _ in 0..words {
            let top = 1 + rng.below(vocabulary);
            let mut rank = rng.below(top) as usize;
            let mut word = String::new();
            loop {
                word.push_str(SYLLABLES[rank % SYLLABLES.len()]);
                rank /= SYLLABLES.len();
                if rank == 0 {
                    break;
                }
            }
            out.push(word);
        }
        out.join(" ") + "."
    }

    #[test]
    fn a_look_fits_exactly_when_the_texts_rule_says_unrelated() {
        // Few words, so that many pairs share one or resemble one another.
        let mut rng = Seeded::new(17);
        let mut donors: Vec<TextDonor> = (0..1_000)
            .map(|i| donor(i, &syllable_text(&mut rng, 4, 400)))
            .collect();
        donors.push(donor(1_000, "It is what it is."));
        donors.push(donor(1_001, "Masks reduce transmission."));
        let mut claims: Vec<String> = (0..60).map(|_| syllable_text(&mut rng, 4, 400)).collect();
        claims.push("A mask was found.".to_owned());
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims.len());
        let texts = HashSet::new();
        let (mut fit, mut not) = (0, 0);
        for claim in &claims {
            let w = wanted(claim, &texts);
            let words = search.claim_words(claim);
            for (i, d) in donors.iter().enumerate() {
                let truth = trick::unrelated(&d.text, claim);
                assert_eq!(
                    search.fits(i, false, &w, &words),
                    truth,
                    "{} / {claim}",
                    d.text
                );
                if truth {
                    fit += 1;
                } else {
                    not += 1;
                }
            }
        }
        assert!(fit > 1_000 && not > 1_000, "{fit} fit, {not} not");
    }

    #[test]
    fn tricks_are_the_texts_rule_and_do_not_depend_on_threads() {
        let mut rng = Seeded::new(5);
        let donors: Vec<TextDonor> = (0..20_000)
            .map(|i| donor(i, &syllable_text(&mut rng, 6, 3_000)))
            .collect();
        let claims: Vec<String> = (0..400)
            .map(|_| syllable_text(&mut rng, 5, 3_000))
            .collect();
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims.len());
        let texts = HashSet::new();
        let wanted: Vec<TrickFor> = claims
            .iter()
            .enumerate()
            .map(|(k, c)| TrickFor {
                claim_id: k as i64,
                ..wanted(c, &texts)
            })
            .collect();
        let draw = |claim_id: i64| Seeded::for_purpose(9, &format!("t:{claim_id}"));
        let together = search.find_all(&wanted, &draw);
        let one_by_one: Vec<Found> = wanted
            .iter()
            .map(|w| search.find(&mut draw(w.claim_id), w))
            .collect();
        assert_eq!(together, one_by_one);
        let mut seen = HashSet::new();
        for (w, found) in wanted.iter().zip(&together) {
            if let Some(id) = found.sentence {
                let text = &donors[id as usize].text;
                assert!(trick::unrelated(text, w.claim), "{text} / {}", w.claim);
                seen.insert(id);
            }
        }
        // Found for most claims, and drawn from many sentences rather than a few.
        let found = together.iter().filter(|f| f.sentence.is_some()).count();
        assert!(found > 300, "{found}");
        assert!(seen.len() > found * 9 / 10, "{} of {found}", seen.len());
    }
}
