//! One claim's sentences ranked by every ranker: the documents prepared once for all the
//! claims that name them, the lexical rankers, then the semantic ranker over BM25's best
//! and the fusion.

use crate::semantic::SemanticRanker;
use crate::Result;
use factdesk_core::ranking::{self, Candidate, Ranker, Scored};
use factdesk_core::text;
use factdesk_store::Read;
use factdesk_store::{
    claim_words, claim_words_of_tokens, tx, Bm25Corpus, Bm25Params, ClaimTerms, ClaimWordCounts,
    SentenceTerms,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// How the rankers are set up for a run: BM25's `k1` and `b` (the corpus is made with
/// them) and whether Jaccard compares stems.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankOptions {
    pub bm25: Bm25Params,
    pub jaccard_stemming: bool,
}

impl RankOptions {
    /// The options a project's ranking settings ask for.
    pub fn of(settings: &crate::settings::RankingSettings) -> RankOptions {
        RankOptions {
            bm25: settings.bm25(),
            jaccard_stemming: settings.jaccard_stemming,
        }
    }
}

/// Every ranker's ordering of one claim's sentences, best first, with the
/// self-containing sentences already dropped.
#[derive(Debug, Clone, Default)]
pub struct Rankings {
    pub bm25: Vec<Scored>,
    pub levenshtein: Vec<Scored>,
    pub jaccard: Vec<Scored>,
    pub fused: Vec<Scored>,
    /// Empty without a semantic ranker.
    pub semantic: Vec<Scored>,
}

impl Rankings {
    pub fn get(&self, ranker: Ranker) -> &[Scored] {
        match ranker {
            Ranker::Bm25 => &self.bm25,
            Ranker::Levenshtein => &self.levenshtein,
            Ranker::Jaccard => &self.jaccard,
            Ranker::Fused => &self.fused,
            Ranker::Semantic => &self.semantic,
        }
    }
}

/// Documents with more sentences than this are ranked on two threads.
const PARALLEL_FROM: usize = 1000;

/// One document's sentences, prepared for every ranker once and shared by all the claims
/// that name the document.
#[derive(Debug)]
pub struct PreparedDocument {
    /// (sentence id, text), in document order.
    pub sentences: Vec<(i64, String)>,
    prepared: OnceLock<(Vec<ranking::SentenceWords>, Vec<SentenceTerms>)>,
    stemmed: OnceLock<Vec<ranking::SentenceWords>>,
}

impl PreparedDocument {
    pub(crate) fn new(sentences: Vec<(i64, String)>) -> PreparedDocument {
        PreparedDocument {
            sentences,
            prepared: OnceLock::new(),
            stemmed: OnceLock::new(),
        }
    }

    /// Words for Jaccard and terms for BM25, computed by whichever thread first needs them,
    /// from one tokenisation of each sentence.
    fn prepared(&self) -> &(Vec<ranking::SentenceWords>, Vec<SentenceTerms>) {
        self.prepared.get_or_init(|| {
            self.sentences
                .iter()
                .map(|(id, sentence)| SentenceTerms::with_words(*id, &text::tokens(sentence)))
                .unzip()
        })
    }

    /// Every sentence's BM25 terms, in order.
    pub(crate) fn terms(&self) -> &[SentenceTerms] {
        &self.prepared().1
    }

    /// Words for Jaccard with stemming, computed when first needed.
    fn stemmed(&self) -> &[ranking::SentenceWords] {
        self.stemmed.get_or_init(|| {
            self.sentences
                .iter()
                .map(|(id, sentence)| ranking::SentenceWords::stemmed(*id, sentence))
                .collect()
        })
    }
}

/// The sentences of a claim's documents, in document order.
#[derive(Debug, Clone)]
pub struct DocumentSet {
    pub document_ids: Vec<i64>,
    pub(crate) documents: Vec<Arc<PreparedDocument>>,
}

impl DocumentSet {
    pub fn load(conn: &Read, document_ids: Vec<i64>) -> Result<DocumentSet> {
        let documents = document_ids
            .iter()
            .map(|&d| {
                Ok(Arc::new(PreparedDocument::new(tx::document_sentences(
                    conn,
                    &[d],
                )?)))
            })
            .collect::<Result<_>>()?;
        Ok(DocumentSet {
            document_ids,
            documents,
        })
    }

    /// This claim's document set: `last` again when the claim has the same documents.
    pub fn for_claim(conn: &Read, claim_id: i64, last: Option<DocumentSet>) -> Result<DocumentSet> {
        let ids = tx::claim_document_ids(conn, claim_id)?;
        match last {
            Some(set) if set.document_ids == ids => Ok(set),
            _ => DocumentSet::load(conn, ids),
        }
    }

    /// (sentence id, text) of every sentence, in document order.
    pub fn sentences(&self) -> impl Iterator<Item = &(i64, String)> {
        self.documents.iter().flat_map(|d| &d.sentences)
    }
}

/// Ranks the sentences of `docs` against `claim` with every ranker but the semantic one,
/// with tantivy's BM25 parameters and Jaccard without stemming. BM25 uses the corpus
/// statistics of the project's search index (see `factdesk_store::Bm25Corpus`).
pub fn rank_sentences(bm25: &mut Bm25Corpus, claim: &str, docs: &DocumentSet) -> Result<Rankings> {
    rank_lexical(bm25, claim, docs, RankOptions::default())
}

/// [`rank_lexical`], then [`with_semantic`] when there is a semantic ranker (embedding
/// what it needs now: callers ranking many claims embed them together first, see
/// [`semantic_texts`]).
pub fn rank_sentences_with(
    bm25: &mut Bm25Corpus,
    claim: &str,
    docs: &DocumentSet,
    options: RankOptions,
    semantic: Option<&SemanticRanker>,
) -> Result<Rankings> {
    let rankings = rank_lexical(bm25, claim, docs, options)?;
    match semantic {
        Some(model) => with_semantic(rankings, claim, docs, model),
        None => Ok(rankings),
    }
}

/// Ranks the sentences of `docs` against `claim` with BM25 (with the corpus's `k1` and
/// `b`), Levenshtein and Jaccard (stemmed when `options` says so), and their fusion.
pub fn rank_lexical(
    bm25: &mut Bm25Corpus,
    claim: &str,
    docs: &DocumentSet,
    options: RankOptions,
) -> Result<Rankings> {
    let tokens = text::tokens(claim);
    let words = claim_words_of_tokens(&tokens);
    let scores = Bm25Input::Corpus(bm25);
    parts_with_words(claim, &tokens, &words, docs, options, scores)?.finish_with_words(None, &words)
}

/// Where a claim's BM25 scores come from: a corpus whose statistics are final, which
/// scores the sentences at once, or none yet, and then each sentence keeps the counts of
/// the claim's words until it is.
enum Bm25Input<'a> {
    Corpus(&'a mut Bm25Corpus),
    Later,
}

/// A claim's BM25 part: every sentence's score, or its counts of the claim's words.
#[derive(Debug, Clone)]
enum Bm25Part {
    Scores(Vec<Option<f32>>),
    Counts(Vec<ClaimWordCounts>),
}

/// What ranking one claim's sentences needs besides BM25's corpus statistics: everything
/// is computed but BM25's scores, for which each sentence keeps only its length and the
/// counts of the claim's words. An import computes these while its corpus is still being
/// counted, and finishes them once it is.
#[derive(Debug, Clone)]
pub struct LexicalParts {
    /// Every sentence's id and BM25 score or counts of the claim's words, in order.
    ids: Vec<i64>,
    bm25: Bm25Part,
    jaccard: Vec<Scored>,
    levenshtein: Vec<Scored>,
    /// Sentences containing the claim, dropped from every ranking.
    dropped: Vec<i64>,
    /// Whether no sentence is left to rank.
    nothing_kept: bool,
}

/// [`LexicalParts`] of `claim` against the sentences of `docs`.
pub fn lexical_parts(
    claim: &str,
    docs: &DocumentSet,
    options: RankOptions,
) -> Result<LexicalParts> {
    let tokens = text::tokens(claim);
    let words = claim_words_of_tokens(&tokens);
    parts_with_words(claim, &tokens, &words, docs, options, Bm25Input::Later)
}

/// [`lexical_parts`] with the claim's tokens and [`claim_words`] already found.
fn parts_with_words(
    claim: &str,
    tokens: &[text::Token<'_>],
    words: &[String],
    docs: &DocumentSet,
    options: RankOptions,
    bm25: Bm25Input<'_>,
) -> Result<LexicalParts> {
    let all: Vec<Candidate<'_>> = docs
        .sentences()
        .map(|(id, text)| Candidate {
            sentence_id: *id,
            text,
        })
        .collect();
    let prepared: Vec<&(Vec<ranking::SentenceWords>, Vec<SentenceTerms>)> =
        docs.documents.iter().map(|d| d.prepared()).collect();
    let terms: Vec<&SentenceTerms> = prepared.iter().flat_map(|p| &p.1).collect();
    let claim_terms = ClaimTerms::new(words);
    let jaccard = || {
        if options.jaccard_stemming {
            let words = docs.documents.iter().flat_map(|d| d.stemmed());
            ranking::jaccard_of_hashes(&ranking::stemmed_hashes(claim), words)
        } else {
            // The claim's content words as `jaccard_prepared` finds them, from its tokens.
            let claim_words = ranking::SentenceWords::from_tokens(0, tokens);
            ranking::jaccard_of_hashes(claim_words.hashes(), prepared.iter().flat_map(|p| &p.0))
        }
    };
    let kept_and_levenshtein = || {
        // The word-for-word test only for sentences holding every word of the claim.
        let kept: Vec<Candidate<'_>> = all
            .iter()
            .zip(&terms)
            .filter(|(c, t)| {
                !(t.may_contain(&claim_terms) && ranking::contains_claim(c.text, claim))
            })
            .map(|(c, _)| *c)
            .collect();
        let levenshtein = ranking::levenshtein(claim, &kept);
        (kept, levenshtein)
    };
    // The rankers are independent, so a large document is ranked on two threads.
    let (jaccard, (kept, levenshtein)) = if all.len() >= PARALLEL_FROM {
        std::thread::scope(|s| {
            let other = s.spawn(jaccard);
            let mine = kept_and_levenshtein();
            let other = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (other, mine)
        })
    } else {
        (jaccard(), kept_and_levenshtein())
    };
    let dropped = match kept.len() < all.len() {
        true => {
            let allowed: std::collections::HashSet<i64> =
                kept.iter().map(|c| c.sentence_id).collect();
            all.iter()
                .map(|c| c.sentence_id)
                .filter(|id| !allowed.contains(id))
                .collect()
        }
        false => Vec::new(),
    };
    let bm25 = match bm25 {
        Bm25Input::Corpus(corpus) => Bm25Part::Scores(corpus.scores(words, &terms)?),
        Bm25Input::Later => {
            Bm25Part::Counts(terms.iter().map(|t| t.claim_counts(&claim_terms)).collect())
        }
    };
    Ok(LexicalParts {
        ids: all.iter().map(|c| c.sentence_id).collect(),
        bm25,
        jaccard,
        levenshtein,
        dropped,
        nothing_kept: kept.is_empty(),
    })
}

impl LexicalParts {
    /// Scores BM25 with `bm25`'s statistics and fuses the rankings of `claim` (the claim
    /// these parts were computed for).
    pub fn finish(self, bm25: &mut Bm25Corpus, claim: &str) -> Result<Rankings> {
        self.finish_with_words(Some(bm25), &claim_words(claim))
    }

    /// [`LexicalParts::finish`] with the claim's [`claim_words`] already found; `bm25`
    /// is needed only when the scores are not in yet.
    fn finish_with_words(
        self,
        bm25: Option<&mut Bm25Corpus>,
        words: &[String],
    ) -> Result<Rankings> {
        let scores = match (self.bm25, bm25) {
            (Bm25Part::Scores(scores), _) => scores,
            (Bm25Part::Counts(counts), Some(corpus)) => corpus.scores_of_counts(words, &counts)?,
            (Bm25Part::Counts(_), None) => {
                return Err(crate::Error::new(
                    crate::ErrorCode::Io,
                    "BM25 was left without its corpus statistics",
                ))
            }
        };
        if self.nothing_kept {
            return Ok(Rankings::default());
        }
        let mut bm25: Vec<Scored> = self
            .ids
            .iter()
            .zip(scores)
            .filter_map(|(id, s)| {
                s.map(|s| Scored {
                    sentence_id: *id,
                    score: f64::from(s),
                })
            })
            .collect();
        let mut jaccard = self.jaccard;
        // BM25 and Jaccard saw every sentence: drop the ones that contain the claim.
        if !self.dropped.is_empty() {
            let dropped: std::collections::HashSet<i64> = self.dropped.into_iter().collect();
            bm25.retain(|s| !dropped.contains(&s.sentence_id));
            jaccard.retain(|s| !dropped.contains(&s.sentence_id));
        }
        ranking::rank_order(&mut bm25);
        let fused = ranking::fuse_weighted(
            &[
                (&bm25, FUSED_WEIGHTS[0]),
                (&self.levenshtein, FUSED_WEIGHTS[1]),
                (&jaccard, FUSED_WEIGHTS[2]),
            ],
            FUSED_K,
        );
        Ok(Rankings {
            bm25,
            levenshtein: self.levenshtein,
            jaccard,
            fused,
            semantic: Vec::new(),
        })
    }
}

/// The sentences the semantic ranker re-ranks, at most `depth`: BM25's best, then, when
/// BM25 scores fewer, the sentences that share no word with the claim (which BM25 cannot
/// score at all), best Levenshtein similarity first. On small documents (COVID-Fact's)
/// that is every sentence: a paraphrase in other words is what the model is for.
fn semantic_pool(bm25: &[Scored], levenshtein: &[Scored], depth: usize) -> Vec<Scored> {
    let mut pool: Vec<Scored> = bm25.iter().take(depth).copied().collect();
    if pool.len() < depth {
        let scored: std::collections::HashSet<i64> = bm25.iter().map(|s| s.sentence_id).collect();
        let left = depth - pool.len();
        pool.extend(
            levenshtein
                .iter()
                .filter(|s| !scored.contains(&s.sentence_id))
                .take(left),
        );
    }
    pool
}

/// The texts the semantic ranker needs for one claim: the claim and the sentences it
/// re-ranks (from `lexical`, [`rank_lexical`]'s result; see `semantic_pool`).
pub fn semantic_texts<'a>(
    claim: &'a str,
    lexical: &Rankings,
    docs: &'a DocumentSet,
    depth: usize,
) -> Vec<&'a str> {
    let wanted: std::collections::HashSet<i64> =
        semantic_pool(&lexical.bm25, &lexical.levenshtein, depth)
            .iter()
            .map(|s| s.sentence_id)
            .collect();
    std::iter::once(claim)
        .chain(
            docs.sentences()
                .filter(|(id, _)| wanted.contains(id))
                .map(|(_, t)| t.as_str()),
        )
        .collect()
}

/// Adds the semantic ranking (the claim's sentences BM25 ranks best, and those it cannot
/// score, re-ranked by cosine with the claim) to `lexical` and fuses all four.
pub fn with_semantic(
    lexical: Rankings,
    claim: &str,
    docs: &DocumentSet,
    model: &SemanticRanker,
) -> Result<Rankings> {
    let Rankings {
        bm25,
        levenshtein,
        jaccard,
        ..
    } = lexical;
    if bm25.is_empty() && levenshtein.is_empty() {
        return Ok(Rankings::default());
    }
    let pool = semantic_pool(&bm25, &levenshtein, model.depth());
    let wanted: std::collections::HashSet<i64> = pool.iter().map(|s| s.sentence_id).collect();
    let text_of: HashMap<i64, &str> = docs
        .sentences()
        .filter(|(id, _)| wanted.contains(id))
        .map(|(id, t)| (*id, t.as_str()))
        .collect();
    let semantic = model.rank(claim, &pool, &text_of)?;
    let fused = ranking::fuse_ranks_and_scores(
        &[
            (&bm25, SEMANTIC_FUSED_WEIGHTS[0]),
            (&levenshtein, SEMANTIC_FUSED_WEIGHTS[1]),
            (&jaccard, SEMANTIC_FUSED_WEIGHTS[2]),
            (&semantic, SEMANTIC_FUSED_WEIGHTS[3]),
        ],
        SEMANTIC_FUSED_K,
        &[
            (&bm25, SEMANTIC_SCORE_WEIGHTS[0]),
            (&semantic, SEMANTIC_SCORE_WEIGHTS[1]),
        ],
    );
    Ok(Rankings {
        bm25,
        levenshtein,
        jaccard,
        fused,
        semantic,
    })
}

/// How much each ranker (bm25, levenshtein, jaccard) counts in the fused ranking, and the
/// fusion constant. Plain reciprocal rank fusion (equal weights, k = 60) let the weak
/// Levenshtein ranking drag good BM25 rankings down (recall@5 0.754 against BM25's 0.862
/// on the COVID-Fact set of docs/ranking.md); weighting by how reliable each ranker is
/// keeps BM25's lead and lets the others break its ties and near-misses.
pub const FUSED_WEIGHTS: [f64; 3] = [1.0, 0.1, 0.3];
pub const FUSED_K: f64 = 5.0;

/// The weights (bm25, levenshtein, jaccard, semantic) and constant of the fused ranking
/// when the semantic ranker takes part, chosen on the seed-1 COVID-Fact set by a grid
/// search (docs/ranking.md). The semantic ranking leads by a little, BM25 close behind;
/// the small constant lets a sentence that either puts first win.
pub const SEMANTIC_FUSED_WEIGHTS: [f64; 4] = [1.0, 0.05, 0.1, 1.25];
pub const SEMANTIC_FUSED_K: f64 = 0.5;

/// Added to that rank fusion: these weights (bm25, semantic) times each ranker's score
/// rescaled within the claim (min-max), so a sentence far ahead on cosine or BM25 gains
/// over one merely ranked ahead. Chosen on seeds 1 and 2 with the `fusion` bench among
/// rank, score and combined fusions (docs/ranking.md): 0.5 × (cosine + 0.25 × BM25).
pub const SEMANTIC_SCORE_WEIGHTS: [f64; 2] = [0.125, 0.5];

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(ids: &[i64]) -> Vec<Scored> {
        ids.iter()
            .enumerate()
            .map(|(i, &sentence_id)| Scored {
                sentence_id,
                score: 10.0 - i as f64,
            })
            .collect()
    }

    #[test]
    fn the_pool_is_bm25s_best_then_what_bm25_cannot_score() {
        // BM25 scores 4 and 2 (sharing words with the claim); Levenshtein ranks them all.
        let bm25 = scored(&[4, 2]);
        let levenshtein = scored(&[2, 7, 4, 9, 1]);
        let ids = |depth| -> Vec<i64> {
            semantic_pool(&bm25, &levenshtein, depth)
                .iter()
                .map(|s| s.sentence_id)
                .collect()
        };
        assert_eq!(ids(1), [4], "BM25's best first, within the depth");
        assert_eq!(ids(2), [4, 2]);
        assert_eq!(ids(4), [4, 2, 7, 9], "then the unscored, by Levenshtein");
        assert_eq!(ids(50), [4, 2, 7, 9, 1], "every sentence once");
    }
}
