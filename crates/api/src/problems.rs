//! Problems an annotator reports on an item they cannot answer ("the sentences are cut
//! off", "the claim says two things"): the item goes back to the pool, as a skip does,
//! and the report waits in the lead's list, with the claim's number, until the lead
//! marks it seen. What an annotator can send is held to a few lines and a few a minute.

use crate::actor::Actor;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::{assignments, problems};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The most characters a report holds.
pub const REPORT_CHARS: usize = 2_000;
/// The most reports one person makes in a minute.
pub const REPORTS_A_MINUTE: u64 = 10;
/// The most open reports the lead's list shows at once.
const SHOWN: u32 = 500;

/// A report as the lead sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ProblemReport {
    pub id: i64,
    /// The claim's number, as every screen names it (#24).
    pub claim_number: i64,
    pub claim: String,
    pub kind: TaskKind,
    pub task_id: i64,
    pub annotator: String,
    pub text: String,
    pub at: i64,
}

/// A report's text as stored, trimmed; refused when it shows nothing (spaces, zero-width
/// characters), holds a control character other than a line break or tab (PostgreSQL
/// refuses a NUL, and a merge failed on one after its answers were in), or is over
/// [`REPORT_CHARS`]. The one rule for a report made in the project, in a pack, and one
/// a merge takes in.
pub(crate) fn checked_text(text: &str) -> Result<&str> {
    let text = text.trim();
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "a report may not hold control characters (such as NUL): write it as plain text",
        ));
    }
    if factdesk_core::text::shows_nothing(text) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "say what the problem is: a few words are enough",
        ));
    }
    if text.chars().count() > REPORT_CHARS {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("a report is at most {REPORT_CHARS} characters"),
        ));
    }
    Ok(text)
}

impl Project {
    /// Reports a problem with task `task_id`, which `actor` was given and has not
    /// answered: the item goes back to the pool (as [`Project::skip_item`]) and the report
    /// waits for the lead. Refused for a task not theirs, an empty or over-long text, or
    /// past [`REPORTS_A_MINUTE`].
    pub fn report_problem(&mut self, actor: &Actor, task_id: i64, text: &str) -> Result<()> {
        let name = self.member(actor)?;
        let annotator = self.annotator_row(name)?;
        let text = checked_text(text)?;
        if !assignments::given(self.store.read(), task_id, annotator.id)? {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("task {task_id} is no item you were given"),
            ));
        }
        let now = self.clock.now_ms();
        if problems::made_since(self.store.read(), annotator.id, now - 60_000)? >= REPORTS_A_MINUTE
        {
            return Err(Error::new(
                ErrorCode::RateLimited,
                format!("at most {REPORTS_A_MINUTE} reports a minute; wait a little, or write to your lead"),
            ));
        }
        let tx = self.store.decision(annotator.id)?;
        assignments::release(&tx, task_id, annotator.id, now)?;
        problems::insert(&tx, task_id, annotator.id, text, now)?;
        tx.commit()?;
        tracing::info!(task = task_id, annotator = %name, "problem reported");
        Ok(())
    }

    /// The reports the lead has not marked seen, oldest first.
    pub fn problem_reports(&self, lead: &Lead) -> Result<Vec<ProblemReport>> {
        self.acting_lead(lead)?;
        Ok(problems::open(self.store.read(), SHOWN)?
            .into_iter()
            .map(|r| ProblemReport {
                id: r.id,
                claim_number: r.claim_id,
                claim: r.claim_text,
                kind: r.kind,
                task_id: r.task_id,
                annotator: r.annotator,
                text: r.text,
                at: r.created_at,
            })
            .collect())
    }

    /// Marks report `id` seen: it leaves the list.
    pub fn mark_problem_seen(&mut self, lead: &Lead, id: i64) -> Result<()> {
        self.acting_lead(lead)?;
        self.store.require_writable()?;
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        if !problems::mark_seen(&tx, id, lead.name(), now)? {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no open report {id}: marked seen already?"),
            ));
        }
        tx.commit()?;
        Ok(())
    }
}
