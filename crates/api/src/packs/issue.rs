//! Writing a pack: choosing the annotator's items, copying what they need into a new
//! project file, signing it, and reserving the items until it comes back or expires.

use super::{pack_sentence_id, pack_trick_id, sign, signature, Manifest, PackIssued, FORMAT};
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::seeded::Seeded;
use factdesk_store::pack_file::{self, write, PackRow, SentenceParts};
use factdesk_store::tasks::TaskRow;
use factdesk_store::{assignments, Store};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// What `factdesk pack` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackRequest {
    pub annotator: String,
    /// Items to issue at most.
    pub count: u64,
    /// One kind only; `None`: evidence, verification and labelling.
    pub kind: Option<TaskKind>,
    pub expires_days: u32,
}

impl Default for PackRequest {
    fn default() -> Self {
        PackRequest {
            annotator: String::new(),
            count: 50,
            kind: None,
            expires_days: 14,
        }
    }
}

/// A trick to place in a document: before which sentence, its text and its pack id.
struct Trick {
    before: i64,
    text: String,
    id: i64,
}

impl Project {
    /// Writes a pack of open items for `req.annotator` to `out` and reserves them.
    pub fn issue_pack(&mut self, req: &PackRequest, out: &Path) -> Result<PackIssued> {
        self.require_not_pack()?;
        if req.kind == Some(TaskKind::Refute) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "refutation writing is not handed out in packs yet: its answers become new claims, which need the project",
            ));
        }
        crate::output::check(out, &crate::output::Inputs::project(self.path()))?;
        if out.exists() {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("{} already exists; choose another name", out.display()),
            ));
        }
        let annotator = self.annotator_row(&req.annotator)?;
        let now = self.clock.now_ms();
        let expires_at = now + i64::from(req.expires_days.max(1)) * 86_400_000;
        let conn = self.store.conn();
        let open = pack_file::open_tasks(
            conn,
            annotator.id,
            req.kind.map(TaskKind::as_str),
            now,
            req.count.max(1) * 2,
        )?;
        let tasks = self.packable(open, req.count)?;
        if tasks.is_empty() {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no open items for {} to take in a pack", annotator.name),
            ));
        }
        let pack_id = uuid::Uuid::new_v4().to_string();
        let partial = out.with_extension("fdpack-partial");
        let _ = std::fs::remove_file(&partial);
        let written = self.write_pack(&partial, &pack_id, &annotator, &tasks, req, now, expires_at);
        let done = written.and_then(|()| {
            std::fs::rename(&partial, out)
                .map_err(|e| Error::io(&format!("writing {}", out.display()), &e))
        });
        if let Err(e) = done {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        let recorded = (|| -> Result<()> {
            let tx = self.store.transaction()?;
            pack_file::insert(
                &tx,
                &PackRow {
                    id: pack_id.clone(),
                    annotator_id: annotator.id,
                    annotator: annotator.name.clone(),
                    kind: req.kind.map(|k| k.as_str().to_string()),
                    items: tasks.len() as i64,
                    created_at: now,
                    expires_at,
                    returned_at: None,
                    merged: 0,
                },
            )?;
            for t in &tasks {
                assignments::reserve(
                    &tx,
                    t.id,
                    annotator.id,
                    now,
                    Some(expires_at),
                    Some(&pack_id),
                )?;
            }
            tx.commit()?;
            Ok(())
        })();
        if let Err(e) = recorded {
            let _ = std::fs::remove_file(out);
            return Err(e);
        }
        tracing::info!(pack = %pack_id, annotator = %annotator.name, items = tasks.len(), "pack issued");
        Ok(PackIssued {
            pack_id,
            path: out.display().to_string(),
            annotator: annotator.name,
            items: tasks.len() as u64,
            expires_at,
        })
    }

    /// The tasks a pack can carry: an evidence item needs candidates (the trick hides
    /// among them), and a labelling item whose claim also travels as an evidence item is
    /// left for later, since in the pack its evidence would show the trick.
    fn packable(&self, open: Vec<TaskRow>, count: u64) -> Result<Vec<TaskRow>> {
        let mut chosen = Vec::new();
        let mut evidence_claims = HashSet::new();
        for t in open.iter().filter(|t| t.kind == "evidence") {
            if chosen.len() as u64 >= count {
                break;
            }
            if !self.store.candidates(t.claim_id)?.is_empty() {
                evidence_claims.insert(t.claim_id);
                chosen.push(t.clone());
            }
        }
        for t in open.iter().filter(|t| t.kind != "evidence") {
            if chosen.len() as u64 >= count {
                break;
            }
            if !(t.kind == "label" && evidence_claims.contains(&t.claim_id)) {
                chosen.push(t.clone());
            }
        }
        chosen.sort_by_key(|t| t.id);
        Ok(chosen)
    }

    #[allow(clippy::too_many_arguments)]
    fn write_pack(
        &self,
        path: &Path,
        pack_id: &str,
        annotator: &factdesk_store::annotators::AnnotatorRow,
        tasks: &[TaskRow],
        req: &PackRequest,
        now: i64,
        expires_at: i64,
    ) -> Result<()> {
        let secret = factdesk_store::tx::secret(self.store.conn())?;
        let project = self.store.project()?;
        let full = self.settings()?;
        // The pack places the trick itself; the template would only help find it.
        let mut settings = full.clone();
        settings.trick_template = String::new();
        let settings_json = serde_json::to_string(&settings)
            .map_err(|e| Error::new(ErrorCode::Database, e.to_string()))?;
        let mut pack = Store::create(path, &project.name, now)?;
        let tx = pack.transaction()?;
        write::project(&tx, &project.id, &project.name, &settings_json)?;
        write::annotator(&tx, annotator.id, &annotator.name, now)?;
        // Documents to copy, with the tricks to place in each.
        let mut documents: BTreeMap<i64, Vec<Trick>> = BTreeMap::new();
        let mut candidates: Vec<(i64, Vec<(i64, String)>)> = Vec::new();
        for (order, t) in tasks.iter().enumerate() {
            let claim = self.store.claim(t.claim_id)?.ok_or_else(|| {
                Error::new(ErrorCode::NotFound, format!("task {} has no claim", t.id))
            })?;
            let parent = match claim.parent_id {
                Some(p) => self.store.claim(p)?,
                None => None,
            };
            if let Some(p) = &parent {
                write::claim(&tx, p, None, &crate::import::digest(p.text.as_bytes()), now)?;
            }
            write::claim(
                &tx,
                &claim,
                parent.as_ref().map(|p| p.id),
                &crate::import::digest(claim.text.as_bytes()),
                now,
            )?;
            write::task(&tx, t, order as i64, now)?;
            if t.kind == "verify" {
                continue;
            }
            let cands = self.store.candidates(t.claim_id)?;
            let mut shown: Vec<(i64, String)> = cands
                .iter()
                .map(|c| {
                    (
                        pack_sentence_id(&secret, pack_id, c.sentence_id),
                        c.ranker.clone(),
                    )
                })
                .collect();
            for c in &cands {
                documents.entry(c.document_id).or_default();
            }
            let trick_text = match t.kind.as_str() {
                "evidence" => self.trick_of(t, &claim.text, &full)?,
                _ => None,
            };
            if let Some((text, _)) = trick_text {
                // Anywhere in the first candidate's document, seeded: always just before
                // the top candidate, its place alone gave it away in three items of four.
                let sentences = pack_file::sentences_of(self.store.conn(), cands[0].document_id)?;
                let pick = Seeded::for_purpose(full.seed, &format!("pack-trick:{pack_id}:{}", t.id))
                    .below(sentences.len().max(1) as u64) as usize;
                let trick = Trick {
                    before: sentences.get(pick).map_or(cands[0].sentence_id, |s| s.0),
                    text,
                    id: pack_trick_id(&secret, pack_id, t.id),
                };
                let at = (t.trick_slot.unwrap_or(0) as usize).min(shown.len());
                shown.insert(at, (trick.id, cands[0].ranker.clone()));
                documents
                    .entry(cands[0].document_id)
                    .or_default()
                    .push(trick);
            }
            candidates.push((t.claim_id, shown));
        }
        for (doc_id, tricks) in &documents {
            self.copy_document(&tx, &secret, pack_id, *doc_id, tricks)?;
        }
        for (claim_id, shown) in &candidates {
            for doc_id in self.store.claim_document_ids(*claim_id)? {
                if documents.contains_key(&doc_id) {
                    write::claim_document(&tx, *claim_id, doc_id)?;
                }
            }
            for (rank, (sentence_id, ranker)) in shown.iter().enumerate() {
                write::candidate(&tx, *claim_id, rank as i64 + 1, *sentence_id, ranker)?;
            }
        }
        let manifest = Manifest {
            format: FORMAT,
            pack_id: pack_id.to_string(),
            project_id: project.id.clone(),
            annotator: annotator.name.clone(),
            annotator_id: annotator.id,
            kind: req.kind,
            tasks: tasks.iter().map(|t| t.id).collect(),
            digest: sign::digest_lines(&pack_file::issued_rows(&tx)?),
            issued_at: now,
            expires_at,
        };
        let text = serde_json::to_string(&manifest)
            .map_err(|e| Error::new(ErrorCode::Database, e.to_string()))?;
        write::manifest(&tx, &text, &signature(&secret, &text))?;
        tx.commit()?;
        Ok(())
    }

    /// Copies a document with its sentences under pack ids, each trick written into the
    /// text just before its sentence, offsets and positions renumbered to match.
    fn copy_document(
        &self,
        tx: &rusqlite::Connection,
        secret: &[u8],
        pack_id: &str,
        doc_id: i64,
        tricks: &[Trick],
    ) -> Result<()> {
        let doc = self.store.document(doc_id)?.ok_or_else(|| {
            Error::new(ErrorCode::NotFound, format!("document {doc_id} is missing"))
        })?;
        let chars: Vec<char> = doc.text.chars().collect();
        let sentences = pack_file::sentences_of(self.store.conn(), doc_id)?;
        let mut text = String::new();
        let mut taken = 0usize;
        let mut shift = 0i64;
        let mut out: Vec<SentenceParts> = Vec::new();
        for (id, _, start, end, sentence) in &sentences {
            for trick in tricks.iter().filter(|t| t.before == *id) {
                let at = (*start as usize).min(chars.len());
                text.extend(&chars[taken.min(at)..at]);
                taken = taken.max(at);
                let from = text.chars().count() as i64;
                text.push_str(&trick.text);
                let to = text.chars().count() as i64;
                text.push(' ');
                shift += to - from + 1;
                out.push((trick.id, out.len() as i64, from, to, trick.text.clone()));
            }
            out.push((
                pack_sentence_id(secret, pack_id, *id),
                out.len() as i64,
                start + shift,
                end + shift,
                sentence.clone(),
            ));
        }
        text.extend(&chars[taken.min(chars.len())..]);
        write::document(
            tx,
            doc_id,
            &doc,
            &text,
            &crate::import::digest(text.as_bytes()),
        )?;
        for s in &out {
            write::sentence(tx, doc_id, s)?;
        }
        Ok(())
    }
}
