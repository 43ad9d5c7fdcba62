//! Writing a pack: choosing the annotator's items, writing each as the annotator's screen
//! would receive it, signing the pack, and reserving the items until it comes back or
//! expires.

use super::{pack_task_id, sign, signature, Manifest, PackIssued, FORMAT};
use crate::annotate::{Item, Pace};
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::annotators::AnnotatorRow;
use factdesk_store::assignments;
use factdesk_store::pack_file::{self, PackRow};
use factdesk_store::pack_store::{self, PackFile, PackItemRow};
use factdesk_store::tasks::TaskRow;
use std::path::Path;

/// What `factdesk pack` and the app's "Issue a pack" ask for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(default)]
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

/// One item as it goes into the pack, with its project task and pack task id.
struct Issued {
    task_id: i64,
    pack_task_id: i64,
    item: Item,
    passages: Vec<(String, String)>,
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::new(ErrorCode::Database, e.to_string()))
}

impl Project {
    /// Writes a pack of open items for `req.annotator` to `out` and reserves them.
    pub fn issue_pack(&mut self, lead: &Lead, req: &PackRequest, out: &Path) -> Result<PackIssued> {
        self.acting_lead(lead)?;
        if req.kind == Some(TaskKind::Refute) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "refutation writing is not handed out in packs yet: its answers become new claims, which need the project",
            ));
        }
        if req.kind == Some(TaskKind::Design) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "design tasks are not handed out in packs yet: they are answered in the app or through the team server, which read the project's design",
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
        let open = pack_file::open_tasks(
            self.store.read(),
            annotator.id,
            req.kind,
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
        let issued = self.issued_items(&pack_id, &annotator, &tasks)?;
        let partial = out.with_extension("fdpack-partial");
        let _ = std::fs::remove_file(&partial);
        let written = self.write_pack(
            &partial, &pack_id, &annotator, &issued, req, now, expires_at,
        );
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
                    kind: req.kind,
                    items: issued.len() as i64,
                    created_at: now,
                    expires_at,
                    returned_at: None,
                    merged: 0,
                },
            )?;
            for i in &issued {
                pack_file::insert_task(&tx, &pack_id, i.pack_task_id, i.task_id)?;
                assignments::reserve(
                    &tx,
                    i.task_id,
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
        tracing::info!(pack = %pack_id, annotator = %annotator.name, items = issued.len(), "pack issued");
        Ok(PackIssued {
            pack_id,
            path: out.display().to_string(),
            annotator: annotator.name,
            items: issued.len() as u64,
            expires_at,
        })
    }

    /// The tasks a pack can carry: an evidence item needs candidates.
    fn packable(&self, open: Vec<TaskRow>, count: u64) -> Result<Vec<TaskRow>> {
        let mut chosen = Vec::new();
        // Each claim family's items in the pack are label items, or its other items,
        // never both: a verify item's counter-claim, a refute item's original, or, once
        // the project has refutations, an evidence item tell the label items' claims
        // apart (the rule of `factdesk_store::tasks::OPEN_TO`).
        let mut families: std::collections::HashMap<i64, bool> = Default::default();
        let refutations = self.store.has_refutations()?;
        for t in open {
            if chosen.len() as u64 >= count {
                break;
            }
            if t.kind == TaskKind::Evidence && self.store.candidates(t.claim_id)?.is_empty() {
                continue;
            }
            let root = self
                .store
                .claim(t.claim_id)?
                .and_then(|c| c.parent_id)
                .unwrap_or(t.claim_id);
            let label = t.kind == TaskKind::Label;
            let tells = t.kind != TaskKind::Evidence || refutations;
            if tells && *families.entry(root).or_insert(label) != label {
                continue;
            }
            chosen.push(t);
        }
        Ok(chosen)
    }

    /// Each task as the annotator's screen would receive it from `next`, under its pack
    /// task id, with no pace or earlier answer of the project's, and the passage of each
    /// of its options. In the pack's order: by pack task id, which says nothing about
    /// the project's order.
    fn issued_items(
        &self,
        pack_id: &str,
        annotator: &AnnotatorRow,
        tasks: &[TaskRow],
    ) -> Result<Vec<Issued>> {
        let secret = factdesk_store::tx::secret(self.store.read())?;
        let mut out = Vec::new();
        for t in tasks {
            let mut item = self.build_item(t, annotator.id)?;
            let mut passages = Vec::new();
            for o in &item.options {
                let passage = self.passage(&self.actor(&annotator.name)?, t.id, &o.id)?;
                passages.push((o.id.clone(), json(&passage)?));
            }
            let pack_task_id = pack_task_id(&secret, pack_id, t.id);
            item.task_id = pack_task_id;
            item.previous = None;
            // Served again from the kind as the pack is read: a label item's list of
            // labels in the file would read like a gold label to a scan of the pack.
            item.shows = None;
            item.questions = Vec::new();
            item.pace = Pace {
                done: 0,
                total: 0,
                more: false,
                per_hour: None,
                minutes_left: None,
            };
            out.push(Issued {
                task_id: t.id,
                pack_task_id,
                item,
                passages,
            });
        }
        out.sort_by_key(|i| i.pack_task_id);
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn write_pack(
        &self,
        path: &Path,
        pack_id: &str,
        annotator: &AnnotatorRow,
        issued: &[Issued],
        req: &PackRequest,
        now: i64,
        expires_at: i64,
    ) -> Result<()> {
        let secret = factdesk_store::tx::secret(self.store.read())?;
        let project = self.store.project()?;
        let mut pack = PackFile::create(path)?;
        let tx = pack.transaction()?;
        for (position, i) in issued.iter().enumerate() {
            pack_store::insert_item(
                &tx,
                &PackItemRow {
                    position: position as i64 + 1,
                    task_id: i.pack_task_id,
                    kind: i.item.kind,
                    item: json(&i.item)?,
                },
            )?;
            for (option_id, passage) in &i.passages {
                pack_store::insert_passage(&tx, i.pack_task_id, option_id, passage)?;
            }
        }
        let manifest = Manifest {
            format: FORMAT,
            pack_id: pack_id.to_string(),
            project_id: project.id.clone(),
            annotator: annotator.name.clone(),
            annotator_id: annotator.id,
            kind: req.kind,
            tasks: issued.iter().map(|i| i.pack_task_id).collect(),
            digest: sign::digest_lines(&pack_store::issued_rows(&tx)?),
            issued_at: now,
            expires_at,
            issued_bytes: Some(factdesk_store::pack_returned::issued_bytes(&tx)?),
        };
        let text = json(&manifest)?;
        pack_store::insert_manifest(&tx, &text, &signature(&secret, &text))?;
        tx.commit()?;
        Ok(())
    }
}
