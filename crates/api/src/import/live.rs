//! An import into a live project (one holding claims or documents, which annotators may
//! be answering through the team server), written in transactions of [`CHUNK`] rows so
//! that an answer waits for one of them, never for the whole import (issue 31).
//!
//! - Every row is checked before anything is written ([`check_all`]): bad rows and id
//!   clashes refuse the import with the project unchanged, as in one transaction.
//! - The import is recorded unfinished first: its claims get no task until the last
//!   transaction marks it finished, after every new claim has its candidates, so nobody
//!   is given a claim before its candidates (`tasks::eligible_claims`).
//! - A failed or cancelled import removes what it wrote before it returns; one killed
//!   midway leaves its rows hidden, and the next import or opening of the project removes
//!   them once no import holds the import lock (`factdesk_store::unfinished`).
//! - The search index takes the new rows once they are all written, stamped in a
//!   transaction, with any row others wrote meanwhile (written refutations).

use super::chunks::Chunks;
use super::documents::DocumentInput;
use super::put::{check_all, put_all, Ids, Target, CHUNK};
use super::rejects::Rejects;
use super::write::{choose_stance, semantic_ranker, Batch};
use super::Preset;
use crate::dto::ImportReport;
use crate::{rank, Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking::Ranker;
use factdesk_store::{tx, unfinished, IndexBatch, SearchIndex, Store, Tx};

/// Each chunk of rows in a transaction of its own.
struct Transactions<'s>(&'s mut Store);

impl Chunks for Transactions<'_> {
    fn run(&mut self, work: &mut dyn FnMut(&Tx<'_>) -> Result<()>) -> Result<()> {
        let started = std::time::Instant::now();
        let tx = self.0.transaction()?;
        // On PostgreSQL the new rows go out with COPY (factdesk_store's `pg_copy`).
        tx.bulk_writes()?;
        work(&tx)?;
        tx.commit()?;
        // What an answer waits for at most: FACTDESK_LOG=debug shows it.
        tracing::debug!(
            held_ms = started.elapsed().as_millis(),
            "import rows written"
        );
        self.0.yield_to_writers();
        Ok(())
    }
}

/// Writes `batch` into a live project in chunks, holding the import lock throughout.
pub(super) fn write(
    project: &mut Project,
    batch: Batch<'_>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    let Some(lock) = project.store.try_lock_imports()? else {
        return Err(Error::new(
            ErrorCode::Conflict,
            "another import is writing into this project; try again once it has finished (nothing was changed)",
        ));
    };
    let written = under_lock(project, batch, rejects, report, progress);
    let unlocked = project.store.unlock_imports(lock);
    written?;
    Ok(unlocked?)
}

fn under_lock(
    project: &mut Project,
    mut batch: Batch<'_>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    // What a killed import left goes first, before the index is opened: the index then
    // sees the rows gone (and is rebuilt if it held them).
    unfinished::remove_all_under_lock(&mut project.store)?;
    let index = SearchIndex::begin(&project.store)?;
    let conn = project.store.read();
    let set_aside = std::mem::take(&mut batch.documents_set_aside);
    let (documents_before, claims_before) = (tx::any_documents(conn)?, tx::any_claims(conn)?);
    let mut ids = Ids::new(index, documents_before, claims_before, set_aside.clone());
    let documents = std::mem::take(&mut batch.documents);
    {
        let snapshot = project.store.read_snapshot()?;
        check_all(
            &snapshot,
            &batch,
            &documents,
            &mut ids,
            &mut Rejects::default(),
            progress,
        )?;
    }
    ids.write_after_check(set_aside);
    let import_id = {
        let tx = project.store.transaction()?;
        let name = batch.preset.name();
        let id = unfinished::record(&tx, batch.source, name, report.rows, batch.now)?;
        tx.commit()?;
        id
    };
    let written = write_and_rank(
        project, &batch, documents, import_id, ids, rejects, report, progress,
    )
    .and_then(|semantic| finish(project, batch.preset, import_id, semantic, report, progress));
    if let Err(error) = written {
        // Stopped or failed before its last transaction: what it wrote goes, so the
        // project is as it was. Should that fail too, the rows stay hidden until the next
        // import or opening of the project removes them.
        let store = &mut project.store;
        if unfinished::is_unfinished(store.read(), import_id).unwrap_or(true) {
            if let Err(e) = unfinished::remove(store, import_id) {
                tracing::warn!("removing the rows of a stopped import: {e}");
            }
        }
        return Err(error);
    }
    Ok(())
}

/// Writes the rows a chunk at a time, brings the index up to them, and ranks every
/// claim still without candidates; gives the semantic ranker used, to save its vectors.
#[allow(clippy::too_many_arguments)]
fn write_and_rank(
    project: &mut Project,
    batch: &Batch<'_>,
    documents: Vec<DocumentInput>,
    import_id: i64,
    mut ids: Ids,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<Option<crate::semantic::SemanticRanker>> {
    let covered = ids.index.covered().ok_or_else(|| {
        Error::new(
            ErrorCode::Database,
            "the search index holds no stamp of what it covers",
        )
    })?;
    let mut chunks = Transactions(&mut project.store);
    put_all(
        &mut chunks,
        batch,
        documents,
        import_id,
        &mut ids,
        Target::Drop,
        rejects,
        report,
        progress,
    )?;
    progress.check_cancelled()?;
    let index = commit_index(&mut project.store, ids.index, covered, import_id, report)?;
    let (semantic, options) = semantic_ranker(project.store.read())?;
    let run = rank::RankRun {
        ranker: Ranker::Fused,
        k: rank::DEFAULT_K,
        options,
        semantic: semantic.as_ref(),
    };
    // Computed without holding the project, then written a chunk at a time.
    let computed = {
        let snapshot = project.store.read_snapshot()?;
        let claims = tx::claims_to_rank(&snapshot, true)?;
        rank::compute_candidates(&snapshot, &index, &claims, &run, progress)?
    };
    for chunk in computed.chunks(CHUNK) {
        progress.check_cancelled()?;
        let started = std::time::Instant::now();
        let tx = project.store.transaction()?;
        let claim_ids: Vec<i64> = chunk.iter().map(|(id, _)| *id).collect();
        // A claim shown to someone since (ranked meanwhile by `rank`) keeps what it showed.
        let seen = tx::seen_among(&tx, &claim_ids)?;
        let stored = match seen.is_empty() {
            true => rank::store_candidates(&tx, chunk, Ranker::Fused)?,
            false => {
                let unseen: Vec<(i64, rank::Top)> = chunk
                    .iter()
                    .filter(|(id, _)| !seen.contains(id))
                    .cloned()
                    .collect();
                rank::store_candidates(&tx, &unseen, Ranker::Fused)?
            }
        };
        tx.commit()?;
        tracing::debug!(
            held_ms = started.elapsed().as_millis(),
            "import candidates written"
        );
        report.claims_ranked += stored.claims;
        project.store.yield_to_writers();
    }
    Ok(semantic)
}

/// Commits the index with the import's rows and any others written since it began
/// (`covered`), stamped in a transaction so the stamp counts exactly what it holds.
fn commit_index(
    store: &mut Store,
    mut index: IndexBatch,
    covered: (i64, i64),
    import_id: i64,
    report: &ImportReport,
) -> Result<SearchIndex> {
    let tx = store.transaction()?;
    let (claims, sentences) = unfinished::count_since(&tx, covered)?;
    if claims != report.claims_added {
        for (id, text) in unfinished::other_claims_since(&tx, covered.0, import_id)? {
            index.add_claim(id, &text)?;
        }
    }
    if sentences != report.sentences_added {
        for (id, document_id, text) in unfinished::other_sentences_since(&tx, covered.1, import_id)?
        {
            index.add_sentence(id, document_id, &text)?;
        }
    }
    let stamp = index.stamp(&tx)?;
    // Nothing was written: the transaction only held the project while it was counted.
    tx.commit()?;
    Ok(index.commit_stamped(stamp)?)
}

/// The import's last transaction: it is marked finished, its claims now eligible for
/// tasks, with the evidence stance its preset chooses and the semantic vectors made.
fn finish(
    project: &mut Project,
    preset: Preset,
    import_id: i64,
    semantic: Option<crate::semantic::SemanticRanker>,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    progress.check_cancelled()?;
    progress.phase("committing", 0);
    let tx = project.store.transaction()?;
    tx::finish_import(&tx, import_id, report.claims_added + report.documents_added)?;
    report.evidence_stance = choose_stance(&tx, preset)?;
    // As in one transaction (`write`): COVID-Fact's rows carry only their gold sentences.
    if preset == Preset::CovidFact {
        report.gold_only_candidates = report.claims_added;
    }
    if let Some(model) = &semantic {
        model.save(&tx)?;
    }
    tx.commit()?;
    Ok(())
}
