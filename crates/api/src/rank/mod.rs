//! Ranking candidate evidence sentences for claims, and reading them back.

use crate::dto::{CandidateView, RankReport};
use crate::semantic::{Need, SemanticRanker};
use crate::{Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking::{self, Ranker};
use factdesk_store::Read;
use factdesk_store::{tx, Bm25Corpus, SearchIndex};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

mod sentences;
mod top;

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

/// Claims ranked between two progress reports (and checks for cancelling).
const BATCH: usize = 2048;
/// Claims a ranking thread takes at a time.
const STEP: usize = 32;

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

/// The order claims are ranked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Claims naming the same documents one after another: their documents' sentences
    /// are then still in the cache, and kept in memory only briefly. (Shared pages, as in
    /// FEVER, are named by claims all over the file.)
    ByDocuments,
    /// As given (by claim id), so each batch's candidates can be written at once, in the
    /// order of the table's key.
    ByClaim,
}

/// Ranks `claims` a batch at a time in `order`, handing each batch's candidates to
/// `sink` on this thread while the next batch is being ranked. Each claim is ranked on
/// its own, so the order changes nothing but speed and memory.
fn rank_in_batches(
    conn: &Read,
    index: &SearchIndex,
    claims: &[(i64, String)],
    run: &RankRun<'_>,
    order: Order,
    progress: &mut dyn Progress,
    mut sink: impl FnMut(Computed) -> Result<()>,
) -> Result<()> {
    progress.phase("ranking", claims.len() as u64);
    let semantic = run.semantic;
    let corpus = index.bm25_corpus_with(run.options.bm25)?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut corpora = vec![corpus; threads];
    let links = documents_of(conn, claims)?;
    let (claims, links): (Vec<(i64, String)>, Vec<Vec<i64>>) = match order {
        Order::ByClaim => (claims.to_vec(), links),
        Order::ByDocuments => {
            let mut by: Vec<usize> = (0..claims.len()).collect();
            by.sort_by(|&a, &b| links[a].cmp(&links[b]).then(a.cmp(&b)));
            by.iter()
                .map(|&i| (claims[i].clone(), links[i].clone()))
                .unzip()
        }
    };
    let mut uses: HashMap<i64, u32> = HashMap::new();
    for &d in links.iter().flatten() {
        *uses.entry(d).or_default() += 1;
    }
    let mut kept: HashMap<i64, Arc<PreparedDocument>> = HashMap::new();
    let mut done = 0u64;
    // This thread reads the next batch's documents while the others rank the current
    // one, then hands the previous batch's candidates to `sink`.
    type Running<'s> = std::thread::ScopedJoinHandle<'s, (Result<Computed>, Vec<Bm25Corpus>)>;
    std::thread::scope(|s| -> Result<()> {
        let mut running: Option<Running<'_>> = None;
        let finish = |running: Running<'_>, corpora: &mut Vec<Bm25Corpus>| -> Result<Computed> {
            let (result, back) = running
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            *corpora = back;
            result
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
            let previous = match running.take() {
                Some(r) => Some(finish(r, &mut corpora)?),
                None => None,
            };
            let mut mine = std::mem::take(&mut corpora);
            running = Some(s.spawn(move || {
                let result = rank_in_parallel(&items, &mut mine, run);
                (result, mine)
            }));
            if let Some(previous) = previous {
                done += previous.len() as u64;
                sink(previous)?;
                progress.set(done);
            }
        }
        if let Some(r) = running.take() {
            let last = finish(r, &mut corpora)?;
            done += last.len() as u64;
            sink(last)?;
            progress.set(done);
        }
        Ok(())
    })
}

/// A batch of claims with their documents: read from `conn` in one query unless `kept`,
/// and kept while claims still to come (`uses`) name them.
fn load_batch(
    conn: &Read,
    batch: &[(i64, String)],
    batch_links: &[Vec<i64>],
    uses: &mut HashMap<i64, u32>,
    kept: &mut HashMap<i64, Arc<PreparedDocument>>,
) -> Result<Vec<((i64, String), DocumentSet)>> {
    // Each document once: the read returns a document's sentences once per mention.
    let mut wanted: Vec<i64> = batch_links
        .iter()
        .flatten()
        .copied()
        .filter(|d| !kept.contains_key(d))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut read = tx::sentences_of_documents(conn, &wanted)?;
    let mut sets = Vec::with_capacity(batch.len());
    for ids in batch_links {
        let mut documents = Vec::with_capacity(ids.len());
        for &d in ids {
            let doc = match kept.get(&d) {
                Some(doc) => doc.clone(),
                None => Arc::new(PreparedDocument::new(read.remove(&d).unwrap_or_default())),
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
fn documents_of(conn: &Read, claims: &[(i64, String)]) -> Result<Vec<Vec<i64>>> {
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

/// What to rank with: the ranker whose top `k` are kept, the lexical rankers' options
/// and the semantic ranker, if any.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RankRun<'a> {
    pub ranker: Ranker,
    pub k: usize,
    pub options: RankOptions,
    pub semantic: Option<&'a SemanticRanker>,
}

/// Ranks the items on one thread per corpus handle, keeping their order. The semantic
/// ranker's texts are embedded together once the lexical rankings say which are needed:
/// one large length-sorted call keeps padding small and both cores on the matrix products.
fn rank_in_parallel(
    items: &[((i64, String), DocumentSet)],
    corpora: &mut [Bm25Corpus],
    run: &RankRun<'_>,
) -> Result<Computed> {
    let options = run.options;
    // Each thread takes the next few claims until none are left, so a thread slowed by
    // the others (the reading thread shares the cores) does not leave the rest waiting.
    let next = AtomicUsize::new(0);
    let lexical: Vec<Rankings> = std::thread::scope(|s| {
        let parts: Vec<_> = corpora
            .iter_mut()
            .map(|corpus| {
                let next = &next;
                s.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let start = next.fetch_add(STEP, Ordering::Relaxed);
                        let Some(part) = items.get(start..(start + STEP).min(items.len())) else {
                            break;
                        };
                        for (i, ((_, text), set)) in part.iter().enumerate() {
                            mine.push((start + i, rank_lexical(corpus, text, set, options)?));
                        }
                    }
                    Ok::<_, Error>(mine)
                })
            })
            .collect();
        let mut out: Vec<Option<Rankings>> = vec![None; items.len()];
        for part in parts {
            match part.join() {
                Ok(results) => {
                    for (i, r) in results? {
                        out[i] = Some(r);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out.into_iter()
            .map(|r| r.ok_or_else(|| Error::new(ErrorCode::Io, "a claim was not ranked")))
            .collect::<Result<Vec<_>>>()
    })?;
    let rankings: Vec<Rankings> = match run.semantic {
        None => lexical,
        Some(model) => {
            let texts: Vec<&str> = items
                .iter()
                .zip(&lexical)
                .flat_map(|(((_, claim), set), r)| semantic_texts(claim, r, set, model.depth()))
                .collect();
            model.vectors(&texts)?;
            items
                .iter()
                .zip(lexical)
                .map(|(((_, claim), set), r)| with_semantic(r, claim, set, model))
                .collect::<Result<_>>()?
        }
    };
    Ok(items
        .iter()
        .zip(&rankings)
        .map(|(((claim_id, _), _), r)| (*claim_id, top_of(r, run)))
        .collect())
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
        if k == 0 {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "--k must be at least 1",
            ));
        }
        self.store.require_writable()?;
        let settings = overrides.apply(self.settings()?.ranking)?;
        let model = overrides.model.as_deref();
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
            (
                compute_candidates(&snapshot, &index, &claims, &run, progress)?,
                kept,
            )
        };
        let mut report = self.write_candidates(computed, ranker)?;
        report.kept += kept;
        if let Some(model) = &semantic {
            let tx = self.store.transaction()?;
            report.embedded = model.save(&tx)?;
            report.semantic_model = Some(model.model_id().to_string());
            tx.commit()?;
        }
        Ok(report)
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
            let unseen: Vec<(i64, Top)> = chunk
                .iter()
                .filter(|(id, _)| !seen.contains(id))
                .cloned()
                .collect();
            let written = store_candidates(&tx, &unseen, ranker)?;
            tx.commit()?;
            report.claims += written.claims;
            report.candidates += written.candidates;
            report.kept += seen.len() as u64;
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
