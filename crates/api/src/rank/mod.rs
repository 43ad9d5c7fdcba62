//! Ranking candidate evidence sentences for claims, and reading them back.

use crate::dto::{CandidateView, RankReport};
use crate::semantic::{Need, SemanticRanker};
use crate::{Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking;
/// The rankers, for front ends that name one without depending on the core.
pub use factdesk_core::ranking::Ranker;
use factdesk_store::Read;
use factdesk_store::{tx, SearchIndex};
use std::path::PathBuf;

mod batches;
mod sentences;
mod top;

use batches::{rank_in_batches, Order};

pub use sentences::{
    lexical_parts, rank_lexical, rank_sentences, rank_sentences_with, semantic_texts,
    with_semantic, DocumentSet, LexicalParts, PreparedDocument, RankOptions, Rankings, FUSED_K,
    FUSED_WEIGHTS, SEMANTIC_FUSED_K, SEMANTIC_FUSED_WEIGHTS, SEMANTIC_SCORE_WEIGHTS,
};

use crate::Lead;
use top::{placed_by, scores_of};
pub(crate) use top::{store_candidates, Computed, Top};

/// How many candidates a claim gets unless told otherwise: COVID-Fact showed five.
pub const DEFAULT_K: usize = 5;
/// The most candidates a claim may get: an item shows every one of them (and the trick)
/// for the annotator to read.
pub const MAX_K: usize = 50;

/// Ranks `claims` (id, text) against their documents as `conn` sees them, on every core.
///
/// Each document is read and prepared once, however many claims name it, and kept only
/// while claims still to be ranked name it.
pub(crate) fn compute_candidates(
    conn: &Read,
    index: &SearchIndex,
    claims: &[(i64, String)],
    run: &RankRun<'_>,
    progress: &mut dyn Progress,
) -> Result<Computed> {
    let mut computed = Vec::with_capacity(claims.len());
    let sink = |batch: Computed| {
        computed.extend(batch);
        Ok(())
    };
    rank_in_batches(conn, index, claims, run, Order::ByDocuments, progress, sink)?;
    computed.sort_by_key(|(claim_id, _)| *claim_id);
    Ok(computed)
}

/// [`compute_candidates`] and [`store_candidates`] in the caller's transaction, in claim
/// order: each batch's candidates are written while the next batch is ranked, so the
/// writes no longer wait for the last claim's ranking. The rows are the ones
/// `store_candidates` would write after `compute_candidates`, in the same order.
pub(crate) fn rank_and_store(
    conn: &factdesk_store::Tx<'_>,
    index: &SearchIndex,
    claims: &[(i64, String)],
    run: &RankRun<'_>,
    progress: &mut dyn Progress,
) -> Result<RankReport> {
    let mut report = RankReport {
        ranker: run.ranker.as_str().to_string(),
        claims: 0,
        candidates: 0,
        kept: 0,
        unscored: 0,
        semantic_model: None,
        embedded: 0,
    };
    let sink = |batch: Computed| {
        let stored = store_candidates(conn, &batch, run.ranker)?;
        report.claims += stored.claims;
        report.candidates += stored.candidates;
        Ok(())
    };
    rank_in_batches(conn, index, claims, run, Order::ByClaim, progress, sink)?;
    Ok(report)
}

/// What to rank with: the ranker whose top `k` are kept, the lexical rankers' options
/// and the semantic ranker, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RankRun<'a> {
    pub ranker: Ranker,
    pub k: usize,
    pub options: RankOptions,
    pub semantic: Option<&'a SemanticRanker>,
}

/// The top `k` of `run`'s ranker in `r`, each with every ranker's score and the rankers
/// that placed it.
pub(crate) fn top_of(r: &Rankings, run: &RankRun<'_>) -> Top {
    ranking::top_k(r.get(run.ranker).to_vec(), run.k)
        .into_iter()
        .map(|s| {
            let placed = placed_by(r, s.sentence_id, run.k);
            (s, scores_of(r, s.sentence_id), placed)
        })
        .collect()
}

/// Claims whose candidates `rank` writes in one transaction.
const WRITE_CHUNK: usize = 1000;
/// Embeddings `rank` stores in one transaction (384 floats each: about 3 MB).
const EMBEDDINGS_CHUNK: usize = 2000;

/// One run's departures from the project's ranking settings (the command line's flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankingOverrides {
    /// The sentence-embedding model's folder (`--model DIR`).
    pub model: Option<PathBuf>,
    pub bm25_k1: Option<f32>,
    pub bm25_b: Option<f32>,
    pub jaccard_stemming: Option<bool>,
}

impl RankingOverrides {
    /// The project's ranking settings with these applied; an impossible `k1` or `b` is an
    /// error naming the flag.
    pub fn apply(
        &self,
        mut settings: crate::settings::RankingSettings,
    ) -> Result<crate::settings::RankingSettings> {
        settings.bm25_k1 = self.bm25_k1.unwrap_or(settings.bm25_k1);
        settings.bm25_b = self.bm25_b.unwrap_or(settings.bm25_b);
        settings.jaccard_stemming = self.jaccard_stemming.unwrap_or(settings.jaccard_stemming);
        if let Some(problem) = settings.bm25().problem() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("BM25: {problem}"),
            ));
        }
        Ok(settings)
    }
}

impl Project {
    /// Computes and stores the top `k` candidates of each claim that has documents, with
    /// `ranker`. With `only_unranked`, claims that already have candidates are left alone.
    pub fn rank(
        &mut self,
        lead: &Lead,
        ranker: Ranker,
        k: usize,
        only_unranked: bool,
        progress: &mut dyn Progress,
    ) -> Result<RankReport> {
        self.acting_lead(lead)?;
        let overrides = RankingOverrides::default();
        self.rank_with(lead, ranker, k, only_unranked, &overrides, progress)
    }

    /// [`Project::rank`] with some of the project's ranking settings overridden for this
    /// run: the semantic model's folder (`--model DIR`), BM25's `k1` and `b`, Jaccard's
    /// stemming. `semantic` needs a model; `fused` uses one when the project turned the
    /// semantic ranker on or a folder is named.
    pub fn rank_with(
        &mut self,
        lead: &Lead,
        ranker: Ranker,
        k: usize,
        only_unranked: bool,
        overrides: &RankingOverrides,
        progress: &mut dyn Progress,
    ) -> Result<RankReport> {
        self.acting_lead(lead)?;
        if !(1..=MAX_K).contains(&k) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("--k must be 1 to {MAX_K}: an item shows every candidate for the annotator to read, and {k} were asked for"),
            ));
        }
        self.store.require_writable()?;
        let settings = overrides.apply(self.settings()?.ranking)?;
        let model = overrides.model.as_deref();
        if let (Some(dir), Ranker::Bm25 | Ranker::Levenshtein | Ranker::Jaccard) = (model, ranker) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "--model {} names a sentence-embedding model, which {} does not use: rank with --ranker semantic or fused to use it, or leave --model out",
                    dir.display(),
                    ranker.as_str()
                ),
            ));
        }
        // `fused` takes the semantic ranker in when the project turned it on or a model
        // folder was named, and then a missing model is an error, not a silent fallback.
        let wanted = ranker == Ranker::Semantic
            || (ranker == Ranker::Fused && (model.is_some() || settings.semantic));
        let semantic = if wanted {
            crate::semantic::semantic_for(
                &settings,
                model,
                Need::Required,
                &factdesk_semantic::Locations::from_env(),
            )?
        } else {
            None
        };
        let index = self.search_index(lead)?;
        let run = RankRun {
            ranker,
            k,
            options: RankOptions::of(&settings),
            semantic: semantic.as_ref(),
        };
        // Computed before the write transaction, so annotators are not kept waiting; read
        // in one snapshot.
        let (computed, kept) = {
            let snapshot = self.store.read_snapshot()?;
            let mut claims = tx::claims_to_rank(&snapshot, only_unranked)?;
            // What people were shown stays: an answer selects among the candidates its
            // item showed, and agreement counts the ones it left unselected.
            let seen = tx::seen_claims(&snapshot)?;
            let before = claims.len();
            claims.retain(|(id, _)| !seen.contains(id));
            let kept = (before - claims.len()) as u64;
            match compute_candidates(&snapshot, &index, &claims, &run, progress) {
                Ok(computed) => (computed, kept),
                Err(e) => {
                    drop(snapshot);
                    return Err(self.stopped(e, semantic.as_ref()));
                }
            }
        };
        let mut report = self.write_candidates(computed, ranker)?;
        report.kept += kept;
        if let Some(model) = &semantic {
            report.embedded = self.save_embeddings(model)?;
            report.semantic_model = Some(model.model_id().to_string());
        }
        Ok(report)
    }

    /// The error a ranking stopped with. Cancelled, it wrote no candidate; the embeddings
    /// computed until then are stored all the same (they are a cache, keyed by text and
    /// model), so running it again does not embed them twice.
    fn stopped(&mut self, e: Error, model: Option<&SemanticRanker>) -> Error {
        let Some(model) = model.filter(|_| e.code == ErrorCode::Cancelled) else {
            return e;
        };
        match self.save_embeddings(model) {
            Ok(0) => e,
            Ok(n) => Error::new(
                ErrorCode::Cancelled,
                format!("cancelled: no candidate was changed; the {n} embeddings computed so far are kept for the next run"),
            ),
            Err(save) => {
                tracing::warn!("cannot keep the embeddings of a cancelled ranking: {save}");
                e
            }
        }
    }

    /// Stores the embeddings `model` computed, a few thousand to a transaction, so an
    /// answer waits for one such transaction at most; returns how many.
    fn save_embeddings(&mut self, model: &SemanticRanker) -> Result<u64> {
        let mut saved = 0;
        loop {
            let tx = self.store.transaction()?;
            let n = model.save_at_most(&tx, EMBEDDINGS_CHUNK)?;
            tx.commit()?;
            if n == 0 {
                return Ok(saved);
            }
            saved += n;
            self.store.yield_to_writers();
        }
    }

    /// Writes computed candidates a chunk of claims at a time, each chunk in its own
    /// transaction, so an answer waits for one chunk rather than the whole run (issue 31,
    /// item 7). Each chunk first leaves out the claims someone was shown since the
    /// candidates were computed (counted as kept): what a person saw stays. A run stopped
    /// midway leaves every claim with the candidates of one ranking or the other.
    fn write_candidates(&mut self, computed: Computed, ranker: Ranker) -> Result<RankReport> {
        let mut report = RankReport::nothing_yet(ranker);
        for chunk in computed.chunks(WRITE_CHUNK) {
            let tx = self.store.transaction()?;
            let ids: Vec<i64> = chunk.iter().map(|(id, _)| *id).collect();
            let seen = tx::seen_among(&tx, &ids)?;
            // A claim this ranker scored nothing of keeps what it had: written empty, its
            // task would have no candidate to serve.
            let unseen = chunk.iter().filter(|(id, _)| !seen.contains(id));
            let scored: Vec<(i64, Top)> = unseen
                .clone()
                .filter(|(_, top)| !top.is_empty())
                .cloned()
                .collect();
            let unscored = unseen.count() - scored.len();
            let written = store_candidates(&tx, &scored, ranker)?;
            tx.commit()?;
            report.claims += written.claims;
            report.candidates += written.candidates;
            report.kept += seen.len() as u64;
            report.unscored += unscored as u64;
            self.store.yield_to_writers();
        }
        Ok(report)
    }

    /// A claim's candidates, best first. `claim` is the claim's id as imported or its
    /// number as every screen shows it (`#1234`); an imported id wins if both match.
    pub fn candidates(&self, lead: &Lead, claim: &str) -> Result<Vec<CandidateView>> {
        self.acting_lead(lead)?;
        let row = match self.store.claim_by_ext_id(claim)? {
            Some(row) => Some(row),
            None => match factdesk_core::claim::number_in(claim) {
                Some(number) => self.store.claim(number)?,
                None => None,
            },
        };
        let Some(row) = row else {
            // A bare number is not taken as a claim's number: a mistyped imported id
            // would then show another claim's candidates. Say how to write one that exists.
            let as_number = format!("#{}", claim.trim());
            let numbered = match factdesk_core::claim::number_in(&as_number) {
                Some(n) if !claim.trim_start().starts_with('#') => self.store.claim(n)?.is_some(),
                _ => false,
            };
            let hint = match numbered {
                true => format!(" (for the claim numbered {as_number}, write {as_number})"),
                false => String::new(),
            };
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no claim with id or number {claim:?}{hint}"),
            ));
        };
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
