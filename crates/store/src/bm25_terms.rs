//! A claim's and a sentence's words as BM25 ranking holds them: hashed, counted and
//! signed, so hundreds of thousands of sentences are prepared without an allocation per
//! word and most are ruled out of containing a claim without a search.

use crate::index_tokens::indexed_form;
use factdesk_core::{ranking, text};
use tantivy::fieldnorm::FieldNormReader;

/// A sentence prepared for BM25: its length as the index stores it and its words, as
/// 64-bit hashes, with their counts, sorted by hash. Hashes rather than words keep
/// preparing hundreds of thousands of sentences free of an allocation per word; two of a
/// claim's words sharing a hash is too unlikely to matter for a ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentenceTerms {
    pub(crate) fieldnorm_id: u8,
    pub(crate) counts: Vec<(u64, u32)>,
    /// Bit `hash >> 58` set for each word ([`signature`]).
    pub(crate) signature: u64,
}

/// One bit per word, chosen by the top bits of its hash: a text whose signature lacks a
/// bit of another's cannot hold all of that one's words.
pub(crate) fn signature(hashes: impl Iterator<Item = u64>) -> u64 {
    hashes.fold(0, |bits, h| bits | 1 << (h >> 58))
}

/// The hash of each token the index keeps, in its indexed form, in order.
pub(crate) fn indexed_hashes<'a>(tokens: &'a [text::Token<'_>]) -> impl Iterator<Item = u64> + 'a {
    tokens.iter().filter_map(|t| {
        let (hash, len) = if t.text.is_ascii() {
            // Normalised and indexed, an ASCII token is itself lower-cased: core's hash
            // of it lower-cases as it goes, and is this one's of the lower-cased word.
            (ranking::word_hash(t.text), t.text.len())
        } else {
            let w = indexed_form(text::normalize_token(t.text));
            (word_hash(&w), w.len())
        };
        // The index drops tokens longer than tantivy's MAX_TOKEN_LEN and does not count
        // them in the length.
        (len <= MAX_INDEXED_LEN).then_some(hash)
    })
}

/// FNV-1a of a word in its indexed form; fixed, so results never vary between runs.
pub(crate) fn word_hash(word: &str) -> u64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl SentenceTerms {
    /// Tokenised as the index tokenises (`text::tokens`, then `text::normalize_token`).
    pub fn new(sentence: &str) -> SentenceTerms {
        SentenceTerms::from_tokens(&text::tokens(sentence))
    }

    /// The same from the sentence's tokens, for a caller that needs them for more.
    pub fn from_tokens(tokens: &[text::Token<'_>]) -> SentenceTerms {
        let mut words: Vec<u64> = indexed_hashes(tokens).collect();
        let length = u32::try_from(words.len()).unwrap_or(u32::MAX);
        words.sort_unstable();
        let mut counts: Vec<(u64, u32)> = Vec::with_capacity(words.len());
        for w in words {
            match counts.last_mut() {
                Some((last, n)) if *last == w => *n += 1,
                _ => counts.push((w, 1)),
            }
        }
        SentenceTerms {
            fieldnorm_id: FieldNormReader::fieldnorm_to_id(length),
            signature: signature(counts.iter().map(|(h, _)| *h)),
            counts,
        }
    }

    /// A sentence's words for Jaccard (`SentenceWords::from_tokens`) and for BM25
    /// ([`SentenceTerms::from_tokens`]) from its tokens. For an ASCII sentence, each word's
    /// hash is the same in both forms, so each token is read once (hash and stop-word test
    /// together) and the hashes sorted once for both.
    pub fn with_words(
        sentence_id: i64,
        tokens: &[text::Token<'_>],
    ) -> (ranking::SentenceWords, SentenceTerms) {
        let mut words: Vec<(u64, bool)> = Vec::with_capacity(tokens.len());
        let mut content_tokens = 0;
        for t in tokens {
            // A lower-cased ASCII token is its own indexed form, hashed alike by both.
            if !t.text.is_ascii() || t.text.len() > MAX_INDEXED_LEN {
                return (
                    ranking::SentenceWords::from_tokens(sentence_id, tokens),
                    SentenceTerms::from_tokens(tokens),
                );
            }
            let (hash, stop) = ranking::ascii_word(t.text.as_bytes());
            words.push((hash, !stop));
            content_tokens += usize::from(!stop);
        }
        let length = u32::try_from(words.len()).unwrap_or(u32::MAX);
        words.sort_unstable_by_key(|&(hash, _)| hash);
        let mut counts: Vec<(u64, u32)> = Vec::with_capacity(words.len());
        // Kept for as long as the document: no room for the stop words.
        let mut content: Vec<u64> = Vec::with_capacity(content_tokens);
        for (hash, kept) in words {
            match counts.last_mut() {
                Some((last, n)) if *last == hash => *n += 1,
                _ => counts.push((hash, 1)),
            }
            // Kept once, when a token with this hash is no stop word.
            if kept && content.last() != Some(&hash) {
                content.push(hash);
            }
        }
        let terms = SentenceTerms {
            fieldnorm_id: FieldNormReader::fieldnorm_to_id(length),
            signature: signature(counts.iter().map(|(h, _)| *h)),
            counts,
        };
        (
            ranking::SentenceWords::from_hashes(sentence_id, content),
            terms,
        )
    }

    /// How often each of `claim`'s words occurs here: all BM25 needs to score the sentence
    /// against that claim once the corpus statistics are known.
    pub fn claim_counts(&self, claim: &ClaimTerms) -> ClaimWordCounts {
        let hits: Vec<(u32, u32)> = claim
            .hashes
            .iter()
            .enumerate()
            // Most claim words miss the sentence's signature: no search for those.
            .filter(|(_, &h)| self.signature & 1 << (h >> 58) != 0)
            .filter_map(|(p, &h)| Some((p as u32, Some(self.count(h)).filter(|&n| n > 0)?)))
            .collect();
        ClaimWordCounts {
            fieldnorm_id: self.fieldnorm_id,
            hits: hits.into_boxed_slice(),
        }
    }

    pub(crate) fn count(&self, hash: u64) -> u32 {
        self.counts
            .binary_search_by(|(h, _)| h.cmp(&hash))
            .map_or(0, |i| self.counts[i].1)
    }

    /// False when the sentence cannot contain every word of `claim`, so cannot contain the
    /// claim (`factdesk_core::ranking::contains_claim`); true when it may.
    pub fn may_contain(&self, claim: &ClaimTerms) -> bool {
        if !claim.checkable {
            return true;
        }
        // Most sentences lack some claim word's bit: no search needed to rule them out.
        claim.signature & !self.signature == 0 && claim.hashes.iter().all(|&h| self.count(h) > 0)
    }
}

/// A sentence's length code and how often each word of one claim occurs in it, as
/// (position in the claim's words, count) in the claim's order; small enough to keep for
/// every sentence of an import until its corpus statistics are complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimWordCounts {
    pub(crate) fieldnorm_id: u8,
    pub(crate) hits: Box<[(u32, u32)]>,
}

/// The longest word the index keeps (tantivy's MAX_TOKEN_LEN).
pub(crate) const MAX_INDEXED_LEN: usize = u16::MAX as usize - 5;

/// A claim's words in the form [`SentenceTerms`] holds a sentence's, to rule sentences
/// out cheaply before the exact word-by-word test of whether they contain the claim.
#[derive(Debug, Clone)]
pub struct ClaimTerms {
    pub(crate) hashes: Vec<u64>,
    pub(crate) signature: u64,
    /// False if a word is too long for the index: sentences keep no trace of such words.
    pub(crate) checkable: bool,
}

impl ClaimTerms {
    /// From the claim's [`claim_words`].
    pub fn new(words: &[String]) -> ClaimTerms {
        let hashes: Vec<u64> = words.iter().map(|w| word_hash(w)).collect();
        ClaimTerms {
            signature: signature(hashes.iter().copied()),
            hashes,
            checkable: words.iter().all(|w| w.len() <= MAX_INDEXED_LEN),
        }
    }
}

/// A claim's weighted words as a small open-addressing table keyed by word hash, so a
/// sentence's words are looked up one probe each instead of every claim word being
/// searched for in the sentence.
pub(crate) struct WordTable {
    /// Bit `hash >> 58` is set for every claim word: most sentence words miss it.
    pub(crate) bits: u64,
    /// (hash, position in the claim's weighted words + 1); 0 marks an empty slot.
    pub(crate) slots: Vec<(u64, u32)>,
}

impl WordTable {
    /// `None` when two words share a hash; the caller then searches word by word.
    pub(crate) fn new(hashes: impl ExactSizeIterator<Item = u64>) -> Option<WordTable> {
        let size = (hashes.len() * 2).next_power_of_two().max(8);
        let mut table = WordTable {
            bits: 0,
            slots: vec![(0, 0); size],
        };
        for (position, hash) in hashes.enumerate() {
            table.bits |= 1 << (hash >> 58);
            let mut slot = hash as usize & (size - 1);
            loop {
                match table.slots[slot] {
                    (_, 0) => break,
                    (h, _) if h == hash => return None,
                    _ => slot = (slot + 1) & (size - 1),
                }
            }
            table.slots[slot] = (hash, position as u32 + 1);
        }
        Some(table)
    }

    /// The claim position of the word with this hash.
    #[inline]
    pub(crate) fn position(&self, hash: u64) -> Option<usize> {
        if self.bits & (1 << (hash >> 58)) == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            match self.slots[slot] {
                (_, 0) => return None,
                (h, p) if h == hash => return Some(p as usize - 1),
                _ => slot = (slot + 1) & mask,
            }
        }
    }
}

/// A claim's distinct words, in the order they first occur, as the index query had them.
pub fn claim_words(claim: &str) -> Vec<String> {
    claim_words_of_tokens(&text::tokens(claim))
}

/// [`claim_words`] from the claim's tokens, for a caller that needs them for more.
pub fn claim_words_of_tokens(tokens: &[text::Token<'_>]) -> Vec<String> {
    let mut words: Vec<String> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if t.text.is_ascii() {
            // Normalised and indexed, an ASCII token is itself lower-cased: a word seen
            // before is found without building its form.
            let lower = |w: &String| {
                w.len() == t.text.len()
                    && w.bytes()
                        .zip(t.text.bytes())
                        .all(|(a, b)| a == b.to_ascii_lowercase())
            };
            if !words.iter().any(lower) {
                words.push(t.text.to_ascii_lowercase());
            }
            continue;
        }
        let w = indexed_form(text::normalize_token(t.text));
        // A claim has a few dozen words at most: a scan is cheaper than hashing each.
        if !words.contains(&w) {
            words.push(w);
        }
    }
    words
}
