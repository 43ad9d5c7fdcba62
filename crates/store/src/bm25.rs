//! BM25 over a claim's own sentences, scored in memory with the search index's corpus
//! statistics.
//!
//! Ranking used to run one index query per claim, restricted to the claim's documents;
//! at 100,000 claims that query dominated the import. The scores only need, per claim
//! word, how many indexed texts hold it, and, per sentence, its length and how often the
//! word occurs in it. The statistics come from the index (so they are the ones a query
//! would use) and the score is tantivy's BM25, with the sentence length quantised exactly
//! as the index stores it, computed here so that `k1` and `b` can be set ([`Bm25Params`]);
//! with tantivy's own values (the default) every operation is tantivy's, in its order. Each word's part is the query's, bit for
//! bit; only the order of the f32 sum over a claim's words may differ from the query's
//! (tantivy's union reorders its clauses as their postings run out), so a total can
//! differ in its last bit (`tests::scores_equal_the_index_query`).

use crate::bm25_counts::WordHasher;
pub use crate::bm25_terms::{
    claim_words, claim_words_of_tokens, ClaimTerms, ClaimWordCounts, SentenceTerms,
};
use crate::bm25_terms::{word_hash, WordTable};
use crate::{Result, SearchIndex, TextCounts};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;
use tantivy::{Searcher, Term};

/// BM25's free parameters: `k1`, how fast repeated words stop adding, and `b`, how much a
/// long sentence is penalised. The defaults are tantivy's (and Lucene's), which the index's
/// own queries use; the multilingual fact-checking pipeline used 0.9 and 0.9.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
}

impl Default for Bm25Params {
    fn default() -> Bm25Params {
        Bm25Params { k1: 1.2, b: 0.75 }
    }
}

impl Bm25Params {
    /// Why the values cannot work, if they cannot: `k1` must be finite and not negative,
    /// `b` between 0 and 1.
    pub fn problem(&self) -> Option<String> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Some(format!(
                "k1 must be a number of at least 0, not {}",
                self.k1
            ));
        }
        if !(0.0..=1.0).contains(&self.b) {
            return Some(format!("b must be between 0 and 1, not {}", self.b));
        }
        None
    }
}

/// One word's weight: its idf times `1 + k1`.
type Weight = f32;

/// idf as tantivy computes it: `ln(1 + (N - n + 0.5) / (n + 0.5))`.
fn idf(doc_freq: u64, total_docs: u64) -> f32 {
    let x = ((total_docs - doc_freq) as f32 + 0.5) / (doc_freq as f32 + 0.5);
    (1.0 + x).ln()
}

/// The length part of the denominator for each of the index's 256 length codes.
fn length_norms(params: Bm25Params, average_length: f32) -> [f32; 256] {
    let mut norms = [0.0f32; 256];
    for (id, norm) in norms.iter_mut().enumerate() {
        let length = FieldNormReader::id_to_fieldnorm(id as u8) as f32;
        *norm = params.k1 * (1.0 - params.b + params.b * length / average_length);
    }
    norms
}

/// One word's part of a sentence's score.
fn word_score(weight: Weight, norms: &[f32; 256], fieldnorm_id: u8, tf: u32) -> f32 {
    let tf = tf as f32;
    weight * (tf / (tf + norms[fieldnorm_id as usize]))
}

/// The corpus statistics of an index: how many texts it holds, their average length, and
/// document frequencies on demand. Cheap to clone, one per ranking thread.
#[derive(Clone)]
pub struct Bm25Corpus {
    searcher: Searcher,
    field: Field,
    total_docs: u64,
    average_length: f32,
    params: Bm25Params,
    norms: Arc<[f32; 256]>,
    /// Weights of the words asked for so far (`None`: the word is in no indexed text).
    weights: HashMap<String, Option<Weight>, BuildHasherDefault<WordHasher>>,
    /// Texts about to be indexed, counted in as if they were.
    new_texts: Option<Arc<TextCounts>>,
}

impl std::fmt::Debug for Bm25Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Corpus")
            .field("total_docs", &self.total_docs)
            .field("average_length", &self.average_length)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl SearchIndex {
    /// The index's BM25 statistics, as of its last commit, with tantivy's `k1` and `b`.
    pub fn bm25_corpus(&self) -> Result<Bm25Corpus> {
        self.bm25_corpus_with(Bm25Params::default())
    }

    /// The same with other `k1` and `b`.
    pub fn bm25_corpus_with(&self, params: Bm25Params) -> Result<Bm25Corpus> {
        Bm25Corpus::of(self.reader.searcher(), self.fields.text, params, None)
    }
}

impl crate::IndexBatch {
    /// The statistics of the index as it was before this batch's rows, with `k1` and `b`;
    /// see [`Bm25Corpus::with_new_texts`] for counting the batch's rows in.
    pub fn bm25_corpus_before(&self, params: Bm25Params) -> Result<Bm25Corpus> {
        Bm25Corpus::of(self.before.searcher(), self.fields.text, params, None)
    }
}

impl Bm25Corpus {
    fn of(
        searcher: Searcher,
        field: Field,
        params: Bm25Params,
        new_texts: Option<Arc<TextCounts>>,
    ) -> Result<Bm25Corpus> {
        let added = new_texts.as_deref().map_or((0, 0), |n| (n.texts, n.tokens));
        let total_docs = searcher.total_num_docs()? + added.0;
        let tokens = searcher.total_num_tokens(field)? + added.1;
        let average_length = tokens as f32 / total_docs as f32;
        Ok(Bm25Corpus {
            average_length,
            searcher,
            field,
            total_docs,
            params,
            norms: Arc::new(length_norms(params, average_length)),
            weights: HashMap::default(),
            new_texts,
        })
    }

    /// These statistics with `counts` (texts about to be indexed) added: what the index
    /// will hold once they are committed, so BM25 can score before that commit. Totals
    /// are the same integers as the committed index's, so the scores are the same f32s.
    pub fn with_new_texts(self, counts: Arc<TextCounts>) -> Result<Bm25Corpus> {
        Bm25Corpus::of(self.searcher, self.field, self.params, Some(counts))
    }

    /// The word's weight, its document frequency looked up once and the weight kept.
    fn weight(&mut self, word: &str) -> Result<Option<Weight>> {
        if let Some(&weight) = self.weights.get(word) {
            return Ok(weight);
        }
        let term = Term::from_field_text(self.field, word);
        let added = self
            .new_texts
            .as_deref()
            .map_or(0, |n| n.doc_freq(word_hash(word)));
        let doc_freq = self.searcher.doc_freq(&term)? + added;
        let weight = (doc_freq > 0 && doc_freq <= self.total_docs)
            .then(|| idf(doc_freq, self.total_docs) * (1.0 + self.params.k1));
        self.weights.insert(word.to_string(), weight);
        Ok(weight)
    }

    /// [`Bm25Corpus::scores`] of sentences kept as their counts of the claim's words
    /// ([`SentenceTerms::claim_counts`]): the same shares summed in the same order, so
    /// the same f32s.
    pub fn scores_of_counts(
        &mut self,
        words: &[String],
        sentences: &[ClaimWordCounts],
    ) -> Result<Vec<Option<f32>>> {
        let weights: Vec<Option<Weight>> = words
            .iter()
            .map(|w| self.weight(w))
            .collect::<Result<_>>()?;
        Ok(sentences
            .iter()
            .map(|s| {
                let mut score: Option<f32> = None;
                for &(position, tf) in s.hits.iter() {
                    if let Some(Some(weight)) = weights.get(position as usize) {
                        *score.get_or_insert(0.0) +=
                            word_score(*weight, &self.norms, s.fieldnorm_id, tf);
                    }
                }
                score
            })
            .collect())
    }

    /// BM25 of each sentence against the claim's words (from [`claim_words`]), in the
    /// sentences' order; `None` for a sentence sharing no word with the claim. The sum
    /// runs over the words in the claim's order, as the query summed its clauses.
    pub fn scores(
        &mut self,
        words: &[String],
        sentences: &[&SentenceTerms],
    ) -> Result<Vec<Option<f32>>> {
        let mut weights: Vec<(u64, Weight)> = Vec::with_capacity(words.len());
        for w in words {
            if let Some(weight) = self.weight(w)? {
                weights.push((word_hash(w), weight));
            }
        }
        Ok(score_all(&weights, &self.norms, sentences))
    }
}

/// Each sentence's BM25 against the claim's weighted words (hash and weight, in the
/// claim's order).
fn score_all(
    weights: &[(u64, Weight)],
    norms: &[f32; 256],
    sentences: &[&SentenceTerms],
) -> Vec<Option<f32>> {
    let Some(table) = WordTable::new(weights.iter().map(|(h, _)| *h)) else {
        return sentences
            .iter()
            .map(|s| score_word_by_word(weights, norms, s))
            .collect();
    };
    let mut hits: Vec<(usize, u32)> = Vec::new();
    sentences
        .iter()
        .map(|s| {
            hits.clear();
            hits.extend(
                s.counts
                    .iter()
                    .filter_map(|&(h, tf)| Some((table.position(h)?, tf))),
            );
            // Summed in the claim's order, as word by word: the same f32 result.
            hits.sort_unstable();
            let mut score: Option<f32> = None;
            for &(position, tf) in &hits {
                *score.get_or_insert(0.0) +=
                    word_score(weights[position].1, norms, s.fieldnorm_id, tf);
            }
            score
        })
        .collect()
}

/// The sum over the claim's words, in order, of each word's share in the sentence.
fn score_word_by_word(
    weights: &[(u64, Weight)],
    norms: &[f32; 256],
    s: &SentenceTerms,
) -> Option<f32> {
    let mut score: Option<f32> = None;
    for (w, weight) in weights {
        let tf = s.count(*w);
        if tf > 0 {
            *score.get_or_insert(0.0) += word_score(*weight, norms, s.fieldnorm_id, tf);
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bm25_terms::MAX_INDEXED_LEN;
    use crate::Store;

    /// The table lookup gives every sentence the word-by-word sum, bit for bit, and
    /// `may_contain` never rules out a sentence holding every claim word.
    #[test]
    fn table_scores_equal_word_by_word_scores() {
        let vocabulary = [
            "vaccine", "spain", "deaths", "the", "trial", "café", "don't", "Über", "a", "of",
            "reduced", "half", "x", "y", "z", "q",
        ];
        let mut rng = factdesk_core::seeded::Seeded::new(3);
        let mut text = |n: u64| -> String {
            (0..n)
                .map(|_| vocabulary[rng.below(vocabulary.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sentences: Vec<SentenceTerms> = (0..400)
            .map(|i| SentenceTerms::new(&text(1 + i % 30)))
            .collect();
        let refs: Vec<&SentenceTerms> = sentences.iter().collect();
        let weights: Vec<Weight> = (1..=vocabulary.len() as u64)
            .map(|df| idf(df * 7, 1000) * 2.2)
            .collect();
        let norms = length_norms(Bm25Params::default(), 11.5);
        let mut compared = 0;
        for claim_length in 0..14 {
            let claim = text(claim_length);
            let words = claim_words(&claim);
            let weighted: Vec<(u64, Weight)> = words
                .iter()
                .zip(&weights)
                .map(|(w, weight)| (word_hash(w), *weight))
                .collect();
            let got = score_all(&weighted, &norms, &refs);
            let terms = ClaimTerms::new(&words);
            for (s, score) in refs.iter().zip(&got) {
                let want = score_word_by_word(&weighted, &norms, s);
                assert_eq!(score.map(f32::to_bits), want.map(f32::to_bits), "{claim}");
                compared += usize::from(want.is_some());
                if words.iter().all(|w| s.count(word_hash(w)) > 0) {
                    assert!(s.may_contain(&terms));
                }
            }
        }
        assert!(compared > 1000, "{compared}");
        let doubled = [(word_hash("x"), weights[0]), (word_hash("x"), weights[1])];
        let x = SentenceTerms::new("x x y");
        assert_eq!(
            score_all(&doubled, &norms, &[&x]),
            [score_word_by_word(&doubled, &norms, &x)]
        );
        assert!(!x.may_contain(&ClaimTerms::new(&claim_words("x z"))));
        assert!(x.may_contain(&ClaimTerms::new(&claim_words("Y x"))));
    }

    #[test]
    fn words_with_terms_equal_each_prepared_on_its_own() {
        let pieces = [
            "cafe",
            "ᴀ",
            "A",
            "uber",
            "The",
            "the",
            "vaccine",
            "Vaccine",
            "VACCINE",
            "don't",
            "Don't",
            "OURSELVES",
            "a",
            "I",
            "12.5",
            "x",
            "café",
            "Über",
            "’s",
            "of",
            "-",
            ", ",
            ". ",
            "  ",
        ];
        let mut rng = factdesk_core::seeded::Seeded::new(5);
        let mut texts: Vec<String> = (0..3000)
            .map(|_| {
                (0..rng.below(30))
                    .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        texts.push(format!("long {} word", "w".repeat(MAX_INDEXED_LEN + 1)));
        texts.push(String::new());
        for (id, t) in texts.iter().enumerate() {
            let tokens = factdesk_core::text::tokens(t);
            let want = (
                factdesk_core::ranking::SentenceWords::from_tokens(id as i64, &tokens),
                SentenceTerms::from_tokens(&tokens),
            );
            assert_eq!(SentenceTerms::with_words(id as i64, &tokens), want, "{t}");
            // Claim words as they were found before ASCII tokens took a shortcut.
            let mut words: Vec<String> = Vec::new();
            for t in &tokens {
                let w =
                    crate::index_tokens::indexed_form(factdesk_core::text::normalize_token(t.text));
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            assert_eq!(claim_words(t), words, "{t}");
        }
    }

    #[test]
    fn default_parameters_score_as_tantivy_and_others_by_the_formula() {
        let norms = length_norms(Bm25Params::default(), 11.5);
        for df in [1u64, 7, 300, 999] {
            let theirs = tantivy::query::Bm25Weight::for_one_term_without_explain(df, 1000, 11.5);
            let ours = idf(df, 1000) * (1.0 + 1.2);
            for id in [0u8, 5, 17, 40, 255] {
                for tf in [1u32, 2, 9] {
                    assert_eq!(
                        word_score(ours, &norms, id, tf).to_bits(),
                        theirs.score(id, tf).to_bits()
                    );
                }
            }
        }
        let params = Bm25Params { k1: 0.9, b: 0.9 };
        let norms = length_norms(params, 10.0);
        let id = FieldNormReader::fieldnorm_to_id(20);
        let length = f64::from(FieldNormReader::id_to_fieldnorm(id));
        let got = f64::from(word_score(idf(10, 1000) * 1.9, &norms, id, 2));
        let idf = (1.0 + 990.5f64 / 10.5).ln();
        let want = idf * 1.9 * 2.0 / (2.0 + 0.9 * (1.0 - 0.9 + 0.9 * length / 10.0));
        assert!((got - want).abs() < 1e-5 * want, "{got} {want}");
        assert!(params.problem().is_none());
        assert!(Bm25Params { k1: -0.1, b: 0.5 }.problem().is_some());
        assert!(Bm25Params {
            k1: f32::NAN,
            b: 0.5
        }
        .problem()
        .is_some());
        assert!(Bm25Params { k1: 1.0, b: 1.5 }.problem().is_some());
    }

    #[test]
    fn scores_equal_the_index_query() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.fdesk");
        let mut store = Store::create(&path, "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let texts = [
            "The vaccine trial in Spain reduced deaths by half.",
            "Deaths fell in Spain after the trial; the vaccine's makers said so.",
            "Nothing here.",
            "VACCINE vaccine Vaccine: a word said three times, and Spain once.",
            "Ärzte in Spanien berichteten über den Impfstoff und die Studie.",
        ];
        let tx = store.transaction().unwrap_or_else(|e| panic!("{e}"));
        let (doc_id, ids) =
            crate::documents::insert_bare(&tx, "d", &texts).unwrap_or_else(|e| panic!("{e}"));
        tx.commit().unwrap_or_else(|e| panic!("{e}"));
        let index = SearchIndex::open(&store).unwrap_or_else(|e| panic!("{e}"));
        let mut corpus = index.bm25_corpus().unwrap_or_else(|e| panic!("{e}"));
        let terms: Vec<SentenceTerms> = texts.iter().map(|t| SentenceTerms::new(t)).collect();
        let refs: Vec<&SentenceTerms> = terms.iter().collect();
        for claim in [
            "The vaccine reduced deaths in Spain",
            "vaccine vaccine",
            "Spanien Impfstoff Ärzte",
            "arzte uber Studie",
            "unrelated words only",
        ] {
            let want = index
                .bm25(claim, &[doc_id], texts.len())
                .unwrap_or_else(|e| panic!("{e}"));
            let scores = corpus
                .scores(&claim_words(claim), &refs)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut got: Vec<(i64, f32)> = ids
                .iter()
                .zip(&scores)
                .filter_map(|(id, s)| s.map(|s| (*id, s)))
                .collect();
            got.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            assert_eq!(got.len(), want.len(), "{claim}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.0, w.0, "{claim}: {got:?} {want:?}");
                assert!(
                    (g.1 - w.1).abs() <= w.1 * 4.0 * f32::EPSILON,
                    "{claim}: {g:?} {w:?}"
                );
            }
        }
    }
}
