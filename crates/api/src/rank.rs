//! Ranking candidate evidence sentences for claims, and reading them back.

use crate::actor::Actor;
use crate::dto::{CandidateView, RankReport};
use crate::semantic::{Need, SemanticRanker};
use crate::{Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking::{self, Candidate, Ranker, Scored};
use factdesk_store::Connection;
use factdesk_store::{
    claim_words, tx, Bm25Corpus, NewCandidate, RankerScores, SearchIndex, SentenceTerms,
};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

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
}

impl PreparedDocument {
    fn new(sentences: Vec<(i64, String)>) -> PreparedDocument {
        PreparedDocument {
            sentences,
            prepared: OnceLock::new(),
        }
    }

    /// Words for Jaccard and terms for BM25, computed by whichever thread first needs them.
    fn prepared(&self) -> &(Vec<ranking::SentenceWords>, Vec<SentenceTerms>) {
        self.prepared.get_or_init(|| {
            let candidates: Vec<Candidate<'_>> = self
                .sentences
                .iter()
                .map(|(id, text)| Candidate {
                    sentence_id: *id,
                    text,
                })
                .collect();
            let terms = self
                .sentences
                .iter()
                .map(|(_, t)| SentenceTerms::new(t))
                .collect();
            (ranking::sentence_words(&candidates), terms)
        })
    }
}

/// The sentences of a claim's documents, in document order.
#[derive(Debug, Clone)]
pub struct DocumentSet {
    pub document_ids: Vec<i64>,
    documents: Vec<Arc<PreparedDocument>>,
}

impl DocumentSet {
    pub fn load(conn: &Connection, document_ids: Vec<i64>) -> Result<DocumentSet> {
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

    /// (sentence id, text) of every sentence, in document order.
    pub fn sentences(&self) -> impl Iterator<Item = &(i64, String)> {
        self.documents.iter().flat_map(|d| &d.sentences)
    }
}

/// Ranks the sentences of `docs` against `claim` with every ranker. BM25 uses the
/// corpus statistics of the project's search index (see `factdesk_store::Bm25Corpus`).
pub fn rank_sentences(bm25: &mut Bm25Corpus, claim: &str, docs: &DocumentSet) -> Result<Rankings> {
    rank_sentences_with(bm25, claim, docs, None)
}

/// [`rank_sentences`], with the semantic ranker re-ranking BM25's best sentences and
/// joining the fusion when there is one.
pub fn rank_sentences_with(
    bm25: &mut Bm25Corpus,
    claim: &str,
    docs: &DocumentSet,
    semantic: Option<&SemanticRanker>,
) -> Result<Rankings> {
    let all: Vec<Candidate<'_>> = docs
        .sentences()
        .map(|(id, text)| Candidate {
            sentence_id: *id,
            text,
        })
        .collect();
    let prepared: Vec<&(Vec<ranking::SentenceWords>, Vec<SentenceTerms>)> =
        docs.documents.iter().map(|d| d.prepared()).collect();
    let mut bm25_and_jaccard = || -> Result<(Vec<Scored>, Vec<Scored>)> {
        let terms: Vec<&SentenceTerms> = prepared.iter().flat_map(|p| &p.1).collect();
        let scores = bm25.scores(&claim_words(claim), &terms)?;
        let bm25 = all
            .iter()
            .zip(scores)
            .filter_map(|(c, s)| {
                s.map(|s| Scored {
                    sentence_id: c.sentence_id,
                    score: f64::from(s),
                })
            })
            .collect();
        let words = prepared.iter().flat_map(|p| &p.0);
        Ok((bm25, ranking::jaccard_prepared(claim, words)))
    };
    let kept_and_levenshtein = || {
        let kept = ranking::drop_self_containing(claim, &all);
        let levenshtein = ranking::levenshtein(claim, &kept);
        (kept, levenshtein)
    };
    // The rankers are independent, so a large document is ranked on two threads.
    let (bm25_jaccard, (kept, levenshtein)) = if all.len() >= PARALLEL_FROM {
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
    let Some(model) = semantic else {
        let fused = ranking::fuse_weighted(
            &[
                (&bm25, FUSED_WEIGHTS[0]),
                (&levenshtein, FUSED_WEIGHTS[1]),
                (&jaccard, FUSED_WEIGHTS[2]),
            ],
            FUSED_K,
        );
        return Ok(Rankings {
            bm25,
            levenshtein,
            jaccard,
            fused,
            semantic: Vec::new(),
        });
    };
    let text_of: HashMap<i64, &str> = kept.iter().map(|c| (c.sentence_id, c.text)).collect();
    let semantic = model.rank(claim, &bm25, &text_of)?;
    let fused = ranking::fuse_weighted(
        &[
            (&bm25, SEMANTIC_FUSED_WEIGHTS[0]),
            (&levenshtein, SEMANTIC_FUSED_WEIGHTS[1]),
            (&jaccard, SEMANTIC_FUSED_WEIGHTS[2]),
            (&semantic, SEMANTIC_FUSED_WEIGHTS[3]),
        ],
        SEMANTIC_FUSED_K,
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

/// The rankers whose own top `k` hold `sentence_id`, as stored beside a candidate.
fn placed_by(r: &Rankings, sentence_id: i64, k: usize) -> String {
    [
        Ranker::Bm25,
        Ranker::Levenshtein,
        Ranker::Jaccard,
        Ranker::Semantic,
    ]
    .into_iter()
    .filter(|&ranker| {
        r.get(ranker)
            .iter()
            .take(k)
            .any(|s| s.sentence_id == sentence_id)
    })
    .map(Ranker::as_str)
    .collect::<Vec<_>>()
    .join(" ")
}

/// The score each ranker gave one sentence, for storing beside the candidate.
fn scores_of(r: &Rankings, sentence_id: i64) -> RankerScores {
    let find = |ranking: &[Scored]| {
        ranking
            .iter()
            .find(|s| s.sentence_id == sentence_id)
            .map(|s| s.score)
    };
    RankerScores {
        bm25: find(&r.bm25),
        levenshtein: find(&r.levenshtein),
        jaccard: find(&r.jaccard),
        fused: find(&r.fused),
        semantic: find(&r.semantic),
    }
}

/// The top `k` sentences of each claim with `ranker`, with every ranker's scores and the
/// rankers that placed each.
type Computed = Vec<(i64, Vec<(Scored, RankerScores, String)>)>;

/// Claims ranked between two progress reports (and checks for cancelling).
const BATCH: usize = 2048;

/// Ranks `claims` (id, text) against their documents as `conn` sees them, on every core.
///
/// Each document is read and prepared once, however many claims name it, and kept only
/// while claims still to be ranked name it.
pub(crate) fn compute_candidates(
    conn: &Connection,
    index: &SearchIndex,
    claims: &[(i64, String)],
    ranker: Ranker,
    k: usize,
    semantic: Option<&SemanticRanker>,
    progress: &mut dyn Progress,
) -> Result<Computed> {
    progress.phase("ranking", claims.len() as u64);
    let corpus = index.bm25_corpus()?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut corpora = vec![corpus; threads];
    let links = documents_of(conn, claims)?;
    let mut uses: HashMap<i64, u32> = HashMap::new();
    for &d in links.iter().flatten() {
        *uses.entry(d).or_default() += 1;
    }
    let mut kept: HashMap<i64, Arc<PreparedDocument>> = HashMap::new();
    let mut computed = Vec::with_capacity(claims.len());
    // This thread reads the next batch's documents while the others rank the current one.
    type Running<'s> = std::thread::ScopedJoinHandle<'s, (Result<Computed>, Vec<Bm25Corpus>)>;
    std::thread::scope(|s| -> Result<()> {
        let mut running: Option<Running<'_>> = None;
        let mut finish = |running: Running<'_>,
                          corpora: &mut Vec<Bm25Corpus>,
                          progress: &mut dyn Progress|
         -> Result<()> {
            let (result, back) = running
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            *corpora = back;
            computed.extend(result?);
            progress.set(computed.len() as u64);
            Ok(())
        };
        for (batch, batch_links) in claims.chunks(BATCH).zip(links.chunks(BATCH)) {
            progress.check_cancelled()?;
            let items = load_batch(conn, batch, batch_links, &mut uses, &mut kept)?;
            if let Some(model) = semantic {
                model.prefill(
                    conn,
                    items.iter().flat_map(|((_, claim), set)| {
                        std::iter::once(claim.as_str())
                            .chain(set.sentences().map(|(_, t)| t.as_str()))
                    }),
                )?;
            }
            if let Some(r) = running.take() {
                finish(r, &mut corpora, progress)?;
            }
            let mut mine = std::mem::take(&mut corpora);
            running = Some(s.spawn(move || {
                let result = rank_in_parallel(&items, &mut mine, ranker, k, semantic);
                (result, mine)
            }));
        }
        if let Some(r) = running.take() {
            finish(r, &mut corpora, progress)?;
        }
        Ok(())
    })?;
    Ok(computed)
}

/// A batch of claims with their documents: read from `conn` unless `kept`, and kept while
/// claims still to come (`uses`) name them.
fn load_batch(
    conn: &Connection,
    batch: &[(i64, String)],
    batch_links: &[Vec<i64>],
    uses: &mut HashMap<i64, u32>,
    kept: &mut HashMap<i64, Arc<PreparedDocument>>,
) -> Result<Vec<((i64, String), DocumentSet)>> {
    let mut sets = Vec::with_capacity(batch.len());
    for ids in batch_links {
        let mut documents = Vec::with_capacity(ids.len());
        for &d in ids {
            let doc = match kept.get(&d) {
                Some(doc) => doc.clone(),
                None => Arc::new(PreparedDocument::new(tx::document_sentences(conn, &[d])?)),
            };
            let left = uses.get_mut(&d).map_or(0, |n| {
                *n -= 1;
                *n
            });
            if left > 0 {
                kept.insert(d, doc.clone());
            } else {
                kept.remove(&d);
            }
            documents.push(doc);
        }
        sets.push(DocumentSet {
            document_ids: ids.clone(),
            documents,
        });
    }
    Ok(batch.iter().cloned().zip(sets).collect())
}

/// The document ids of each claim, in the claims' order (both lists are sorted by id).
fn documents_of(conn: &Connection, claims: &[(i64, String)]) -> Result<Vec<Vec<i64>>> {
    let mut links = tx::claim_document_links(conn)?.into_iter().peekable();
    let mut out = Vec::with_capacity(claims.len());
    for (claim_id, _) in claims {
        while links.next_if(|(c, _)| c < claim_id).is_some() {}
        let mut ids = Vec::new();
        while let Some((_, d)) = links.next_if(|(c, _)| c == claim_id) {
            ids.push(d);
        }
        out.push(ids);
    }
    Ok(out)
}

/// Ranks the items on one thread per corpus handle, keeping their order.
fn rank_in_parallel(
    items: &[((i64, String), DocumentSet)],
    corpora: &mut [Bm25Corpus],
    ranker: Ranker,
    k: usize,
    semantic: Option<&SemanticRanker>,
) -> Result<Computed> {
    let rank_one = |corpus: &mut Bm25Corpus,
                    ((claim_id, text), set): &((i64, String), DocumentSet)| {
        let rankings = rank_sentences_with(corpus, text, set, semantic)?;
        let top: Vec<(Scored, RankerScores, String)> =
            ranking::top_k(rankings.get(ranker).to_vec(), k)
                .into_iter()
                .map(|s| {
                    let placed = placed_by(&rankings, s.sentence_id, k);
                    (s, scores_of(&rankings, s.sentence_id), placed)
                })
                .collect();
        Ok((*claim_id, top))
    };
    let chunk = items.len().div_ceil(corpora.len().max(1)).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .zip(corpora.iter_mut())
            .map(|(part, corpus)| {
                s.spawn(move || {
                    part.iter()
                        .map(|item| rank_one(corpus, item))
                        .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for part in parts {
            match part.join() {
                Ok(results) => out.extend(results?),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        Ok(out)
    })
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
        semantic_model: None,
        embedded: 0,
    };
    for (claim_id, top) in computed {
        let rows: Vec<NewCandidate<'_>> = top
            .iter()
            .enumerate()
            .map(|(i, (s, scores, placed))| NewCandidate {
                rank: i as u32 + 1,
                sentence_id: s.sentence_id,
                ranker: ranker.as_str(),
                score: s.score,
                scores: *scores,
                placed_by: placed.clone(),
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
        self.rank_with_model(lead, ranker, k, only_unranked, None, progress)
    }

    /// [`Project::rank`] with the semantic model in `model` (`--model DIR`) rather than
    /// the project's or the default folders'. `semantic` needs a model; `fused` uses one
    /// when it is found and the project has not turned it off.
    pub fn rank_with_model(
        &mut self,
        lead: &Actor,
        ranker: Ranker,
        k: usize,
        only_unranked: bool,
        model: Option<&std::path::Path>,
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
        // `fused` takes the semantic ranker in when the project turned it on or a model
        // folder was named, and then a missing model is an error, not a silent fallback.
        let wanted = ranker == Ranker::Semantic
            || (ranker == Ranker::Fused && (model.is_some() || self.settings()?.ranking.semantic));
        let semantic = if wanted {
            self.semantic_ranker(lead, model, Need::Required)?
        } else {
            None
        };
        let index = self.search_index(lead)?;
        let claims = self.store.claims_to_rank(only_unranked)?;
        // Computed before the write transaction, so annotators are not kept waiting.
        let computed = compute_candidates(
            self.store.conn(),
            &index,
            &claims,
            ranker,
            k,
            semantic.as_ref(),
            progress,
        )?;
        let tx = self.store.transaction()?;
        let mut report = store_candidates(&tx, &computed, ranker)?;
        if let Some(model) = &semantic {
            report.embedded = model.save(&tx)?;
            report.semantic_model = Some(model.model_id().to_string());
        }
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
                placed_by: c.placed_by,
            })
            .collect())
    }
}
