//! Ranking candidate evidence sentences for a claim.
//!
//! Each ranker scores every candidate sentence against the claim and returns them best
//! first; the top five become an evidence-selection task. BM25 needs the search index and
//! lives in the store crate; the rankers here are pure functions over text:
//! normalised Levenshtein similarity (how WikiFactCheck-English found evidence), Jaccard
//! similarity of content words, and reciprocal rank fusion of any of them. A sentence
//! that contains the claim itself is no evidence and is dropped before ranking.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

mod edit_distance;
mod fusion;
mod metrics;
mod self_containing;
mod semantic;
mod similarity;
mod stemmed;

pub use fusion::{fuse, fuse_ranks_and_scores, fuse_weighted, min_max, RRF_K};
pub use metrics::{RetrievalAtK, CUTOFFS};
pub use self_containing::{contains_claim, drop_self_containing};
pub use semantic::by_cosine;
pub use similarity::{
    ascii_word, jaccard, jaccard_of_hashes, jaccard_prepared, levenshtein, sentence_words,
    word_hash, SentenceWords,
};
pub use stemmed::stemmed_hashes;

/// A sentence that may be evidence for a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate<'a> {
    pub sentence_id: i64,
    pub text: &'a str,
}

/// A sentence's score under one ranker; higher is better.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scored {
    pub sentence_id: i64,
    pub score: f64,
}

/// The ways of ranking candidate sentences a project can choose from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Ranker {
    Bm25,
    Levenshtein,
    Jaccard,
    /// Reciprocal rank fusion of the others.
    Fused,
    /// Cosine similarity of sentence embeddings, over BM25's best candidates.
    Semantic,
}

impl Ranker {
    pub const ALL: [Ranker; 5] = [
        Ranker::Bm25,
        Ranker::Levenshtein,
        Ranker::Jaccard,
        Ranker::Fused,
        Ranker::Semantic,
    ];

    /// The rankers that can place a candidate in their own top k, in the order of their
    /// bits as a project stores them (bm25 1, levenshtein 2, jaccard 4, semantic 8). The
    /// fused ranking is made of the others and places nothing of its own.
    pub const PLACING: [Ranker; 4] = [
        Ranker::Bm25,
        Ranker::Levenshtein,
        Ranker::Jaccard,
        Ranker::Semantic,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The rankers whose bits are set in `placed` ([`Ranker::PLACING`]'s order), in that
    /// order; bits past the last ranker are ignored.
    pub fn placed(placed: u8) -> impl Iterator<Item = Ranker> {
        Ranker::PLACING
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| placed & (1 << i) != 0)
            .map(|(_, r)| r)
    }
}

impl fmt::Display for Ranker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A ranker name that is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRanker(pub String);

impl fmt::Display for UnknownRanker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown ranker {:?} (expected bm25, levenshtein, jaccard, fused or semantic)",
            self.0
        )
    }
}

impl std::error::Error for UnknownRanker {}

impl FromStr for Ranker {
    type Err = UnknownRanker;

    /// Accepts the names in any case, as typed on the command line.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Ranker::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownRanker(s.to_string()))
    }
}

/// Best first: score descending, then sentence id ascending, so equal scores always come
/// out in the same order.
fn best_first(a: &Scored, b: &Scored) -> Ordering {
    b.score
        .partial_cmp(&a.score)
        .unwrap_or(Ordering::Equal)
        .then(a.sentence_id.cmp(&b.sentence_id))
}

/// Replaces a NaN score by 0, so the ordering is total and nothing downstream sees NaN.
fn guard_nan(scored: &mut [Scored]) {
    for s in scored.iter_mut().filter(|s| s.score.is_nan()) {
        s.score = 0.0;
    }
}

/// Sorts best first: score descending, ties by sentence id ascending. A NaN score is
/// treated as 0.
pub fn rank_order(scored: &mut [Scored]) {
    guard_nan(scored);
    scored.sort_unstable_by(best_first);
}

/// The `k` best, best first (fewer when there are fewer candidates).
pub fn top_k(mut scored: Vec<Scored>, k: usize) -> Vec<Scored> {
    guard_nan(&mut scored);
    // Selecting before sorting keeps this linear in the number of candidates; the order
    // is total, so the result equals sorting everything and truncating.
    if k == 0 {
        return Vec::new();
    }
    if k < scored.len() {
        scored.select_nth_unstable_by(k - 1, best_first);
        scored.truncate(k);
    }
    scored.sort_unstable_by(best_first);
    scored
}

/// A token in the form words are compared in (`text::normalize_token`), borrowing the
/// token when it already is: most tokens are lower-case ASCII, and ranking thousands of
/// sentences should not allocate for each of their words.
pub(crate) fn normalized_word(token: &str) -> Cow<'_, str> {
    if token
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(token)
    } else {
        Cow::Owned(crate::text::normalize_token(token))
    }
}

#[cfg(test)]
mod tests;
