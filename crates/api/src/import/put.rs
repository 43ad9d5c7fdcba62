//! Putting checked rows into the project: each document and claim is looked up by its
//! id, refused on a clash, written when new. The same code checks an import without
//! writing ([`Ids::checking`]), so an import into a live project, which writes in several
//! transactions, refuses bad rows before its first transaction commits.

use super::batch::Batch;
use super::chunks::{Chunks, Rows};
use super::claims::ClaimInput;
use super::documents::{self, DocumentInput};
use super::rejects::Rejects;
use super::{digest, ranking};
use crate::dto::ImportReport;
use crate::{Error, ErrorCode, Progress, Result};
use factdesk_core::claim::Label;
use factdesk_store::beside::{self, Beside};
use factdesk_store::Read;
use factdesk_store::{tx, IndexBatch, NewClaim, NewDocument, NewSentence};
use std::collections::{HashMap, HashSet};

/// Rows written in one transaction by an import into a live project.
pub(super) const CHUNK: usize = 1000;

/// Row ids of documents and claims by external id, as known in this transaction, and
/// the index additions made beside it.
#[derive(Debug)]
pub(super) struct Ids {
    pub documents: HashMap<String, i64>,
    pub claims: HashMap<String, i64>,
    /// Refutations written by this import: (row id, content hash) by external id.
    refutations: HashMap<String, (i64, String)>,
    pub index: IndexBatch,
    /// Whether the project held documents (claims) before this import. If not, every
    /// row there is to find was written by this import and is in the maps above, so no
    /// row is looked up in the project (two queries per claim at 100,000 claims).
    documents_before: bool,
    claims_before: bool,
    /// Documents of this import set aside under --skip-invalid: a claim naming one is
    /// set aside too, rather than linked to what the project held under that id.
    pub set_aside: HashSet<String>,
    /// The project's rows looked up so far, by external id: the check's lookups serve
    /// the writes after it, which then read nothing back.
    known_documents: HashMap<String, Option<(i64, String)>>,
    known_claims: HashMap<String, Option<(i64, String)>>,
    /// New rows' made-up ids while checking, below zero.
    made_up: i64,
}

impl Ids {
    pub fn new(
        index: IndexBatch,
        documents_before: bool,
        claims_before: bool,
        set_aside: HashSet<String>,
    ) -> Ids {
        Ids {
            documents: HashMap::new(),
            claims: HashMap::new(),
            refutations: HashMap::new(),
            index,
            documents_before,
            claims_before,
            set_aside,
            known_documents: HashMap::new(),
            known_claims: HashMap::new(),
            made_up: 0,
        }
    }

    /// After a check, writes from the start again: what the check made up is forgotten,
    /// what it looked up in the project is kept.
    pub fn write_after_check(&mut self, set_aside: HashSet<String>) {
        self.documents.clear();
        self.claims.clear();
        self.refutations.clear();
        self.set_aside = set_aside;
    }

    fn find_document(&mut self, conn: &Read, ext_id: &str) -> Result<Option<(i64, String)>> {
        if !self.documents_before {
            return Ok(None);
        }
        if let Some(found) = self.known_documents.get(ext_id) {
            return Ok(found.clone());
        }
        let found = tx::find_document(conn, ext_id)?;
        self.known_documents
            .insert(ext_id.to_string(), found.clone());
        Ok(found)
    }

    /// A claim written before this import, or a refutation written by it; claims
    /// written by this import are in `claims`.
    fn find_claim(&mut self, conn: &Read, ext_id: &str) -> Result<Option<(i64, String)>> {
        if let Some(found) = self.refutations.get(ext_id) {
            return Ok(Some(found.clone()));
        }
        if !self.claims_before {
            return Ok(None);
        }
        if let Some(found) = self.known_claims.get(ext_id) {
            return Ok(found.clone());
        }
        let found = tx::find_claim(conn, ext_id)?;
        self.known_claims.insert(ext_id.to_string(), found.clone());
        Ok(found)
    }

    /// Looks the project's rows under these ids up a chunk at a time, for the checks
    /// and writes after, which then ask the project nothing (a query per row was two
    /// per claim, and on PostgreSQL two round trips).
    fn look_up(&mut self, conn: &Read, documents: &[&str], claims: &[&str]) -> Result<()> {
        use factdesk_store::unfinished::{find_by_ext_ids, Imported};
        let wanted = [
            (Imported::Documents, documents, self.documents_before),
            (Imported::Claims, claims, self.claims_before),
        ];
        for (table, ids, before) in wanted {
            if !before {
                continue;
            }
            let known = match table {
                Imported::Documents => &mut self.known_documents,
                Imported::Claims => &mut self.known_claims,
            };
            let mut ids: Vec<&str> = ids.to_vec();
            ids.sort_unstable();
            ids.dedup();
            ids.retain(|id| !known.contains_key(*id));
            for part in ids.chunks(CHUNK) {
                for id in part {
                    known.insert(id.to_string(), None);
                }
                for (ext_id, id, hash) in find_by_ext_ids(conn, table, part)? {
                    known.insert(ext_id, Some((id, hash)));
                }
            }
        }
        Ok(())
    }

    fn made_up_id(&mut self) -> i64 {
        self.made_up -= 1;
        self.made_up
    }

    fn insert_document(
        &mut self,
        conn: Rows<'_, '_>,
        new: &NewDocument<'_>,
        sentences: &[NewSentence<'_>],
    ) -> Result<(i64, Vec<i64>)> {
        let Rows::Written(conn) = conn else {
            let id = self.made_up_id();
            return Ok((id, sentences.iter().map(|_| self.made_up_id()).collect()));
        };
        let (id, sentence_ids) = tx::insert_document(conn, new, sentences)?;
        for (sid, s) in sentence_ids.iter().zip(sentences) {
            self.index.add_sentence(*sid, id, s.text)?;
        }
        Ok((id, sentence_ids))
    }

    fn insert_claim(&mut self, conn: Rows<'_, '_>, new: &NewClaim<'_>) -> Result<i64> {
        let Rows::Written(conn) = conn else {
            return Ok(self.made_up_id());
        };
        let id = tx::insert_claim(conn, new)?;
        self.index.add_claim(id, new.text)?;
        Ok(id)
    }

    fn link(&self, conn: Rows<'_, '_>, claim_id: i64, document_id: i64) -> Result<()> {
        if let Rows::Written(conn) = conn {
            tx::link_document(conn, claim_id, document_id)?;
        }
        Ok(())
    }
}

/// Where written documents go besides the project: to the ranking thread, or nowhere.
pub(super) enum Target {
    Ranking(std::sync::mpsc::SyncSender<ranking::Written>),
    Drop,
}

/// The claims in the order they are written: parents first, so that a refutation can
/// point at the claim it refutes.
fn ordered(claims: &[ClaimInput]) -> impl Iterator<Item = &ClaimInput> {
    claims
        .iter()
        .filter(|c| c.parent_ext_id.is_none())
        .chain(claims.iter().filter(|c| c.parent_ext_id.is_some()))
}

/// Writes the documents, each dropped or handed to `target` once written, then the
/// claims (parents first), a chunk of [`CHUNK`] rows at a time through `chunks`.
#[allow(clippy::too_many_arguments)]
pub(super) fn put_all(
    chunks: &mut dyn Chunks,
    batch: &Batch<'_>,
    documents: Vec<DocumentInput>,
    import_id: i64,
    ids: &mut Ids,
    mut target: Target,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    // Progress is told, and asked whether to stop, between chunks: outside their
    // transactions when each chunk has its own.
    progress.phase("documents", documents.len() as u64);
    let mut documents = documents.into_iter().enumerate().peekable();
    let mut done = 0;
    while documents.peek().is_some() {
        chunks.run(&mut |conn| {
            for (i, doc) in documents.by_ref().take(CHUNK) {
                let written = put_document_row(
                    Rows::Written(conn),
                    batch,
                    &doc,
                    import_id,
                    ids,
                    rejects,
                    report,
                )?;
                if let (Some((id, sentence_ids)), Target::Ranking(sender)) = (written, &target) {
                    // A closed channel means the ranking failed: its error is reported
                    // when it is joined.
                    if sender.send((i, id, sentence_ids, doc)).is_err() {
                        target = Target::Drop;
                    }
                }
                done = i as u64 + 1;
            }
            Ok(())
        })?;
        progress.set(done);
        progress.check_cancelled()?;
    }
    // The ranking finishes its work while the claims are written.
    drop(target);

    progress.phase("claims", batch.claims.len() as u64);
    let mut claims = ordered(batch.claims).enumerate().peekable();
    while claims.peek().is_some() {
        chunks.run(&mut |conn| {
            for (i, claim) in claims.by_ref().take(CHUNK) {
                put_claim_row(
                    Rows::Written(conn),
                    batch,
                    claim,
                    import_id,
                    ids,
                    rejects,
                    report,
                )?;
                done = i as u64 + 1;
            }
            Ok(())
        })?;
        progress.set(done);
        progress.check_cancelled()?;
    }
    Ok(())
}

/// What [`put_all`] would do, without writing: fails on the first row that would fail
/// the import (under --skip-invalid, none does, and `rejects` holds the rows set aside).
/// Reads the project through `conn`; `ids` keeps what it looked up.
pub(super) fn check_all(
    conn: &Read,
    batch: &Batch<'_>,
    documents: &[DocumentInput],
    ids: &mut Ids,
    rejects: &mut Rejects,
    progress: &mut dyn Progress,
) -> Result<()> {
    let conn = Rows::Checked(conn);
    let mut report = ImportReport::default();
    progress.phase("checking", (documents.len() + batch.claims.len()) as u64);
    let evidence: Vec<String> = batch
        .claims
        .iter()
        .filter(|c| !c.evidence.is_empty())
        .map(|c| documents::evidence_id(&c.evidence))
        .collect();
    let refutations: Vec<String> = batch
        .claims
        .iter()
        .filter(|c| c.refuted.is_some())
        .map(|c| format!("{}/refuted", c.ext_id.as_deref().unwrap_or_default()))
        .collect();
    let named_documents: Vec<&str> = documents
        .iter()
        .map(|d| d.ext_id.as_str())
        .chain(
            batch
                .claims
                .iter()
                .flat_map(|c| c.doc_ids.iter().map(String::as_str)),
        )
        .chain(evidence.iter().map(String::as_str))
        .collect();
    let named_claims: Vec<&str> = batch
        .claims
        .iter()
        .flat_map(|c| {
            c.ext_id
                .as_deref()
                .into_iter()
                .chain(c.parent_ext_id.as_deref())
        })
        .chain(refutations.iter().map(String::as_str))
        .collect();
    ids.look_up(&conn, &named_documents, &named_claims)?;
    let rows = documents.len();
    for (i, doc) in documents.iter().enumerate() {
        put_document_row(conn, batch, doc, 0, ids, rejects, &mut report)?;
        if i % 1024 == 0 {
            progress.set(i as u64);
            progress.check_cancelled()?;
        }
    }
    for (i, claim) in ordered(batch.claims).enumerate() {
        put_claim_row(conn, batch, claim, 0, ids, rejects, &mut report)?;
        if i % 1024 == 0 {
            progress.set((rows + i) as u64);
            progress.check_cancelled()?;
        }
    }
    Ok(())
}

/// [`put_document`], a failure set aside under --skip-invalid (with the claims naming the
/// document); the document's row ids when it was written.
fn put_document_row(
    conn: Rows<'_, '_>,
    batch: &Batch<'_>,
    doc: &DocumentInput,
    import_id: i64,
    ids: &mut Ids,
    rejects: &mut Rejects,
    report: &mut ImportReport,
) -> Result<Option<(i64, Vec<i64>)>> {
    match put_document(conn, doc, import_id, ids, report) {
        Ok(written) => Ok(Some(written)),
        Err(error) => {
            ids.set_aside.insert(doc.ext_id.clone());
            rejects.add_error(&doc.file, error, doc.raw.clone(), batch.skip_invalid)?;
            Ok(None)
        }
    }
}

/// [`put_claim`], a failure set aside under --skip-invalid.
fn put_claim_row(
    conn: Rows<'_, '_>,
    batch: &Batch<'_>,
    claim: &ClaimInput,
    import_id: i64,
    ids: &mut Ids,
    rejects: &mut Rejects,
    report: &mut ImportReport,
) -> Result<()> {
    if let Err(error) = put_claim(conn, claim, batch.now, import_id, ids, report) {
        rejects.add_error(&claim.file, error, claim.raw.clone(), batch.skip_invalid)?;
    }
    Ok(())
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
    conn: Rows<'_, '_>,
    doc: &DocumentInput,
    import_id: i64,
    ids: &mut Ids,
    report: &mut ImportReport,
) -> Result<(i64, Vec<i64>)> {
    if let Some(&id) = ids.documents.get(&doc.ext_id) {
        return Ok((id, Vec::new()));
    }
    let hash = doc.hash();
    let (id, written) = match ids.find_document(&conn, &doc.ext_id)? {
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
            let (id, sentence_ids) = ids.insert_document(conn, &new, &sentences)?;
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
fn resolve_documents(conn: &Read, claim: &ClaimInput, ids: &mut Ids) -> Result<Vec<i64>> {
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
    conn: Rows<'_, '_>,
    claim: &ClaimInput,
    now: i64,
    import_id: i64,
    ids: &mut Ids,
    report: &mut ImportReport,
) -> Result<()> {
    let ext_id = claim.ext_id.clone().unwrap_or_default();
    let hash = claim.hash();
    let existing = ids.find_claim(&conn, &ext_id)?;
    if let Some((id, h)) = &existing {
        if h != hash {
            return Err(clash(&claim.file, claim.line, "claim", &ext_id));
        }
        report.unchanged += 1;
        ids.claims.insert(ext_id, *id);
        return Ok(());
    }
    let mut doc_ids = resolve_documents(&conn, claim, ids)?;
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
            None => ids.find_claim(&conn, p)?.map(|(id, _)| id),
        },
    };
    let metadata = serde_json::to_string(&claim.metadata)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
    let id = ids.insert_claim(
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
    if let (Some(text_b), Rows::Written(tx)) = (&claim.text_b, conn) {
        beside::insert(tx, Beside::PairText, id, text_b)?;
    }
    if let (Some(control), Rows::Written(tx)) = (&claim.control, conn) {
        let answers = serde_json::to_string(control)
            .map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
        beside::insert(tx, Beside::Control, id, &answers)?;
    }
    for &d in &doc_ids {
        ids.link(conn, id, d)?;
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
    conn: Rows<'_, '_>,
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
    if ids.claims.contains_key(&ext_id) || ids.find_claim(&conn, &ext_id)?.is_some() {
        return Ok(());
    }
    let label = (parent.claim.label == Some(Label::Supported)).then_some(Label::Refuted);
    let id = ids.insert_claim(
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
    // Looked up here rather than in the project: a check writes nothing to look up,
    // and a bulk write on PostgreSQL may not have sent the row yet.
    ids.refutations.insert(ext_id, (id, hash));
    for &d in parent.doc_ids {
        ids.link(conn, id, d)?;
    }
    Ok(())
}
