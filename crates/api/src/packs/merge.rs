//! Merging a returned pack: read it as hostile input without writing a byte of it (see
//! `returned`), check it is this project's and unaltered, then take each answer through
//! the project's own checks, as `submit` does, and give the unanswered items back to the
//! pool. Answers are written a short batch at a time, each with its merge record, so the
//! team's answers are not held up by a long pack: a merge stopped halfway (killed, a
//! failed write) leaves whole answers and the pack still out, and the next merge of it
//! takes the rest, counting those as already merged. The problems its holder reported come
//! in with the pack's return, in its last transaction: each into the lead's list once
//! (merging the pack again adds none), its item given back to the pool as a report made
//! in the project gives it.

use super::returned::{refused, ReturnedPack, ALTERED_ITEMS};
use super::sign;
use crate::annotate::Answer;
use crate::annotate::Checked;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::pack_store::PackAnswerRow;
use factdesk_store::{pack_file, problems};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::{Duration, Instant};
use ts_rs::TS;

use crate::annotate::MAX_DURATION_MS;
use crate::Lead;

/// An answer in a pack that the merge did not take in, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RefusedAnswer {
    /// The answer's id in the pack.
    pub uuid: String,
    pub reason: String,
}

/// What merging one pack did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MergeReport {
    pub file: String,
    pub pack_id: String,
    pub annotator: String,
    /// Answers added by this merge.
    pub added: u64,
    /// Answers in the pack that an earlier merge already added.
    pub already: u64,
    /// Unanswered items given back to the pool (reported ones among them).
    pub released: u64,
    /// Problems reported in the pack added to the lead's list by this merge.
    #[serde(default)]
    pub problems: u64,
    /// Answers left out because they came after the pack was returned, on items it had
    /// given back and that others have since filled.
    pub late: u64,
    /// Answers whose time or duration was out of range and was brought into it.
    pub clamped: u64,
    /// Answers refused by the project's checks, with the reason; none of them is stored.
    pub refused: Vec<RefusedAnswer>,
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

/// What the checks made before the write transaction say of one answer of the pack.
/// An answer's outcome of the checks before the write: ready (and whether its time was
/// clamped), or why it is left out.
type Checking<'a> = std::result::Result<(Checked<'a>, bool), Skip>;

enum Skip {
    /// Another answer of the pack has its id (the first one is merged).
    Copy,
    /// Refused, with the reason.
    Refused(String),
    /// On an item given back by an earlier merge and filled by others since.
    Late,
    /// Merged before (counted so inside the transaction, which looks again).
    Merged,
}

/// The longest a merge writes before it lets colleagues' answers in: they wait at most
/// about this long (a 20,000-answer pack held them 1.65 s as one transaction).
const BATCH_WRITING: Duration = Duration::from_millis(100);

/// Takes in one answer of the pack inside `tx`, or counts why not. A refused answer undoes
/// what it wrote and the merge goes on; a failed write ends the batch, which then leaves
/// nothing of it.
fn merge_answer(
    tx: &factdesk_store::Tx<'_>,
    pack_id: &str,
    answer: &PackAnswerRow,
    outcome: &Checking<'_>,
    now: i64,
    report: &mut MergeReport,
) -> Result<()> {
    let refuse = |reason: String| RefusedAnswer {
        uuid: answer.uuid.clone(),
        reason,
    };
    let (checked, clamped) = match outcome {
        Err(Skip::Copy) => {
            let why = "another answer in this pack has the same id".to_string();
            report.refused.push(refuse(why));
            return Ok(());
        }
        // Looked at again here: another merge of the pack may have taken it since.
        _ if pack_file::answer_merged(tx, pack_id, &answer.uuid)? => {
            report.already += 1;
            return Ok(());
        }
        Err(Skip::Refused(why)) => {
            report.refused.push(refuse(why.clone()));
            return Ok(());
        }
        Err(Skip::Late) => {
            report.late += 1;
            return Ok(());
        }
        Err(Skip::Merged) => {
            report.already += 1;
            return Ok(());
        }
        Ok(c) => c,
    };
    pack_file::begin_answer(tx)?;
    match checked.store(tx, now) {
        Ok(ack) => {
            pack_file::record_merged(tx, pack_id, &answer.uuid, &ack.ack, now)?;
            pack_file::keep_answer(tx)?;
            report.added += 1;
            report.clamped += u64::from(*clamped);
        }
        Err(e) if matches!(e.code, ErrorCode::Database | ErrorCode::Io) => return Err(e),
        Err(e) => {
            pack_file::undo_answer(tx)?;
            match e.code {
                ErrorCode::Conflict => report.late += 1,
                _ => report.refused.push(refuse(e.message)),
            }
        }
    }
    Ok(())
}

impl Project {
    /// Verifies and merges the pack at `file`; merging it again adds nothing. A pack
    /// still out with no answer is refused (see [`Unanswered`]).
    pub fn merge_pack(&mut self, lead: &Lead, file: &Path) -> Result<MergeReport> {
        self.acting_lead(lead)?;
        self.merge_pack_with(lead, file, Unanswered::Refuse)
    }

    /// [`Project::merge_pack`], saying what to do with a pack that holds no answer.
    pub fn merge_pack_with(
        &mut self,
        lead: &Lead,
        file: &Path,
        unanswered: Unanswered,
    ) -> Result<MergeReport> {
        self.acting_lead(lead)?;
        let pack = ReturnedPack::read_signed(file, &self.pack_key()?)?;
        self.merge_returned(lead, &pack, unanswered)
    }

    /// Merges a pack already read (see [`ReturnedPack::read`]): each answer with its
    /// record, in transactions of at most [`BATCH_WRITING`] each, then the pack's return.
    pub fn merge_returned(
        &mut self,
        lead: &Lead,
        pack: &ReturnedPack,
        unanswered: Unanswered,
    ) -> Result<MergeReport> {
        self.merge_in_batches(lead, pack, unanswered, BATCH_WRITING)
    }

    /// [`Project::merge_returned`], writing for at most `batch_writing` in each
    /// transaction (at least one answer): `Duration::ZERO` writes each answer in its own.
    pub fn merge_in_batches(
        &mut self,
        lead: &Lead,
        pack: &ReturnedPack,
        unanswered: Unanswered,
        batch_writing: Duration,
    ) -> Result<MergeReport> {
        self.acting_lead(lead)?;
        let now = self.clock.now_ms();
        let row = self.admit(pack, unanswered, now)?;
        let checked = self.check_answers(pack, &row, now)?;
        let reports = self.pack_problems(pack, &row, now)?;
        let mut report = MergeReport {
            file: pack.name.clone(),
            pack_id: row.id.clone(),
            annotator: row.annotator.clone(),
            added: 0,
            already: 0,
            released: 0,
            problems: 0,
            late: 0,
            clamped: 0,
            refused: Vec::new(),
        };
        // Written in short transactions, each of whole answers with their records, so
        // colleagues' answers wait at most one batch; a merge stopped between two leaves
        // those answers merged and the pack out, and the next merge takes the rest.
        let mut rest = checked.iter().peekable();
        while rest.peek().is_some() {
            let tx = self.store.transaction()?;
            let started = Instant::now();
            let added = report.added;
            for (answer, outcome) in rest.by_ref() {
                merge_answer(&tx, &row.id, answer, outcome, now, &mut report)?;
                if started.elapsed() >= batch_writing {
                    break;
                }
            }
            pack_file::count_merged(&tx, &row.id, (report.added - added) as i64)?;
            tx.commit()?;
            self.store.yield_to_writers();
        }
        let tx = self.store.transaction()?;
        for (task_id, text, at) in &reports {
            // Only on an item the pack still holds: a report written into a copy after an
            // earlier merge gave its items back would land on one others may since have
            // answered (fifteenth hostile pass).
            if pack_file::release_task(&tx, &row.id, *task_id, now)? {
                report.released += 1;
                if problems::insert_from_pack(&tx, &row.id, *task_id, row.annotator_id, text, *at)?
                {
                    report.problems += 1;
                }
            }
        }
        report.released += pack_file::release(&tx, &row.id)?;
        pack_file::mark_returned(&tx, &row.id, now)?;
        tx.commit()?;
        report
            .refused
            .extend(pack.malformed.iter().map(|(uuid, reason)| RefusedAnswer {
                uuid: uuid.clone(),
                reason: reason.clone(),
            }));
        tracing::info!(pack = %row.id, added = report.added, already = report.already, released = report.released, problems = report.problems, late = report.late, refused = report.refused.len(), "pack merged");
        Ok(report)
    }

    /// The pack's own checks, before any of its answers: this project's, signed, its
    /// items as issued, on record, not expired, and (unless told) holding answers.
    fn admit(
        &self,
        pack: &ReturnedPack,
        unanswered: Unanswered,
        now: i64,
    ) -> Result<pack_file::PackRow> {
        let name = &pack.name;
        let manifest = &pack.manifest;
        // Checked again whichever way the pack was read.
        (self.pack_key()?)
            .vouch(manifest, &pack.text, &pack.signature)
            .map_err(|why| refused(name, why))?;
        if !sign::same(&pack.digest, &manifest.digest) {
            return Err(refused(name, ALTERED_ITEMS));
        }
        let row = pack_file::get(self.store.read(), &manifest.pack_id)?.ok_or_else(|| {
            refused(name, format!("pack {} is not on record in this project file (was the project restored from a copy older than the pack?)", manifest.pack_id))
        })?;
        if row.returned_at.is_none() && row.expires_at <= now {
            let days = (now - row.expires_at) / 86_400_000;
            return Err(refused(name, format!("pack {} for {} expired {days} day(s) ago and its items went back to the pool; ask the lead for a new pack", row.id, row.annotator)));
        }
        if pack.answers.is_empty()
            && pack.malformed.is_empty()
            && pack.problems.is_empty()
            && row.returned_at.is_none()
            && unanswered == Unanswered::Refuse
        {
            return Err(Error::new(
                ErrorCode::Unanswered,
                format!("{name}: refused, nothing was changed: pack {} for {} has no answers yet (it looks like the file as issued, and {} may still be working on their copy); merge it anyway only to take the work back, which puts its {} items back in the pool", row.id, row.annotator, row.annotator, row.items),
            ));
        }
        Ok(row)
    }

    /// The pack's reports as the project takes them in: on the project's task (every one
    /// is the pack's, its text checked and trimmed: see `returned::check_problems`), the
    /// time brought between the pack's issue and now, as an answer's.
    fn pack_problems<'p>(
        &self,
        pack: &'p ReturnedPack,
        row: &pack_file::PackRow,
        now: i64,
    ) -> Result<Vec<(i64, &'p str, i64)>> {
        let issued_at = pack.manifest.issued_at;
        let mut out = Vec::with_capacity(pack.problems.len());
        for report in &pack.problems {
            let Some(task_id) = pack_file::task_of(self.store.read(), &row.id, report.task_id)?
            else {
                return Err(refused(&pack.name, format!("its problems table, row {}, field task_id: task {} is not on record for pack {}", report.seq, report.task_id, row.id)));
            };
            let at = report.created_at.clamp(issued_at, now.max(issued_at));
            out.push((task_id, report.text.as_str(), at));
        }
        Ok(out)
    }

    /// Each answer's checks that only read (its shape, its task, its options), run before
    /// the write transaction; the rest, and every write, run inside it.
    fn check_answers<'p>(
        &self,
        pack: &'p ReturnedPack,
        row: &'p pack_file::PackRow,
        now: i64,
    ) -> Result<Vec<(&'p PackAnswerRow, Checking<'p>)>> {
        let mut seen = std::collections::HashSet::new();
        let mut checked = Vec::with_capacity(pack.answers.len());
        for answer in &pack.answers {
            let outcome = 'check: {
                if !seen.insert(answer.uuid.as_str()) {
                    break 'check Err(Skip::Copy);
                }
                if pack_file::answer_merged(self.store.read(), &row.id, &answer.uuid)? {
                    break 'check Err(Skip::Merged);
                }
                let mut returned = match read_answer(answer, pack.manifest.issued_at, now) {
                    Ok(r) => r,
                    Err(why) => break 'check Err(Skip::Refused(why)),
                };
                let Some(task_id) = pack_file::task_of(self.store.read(), &row.id, answer.task_id)?
                else {
                    let why = format!("task {} is not in this pack", answer.task_id);
                    break 'check Err(Skip::Refused(why));
                };
                returned.answer.task_id = task_id;
                let (a, at) = (&returned.answer, returned.created_at);
                match self.check_returned(&row.annotator, a, at, &row.id, &answer.uuid) {
                    Ok(c) => Ok((c, returned.clamped)),
                    Err(e) if e.code == ErrorCode::Conflict => Err(Skip::Late),
                    Err(e) if matches!(e.code, ErrorCode::Database | ErrorCode::Io) => {
                        return Err(e)
                    }
                    Err(e) => Err(Skip::Refused(e.message)),
                }
            };
            checked.push((answer, outcome));
        }
        Ok(checked)
    }
}
