//! Ranking many claims: a batch at a time, each batch on every core while this thread
//! reads the next one, with progress reported as claims finish (not only per batch: a
//! batch of the semantic ranker can take minutes to embed) and a cancel heeded mid-batch.

use super::{rank_lexical, semantic_texts, with_semantic};
use super::{top_of, Computed, DocumentSet, PreparedDocument, RankRun, Rankings};
use crate::{Error, ErrorCode, Progress, Result};
use factdesk_store::{tx, Bm25Corpus, Read, SearchIndex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

/// Claims read, and their documents prepared, at a time (and checks for cancelling
/// between them).
const BATCH: usize = 2048;
/// Claims a ranking thread takes at a time; the lexical rankers report each such step.
const STEP: usize = 32;
/// Claims whose texts the semantic ranker embeds together, then reports: at most
/// 16 × (1 + depth) texts, so progress moves (and a cancel is heard) every few seconds,
/// while each call still holds hundreds of texts to sort by length and pad little.
const SEMANTIC_GROUP: usize = 16;
/// How often the reporting thread looks at the cancel flag while the others rank.
const TICK: Duration = Duration::from_millis(50);

/// The order claims are ranked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// Claims naming the same documents one after another: their documents' sentences
    /// are then still in the cache, and kept in memory only briefly. (Shared pages, as in
    /// FEVER, are named by claims all over the file.)
    ByDocuments,
    /// As given (by claim id), so each batch's candidates can be written at once, in the
    /// order of the table's key.
    ByClaim,
}

/// What a ranking thread sends the reporting one.
#[derive(Debug)]
enum Tick {
    /// This many more claims are ranked.
    Ranked(u64),
    /// The batch's work is over (finished, failed or stopped).
    Over,
}

/// How the ranking threads report and learn that they should stop.
#[derive(Debug, Clone)]
struct Reports {
    to: Sender<Tick>,
    stop: Arc<AtomicBool>,
}

impl Reports {
    fn ranked(&self, claims: usize) -> Result<()> {
        // The receiver lives as long as the run: a failed send only means it is over.
        let _ = self.to.send(Tick::Ranked(claims as u64));
        self.go_on()
    }

    fn go_on(&self) -> Result<()> {
        match self.stop.load(Ordering::Relaxed) {
            true => Err(cancelled()),
            false => Ok(()),
        }
    }
}

fn cancelled() -> Error {
    Error::new(ErrorCode::Cancelled, "cancelled: nothing was changed")
}

/// Ranks `claims` a batch at a time in `order`, handing each batch's candidates to
/// `sink` on this thread while the next batch is being ranked. Each claim is ranked on
/// its own, so the order changes nothing but speed and memory.
pub(super) fn rank_in_batches(
    conn: &Read,
    index: &SearchIndex,
    claims: &[(i64, String)],
    run: &RankRun<'_>,
    order: Order,
    progress: &mut dyn Progress,
    mut sink: impl FnMut(Computed) -> Result<()>,
) -> Result<()> {
    progress.phase("ranking", claims.len() as u64);
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
    let (to, from) = mpsc::channel();
    let reports = Reports {
        to,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let mut waiting = Waiting {
        from,
        done: 0,
        stop: reports.stop.clone(),
    };
    // This thread reads the next batch's documents while the others rank the current
    // one, then hands the previous batch's candidates to `sink`.
    std::thread::scope(|s| -> Result<()> {
        let mut running: Option<Running<'_>> = None;
        let mut body = || -> Result<()> {
            for (batch, batch_links) in claims.chunks(BATCH).zip(links.chunks(BATCH)) {
                progress.check_cancelled()?;
                let items = load_batch(conn, batch, batch_links, &mut uses, &mut kept)?;
                if let Some(model) = run.semantic {
                    model.prefill(
                        conn,
                        items.iter().flat_map(|((_, claim), set)| {
                            std::iter::once(claim.as_str())
                                .chain(set.sentences().map(|(_, t)| t.as_str()))
                        }),
                    )?;
                }
                let previous = match running.take() {
                    Some(r) => Some(waiting.finish(r, &mut corpora, progress)?),
                    None => None,
                };
                let mut mine = std::mem::take(&mut corpora);
                let reports = reports.clone();
                running = Some(s.spawn(move || {
                    let result = rank_in_parallel(&items, &mut mine, run, &reports);
                    // The receiver lives as long as the run.
                    let _ = reports.to.send(Tick::Over);
                    (result, mine)
                }));
                if let Some(previous) = previous {
                    sink(previous)?;
                }
            }
            if let Some(r) = running.take() {
                let last = waiting.finish(r, &mut corpora, progress)?;
                sink(last)?;
            }
            Ok(())
        };
        let outcome = body();
        // A batch still ranking when this thread failed or stopped is joined when the
        // scope ends: tell it to stop rather than wait for it to finish.
        if outcome.is_err() {
            reports.stop.store(true, Ordering::Relaxed);
        }
        outcome
    })
}

type Running<'s> = std::thread::ScopedJoinHandle<'s, (Result<Computed>, Vec<Bm25Corpus>)>;

/// The reporting thread's side: claims ranked so far, passed on to `progress`.
struct Waiting {
    from: Receiver<Tick>,
    done: u64,
    stop: Arc<AtomicBool>,
}

impl Waiting {
    /// Passes on each report of the running batch until it is over, asking it to stop
    /// when the person cancels meanwhile; then its candidates, and the corpus handles
    /// back in `corpora`.
    fn finish(
        &mut self,
        running: Running<'_>,
        corpora: &mut Vec<Bm25Corpus>,
        progress: &mut dyn Progress,
    ) -> Result<Computed> {
        loop {
            match self.from.recv_timeout(TICK) {
                Ok(Tick::Ranked(n)) => {
                    self.done += n;
                    progress.set(self.done);
                }
                Ok(Tick::Over) | Err(RecvTimeoutError::Disconnected) => break,
                // A thread that panicked sends no `Over`: its join passes the panic on.
                Err(RecvTimeoutError::Timeout) if running.is_finished() => break,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if progress.cancelled() {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        let (result, back) = running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        *corpora = back;
        let computed = result?;
        // A cancel that came once the threads were done with the batch is heard all the
        // same, before its candidates are handed on (a ranking of a small project, over
        // before its progress was all shown, went on to write them; end-to-end test of
        // session 35).
        progress.check_cancelled()?;
        Ok(computed)
    }
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

/// Ranks the items on one thread per corpus handle, keeping their order, reporting each
/// claim once: after its lexical rankings, or with the semantic ranker after its
/// embeddings (which take far longer). The semantic ranker's texts are embedded a group
/// of claims at a time once the lexical rankings say which are needed: a call of hundreds
/// of texts gives every core's embedding worker chunks of its own.
fn rank_in_parallel(
    items: &[((i64, String), DocumentSet)],
    corpora: &mut [Bm25Corpus],
    run: &RankRun<'_>,
    reports: &Reports,
) -> Result<Computed> {
    let lexical = rank_lexically(items, corpora, run, reports)?;
    let rankings: Vec<Rankings> = match run.semantic {
        None => lexical,
        Some(model) => {
            let mut out = Vec::with_capacity(items.len());
            let mut lexical = lexical.into_iter();
            for group in items.chunks(SEMANTIC_GROUP) {
                let mine: Vec<Rankings> = lexical.by_ref().take(group.len()).collect();
                let texts: Vec<&str> = group
                    .iter()
                    .zip(&mine)
                    .flat_map(|(((_, claim), set), r)| semantic_texts(claim, r, set, model.depth()))
                    .collect();
                model.vectors(&texts)?;
                for (((_, claim), set), r) in group.iter().zip(mine) {
                    out.push(with_semantic(r, claim, set, model)?);
                }
                reports.ranked(group.len())?;
            }
            out
        }
    };
    Ok(items
        .iter()
        .zip(&rankings)
        .map(|(((claim_id, _), _), r)| (*claim_id, top_of(r, run)))
        .collect())
}

/// The lexical rankings of the items, in their order, on one thread per corpus handle.
fn rank_lexically(
    items: &[((i64, String), DocumentSet)],
    corpora: &mut [Bm25Corpus],
    run: &RankRun<'_>,
    reports: &Reports,
) -> Result<Vec<Rankings>> {
    let options = run.options;
    // Without the semantic ranker a claim is done once ranked here.
    let report_here = run.semantic.is_none();
    // Each thread takes the next few claims until none are left, so a thread slowed by
    // the others (the reading thread shares the cores) does not leave the rest waiting.
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let parts: Vec<_> = corpora
            .iter_mut()
            .map(|corpus| {
                let next = &next;
                s.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let start = next.fetch_add(STEP, Ordering::Relaxed);
                        if start >= items.len() {
                            break;
                        }
                        let part = &items[start..(start + STEP).min(items.len())];
                        for (i, ((_, text), set)) in part.iter().enumerate() {
                            mine.push((start + i, rank_lexical(corpus, text, set, options)?));
                        }
                        match report_here {
                            true => reports.ranked(part.len())?,
                            false => reports.go_on()?,
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
    })
}
