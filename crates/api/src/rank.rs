//! Ranking candidate evidence sentences for claims, and reading them back.

use crate::actor::Actor;
use crate::dto::{CandidateView, RankReport};
use crate::{Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking::{self, Candidate, Ranker, Scored};
use factdesk_store::{tx, NewCandidate, SearchIndex};
use rusqlite::Connection;
use std::collections::HashMap;

/// How many candidates a claim gets unless told otherwise: COVID-Fact showed five.
pub const DEFAULT_K: usize = 5;

/// Every ranker's ordering of one claim's sentences, best first, with the
/// self-containing sentences already dropped.
#[derive(Debug, Clone, Default)]
pub struct Rankings {
    pub bm25: Vec<Scored>,
    pub levenshtein: Vec<Scored>,
    pub jaccard: Vec<Scored>,
    pub fused: Vec<Scored>,
}

impl Rankings {
    pub fn get(&self, ranker: Ranker) -> &[Scored] {
        match ranker {
            Ranker::Bm25 => &self.bm25,
            Ranker::Levenshtein => &self.levenshtein,
            Ranker::Jaccard => &self.jaccard,
            Ranker::Fused => &self.fused,
        }
    }
}

/// Documents with more sentences than this are ranked on two threads.
const PARALLEL_FROM: usize = 1000;

/// The sentences of a claim's documents, loaded and prepared once and reused for every
/// claim on the same documents (claims often share them).
#[derive(Debug, Clone)]
pub struct DocumentSet {
    pub document_ids: Vec<i64>,
    /// (sentence id, text), in document order.
    pub sentences: Vec<(i64, String)>,
    words: Vec<ranking::SentenceWords>,
}

impl DocumentSet {
    pub fn load(conn: &Connection, document_ids: Vec<i64>) -> Result<DocumentSet> {
        let sentences = tx::document_sentences(conn, &document_ids)?;
        let candidates: Vec<Candidate<'_>> = sentences
            .iter()
            .map(|(id, text)| Candidate {
                sentence_id: *id,
                text,
            })
            .collect();
        let words = ranking::sentence_words(&candidates);
        Ok(DocumentSet {
            document_ids,
            sentences,
            words,
        })
    }

    /// This claim's document set: `last` again when the claim has the same documents.
    pub fn for_claim(
        conn: &Connection,
        claim_id: i64,
        last: Option<DocumentSet>,
    ) -> Result<DocumentSet> {
        let ids = tx::claim_document_ids(conn, claim_id)?;
        match last {
            Some(set) if set.document_ids == ids => Ok(set),
            _ => DocumentSet::load(conn, ids),
        }
    }
}

/// Ranks the sentences of `docs` against `claim` with every ranker.
pub fn rank_sentences(index: &SearchIndex, claim: &str, docs: &DocumentSet) -> Result<Rankings> {
    let (document_ids, sentences) = (&docs.document_ids, &docs.sentences);
    let all: Vec<Candidate<'_>> = sentences
        .iter()
        .map(|(id, text)| Candidate {
            sentence_id: *id,
            text,
        })
        .collect();
    let bm25_and_jaccard = || -> Result<(Vec<Scored>, Vec<Scored>)> {
        let bm25 = index
            .bm25(claim, document_ids, sentences.len())?
            .into_iter()
            .map(|(sentence_id, score)| Scored {
                sentence_id,
                score: f64::from(score),
            })
            .collect();
        Ok((bm25, ranking::jaccard_prepared(claim, &docs.words)))
    };
    let kept_and_levenshtein = || {
        let kept = ranking::drop_self_containing(claim, &all);
        let levenshtein = ranking::levenshtein(claim, &kept);
        (kept, levenshtein)
    };
    // The rankers are independent, so a large document is ranked on two threads.
    let (bm25_jaccard, (kept, levenshtein)) = if sentences.len() >= PARALLEL_FROM {
        std::thread::scope(|s| {
            let other = s.spawn(bm25_and_jaccard);
            let mine = kept_and_levenshtein();
            let other = other.join().unwrap_or_else(|_| {
                Err(Error::new(
                    ErrorCode::Io,
                    "ranking failed on a worker thread",
                ))
            });
            (other, mine)
        })
    } else {
        (bm25_and_jaccard(), kept_and_levenshtein())
    };
    let (mut bm25, mut jaccard) = bm25_jaccard?;
    if kept.is_empty() {
        return Ok(Rankings::default());
    }
    // BM25 and Jaccard saw every sentence: drop the ones that contain the claim.
    if kept.len() < all.len() {
        let allowed: std::collections::HashSet<i64> = kept.iter().map(|c| c.sentence_id).collect();
        bm25.retain(|s| allowed.contains(&s.sentence_id));
        jaccard.retain(|s| allowed.contains(&s.sentence_id));
    }
    ranking::rank_order(&mut bm25);
    let fused = ranking::fuse_weighted(
        &[
            (&bm25, FUSED_WEIGHTS[0]),
            (&levenshtein, FUSED_WEIGHTS[1]),
            (&jaccard, FUSED_WEIGHTS[2]),
        ],
        FUSED_K,
    );
    Ok(Rankings {
        bm25,
        levenshtein,
        jaccard,
        fused,
    })
}

/// How much each ranker (bm25, levenshtein, jaccard) counts in the fused ranking, and the
/// fusion constant. Plain reciprocal rank fusion (equal weights, k = 60) let the weak
/// Levenshtein ranking drag good BM25 rankings down (recall@5 0.754 against BM25's 0.862
/// on the COVID-Fact set of docs/ranking.md); weighting by how reliable each ranker is
/// keeps BM25's lead and lets the others break its ties and near-misses.
pub const FUSED_WEIGHTS: [f64; 3] = [1.0, 0.1, 0.3];
pub const FUSED_K: f64 = 5.0;

/// The score each ranker gave each sentence, for storing beside the candidate.
fn scores_by_sentence(r: &Rankings) -> HashMap<i64, serde_json::Map<String, serde_json::Value>> {
    let mut out: HashMap<i64, serde_json::Map<String, serde_json::Value>> = HashMap::new();
    for ranker in Ranker::ALL {
        for s in r.get(ranker) {
            out.entry(s.sentence_id)
                .or_default()
                .insert(ranker.as_str().to_string(), serde_json::json!(s.score));
        }
    }
    out
}

/// The top `k` sentences of each claim with `ranker`, with every ranker's scores.
type Computed = Vec<(i64, Vec<(Scored, String)>)>;

/// Ranks `claims` (id, text) against their documents as `conn` sees them.
pub(crate) fn compute_candidates(
    conn: &Connection,
    index: &SearchIndex,
    claims: &[(i64, String)],
    ranker: Ranker,
    k: usize,
    progress: &mut dyn Progress,
) -> Result<Computed> {
    progress.phase("ranking", claims.len() as u64);
    let mut computed = Vec::with_capacity(claims.len());
    let mut docs: Option<DocumentSet> = None;
    for (i, (claim_id, text)) in claims.iter().enumerate() {
        let set = DocumentSet::for_claim(conn, *claim_id, docs.take())?;
        let rankings = rank_sentences(index, text, &set)?;
        docs = Some(set);
        let scores = scores_by_sentence(&rankings);
        let top: Vec<(Scored, String)> = ranking::top_k(rankings.get(ranker).to_vec(), k)
            .into_iter()
            .map(|s| {
                let all = scores.get(&s.sentence_id).cloned().unwrap_or_default();
                (s, serde_json::Value::Object(all).to_string())
            })
            .collect();
        computed.push((*claim_id, top));
        if i % 256 == 0 {
            progress.set(i as u64);
        }
    }
    Ok(computed)
}

/// Replaces the candidates of the computed claims, in the caller's transaction.
pub(crate) fn store_candidates(
    conn: &Connection,
    computed: &Computed,
    ranker: Ranker,
) -> Result<RankReport> {
    let mut report = RankReport {
        ranker: ranker.as_str().to_string(),
        claims: 0,
        candidates: 0,
    };
    for (claim_id, top) in computed {
        let rows: Vec<NewCandidate<'_>> = top
            .iter()
            .enumerate()
            .map(|(i, (s, scores))| NewCandidate {
                rank: i as u32 + 1,
                sentence_id: s.sentence_id,
                ranker: ranker.as_str(),
                score: s.score,
                scores: scores.clone(),
            })
            .collect();
        tx::replace_candidates(conn, *claim_id, &rows)?;
        report.claims += 1;
        report.candidates += rows.len() as u64;
    }
    Ok(report)
}

impl Project {
    /// Computes and stores the top `k` candidates of each claim that has documents, with
    /// `ranker`. With `only_unranked`, claims that already have candidates are left alone.
    pub fn rank(
        &mut self,
        lead: &Actor,
        ranker: Ranker,
        k: usize,
        only_unranked: bool,
        progress: &mut dyn Progress,
    ) -> Result<RankReport> {
        self.require_lead(lead, "rank candidates")?;
        if k == 0 {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "--k must be at least 1",
            ));
        }
        self.store.require_writable()?;
        let index = self.search_index(lead)?;
        let claims = self.store.claims_to_rank(only_unranked)?;
        // Computed before the write transaction, so annotators are not kept waiting.
        let computed = compute_candidates(self.store.conn(), &index, &claims, ranker, k, progress)?;
        let tx = self.store.transaction()?;
        let report = store_candidates(&tx, &computed, ranker)?;
        tx.commit()?;
        Ok(report)
    }

    /// A claim's candidates, best first. `claim` is the claim's id as imported.
    pub fn candidates(&self, lead: &Actor, claim: &str) -> Result<Vec<CandidateView>> {
        self.require_lead(lead, "see a claim's candidates")?;
        let row = self.store.claim_by_ext_id(claim)?.ok_or_else(|| {
            Error::new(ErrorCode::NotFound, format!("no claim with id {claim:?}"))
        })?;
        Ok(self
            .store
            .candidates(row.id)?
            .into_iter()
            .map(|c| CandidateView {
                sentence_id: c.sentence_id,
                document_id: c.document_ext_id,
                sentence_index: c.sentence_index as u32,
                text: c.text,
                rank: c.rank,
                score: c.score,
                ranker: c.ranker,
            })
            .collect())
    }
}
