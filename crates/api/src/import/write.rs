//! Writing checked import rows, and the new claims' candidates, in one transaction.

use super::claims::ClaimInput;
use super::documents::{self, DocumentInput};
use super::rejects::Rejects;
use super::{digest, ranking, Preset};
use crate::dto::ImportReport;
use crate::settings::EvidenceStance;
use crate::{rank, Error, ErrorCode, Progress, Project, Result};
use factdesk_core::claim::Label;
use factdesk_core::ranking::Ranker;
use factdesk_store::Connection;
use factdesk_store::{tx, IndexBatch, NewClaim, NewDocument, NewSentence, SearchIndex};
use std::collections::HashMap;

/// Everything one import writes.
#[derive(Debug)]
pub(super) struct Batch<'a> {
    pub source: &'a str,
    pub preset: Preset,
    /// Dropped once written and ranked.
    pub documents: Vec<DocumentInput>,
    pub claims: &'a [ClaimInput],
    pub now: i64,
    pub skip_invalid: bool,
    /// Ids of document rows set aside before writing (unreadable, or a second version
    /// of an id in this import): claims naming them are set aside too.
    pub documents_set_aside: std::collections::HashSet<String>,
}

/// Row ids of documents and claims by external id, as known in this transaction, and
/// the index additions made beside it.
#[derive(Debug)]
struct Ids {
    documents: HashMap<String, i64>,
    claims: HashMap<String, i64>,
    /// Refutations written in this transaction: (row id, content hash) by external id.
    refutations: HashMap<String, (i64, String)>,
    index: IndexBatch,
    /// Whether the project held documents (claims) before this import. If not, every
    /// row there is to find was written by this import and is in the maps above, so no
    /// row is looked up in the project (two queries per claim at 100,000 claims).
    documents_before: bool,
    claims_before: bool,
    /// Documents of this import set aside under --skip-invalid: a claim naming one is
    /// set aside too, rather than linked to what the project held under that id.
    set_aside: std::collections::HashSet<String>,
}

impl Ids {
    fn find_document(&self, conn: &Connection, ext_id: &str) -> Result<Option<(i64, String)>> {
        Ok(match self.documents_before {
            true => tx::find_document(conn, ext_id)?,
            false => None,
        })
    }

    /// A claim written before this import, or one written by it but not in `claims` (a
    /// refutation); claims written by this import are in `claims`.
    fn find_claim(&self, conn: &Connection, ext_id: &str) -> Result<Option<(i64, String)>> {
        Ok(match self.claims_before {
            true => tx::find_claim(conn, ext_id)?,
            false => self.refutations.get(ext_id).cloned(),
        })
    }
}

pub(super) fn write(
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
        !tx::any_documents(project.store.conn())? && !tx::any_claims(project.store.conn())?;
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
    let mut ids = Ids {
        documents: HashMap::new(),
        claims: HashMap::new(),
        refutations: HashMap::new(),
        index,
        documents_before: tx::any_documents(&tx)?,
        claims_before: tx::any_claims(&tx)?,
        set_aside: std::mem::take(&mut batch.documents_set_aside),
    };
    // The semantic ranker joins the fusion only where the project turned it on: embedding
    // costs far more than the other rankers (docs/ranking.md).
    let settings = crate::settings::from_json(tx::settings(&tx)?);
    let semantic = crate::semantic::semantic_for(
        &settings.ranking,
        None,
        crate::semantic::Need::IfAvailable,
        &factdesk_semantic::Locations::from_env(),
    )?;
    let run = rank::RankRun {
        ranker: Ranker::Fused,
        k: rank::DEFAULT_K,
        options: rank::RankOptions::of(&settings.ranking),
        semantic: semantic.as_ref(),
    };
    let documents = std::mem::take(&mut batch.documents);
    let fresh = !ids.documents_before && !ids.claims_before && semantic.is_none();
    let plan = ranking::Plan::of(fresh, &documents, batch.claims);
    let rejected_before = rejects.count();
    // New claims get their candidates in the same transaction, so no claim is ever stored
    // without them. Those ranked while writing are stored as they come, unless a row was
    // set aside while writing (under --skip-invalid: it changes the corpus); then every
    // claim is ranked after the writes.
    let (early, index) = match &plan {
        Some(plan) => {
            let corpus = ids.index.bm25_corpus_before(run.options.bm25)?;
            // Bounded, so documents written faster than they are ranked do not pile up.
            let (sender, written) = std::sync::mpsc::sync_channel(IN_FLIGHT);
            let (done, results) = std::sync::mpsc::channel();
            let ranked = ranking::Ranked::default();
            std::thread::scope(|s| -> Result<_> {
                let (claims, run, ranked) = (batch.claims, &run, &ranked);
                let ranking = s.spawn(move || {
                    ranking::rank_while_writing(plan, claims, corpus, run, written, ranked, done)
                });
                let target = Target::Ranking(sender);
                let batch = &batch;
                put_all(
                    &tx, batch, documents, import_id, &mut ids, target, rejects, report, progress,
                )?;
                // The search index commits on its own thread while the candidates are
                // written: its stamp counts claims and sentences, all written by now, and
                // writing candidates changes neither.
                let stamp = ids.index.stamp(&tx)?;
                let batch_index = ids.index;
                let committing = s.spawn(move || batch_index.commit_stamped(stamp));
                progress.phase("ranking", plan.early);
                let stored = match rejects.count() == rejected_before {
                    true => ranking::store_as_ranked(
                        &tx,
                        claims,
                        &ids.claims,
                        results,
                        ranked,
                        progress,
                    )?,
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
            })?
        }
        None => {
            put_all(
                &tx,
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
    let mut unranked = tx::claims_to_rank(&tx, true)?;
    unranked.retain(|(claim_id, _)| !early.contains(claim_id));
    if early.is_empty() || !unranked.is_empty() {
        report.claims_ranked +=
            rank::rank_and_store(&tx, &index, &unranked, &run, progress)?.claims;
    }
    if let Some(model) = &semantic {
        model.save(&tx)?;
    }
    progress.check_cancelled()?;
    progress.phase("committing", 0);
    tx.commit()?;
    Ok(())
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

/// Where written documents go besides the project: to the ranking thread, or nowhere.
enum Target {
    Ranking(std::sync::mpsc::SyncSender<ranking::Written>),
    Drop,
}

/// Writes the documents, each dropped or handed to `target` once written, then the
/// claims (parents first).
#[allow(clippy::too_many_arguments)]
fn put_all(
    tx: &Connection,
    batch: &Batch<'_>,
    documents: Vec<DocumentInput>,
    import_id: i64,
    ids: &mut Ids,
    mut target: Target,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    let total = documents.len() as u64;
    progress.phase("documents", total);
    for (i, doc) in documents.into_iter().enumerate() {
        match put_document(tx, &doc, import_id, ids, report) {
            Ok((id, sentence_ids)) => {
                if let Target::Ranking(sender) = &target {
                    // A closed channel means the ranking failed: its error is reported
                    // when it is joined.
                    if sender.send((i, id, sentence_ids, doc)).is_err() {
                        target = Target::Drop;
                    }
                }
            }
            Err(error) => {
                ids.set_aside.insert(doc.ext_id.clone());
                rejects.add_error(&doc.file, error, doc.raw, batch.skip_invalid)?
            }
        }
        if i % 1024 == 0 {
            progress.set(i as u64);
            progress.check_cancelled()?;
        }
    }
    progress.set(total);
    // The ranking finishes its work while the claims are written.
    drop(target);

    progress.phase("claims", batch.claims.len() as u64);
    // Parents first, so that a refutation can point at the claim it refutes.
    let ordered = batch
        .claims
        .iter()
        .filter(|c| c.parent_ext_id.is_none())
        .chain(batch.claims.iter().filter(|c| c.parent_ext_id.is_some()));
    for (i, claim) in ordered.enumerate() {
        if let Err(error) = put_claim(tx, claim, batch.now, import_id, ids, report) {
            rejects.add_error(&claim.file, error, claim.raw.clone(), batch.skip_invalid)?;
        }
        if i % 1024 == 0 {
            progress.set(i as u64);
            progress.check_cancelled()?;
        }
    }
    progress.set(batch.claims.len() as u64);
    Ok(())
}

/// A preset chooses its dataset's evidence stance when the project has none yet and no
/// evidence task was made under another; returns the stance it chose.
fn choose_stance(tx: &Connection, preset: Preset) -> Result<Option<EvidenceStance>> {
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

fn clash(file: &str, line: u64, what: &str, ext_id: &str) -> Error {
    let mut e = Error::input(
        file,
        line,
        Some("id"),
        format!("{what} id {ext_id:?} is already in the project with different content; give this row another id"),
    );
    e.code = ErrorCode::Conflict;
    e
}

/// Writes a document unless the project has it; returns its row id and the row ids of
/// the sentences written (none when it was there already).
fn put_document(
    conn: &Connection,
    doc: &DocumentInput,
    import_id: i64,
    ids: &mut Ids,
    report: &mut ImportReport,
) -> Result<(i64, Vec<i64>)> {
    if let Some(&id) = ids.documents.get(&doc.ext_id) {
        return Ok((id, Vec::new()));
    }
    let hash = doc.hash();
    let (id, written) = match ids.find_document(conn, &doc.ext_id)? {
        Some((id, h)) if h == hash => {
            report.unchanged += 1;
            (id, Vec::new())
        }
        Some(_) => return Err(clash(&doc.file, doc.line, "document", &doc.ext_id)),
        None => {
            let sentences: Vec<NewSentence<'_>> = (0..doc.sentences.len())
                .map(|i| NewSentence {
                    start_char: doc.sentences[i].chars.0,
                    end_char: doc.sentences[i].chars.1,
                    text: doc.sentence_text(i),
                })
                .collect();
            let new = NewDocument {
                ext_id: &doc.ext_id,
                url: doc.url.as_deref(),
                title: doc.title.as_deref(),
                text: &doc.text,
                hash,
                import_id: Some(import_id),
            };
            let (id, sentence_ids) = tx::insert_document(conn, &new, &sentences)?;
            for (sid, s) in sentence_ids.iter().zip(&sentences) {
                ids.index.add_sentence(*sid, id, s.text)?;
            }
            report.documents_added += 1;
            report.sentences_added += sentences.len() as u64;
            (id, sentence_ids)
        }
    };
    ids.documents.insert(doc.ext_id.clone(), id);
    Ok((id, written))
}

/// Resolves a claim's documents before anything of it is written, so a bad reference
/// rejects the whole row.
fn resolve_documents(conn: &Connection, claim: &ClaimInput, ids: &Ids) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(claim.doc_ids.len());
    for ext in &claim.doc_ids {
        if ids.set_aside.contains(ext) {
            return Err(Error::input(
                &claim.file,
                claim.line,
                Some("doc_ids"),
                format!("a row of document {ext:?} in this import was set aside (see its rejects file), so this claim, which names it, is set aside too; fix the document and import both again"),
            ));
        }
        let found = match ids.documents.get(ext) {
            Some(&id) => Some(id),
            None => ids.find_document(conn, ext)?.map(|(id, _)| id),
        };
        match found {
            Some(id) => out.push(id),
            None if claim.doc_ids_optional => {}
            None => {
                return Err(Error::input(
                    &claim.file,
                    claim.line,
                    Some("doc_ids"),
                    format!("unknown document {ext:?}: import it with --docs, in this import or an earlier one"),
                ))
            }
        }
    }
    Ok(out)
}

fn put_claim(
    conn: &Connection,
    claim: &ClaimInput,
    now: i64,
    import_id: i64,
    ids: &mut Ids,
    report: &mut ImportReport,
) -> Result<()> {
    let ext_id = claim.ext_id.clone().unwrap_or_default();
    let hash = claim.hash();
    let existing = ids.find_claim(conn, &ext_id)?;
    if let Some((id, h)) = &existing {
        if h != hash {
            return Err(clash(&claim.file, claim.line, "claim", &ext_id));
        }
        report.unchanged += 1;
        ids.claims.insert(ext_id, *id);
        return Ok(());
    }
    let mut doc_ids = resolve_documents(conn, claim, ids)?;
    if !claim.evidence.is_empty() {
        let doc = documents::from_sentences(
            &claim.file,
            claim.line,
            claim.source_url.clone(),
            &claim.evidence,
        );
        doc_ids.push(put_document(conn, &doc, import_id, ids, report)?.0);
    }
    let parent_id = match &claim.parent_ext_id {
        None => None,
        Some(p) => match ids.claims.get(p) {
            Some(&id) => Some(id),
            None => ids.find_claim(conn, p)?.map(|(id, _)| id),
        },
    };
    let metadata = serde_json::to_string(&claim.metadata)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
    let id = tx::insert_claim(
        conn,
        &NewClaim {
            ext_id: &ext_id,
            text: &claim.text,
            context: claim.context.as_deref(),
            label: claim.label,
            source_url: claim.source_url.as_deref(),
            parent_id,
            metadata: &metadata,
            hash,
            import_id: Some(import_id),
            created_at: now,
        },
    )?;
    report.claims_added += 1;
    ids.index.add_claim(id, &claim.text)?;
    for &d in &doc_ids {
        tx::link_document(conn, id, d)?;
    }
    ids.claims.insert(ext_id.clone(), id);
    if let Some(refuted) = &claim.refuted {
        let parent = Parent {
            claim,
            ext_id: &ext_id,
            id,
            doc_ids: &doc_ids,
        };
        put_refutation(conn, &parent, refuted, now, import_id, ids, report)?;
    }
    Ok(())
}

/// The claim a refutation given with it belongs to.
#[derive(Debug)]
struct Parent<'a> {
    claim: &'a ClaimInput,
    ext_id: &'a str,
    id: i64,
    doc_ids: &'a [i64],
}

/// A counter-claim given with its claim becomes a child claim. If the original is
/// supported, the counter-claim is by construction refuted by the same evidence.
fn put_refutation(
    conn: &Connection,
    parent: &Parent<'_>,
    text: &str,
    now: i64,
    import_id: i64,
    ids: &mut Ids,
    report: &mut ImportReport,
) -> Result<()> {
    let ext_id = format!("{}/refuted", parent.ext_id);
    let hash = digest(
        serde_json::json!([parent.ext_id, text])
            .to_string()
            .as_bytes(),
    );
    if ids.claims.contains_key(&ext_id) || ids.find_claim(conn, &ext_id)?.is_some() {
        return Ok(());
    }
    let label = (parent.claim.label == Some(Label::Supported)).then_some(Label::Refuted);
    let id = tx::insert_claim(
        conn,
        &NewClaim {
            ext_id: &ext_id,
            text,
            context: parent.claim.context.as_deref(),
            label,
            source_url: parent.claim.source_url.as_deref(),
            parent_id: Some(parent.id),
            metadata: "{}",
            hash: &hash,
            import_id: Some(import_id),
            created_at: now,
        },
    )?;
    report.claims_added += 1;
    ids.index.add_claim(id, text)?;
    if !ids.claims_before {
        ids.refutations.insert(ext_id, (id, hash));
    }
    for &d in parent.doc_ids {
        tx::link_document(conn, id, d)?;
    }
    Ok(())
}
