//! Writing checked import rows, and the new claims' candidates: in one transaction, or
//! into a live project in several ([`super::live`]).

pub(super) use super::batch::Batch;
use super::chunks::OneTransaction;
use super::documents::DocumentInput;
use super::put::{put_all, Ids, Target};
use super::rejects::Rejects;
use super::{live, ranking, Preset};
use crate::dto::ImportReport;
use crate::semantic::SemanticRanker;
use crate::settings::EvidenceStance;
use crate::{rank, Error, ErrorCode, Progress, Project, Result};
use factdesk_core::ranking::Ranker;
use factdesk_store::Read;
use factdesk_store::{tx, SearchIndex};

/// The semantic ranker where the project turned it on, for ranking an import's claims.
/// It joins the fusion only then: embedding costs far more than the other rankers
/// (docs/ranking.md).
pub(super) fn semantic_ranker(conn: &Read) -> Result<(Option<SemanticRanker>, rank::RankOptions)> {
    let settings = crate::settings::from_json(tx::settings(conn)?);
    let semantic = crate::semantic::semantic_for(
        &settings.ranking,
        None,
        crate::semantic::Need::IfAvailable,
        &factdesk_semantic::Locations::from_env(),
    )?;
    Ok((semantic, rank::RankOptions::of(&settings.ranking)))
}

/// Writes an import. Into a project without claims or documents, in one transaction with
/// the new claims' candidates: a failed or killed import leaves the project as it was.
/// Into a live project, however small, in chunks with the claims ranked outside any
/// transaction ([`live::write`]), so that answers meanwhile wait for one chunk, never for
/// the ranking: a few claims ranked with the semantic ranker inside the transaction held
/// every answer for as long as they took to embed (hostile pass of session 33).
pub(super) fn write(
    project: &mut Project,
    batch: Batch<'_>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    let conn = project.store.read();
    let first_import = !tx::any_documents(conn)? && !tx::any_claims(conn)?;
    if !first_import {
        return live::write(project, batch, rejects, report, progress);
    }
    write_at_once(project, batch, rejects, report, progress)
}

/// [`write`] in one transaction.
fn write_at_once(
    project: &mut Project,
    mut batch: Batch<'_>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    // Indexing runs on the index's own threads while this one writes the project.
    let index = SearchIndex::begin(&project.store)?;
    // Into a project without claims or documents, references are checked once before
    // the commit (over tables this import then fills); into one holding rows, row by
    // row, so a small import does not pay for reading the whole project. (A writer
    // between this read and the transaction changes how references are checked, not
    // that they are.)
    let first_import =
        !tx::any_documents(project.store.read())? && !tx::any_claims(project.store.read())?;
    let tx = match first_import {
        true => project.store.bulk_transaction(IMPORTED_TABLES)?,
        false => project.store.transaction()?,
    };
    let import_id = tx::record_import(
        &tx,
        batch.source,
        batch.preset.name(),
        report.rows,
        batch.now,
    )?;
    // On PostgreSQL the new rows go out with COPY (factdesk_store's `pg_copy`).
    tx.bulk_writes()?;
    let (documents_before, claims_before) = (tx::any_documents(&tx)?, tx::any_claims(&tx)?);
    let mut ids = Ids::new(
        index,
        documents_before,
        claims_before,
        std::mem::take(&mut batch.documents_set_aside),
    );
    let (semantic, options) = semantic_ranker(&tx)?;
    let run = rank::RankRun {
        ranker: Ranker::Fused,
        k: rank::DEFAULT_K,
        options,
        semantic: semantic.as_ref(),
    };
    let documents = std::mem::take(&mut batch.documents);
    let fresh = !documents_before && !claims_before && semantic.is_none();
    let plan = ranking::Plan::of(fresh, &documents, batch.claims);
    // New claims get their candidates in the same transaction, so no claim is ever stored
    // without them. Those ranked while writing are stored as they come, unless a row was
    // set aside while writing (under --skip-invalid: it changes the corpus); then every
    // claim is ranked after the writes.
    let (early, index) = match &plan {
        Some(plan) => write_ranking_as_written(
            &tx, &batch, plan, documents, import_id, ids, &run, rejects, report, progress,
        )?,
        None => {
            put_all(
                &mut OneTransaction(&tx),
                &batch,
                documents,
                import_id,
                &mut ids,
                Target::Drop,
                rejects,
                report,
                progress,
            )?;
            // The claims, ranked below, search the new rows: the index commits them first.
            let index = ids.index.commit(&tx)?;
            (std::collections::HashSet::new(), index)
        }
    };
    tx::finish_import(&tx, import_id, report.claims_added + report.documents_added)?;
    report.evidence_stance = choose_stance(&tx, batch.preset)?;
    // COVID-Fact's published rows carry only each claim's gold sentences, which become its
    // document: every candidate is then gold, and an item has nothing to pass over but
    // the trick. Said, so a lead adds distractors before annotating (docs/formats.md).
    if batch.preset == Preset::CovidFact {
        report.gold_only_candidates = report.claims_added;
    }
    // When every claim of the plan was ranked while writing and stored, no claim is left
    // without candidates: reading every claim again to find none took 0.08 s of the
    // writer's last stretch, when it works alone (100,000 claims, docs/performance.md).
    let all_early = plan
        .as_ref()
        .is_some_and(|plan| early.len() as u64 == plan.early);
    if !all_early {
        let mut unranked = tx::claims_to_rank(&tx, true)?;
        unranked.retain(|(claim_id, _)| !early.contains(claim_id));
        if early.is_empty() || !unranked.is_empty() {
            report.claims_ranked +=
                rank::rank_and_store(&tx, &index, &unranked, &run, progress)?.claims;
        }
    }
    if let Some(model) = &semantic {
        model.save(&tx)?;
    }
    progress.check_cancelled()?;
    progress.phase("committing", 0);
    tx.commit()?;
    Ok(())
}

/// Writes the rows in `tx` while a thread ranks the planned claims as their documents
/// come ([`ranking::rank_while_writing`]), and stores the candidates as they are ranked;
/// gives the claims stored and the committed index.
#[allow(clippy::too_many_arguments)]
fn write_ranking_as_written(
    tx: &factdesk_store::Tx<'_>,
    batch: &Batch<'_>,
    plan: &ranking::Plan,
    documents: Vec<DocumentInput>,
    import_id: i64,
    mut ids: Ids,
    run: &rank::RankRun<'_>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<(std::collections::HashSet<i64>, SearchIndex)> {
    let rejected_before = rejects.count();
    let corpus = ids.index.bm25_corpus_before(run.options.bm25)?;
    // Bounded, so documents written faster than they are ranked do not pile up.
    let (sender, written) = std::sync::mpsc::sync_channel(IN_FLIGHT);
    let (done, results) = std::sync::mpsc::channel();
    let ranked = ranking::Ranked::default();
    std::thread::scope(|s| -> Result<_> {
        let (claims, ranked) = (batch.claims, &ranked);
        let ranking = s.spawn(move || {
            ranking::rank_while_writing(plan, claims, corpus, run, written, ranked, done)
        });
        let target = Target::Ranking(sender);
        put_all(
            &mut OneTransaction(tx),
            batch,
            documents,
            import_id,
            &mut ids,
            target,
            rejects,
            report,
            progress,
        )?;
        // The search index commits on its own thread while the candidates are
        // written: its stamp counts claims and sentences, all written by now, and
        // writing candidates changes neither.
        let stamp = ids.index.stamp(tx)?;
        let batch_index = ids.index;
        let committing = s.spawn(move || batch_index.commit_stamped(stamp));
        progress.phase("ranking", plan.early);
        let stored = match rejects.count() == rejected_before {
            true => ranking::store_as_ranked(tx, claims, &ids.claims, results, ranked, progress)?,
            false => {
                drop(results);
                ranking::Stored::default()
            }
        };
        ranking
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let index = committing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        report.claims_ranked += stored.claims.len() as u64;
        Ok((stored.claims, index))
    })
}

/// The tables an import inserts into.
const IMPORTED_TABLES: &[&str] = &[
    "imports",
    "documents",
    "sentences",
    "claims",
    "claim_documents",
    "candidates",
];

/// Documents written but not yet taken by the ranking thread, at most.
const IN_FLIGHT: usize = 2048;

/// A preset chooses its dataset's evidence stance when the project has none yet and no
/// evidence task was made under another; returns the stance it chose.
pub(super) fn choose_stance(
    tx: &factdesk_store::Tx<'_>,
    preset: Preset,
) -> Result<Option<EvidenceStance>> {
    let Some(stance) = preset.stance() else {
        return Ok(None);
    };
    let mut settings = crate::settings::from_json(tx::settings(tx)?);
    if settings.evidence_stance.is_some() || factdesk_store::tricks::evidence_tasks(tx)? > 0 {
        return Ok(None);
    }
    settings.choose_stance(stance);
    let value = serde_json::to_value(&settings)
        .map_err(|e| Error::new(ErrorCode::Database, e.to_string()))?;
    tx::set_settings(tx, &value)?;
    Ok(Some(stance))
}
