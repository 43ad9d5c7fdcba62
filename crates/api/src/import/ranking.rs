//! Ranking an import's claims while the import is still writing them.
//!
//! In an import into an empty project (without evidence or counter-claims inside claim
//! rows, without the semantic ranker), a claim's sentences are the ones this import
//! split, and BM25's corpus statistics can be counted from the import's own texts (the
//! committed index would give the same integers). A thread beside the writes takes each
//! document as soon as its sentences have ids, tokenises it once to count it, and:
//!
//! - for a claim whose documents no other claim names, ranks it by everything but BM25
//!   as soon as its documents are in, and drops them; BM25 is scored and the rankings
//!   fused once the last document is counted, on every core;
//! - keeps the documents that claims share (FEVER's pages), prepared, and ranks those
//!   claims in full once the last document is counted (the corpus is then final), on
//!   every core, while the writer writes the claims.
//!
//! The writer stores the candidates as they come once the claims are written
//! ([`store_as_ranked`]). No sentence is read back, and ranking overlaps the writes and
//! the indexing instead of waiting for both. The candidates are the same either way,
//! score for score (test `import_ranking::ranked_while_writing_equals_ranked_after`).

use super::claims::ClaimInput;
use super::documents::DocumentInput;
use crate::rank::{self, LexicalParts, PreparedDocument, RankRun, Top};
use crate::{Error, ErrorCode, Progress, Result};
use factdesk_core::ranking::Ranker;
use factdesk_store::{Bm25Corpus, TextCounts};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;

/// A document as written: its position in the import's documents, its row id, its
/// sentences' row ids in order, and itself.
pub(super) type Written = (usize, i64, Vec<i64>, DocumentInput);

/// Which claims are ranked while writing, against which documents.
#[derive(Debug)]
pub(super) struct Plan {
    /// Per claim (in the import's order), its documents by position in the import's
    /// documents, each once (none: the claim has no candidates).
    documents: Vec<Vec<usize>>,
    /// Per document, the claim ranked while writing that names it, if it is the only one.
    claim_of: Vec<Option<usize>>,
    /// Claims naming a document that other claims name too (FEVER's pages), in order:
    /// ranked once every document is written, while the claims are.
    shared: Vec<usize>,
    /// Per document, whether a claim in `shared` names it (it is kept until then).
    for_shared: Vec<bool>,
    /// How many claims are ranked while writing.
    pub early: u64,
}

impl Plan {
    /// The plan when claims can be ranked while writing, else `None`. `fresh`: the
    /// project holds no claims and no documents, and ranking is lexical.
    pub fn of(fresh: bool, documents: &[DocumentInput], claims: &[ClaimInput]) -> Option<Plan> {
        let simple = |c: &ClaimInput| c.evidence.is_empty() && c.refuted.is_none();
        if !fresh || !claims.iter().all(simple) {
            return None;
        }
        let position: HashMap<&str, usize> = documents
            .iter()
            .enumerate()
            .map(|(i, d)| (d.ext_id.as_str(), i))
            .collect();
        let mut named = Vec::with_capacity(claims.len());
        let mut uses = vec![0u32; documents.len()];
        for claim in claims {
            let mut mine: Vec<usize> = Vec::with_capacity(claim.doc_ids.len());
            for ext in &claim.doc_ids {
                match position.get(ext.as_str()) {
                    Some(&d) if !mine.contains(&d) => mine.push(d),
                    Some(_) => {}
                    // The row is refused when written: everything is ranked as before.
                    None if !claim.doc_ids_optional => return None,
                    None => {}
                }
            }
            for &d in &mine {
                uses[d] += 1;
            }
            named.push(mine);
        }
        let mut plan = Plan {
            documents: Vec::with_capacity(claims.len()),
            claim_of: vec![None; documents.len()],
            shared: Vec::new(),
            for_shared: vec![false; documents.len()],
            early: 0,
        };
        for (c, mine) in named.into_iter().enumerate() {
            let shared = mine.iter().any(|&d| uses[d] > 1);
            for &d in &mine {
                match shared {
                    true => plan.for_shared[d] = true,
                    false => plan.claim_of[d] = Some(c),
                }
            }
            if shared {
                plan.shared.push(c);
            }
            // A claim without documents has no candidates.
            plan.early += u64::from(!mine.is_empty());
            plan.documents.push(mine);
        }
        (plan.early > 0).then_some(plan)
    }
}

/// The claims ranked so far, shared with the writer for its progress.
#[derive(Debug, Default)]
pub(super) struct Ranked(AtomicU64);

impl Ranked {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Ranks the planned claims from the documents the writer sends on `written` as it
/// writes them, until it hangs up: each document's sentences are prepared once, counted
/// into the corpus statistics and, when its claim has all its documents, ranked by every
/// ranker but BM25, whose scores need the whole corpus; the document is then dropped
/// (kept instead when claims share it). Once every document is in, BM25 is scored with
/// `corpus` plus what was counted (every document written and every claim of the
/// import), the rankings fused, and the claims sharing documents ranked. Each claim's
/// candidates go out on `done` with its position in `claims`; a closed `done` stops the
/// work.
pub(super) fn rank_while_writing(
    plan: &Plan,
    claims: &[ClaimInput],
    corpus: Bm25Corpus,
    run: &RankRun<'_>,
    written: Receiver<Written>,
    ranked: &Ranked,
    done: Sender<Vec<(usize, Top)>>,
) -> Result<()> {
    let mut counts = TextCounts::default();
    let mut pending: Vec<usize> = plan.documents.iter().map(Vec::len).collect();
    let mut ready: HashMap<usize, (i64, Arc<PreparedDocument>)> = HashMap::new();
    let mut kept: HashMap<usize, (i64, Arc<PreparedDocument>)> = HashMap::new();
    let mut parts: Vec<Option<LexicalParts>> = vec![None; claims.len()];
    for (d, document_id, sentence_ids, doc) in written {
        if sentence_ids.len() != doc.sentences.len() {
            return Err(lost("sentence"));
        }
        let sentences = sentence_ids
            .into_iter()
            .enumerate()
            .map(|(i, id)| (id, doc.sentence_text(i).to_string()))
            .collect();
        drop(doc);
        let prepared = Arc::new(PreparedDocument::new(sentences));
        for terms in prepared.terms() {
            counts.add_terms(terms);
        }
        if plan.for_shared.get(d).copied().unwrap_or(false) {
            kept.insert(d, (document_id, prepared));
            continue;
        }
        let Some(c) = plan.claim_of.get(d).copied().flatten() else {
            continue;
        };
        ready.insert(d, (document_id, prepared));
        pending[c] -= 1;
        if pending[c] > 0 {
            continue;
        }
        // As ranking after the commit reads them: the claim's documents by row id.
        let set = document_set(&plan.documents[c], |e| ready.remove(e))?;
        parts[c] = Some(rank::lexical_parts(&claims[c].text, &set, run.options)?);
    }
    // The claims are counted only now: the writer is done with the documents, which it
    // waited on this thread for, and counts are the same in any order.
    for claim in claims {
        counts.add(&claim.text);
    }
    let corpus = corpus.with_new_texts(Arc::new(counts))?;
    // Taken from `parts` a step at a time: neither copied whole nor held twice.
    let early = parts
        .into_iter()
        .enumerate()
        .filter_map(|(c, part)| part.map(|part| (c, part)));
    let wanted = on_every_core(early, &corpus, ranked, &done, |corpus, (c, part)| {
        let rankings = part.finish(corpus, &claims[c].text)?;
        Ok((c, rank::top_of(&rankings, run)))
    })?;
    // Every document is counted: the corpus is final, so the claims sharing documents
    // are ranked in full now, while the writer writes the claims.
    match wanted {
        true => rank_shared(plan, claims, &corpus, &kept, run, ranked, &done),
        false => Ok(()),
    }
}

/// A claim's documents (positions in the import's documents) as ranking after the commit
/// reads them: by row id.
fn document_set(
    documents: &[usize],
    mut take: impl FnMut(&usize) -> Option<(i64, Arc<PreparedDocument>)>,
) -> Result<rank::DocumentSet> {
    let mut set: Vec<(i64, Arc<PreparedDocument>)> = documents
        .iter()
        .map(|e| take(e).ok_or_else(|| lost("document")))
        .collect::<Result<_>>()?;
    set.sort_by_key(|(id, _)| *id);
    let (document_ids, documents) = set.into_iter().unzip();
    Ok(rank::DocumentSet {
        document_ids,
        documents,
    })
}

/// Claims a thread takes at a time in [`on_every_core`].
const STEP: usize = 32;

/// Ranks the claims of `plan.shared` against the documents `kept` for them, with the
/// final `corpus`, on every core.
fn rank_shared(
    plan: &Plan,
    claims: &[ClaimInput],
    corpus: &Bm25Corpus,
    kept: &HashMap<usize, (i64, Arc<PreparedDocument>)>,
    run: &RankRun<'_>,
    ranked: &Ranked,
    done: &Sender<Vec<(usize, Top)>>,
) -> Result<()> {
    // A window of claims at a time, in claim order, and within a window by their
    // documents: claims naming the same pages are ranked one after another while the
    // pages are in the cache (the pages of the whole import are not), and each window's
    // candidates are written while the next window is ranked. The order changes nothing
    // but speed: each claim is ranked on its own.
    let mut shared = plan.shared.clone();
    for window in shared.chunks_mut(WINDOW) {
        window.sort_by_cached_key(|&c| {
            let mut documents = plan.documents[c].clone();
            documents.sort_unstable();
            (documents, c)
        });
    }
    on_every_core(shared.into_iter(), corpus, ranked, done, |corpus, c| {
        let set = document_set(&plan.documents[c], |e| kept.get(e).cloned())?;
        let rankings = rank::rank_lexical(corpus, &claims[c].text, &set, run.options)?;
        Ok((c, rank::top_of(&rankings, run)))
    })
    .map(|_| ())
}

/// Ranks every item with `rank_one` on one thread per core, each thread with its own
/// copy of `corpus`, [`STEP`] items at a time in about their order (taken from `items`
/// as a thread asks for them), sending each step's (claim, candidates) pairs on `done`.
/// False when `done` was closed: the writer no longer wants the results (a row was set
/// aside), and the work stopped.
fn on_every_core<T: Send>(
    items: impl Iterator<Item = T> + Send,
    corpus: &Bm25Corpus,
    ranked: &Ranked,
    done: &Sender<Vec<(usize, Top)>>,
    rank_one: impl Fn(&mut Bm25Corpus, T) -> Result<(usize, Top)> + Sync,
) -> Result<bool> {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return Ok(true);
    }
    // No more threads than steps (by the most items there can be).
    let most_steps = items.size_hint().1.map_or(usize::MAX, |n| n.div_ceil(STEP));
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(most_steps);
    let steps = std::sync::Mutex::new(items);
    let closed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (steps, closed, rank_one) = (&steps, &closed, &rank_one);
                let (mut corpus, done) = (corpus.clone(), done.clone());
                s.spawn(move || -> Result<()> {
                    loop {
                        // A worker that panicked holding the lock left the queue whole.
                        let step: Vec<T> = steps
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .by_ref()
                            .take(STEP)
                            .collect();
                        if step.is_empty() {
                            return Ok(());
                        }
                        let mut mine = Vec::with_capacity(step.len());
                        for item in step {
                            mine.push(rank_one(&mut corpus, item)?);
                            ranked.0.fetch_add(1, Ordering::Relaxed);
                        }
                        if done.send(mine).is_err() {
                            closed.store(true, Ordering::Relaxed);
                            return Ok(());
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        }
        Ok(!closed.load(Ordering::Relaxed))
    })
}

/// What [`store_as_ranked`] stored: the claims, by row id.
#[derive(Debug, Default)]
pub(super) struct Stored {
    pub claims: HashSet<i64>,
}

/// Claims [`rank_shared`] sorts by their documents at a time.
const WINDOW: usize = 16_384;

/// Claims whose candidates are written together, sorted by claim: about one window of
/// [`rank_shared`], so the writes stay close to appends in the order of the candidates'
/// key.
const STORE_CHUNK: usize = WINDOW;

/// Writes the candidates [`rank_while_writing`] sends on `results`, in the writer's
/// transaction, as they come (once the claims are written, so that they have row ids),
/// until the ranking hangs up; the last ranking is then written while the rest is still
/// being ranked instead of all of it after.
pub(super) fn store_as_ranked(
    tx: &factdesk_store::Tx<'_>,
    claims: &[ClaimInput],
    claim_ids: &HashMap<String, i64>,
    results: Receiver<Vec<(usize, Top)>>,
    ranked: &Ranked,
    progress: &mut dyn Progress,
) -> Result<Stored> {
    let mut stored = Stored::default();
    let mut pending: rank::Computed = Vec::new();
    let mut write = |pending: &mut rank::Computed| -> Result<()> {
        pending.sort_by_key(|(claim_id, _)| *claim_id);
        rank::store_candidates(tx, pending, Ranker::Fused)?;
        stored
            .claims
            .extend(pending.iter().map(|(claim_id, _)| *claim_id));
        pending.clear();
        Ok(())
    };
    loop {
        match results.recv_timeout(std::time::Duration::from_millis(20)) {
            Ok(tops) => {
                for (c, top) in tops {
                    let ext = claims[c].ext_id.as_deref().unwrap_or_default();
                    let id = claim_ids.get(ext).ok_or_else(|| lost("claim"))?;
                    pending.push((*id, top));
                }
                if pending.len() >= STORE_CHUNK {
                    write(&mut pending)?;
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        progress.set(ranked.get());
        progress.check_cancelled()?;
    }
    write(&mut pending)?;
    progress.set(ranked.get());
    Ok(stored)
}

fn lost(what: &str) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("ranking while importing lost track of a {what}"),
    )
}
