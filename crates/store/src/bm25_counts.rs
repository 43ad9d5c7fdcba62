//! Corpus statistics of texts not yet in the search index, counted as the index will
//! count them, so that an import can rank its claims with BM25 while its index is still
//! being built (`Bm25Corpus::with_new_texts`).

use crate::bm25_terms::indexed_hashes;
use crate::SentenceTerms;
use factdesk_core::text;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Words are counted by their 64-bit hash ([`crate::SentenceTerms`] holds a sentence's
/// words the same way): a claim word sharing its hash with another word of the import is
/// as unlikely as two claim words sharing one.
#[derive(Debug, Clone, Default)]
pub struct TextCounts {
    pub(crate) texts: u64,
    pub(crate) tokens: u64,
    doc_freq: HashMap<u64, u32, BuildHasherDefault<SpreadHash>>,
    /// A reused buffer for one text's words.
    words: Vec<u64>,
}

impl TextCounts {
    /// Counts one text (a sentence or a claim) as the index will: one more text, its
    /// tokens, and one more text holding each of its words.
    pub fn add(&mut self, text: &str) {
        self.words.clear();
        self.words.extend(indexed_hashes(&text::tokens(text)));
        self.texts += 1;
        self.tokens += self.words.len() as u64;
        self.words.sort_unstable();
        self.words.dedup();
        for &w in &self.words {
            *self.doc_freq.entry(w).or_default() += 1;
        }
    }

    /// [`TextCounts::add`] for a sentence already prepared for BM25.
    pub fn add_terms(&mut self, terms: &SentenceTerms) {
        self.texts += 1;
        for &(w, n) in &terms.counts {
            self.tokens += u64::from(n);
            *self.doc_freq.entry(w).or_default() += 1;
        }
    }

    /// Adds what `other` counted.
    pub fn merge(&mut self, other: TextCounts) {
        self.texts += other.texts;
        self.tokens += other.tokens;
        for (w, n) in other.doc_freq {
            *self.doc_freq.entry(w).or_default() += n;
        }
    }

    /// In how many of the counted texts the word with this hash occurs.
    pub(crate) fn doc_freq(&self, hash: u64) -> u64 {
        self.doc_freq.get(&hash).map_or(0, |&n| u64::from(n))
    }
}

/// The keys are FNV hashes already: one multiplication spreads them over the table's bits.
#[derive(Debug, Default, Clone, Copy)]
struct SpreadHash(u64);

impl Hasher for SpreadHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Hashes the words of [`crate::Bm25Corpus`]'s weights: FNV-1a, then a multiplication to
/// spread it over the high bits the table also uses (its keys come from the claims, and
/// a slow hash of them was a visible part of ranking).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
    fn write(&mut self, bytes: &[u8]) {
        let start = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        self.0 = bytes.iter().fold(start, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{claim_words, SearchIndex, SentenceTerms, Store};

    /// Scores with the statistics of the index before a batch plus the batch's texts as
    /// counted here equal, bit for bit, the scores with the committed index's statistics.
    #[test]
    #[allow(clippy::too_many_lines)]
    fn counted_texts_give_the_committed_index_statistics() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let long = "w".repeat(u16::MAX as usize);
        let earlier = [
            "Harbour ships sailed in 1850.",
            "The café opened; Zürich's mayor came.",
        ];
        let texts: Vec<String> = [
            "The vaccine trial in Spain reduced deaths by half.",
            "VACCINE vaccine Vaccine: a word said three times, and Spain once.",
            "Ärzte in Spanien berichteten über den Impfstoff und die Studie.",
            "Don't trust the café's naïve Über-claims about harbour ships.",
            "",
        ]
        .iter()
        .map(|t| t.to_string())
        .chain([format!("A long word {long} is dropped by the index.")])
        .collect();
        let mut batch = SearchIndex::begin(&store).unwrap_or_else(|e| panic!("{e}"));
        for (i, t) in earlier.iter().enumerate() {
            batch
                .add_sentence(i as i64 + 1, 1, t)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        batch.commit(store.read()).unwrap_or_else(|e| panic!("{e}"));
        let mut batch = SearchIndex::begin(&store).unwrap_or_else(|e| panic!("{e}"));
        let before = batch
            .bm25_corpus_before(crate::Bm25Params::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let mut counts = TextCounts::default();
        for (i, t) in texts.iter().enumerate() {
            batch
                .add_sentence(i as i64 + 10, 2, t)
                .unwrap_or_else(|e| panic!("{e}"));
            counts.add(t);
        }
        batch
            .add_claim(1, "Spain's café")
            .unwrap_or_else(|e| panic!("{e}"));
        counts.add("Spain's café");
        let mut counted = before
            .with_new_texts(std::sync::Arc::new(counts))
            .unwrap_or_else(|e| panic!("{e}"));
        let index = batch.commit(store.read()).unwrap_or_else(|e| panic!("{e}"));
        let mut committed = index.bm25_corpus().unwrap_or_else(|e| panic!("{e}"));
        let terms: Vec<SentenceTerms> = texts
            .iter()
            .chain(
                earlier
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .iter(),
            )
            .map(|t| SentenceTerms::new(t))
            .collect();
        let refs: Vec<&SentenceTerms> = terms.iter().collect();
        for claim in [
            "The vaccine reduced deaths in Spain",
            "arzte uber Studie cafe",
            "harbour ships Zürich",
            "unrelated words only",
        ] {
            let words = claim_words(claim);
            let want = committed
                .scores(&words, &refs)
                .unwrap_or_else(|e| panic!("{e}"));
            let got = counted
                .scores(&words, &refs)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                got.iter().map(|s| s.map(f32::to_bits)).collect::<Vec<_>>(),
                want.iter().map(|s| s.map(f32::to_bits)).collect::<Vec<_>>(),
                "{claim}"
            );
            assert!(want.iter().any(Option::is_some) || claim.starts_with("unrelated"));
            // Kept as counts of the claim's words, the sentences score the same.
            let claim_terms = crate::ClaimTerms::new(&words);
            let kept: Vec<crate::ClaimWordCounts> =
                terms.iter().map(|t| t.claim_counts(&claim_terms)).collect();
            let from_counts = committed
                .scores_of_counts(&words, &kept)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                from_counts
                    .iter()
                    .map(|s| s.map(f32::to_bits))
                    .collect::<Vec<_>>(),
                want.iter().map(|s| s.map(f32::to_bits)).collect::<Vec<_>>(),
                "{claim}"
            );
            // Counting prepared sentences counts what counting their text does.
            let mut by_terms = TextCounts::default();
            let mut by_text = TextCounts::default();
            for (t, terms) in texts.iter().zip(&terms) {
                by_terms.add_terms(terms);
                by_text.add(t);
            }
            assert_eq!(
                (by_terms.texts, by_terms.tokens),
                (by_text.texts, by_text.tokens)
            );
            for w in &words {
                let h = crate::bm25_terms::word_hash(w);
                assert_eq!(by_terms.doc_freq(h), by_text.doc_freq(h), "{w}");
            }
        }
    }
}
