//! Rankers by string similarity between the claim and each sentence.

use super::edit_distance::{ClaimPattern, Scratch};
use super::{rank_order, Candidate, Scored};
use crate::stopwords::is_stopword;
use crate::text;
use std::borrow::Cow;

/// The characters of a text lower-cased one by one (`char::to_lowercase`), streamed so
/// no sentence is copied. ASCII takes a shortcut: the general conversion is an opaque
/// call per character and dominated the cost of the edit distance.
struct LowerChars<'a> {
    chars: std::str::Chars<'a>,
    /// The rest of a character whose lower case is several characters ("İ").
    pending: Option<std::char::ToLowercase>,
}

impl Iterator for LowerChars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        if let Some(rest) = &mut self.pending {
            match rest.next() {
                Some(c) => return Some(c),
                None => self.pending = None,
            }
        }
        let c = self.chars.next()?;
        if c.is_ascii() {
            return Some(c.to_ascii_lowercase());
        }
        let mut lower = c.to_lowercase();
        let first = lower.next();
        self.pending = Some(lower);
        first
    }
}

fn lower_chars(s: &str) -> LowerChars<'_> {
    LowerChars {
        chars: s.chars(),
        pending: None,
    }
}

/// Normalised Levenshtein similarity of the lower-cased claim and each sentence, best
/// first: `1 - distance / max(length)` in characters, 1 for identical texts (and for two
/// empty ones). This is `strsim::normalized_levenshtein` on texts lower-cased character
/// by character, computed bit-parallel (see `edit_distance`) because the plain dynamic
/// programme was over 15 times slower on a large document.
pub fn levenshtein(claim: &str, sentences: &[Candidate]) -> Vec<Scored> {
    let pattern = ClaimPattern::new(lower_chars(claim));
    let similarity = |(distance, len): (usize, usize)| {
        let longest = len.max(pattern.len());
        if longest == 0 {
            1.0
        } else {
            1.0 - distance as f64 / longest as f64
        }
    };
    let mut scratch = Scratch::default();
    let mut scored: Vec<Scored> = sentences
        .iter()
        .map(|c| Scored {
            sentence_id: c.sentence_id,
            score: 0.0,
        })
        .collect();
    // ASCII sentences two at a time (see `distance_ascii_lowercased_pair`): one waits here
    // for the next.
    let mut waiting: Option<usize> = None;
    for (i, c) in sentences.iter().enumerate() {
        if !c.text.is_ascii() {
            scored[i].score = similarity(pattern.distance(lower_chars(c.text), &mut scratch));
            continue;
        }
        let Some(j) = waiting.take() else {
            waiting = Some(i);
            continue;
        };
        let [first, second] = pattern.distance_ascii_lowercased_pair(
            sentences[j].text.as_bytes(),
            c.text.as_bytes(),
            &mut scratch,
        );
        scored[j].score = similarity(first);
        scored[i].score = similarity(second);
    }
    if let Some(j) = waiting {
        let text = sentences[j].text.as_bytes();
        scored[j].score = similarity(pattern.distance_ascii_lowercased(text, &mut scratch));
    }
    rank_order(&mut scored);
    scored
}

/// FNV-1a over the lower-cased bytes, so an ASCII token and its normalised form hash
/// alike; fixed, so results never vary between runs.
#[inline]
pub fn word_hash(word: &str) -> u64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
    })
}

/// An ASCII word's [`word_hash`] and whether it is a stop word, from one pass over its
/// bytes: preparing sentences does both for every token.
#[inline]
pub fn ascii_word(word: &[u8]) -> (u64, bool) {
    let (mut hash, mut packed) = (0xcbf2_9ce4_8422_2325u64, 0u64);
    for &b in word {
        let b = u64::from(b.to_ascii_lowercase());
        hash = (hash ^ b).wrapping_mul(0x0100_0000_01b3);
        packed = (packed << 8) | b;
    }
    (
        hash,
        crate::stopwords::is_ascii_stopword_packed(word, packed),
    )
}

/// The distinct content words of one text: a small open-addressing hash set, reused from
/// sentence to sentence so counting words allocates nothing once it has grown.
///
/// An ASCII token is kept as it is, capitals and all, and other tokens are normalised
/// (`text::normalize_token`): most tokens then cost no allocation, and since a normalised
/// word has no ASCII capitals, two words are the same exactly when they are equal
/// ignoring ASCII case.
#[derive(Debug, Default)]
struct WordSet<'a> {
    words: Vec<(u64, Cow<'a, str>)>,
    /// Index + 1 into `words`, 0 for an empty slot; the length is a power of two.
    slots: Vec<u32>,
}

impl<'a> WordSet<'a> {
    /// Fills the set with the words of `text` that are not stop words.
    fn fill(&mut self, text: &'a str) {
        let tokens = text::tokens(text);
        self.words.clear();
        self.slots.clear();
        // At most half full, so probe sequences stay short.
        self.slots.resize((2 * tokens.len()).next_power_of_two(), 0);
        for token in tokens {
            let word = if token.text.is_ascii() {
                Cow::Borrowed(token.text)
            } else {
                Cow::Owned(text::normalize_token(token.text))
            };
            if !is_stopword(&word) {
                let hash = word_hash(&word);
                if let Err(slot) = self.find(hash, &word) {
                    self.words.push((hash, word));
                    self.slots[slot] = self.words.len() as u32;
                }
            }
        }
    }

    /// The slot holding `word`, or the empty slot where it would go.
    fn find(&self, hash: u64, word: &str) -> Result<usize, usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut slot = (hash as usize) & mask;
        loop {
            match self.slots.get(slot).copied() {
                None | Some(0) => return Err(slot),
                Some(i) => {
                    let (h, w) = &self.words[i as usize - 1];
                    if *h == hash && w.eq_ignore_ascii_case(word) {
                        return Ok(slot);
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    fn contains(&self, hash: u64, word: &str) -> bool {
        self.find(hash, word).is_ok()
    }

    fn len(&self) -> usize {
        self.words.len()
    }
}

/// Jaccard similarity of the claim's and each sentence's content words (normalised,
/// stop words removed), best first: shared words / all words. A pair with no content
/// words at all scores 0.
pub fn jaccard(claim: &str, sentences: &[Candidate]) -> Vec<Scored> {
    let mut claim_words = WordSet::default();
    claim_words.fill(claim);
    // One bit per claim word, chosen by the top bits of its hash: most sentence words
    // miss every claim word's bit and need no lookup.
    let bit = |hash: u64| 1u64 << (hash >> 58);
    let claim_bits = claim_words
        .words
        .iter()
        .fold(0, |bits, (h, _)| bits | bit(*h));
    let mut words = WordSet::default();
    let mut scored: Vec<Scored> = sentences
        .iter()
        .map(|c| {
            words.fill(c.text);
            let shared = words
                .words
                .iter()
                .filter(|(h, w)| claim_bits & bit(*h) != 0 && claim_words.contains(*h, w))
                .count();
            let all = claim_words.len() + words.len() - shared;
            let score = if all == 0 {
                0.0
            } else {
                shared as f64 / all as f64
            };
            Scored {
                sentence_id: c.sentence_id,
                score,
            }
        })
        .collect();
    rank_order(&mut scored);
    scored
}

/// A sentence's distinct content words as hashes, computed once per document and reused
/// for every claim ranked against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentenceWords {
    pub sentence_id: i64,
    /// Sorted, distinct.
    hashes: Vec<u64>,
}

impl SentenceWords {
    /// A sentence from its word hashes (`word_hash` of its content words), sorted and
    /// distinct.
    pub fn from_hashes(sentence_id: i64, hashes: Vec<u64>) -> SentenceWords {
        SentenceWords {
            sentence_id,
            hashes,
        }
    }

    /// The sorted, distinct hashes of its content words ([`jaccard_of_hashes`] takes a
    /// claim's in this form).
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// One sentence prepared from its tokens (`text::tokens`), for a caller that
    /// tokenises it for other rankers too: the same as [`sentence_words`] gives.
    pub fn from_tokens(sentence_id: i64, tokens: &[text::Token<'_>]) -> SentenceWords {
        let mut hashes: Vec<u64> = tokens
            .iter()
            .filter_map(|token| {
                if token.text.is_ascii() {
                    let (hash, stop) = ascii_word(token.text.as_bytes());
                    return (!stop).then_some(hash);
                }
                let word = text::normalize_token(token.text);
                (!is_stopword(&word)).then(|| word_hash(&word))
            })
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        SentenceWords {
            sentence_id,
            hashes,
        }
    }
}

/// A claim's word hashes as a small open-addressing set: a sentence's words are looked
/// up one probe each, most of them rejected by one bit test.
struct HashSet64 {
    /// Bit `hash >> 58` is set for every member.
    bits: u64,
    /// Members; `EMPTY` marks a free slot (a member equal to it is kept in `has_empty`).
    slots: Vec<u64>,
    has_empty: bool,
}

const EMPTY: u64 = 0;

impl HashSet64 {
    fn new(hashes: &[u64]) -> HashSet64 {
        let size = (hashes.len() * 2).next_power_of_two().max(8);
        let mut set = HashSet64 {
            bits: 0,
            slots: vec![EMPTY; size],
            has_empty: false,
        };
        for &hash in hashes {
            set.bits |= 1 << (hash >> 58);
            if hash == EMPTY {
                set.has_empty = true;
                continue;
            }
            let mut slot = hash as usize & (size - 1);
            while set.slots[slot] != EMPTY && set.slots[slot] != hash {
                slot = (slot + 1) & (size - 1);
            }
            set.slots[slot] = hash;
        }
        set
    }

    #[inline]
    fn contains(&self, hash: u64) -> bool {
        if self.bits & (1 << (hash >> 58)) == 0 {
            return false;
        }
        if hash == EMPTY {
            return self.has_empty;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            match self.slots[slot] {
                EMPTY => return false,
                h if h == hash => return true,
                _ => slot = (slot + 1) & mask,
            }
        }
    }
}

/// Prepares sentences for [`jaccard_prepared`].
pub fn sentence_words(sentences: &[Candidate]) -> Vec<SentenceWords> {
    let mut words = WordSet::default();
    sentences
        .iter()
        .map(|c| {
            words.fill(c.text);
            let mut hashes: Vec<u64> = words.words.iter().map(|(h, _)| *h).collect();
            hashes.sort_unstable();
            hashes.dedup();
            SentenceWords {
                sentence_id: c.sentence_id,
                hashes,
            }
        })
        .collect()
}

/// [`jaccard`] over prepared sentences. Words are compared by their 64-bit hashes; two
/// different words sharing one is too unlikely to matter for a ranking.
pub fn jaccard_prepared<'a>(
    claim: &str,
    sentences: impl IntoIterator<Item = &'a SentenceWords>,
) -> Vec<Scored> {
    let mut claim_words = WordSet::default();
    claim_words.fill(claim);
    let mut claim_hashes: Vec<u64> = claim_words.words.iter().map(|(h, _)| *h).collect();
    claim_hashes.sort_unstable();
    claim_hashes.dedup();
    jaccard_of_hashes(&claim_hashes, sentences)
}

/// Jaccard of the claim's distinct word hashes (sorted) and each prepared sentence's, best
/// first.
pub fn jaccard_of_hashes<'a>(
    claim_hashes: &[u64],
    sentences: impl IntoIterator<Item = &'a SentenceWords>,
) -> Vec<Scored> {
    let claim_set = HashSet64::new(claim_hashes);
    let mut scored: Vec<Scored> = sentences
        .into_iter()
        .map(|s| {
            let shared = s.hashes.iter().filter(|&&h| claim_set.contains(h)).count();
            let all = claim_hashes.len() + s.hashes.len() - shared;
            let score = if all == 0 {
                0.0
            } else {
                shared as f64 / all as f64
            };
            Scored {
                sentence_id: s.sentence_id,
                score,
            }
        })
        .collect();
    rank_order(&mut scored);
    scored
}

#[cfg(test)]
#[path = "similarity_tests.rs"]
mod tests;
