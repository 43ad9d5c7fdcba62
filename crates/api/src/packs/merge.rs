//! Merging a returned pack: read it without writing a byte, check it is this project's
//! and unaltered, then take each answer through the project's own checks, as `submit`
//! does, and give the unanswered items back to the pool.

use super::{read_manifest, sign, signature};
use crate::actor::Actor;
use crate::annotate::Answer;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::pack_file;
use factdesk_store::pack_store::{self, PackAnswerRow, PackFile};
use serde::Serialize;
use std::path::Path;
use ts_rs::TS;

/// The longest time an answer can have taken; a longer one is cut to it.
pub(crate) const MAX_DURATION_MS: i64 = 24 * 3_600_000;

/// An answer in a pack that the merge did not take in, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RefusedAnswer {
    /// The answer's id in the pack.
    pub uuid: String,
    pub reason: String,
}

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
    /// Answers whose time or duration was out of range and was brought into it.
    pub clamped: u64,
    /// Answers refused by the project's checks, with the reason; none of them is stored.
    pub refused: Vec<RefusedAnswer>,
}

fn refused(file: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!("{file}: refused, nothing was changed: {why}"),
    )
}

/// An answer of the pack, read as `factdesk submit` reads one, and its time and duration
/// brought into range: made between the pack's issue and now, within a day.
struct Returned {
    answer: Answer,
    created_at: i64,
    clamped: bool,
}

fn read_answer(
    row: &PackAnswerRow,
    issued_at: i64,
    now: i64,
) -> std::result::Result<Returned, String> {
    let mut answer: Answer = serde_json::from_str(&row.answer)
        .map_err(|e| format!("it cannot be read as an answer ({e})"))?;
    if answer.task_id != row.task_id {
        return Err(format!(
            "it names task {} but is filed under task {}",
            answer.task_id, row.task_id
        ));
    }
    let created_at = row.created_at.clamp(issued_at, now.max(issued_at));
    let duration = answer.duration_ms.map(|d| d.clamp(0, MAX_DURATION_MS));
    let clamped = created_at != row.created_at || duration != answer.duration_ms;
    answer.duration_ms = duration;
    Ok(Returned {
        answer,
        created_at,
        clamped,
    })
}

/// Whether the file starts as every SQLite database does.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| &header == b"SQLite format 3\0")
}

/// What a merge does with a pack that is still out and holds no answer at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unanswered {
    /// Refuse it, changing nothing: most likely it is the file as issued, and the
    /// annotator is still working on their copy.
    #[default]
    Refuse,
    /// Merge it anyway: the pack is marked returned and its items go back to the pool
    /// (the lead takes the work back).
    GiveBack,
}

impl Project {
    /// Verifies and merges the pack at `file`; merging it again adds nothing. A pack
    /// still out with no answer is refused (see [`Unanswered`]).
    pub fn merge_pack(&mut self, lead: &Actor, file: &Path) -> Result<MergeReport> {
        self.require_lead(lead, "merge packs")?;
        self.merge_pack_with(lead, file, Unanswered::Refuse)
    }

    /// [`Project::merge_pack`], saying what to do with a pack that holds no answer.
    pub fn merge_pack_with(
        &mut self,
        lead: &Actor,
        file: &Path,
        unanswered: Unanswered,
    ) -> Result<MergeReport> {
        self.require_lead(lead, "merge packs")?;
        let name = file.display().to_string();
        if !file.is_file() {
            return Err(refused(&name, "there is no such file"));
        }
        let unreadable = |e: &dyn std::fmt::Display| {
            refused(
                &name,
                format!("it cannot be read as a pack (damaged or altered): {e}"),
            )
        };
        let pack = match PackFile::open_read_only(file) {
            Ok(p) => p,
            Err(factdesk_store::Error::NotAPack(_)) if is_sqlite(file) => {
                return Err(refused(
                    &name,
                    "it is not a pack (it has no manifest): a project file or another database",
                ))
            }
            Err(e) => return Err(unreadable(&e)),
        };
        let conn = pack.conn();
        let (manifest, text, sig) = read_manifest(conn, file)
            .map_err(|e| unreadable(&e))?
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
        let digest =
            sign::digest_lines(&pack_store::issued_rows(conn).map_err(|e| unreadable(&e))?);
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
        let answers = pack_store::answers(conn).map_err(|e| unreadable(&e))?;
        let malformed = pack_store::malformed_answers(conn).map_err(|e| unreadable(&e))?;
        drop(pack);
        if answers.is_empty()
            && malformed.is_empty()
            && row.returned_at.is_none()
            && unanswered == Unanswered::Refuse
        {
            return Err(Error::new(
                ErrorCode::Unanswered,
                format!("{name}: refused, nothing was changed: pack {} for {} has no answers yet (it looks like the file as issued, and {} may still be working on their copy); merge it anyway only to take the work back, which puts its {} items back in the pool", row.id, row.annotator, row.annotator, row.items),
            ));
        }
        {
            let tx = self.store.transaction()?;
            if !pack_file::begin_merge(&tx, &row.id, now)? {
                return Err(refused(&name, format!("pack {} is already being merged by another merge; its answers are already merged or about to be, run the merge again afterwards to see", row.id)));
            }
            tx.commit()?;
        }
        let took = self.take_answers(&row.id, &row.annotator, manifest.issued_at, now, &answers);
        let tx = self.store.transaction()?;
        let released = match &took {
            Ok(t) => {
                let released = pack_file::release(&tx, &row.id)?;
                pack_file::mark_returned(&tx, &row.id, now, t.added as i64)?;
                released
            }
            Err(_) => 0,
        };
        pack_file::end_merge(&tx, &row.id)?;
        tx.commit()?;
        let mut report = took?;
        report.refused.extend(
            malformed
                .into_iter()
                .map(|(uuid, reason)| RefusedAnswer { uuid, reason }),
        );
        report.file = name;
        report.released = released;
        tracing::info!(pack = %row.id, added = report.added, already = report.already, released, late = report.late, refused = report.refused.len(), "pack merged");
        Ok(report)
    }

    /// Takes each answer of the pack in the order it was made, through the project's
    /// checks for a returned answer; each one taken is committed with its record.
    fn take_answers(
        &mut self,
        pack_id: &str,
        annotator: &str,
        issued_at: i64,
        now: i64,
        answers: &[PackAnswerRow],
    ) -> Result<MergeReport> {
        let mut report = MergeReport {
            file: String::new(),
            pack_id: pack_id.to_string(),
            annotator: annotator.to_string(),
            added: 0,
            already: 0,
            released: 0,
            late: 0,
            clamped: 0,
            refused: Vec::new(),
        };
        let mut seen = std::collections::HashSet::new();
        for row in answers {
            let refuse = |reason: String| RefusedAnswer {
                uuid: row.uuid.clone(),
                reason,
            };
            // Ids are unique in a pack Factdesk wrote; a copy is a rewritten file's.
            if !seen.insert(row.uuid.as_str()) {
                report.refused.push(refuse(
                    "another answer in this pack has the same id".to_string(),
                ));
                continue;
            }
            if pack_file::answer_merged(self.store.conn(), pack_id, &row.uuid)? {
                report.already += 1;
                continue;
            }
            let mut returned = match read_answer(row, issued_at, now) {
                Ok(r) => r,
                Err(why) => {
                    report.refused.push(refuse(why));
                    continue;
                }
            };
            let Some(task_id) = pack_file::task_of(self.store.conn(), pack_id, row.task_id)? else {
                report
                    .refused
                    .push(refuse(format!("task {} is not in this pack", row.task_id)));
                continue;
            };
            returned.answer.task_id = task_id;
            match self.submit_returned(
                annotator,
                &returned.answer,
                returned.created_at,
                pack_id,
                &row.uuid,
            ) {
                Ok(ack) => {
                    let tx = self.store.transaction()?;
                    pack_file::record_merged(&tx, pack_id, &row.uuid, &ack.ack, now)?;
                    tx.commit()?;
                    report.added += 1;
                    report.clamped += u64::from(returned.clamped);
                }
                // The item was given back by an earlier merge and others have filled it.
                Err(e) if e.code == ErrorCode::Conflict => report.late += 1,
                Err(e) if matches!(e.code, ErrorCode::Database | ErrorCode::Io) => return Err(e),
                Err(e) => report.refused.push(refuse(e.message)),
            }
        }
        Ok(report)
    }
}
