//! Merging a returned pack: verify it is this project's and unaltered, then add its new
//! answers in one transaction and give its unanswered items back to the pool.

use super::{pack_sentence_id, pack_trick_id, read_manifest, sign, signature};
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::annotations::{self, NewAnnotation};
use factdesk_store::{assignments, pack_file, tasks, Store};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use ts_rs::TS;

/// What merging one pack did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct MergeReport {
    pub file: String,
    pub pack_id: String,
    pub annotator: String,
    /// Answers added by this merge.
    pub added: u64,
    /// Answers in the pack that an earlier merge already added.
    pub already: u64,
    /// Unanswered items given back to the pool.
    pub released: u64,
    /// Answers left out because they came after the pack was returned, on items it had
    /// given back and that others have since filled.
    pub late: u64,
}

fn refused(file: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!("{file}: refused, nothing was changed: {why}"),
    )
}

impl Project {
    /// Verifies and merges the pack at `file`; merging it again adds nothing.
    pub fn merge_pack(&mut self, file: &Path) -> Result<MergeReport> {
        self.require_not_pack()?;
        let name = file.display().to_string();
        let unreadable = |e: &dyn std::fmt::Display| {
            refused(
                &name,
                format!("it cannot be read as a pack (damaged or altered): {e}"),
            )
        };
        if !file.is_file() {
            return Err(refused(&name, "there is no such file"));
        }
        let pack = Store::open(file).map_err(|e| unreadable(&e))?;
        let conn = pack.conn();
        let (manifest, text, sig) = read_manifest(conn, file)?
            .ok_or_else(|| refused(&name, "it is not a pack (it has no manifest)"))?;
        let project = self.store.project()?;
        if manifest.project_id != project.id {
            return Err(refused(
                &name,
                format!(
                    "it belongs to another project ({}), not this one ({})",
                    manifest.project_id, project.id
                ),
            ));
        }
        let secret = factdesk_store::tx::secret(self.store.conn())?;
        if !sign::same(&signature(&secret, &text), &sig) {
            return Err(refused(
                &name,
                "its manifest was altered after it was issued (the signature does not match)",
            ));
        }
        let digest = sign::digest_lines(&pack_file::issued_rows(conn).map_err(|e| unreadable(&e))?);
        if !sign::same(&digest, &manifest.digest) {
            return Err(refused(&name, "its issued items were altered after it was issued (the contents do not match the signed digest)"));
        }
        let row = pack_file::get(self.store.conn(), &manifest.pack_id)?.ok_or_else(|| {
            refused(&name, format!("pack {} is not on record in this project file (was the project restored from a copy older than the pack?)", manifest.pack_id))
        })?;
        let now = self.clock.now_ms();
        if row.returned_at.is_none() && row.expires_at <= now {
            let days = (now - row.expires_at) / 86_400_000;
            return Err(refused(&name, format!("pack {} for {} expired {days} day(s) ago and its items went back to the pool; ask the lead for a new pack", row.id, row.annotator)));
        }
        let answers = annotations::all(conn).map_err(|e| unreadable(&e))?;
        let issued: HashSet<i64> = manifest.tasks.iter().copied().collect();
        let mut to_add = Vec::new();
        let mut already = 0u64;
        let mut late = 0u64;
        for a in answers {
            let at = format!("{name}: answer {}", a.uuid);
            if a.annotator_id != manifest.annotator_id || !issued.contains(&a.task_id) {
                return Err(refused(
                    &name,
                    format!("{at} is not by {} on an issued item", manifest.annotator),
                ));
            }
            if annotations::by_uuid(self.store.conn(), &a.uuid)?.is_some() {
                already += 1;
                continue;
            }
            let task = self.task(a.task_id)?;
            // An item given back by an earlier merge may have gone to someone else: an
            // answer made in the pack since counts only while the item has room.
            let state = assignments::state(self.store.conn(), a.task_id, a.annotator_id)?;
            if state.as_deref() == Some("released") && !self.can_take(&task, a.annotator_id, now)? {
                late += 1;
                continue;
            }
            let (answer, trick_failed) = self
                .translate(&secret, &manifest.pack_id, &task, &a.answer)
                .map_err(|why| refused(&name, format!("{at}: {why}")))?;
            to_add.push((a, task, answer, trick_failed));
        }
        let tx = self.store.transaction()?;
        let mut added = 0u64;
        for (a, task, answer, trick_failed) in &to_add {
            // Closed since the pack went out (its refutation was rejected or replaced):
            // the answer comes too late, like one for an item that went to others.
            if tasks::is_closed(&tx, task.id)? {
                late += 1;
                continue;
            }
            let earlier = annotations::current(&tx, task.id, a.annotator_id)?;
            annotations::insert(
                &tx,
                &NewAnnotation {
                    uuid: &a.uuid,
                    task_id: task.id,
                    annotator_id: a.annotator_id,
                    answer: &answer.to_string(),
                    comment: a.comment.as_deref(),
                    trick_failed: *trick_failed,
                    duration_ms: a.duration_ms,
                    supersedes: earlier.as_ref().map(|e| e.id),
                    created_at: a.created_at,
                },
            )?;
            if earlier.is_none() && !*trick_failed {
                tasks::adjust_answered(&tx, task.id, 1)?;
            }
            assignments::mark_answered(&tx, task.id, a.annotator_id, now)?;
            added += 1;
        }
        let released = pack_file::release(&tx, &row.id)?;
        pack_file::mark_returned(&tx, &row.id, now, added as i64)?;
        tx.commit()?;
        tracing::info!(pack = %row.id, added, already, released, late, "pack merged");
        Ok(MergeReport {
            file: name,
            pack_id: row.id,
            annotator: row.annotator,
            added,
            already,
            released,
            late,
        })
    }

    /// An answer as the pack stored it, in the project's terms: selected pack sentence
    /// ids become the project's, and choosing the trick marks the answer failed.
    fn translate(
        &self,
        secret: &[u8],
        pack_id: &str,
        task: &tasks::TaskRow,
        answer: &serde_json::Value,
    ) -> std::result::Result<(serde_json::Value, bool), String> {
        match task.kind.as_str() {
            "evidence" => {
                let candidates = self
                    .store
                    .candidates(task.claim_id)
                    .map_err(|e| e.to_string())?;
                let ids: HashMap<i64, i64> = candidates
                    .iter()
                    .map(|c| {
                        (
                            pack_sentence_id(secret, pack_id, c.sentence_id),
                            c.sentence_id,
                        )
                    })
                    .collect();
                let trick = pack_trick_id(secret, pack_id, task.id);
                let mut chosen = Vec::new();
                let mut failed = false;
                for v in answer["selected"].as_array().into_iter().flatten() {
                    let id = v.as_i64().ok_or("field \"selected\" holds a non-number")?;
                    if id == trick {
                        failed = true;
                    } else {
                        chosen.push(
                            *ids.get(&id)
                                .ok_or("it selects a sentence that was not issued")?,
                        );
                    }
                }
                chosen.sort_unstable();
                chosen.dedup();
                let no_evidence = answer["no_evidence"].as_bool().unwrap_or(false);
                Ok((
                    serde_json::json!({"selected": chosen, "no_evidence": no_evidence}),
                    failed,
                ))
            }
            "label" => {
                let label = answer["label"].as_str().unwrap_or("");
                label
                    .parse::<factdesk_core::claim::Label>()
                    .map_err(|e| format!("field \"label\": {e}"))?;
                Ok((serde_json::json!({"label": label}), false))
            }
            "verify" => {
                let label = answer["label"].as_str().unwrap_or("");
                if !["contradicts", "does_not_contradict", "malformed"].contains(&label) {
                    return Err(format!(
                        "field \"label\": {label:?} is not a verification label"
                    ));
                }
                Ok((serde_json::json!({"label": label}), false))
            }
            other => Err(format!("{other} items are not merged from packs")),
        }
    }
}
