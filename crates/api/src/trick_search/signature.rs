//! A sentence's content words as a few machine words of bits, so that most looks of the
//! trick search settle whether a sentence shares a word with a claim in a few ANDs.
//!
//! The commonest words of the project's sentences each have a bit of their own
//! ([`EXACT`] of them): a common bit proves a shared word, whatever else. Every other
//! word sets one of the [`TAIL`] bits by its hash and is kept in a sorted list besides:
//! no common tail bit proves that no such word is shared, and only a common tail bit
//! needs the lists compared. A word lands on the same bit on both sides, so a shared word
//! is never missed. Where the documents draw on a few hundred words (the case where no
//! sentence fits and every claim's search runs to its bound) every word has its own bit.

use factdesk_core::key_hash::{KeyHasher, KeyMap};
use std::hash::Hasher;

/// Words with a bit of their own.
pub(crate) const EXACT: usize = 256;
/// Bits shared, by hash, by all other words.
pub(crate) const TAIL: usize = 192;
const EXACT_WORDS: usize = EXACT / 64;
const WORDS: usize = (EXACT + TAIL) / 64;
/// Sentences whose words choose the exact words: enough to find the commonest ones.
const SAMPLE: usize = 8192;

/// A content word's hash: the identity the search compares words by (equal words have
/// equal hashes; two words that collide only make a sentence look related).
pub(crate) fn word_hash(word: &str) -> u64 {
    let mut h = KeyHasher::default();
    h.write(word.as_bytes());
    h.finish()
}

/// The bits of a set of words (see the module's documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Signature([u64; WORDS]);

impl Signature {
    fn set(&mut self, bit: usize) {
        self.0[bit / 64] |= 1 << (bit % 64);
    }

    /// Whether the two sets surely share one of the commonest words.
    pub fn shares_common(&self, other: &Signature) -> bool {
        (0..EXACT_WORDS).any(|k| self.0[k] & other.0[k] != 0)
    }

    /// Whether the two sets may share one of the other words; `false` proves not.
    pub fn may_share_rare(&self, other: &Signature) -> bool {
        (EXACT_WORDS..WORDS).any(|k| self.0[k] & other.0[k] != 0)
    }
}

/// Which words have a bit of their own.
#[derive(Debug, Default)]
pub(crate) struct Bits {
    exact: KeyMap<u64, u16>,
}

impl Bits {
    /// The [`EXACT`] commonest of the words in a spread sample of `sentences` (each a
    /// sorted list of word hashes) get a bit each; ties go to the smaller hash, so the
    /// choice depends on the sentences alone.
    pub fn choose<'a>(sentences: usize, hashes: impl Fn(usize) -> &'a [u64]) -> Bits {
        let step = sentences.div_ceil(SAMPLE).max(1);
        let mut counts: KeyMap<u64, u32> = KeyMap::default();
        for i in (0..sentences).step_by(step) {
            for &h in hashes(i) {
                *counts.entry(h).or_default() += 1;
            }
        }
        let mut ranked: Vec<(u64, u32)> = counts.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        Bits {
            exact: ranked
                .into_iter()
                .take(EXACT)
                .enumerate()
                .map(|(bit, (h, _))| (h, bit as u16))
                .collect(),
        }
    }

    /// The signature of a sorted list of word hashes; the hashes without a bit of their
    /// own are appended to `rare`, still sorted.
    pub fn sign(&self, hashes: &[u64], rare: &mut Vec<u64>) -> Signature {
        let mut sig = Signature::default();
        for &h in hashes {
            match self.exact.get(&h) {
                Some(&bit) => sig.set(usize::from(bit)),
                None => {
                    sig.set(EXACT + (h % TAIL as u64) as usize);
                    rare.push(h);
                }
            }
        }
        sig
    }
}

/// Whether two sorted lists share no value.
pub(crate) fn disjoint(a: &[u64], b: &[u64]) -> bool {
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

/// Whether two word sets share no word, from their signatures and rare words (the
/// search makes the same tests one by one, the cheapest first).
#[cfg(test)]
fn no_shared_word(a: &Signature, a_rare: &[u64], b: &Signature, b_rare: &[u64]) -> bool {
    !a.shares_common(b) && (!a.may_share_rare(b) || disjoint(a_rare, b_rare))
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_core::seeded::Seeded;

    fn hashes(words: &[String]) -> Vec<u64> {
        let mut h: Vec<u64> = words.iter().map(|w| word_hash(w)).collect();
        h.sort_unstable();
        h.dedup();
        h
    }

    /// Random sets over `vocabulary` words, with ranks skewed to the common ones.
    fn sets(vocabulary: u64, n: usize, seed: u64) -> Vec<Vec<u64>> {
        let mut rng = Seeded::new(seed);
        (0..n)
            .map(|_| {
                let len = 1 + rng.below(20) as usize;
                let words: Vec<String> = (0..len)
                    .map(|_| {
                        let top = 1 + rng.below(vocabulary);
                        format!("w{}", rng.below(top))
                    })
                    .collect();
                hashes(&words)
            })
            .collect()
    }

    #[test]
    fn the_signature_says_disjoint_exactly_when_the_sets_are() {
        // Large vocabularies put most words in the tail, small ones give every word its
        // own bit: both ways, a shared word is never missed and a disjoint pair is never
        // called related.
        for vocabulary in [30, 234, 20_000, 1_000_000] {
            let sentences = sets(vocabulary, 2_000, vocabulary);
            let bits = Bits::choose(sentences.len(), |i| &sentences[i]);
            let signed: Vec<(Signature, Vec<u64>)> = sentences
                .iter()
                .map(|h| {
                    let mut rare = Vec::new();
                    (bits.sign(h, &mut rare), rare)
                })
                .collect();
            let (mut shared, mut apart) = (0, 0);
            for (si, a) in sentences.iter().zip(&signed).take(300) {
                for (sj, b) in sentences.iter().zip(&signed).take(300) {
                    let truth = disjoint(si, sj);
                    assert_eq!(
                        no_shared_word(&a.0, &a.1, &b.0, &b.1),
                        truth,
                        "{vocabulary}"
                    );
                    if truth {
                        apart += 1;
                    } else {
                        shared += 1;
                    }
                }
            }
            assert!(shared > 0, "{vocabulary}");
            if vocabulary > 234 {
                assert!(apart > 0, "{vocabulary}");
            }
        }
    }

    #[test]
    fn the_commonest_words_get_their_own_bits_and_the_rest_are_kept() {
        let common: Vec<String> = (0..300).map(|i| format!("c{i}")).collect();
        let mut sentences: Vec<Vec<u64>> = vec![hashes(&common[..EXACT]); 10];
        sentences.push(hashes(&common));
        let bits = Bits::choose(sentences.len(), |i| &sentences[i]);
        let mut rare = Vec::new();
        let sig = bits.sign(&hashes(&common), &mut rare);
        assert_eq!(rare, hashes(&common[EXACT..]));
        assert_eq!(
            sig.0[..EXACT_WORDS]
                .iter()
                .map(|w| w.count_ones())
                .sum::<u32>() as usize,
            EXACT
        );
        // One shared rare word is found through the lists.
        let mut other_rare = Vec::new();
        let other = bits.sign(&hashes(&common[299..]), &mut other_rare);
        assert!(!no_shared_word(&sig, &rare, &other, &other_rare));
        let mut none = Vec::new();
        let unseen = bits.sign(&hashes(&["zebra".to_owned()]), &mut none);
        assert!(no_shared_word(&sig, &rare, &unseen, &none));
        assert!(!unseen.shares_common(&sig));
    }
}
