//! Creating tasks: one per claim and kind, to be answered by `overlap` annotators.

use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::seeded::Seeded;
use factdesk_core::text;
use factdesk_store::tasks::{self, NewTask};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    /// Pick the evidence among a claim's candidates (and a hidden trick).
    Evidence,
    /// Write a refuted version of a short claim.
    Refute,
    /// Judge whether a counter-claim contradicts its original.
    Verify,
    /// Label a claim against its evidence.
    Label,
}

impl TaskKind {
    pub const ALL: [TaskKind; 4] = [
        TaskKind::Evidence,
        TaskKind::Refute,
        TaskKind::Verify,
        TaskKind::Label,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Evidence => "evidence",
            TaskKind::Refute => "refute",
            TaskKind::Verify => "verify",
            TaskKind::Label => "label",
        }
    }

    pub(crate) fn from_db(s: &str) -> TaskKind {
        TaskKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .unwrap_or(TaskKind::Label)
    }
}

impl std::str::FromStr for TaskKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<TaskKind> {
        TaskKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!("unknown task kind {s:?}: use evidence, refute, verify or label"),
                )
            })
    }
}

/// What creating tasks did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TasksReport {
    pub kind: TaskKind,
    pub created: u64,
    /// Claims that already had a task of this kind.
    pub existing: u64,
    pub overlap: u32,
}

/// Where a claim's shuffle key and trick position come from: the project seed and the
/// claim, so the same project always serves and shows the same way.
pub(crate) fn shuffle_key(seed: u64, kind: TaskKind, claim_id: i64) -> i64 {
    (Seeded::for_purpose(seed, &format!("order:{}:{claim_id}", kind.as_str())).next_u64() >> 33)
        as i64
}

impl Project {
    /// [`Project::create_tasks`] on behalf of a lead.
    pub fn create_tasks_for(
        &mut self,
        user: &str,
        kind: TaskKind,
        overlap: Option<u32>,
    ) -> Result<TasksReport> {
        self.require_lead(user)?;
        self.create_tasks(kind, overlap)
    }

    /// Creates a task of `kind` for every eligible claim that has none; `overlap`
    /// defaults to the project's.
    pub fn create_tasks(&mut self, kind: TaskKind, overlap: Option<u32>) -> Result<TasksReport> {
        let settings = self.settings()?;
        let overlap = overlap.unwrap_or(settings.overlap);
        if overlap == 0 {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "--overlap must be at least 1",
            ));
        }
        let now = self.clock.now_ms();
        let claims = tasks::eligible_claims(self.store.conn(), kind.as_str())?;
        let tx = self.store.transaction()?;
        let mut report = TasksReport {
            kind,
            created: 0,
            existing: 0,
            overlap,
        };
        for (claim_id, claim_text) in claims {
            if kind == TaskKind::Refute
                && text::token_count(&claim_text) > settings.refute_max_tokens as usize
            {
                continue;
            }
            let trick_slot = if kind == TaskKind::Evidence {
                let shown = tx.query_row(
                    "SELECT count(*) FROM candidates WHERE claim_id = ?1",
                    [claim_id],
                    |r| r.get::<_, i64>(0),
                )?;
                let mut rng = Seeded::for_purpose(settings.seed, &format!("trick:{claim_id}"));
                Some(rng.below(shown as u64 + 1) as u32)
            } else {
                None
            };
            let created = tasks::insert(
                &tx,
                &NewTask {
                    kind: kind.as_str(),
                    claim_id,
                    overlap,
                    trick_slot,
                    shuffle_key: shuffle_key(settings.seed, kind, claim_id),
                    created_at: now,
                },
            )?;
            if created {
                report.created += 1;
            } else {
                report.existing += 1;
            }
        }
        tx.commit()?;
        Ok(report)
    }
}
