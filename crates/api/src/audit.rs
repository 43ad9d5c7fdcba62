//! Whether serving kept its promises, read from the project: for the load and fault
//! benches, and for a lead who wants to know after an incident.

use crate::Lead;
use crate::{Project, Result};
use factdesk_store::audit;
use serde::Serialize;

/// What [`Project::serving_audit`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ServingAudit {
    /// Tasks with more counted answers than their overlap: must be 0.
    pub tasks_over_overlap: u64,
    /// (task, person) pairs with two current answers: must be 0.
    pub double_answers: u64,
    /// Answers that replaced the same person's earlier one (corrections, retried submits).
    pub superseding_answers: u64,
}

impl Project {
    /// Checks the serving invariants over every answer; a lead's.
    pub fn serving_audit(&self, by: &Lead) -> Result<ServingAudit> {
        self.acting_lead(by)?;
        let conn = self.store.read();
        Ok(ServingAudit {
            tasks_over_overlap: audit::tasks_over_overlap(conn)?,
            double_answers: audit::double_answers(conn)?,
            superseding_answers: audit::superseding_answers(conn)?,
        })
    }

    /// Of the acknowledged answers `acks` (the uuids of their acks), those the project
    /// does not hold; a lead's.
    pub fn missing_answers(&self, by: &Lead, acks: &[String]) -> Result<Vec<String>> {
        self.acting_lead(by)?;
        Ok(audit::missing_answers(self.store.read(), acks)?)
    }
}
