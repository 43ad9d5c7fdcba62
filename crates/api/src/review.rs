//! The lead's review of written refutations, which qualifies new writers.

use crate::refutation;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::claim::RefutationState;
use factdesk_store::{reviews, tasks, tx};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A written refutation waiting for the lead's accept or reject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PendingReview {
    pub annotation_id: i64,
    pub annotator: String,
    /// The original claim's number in the project ("#12" on screen).
    pub original_number: i64,
    pub original: String,
    /// The written claim's number.
    pub written_number: i64,
    pub written: String,
}

impl Project {
    /// Written refutations waiting for a lead's review.
    pub fn pending_reviews(&self, lead: &Lead) -> Result<Vec<PendingReview>> {
        self.acting_lead(lead)?;
        Ok(reviews::pending(self.store.read())?
            .into_iter()
            .map(|r| PendingReview {
                annotation_id: r.annotation_id,
                annotator: r.annotator,
                original_number: r.original_id,
                original: r.original,
                written_number: r.written_id,
                written: r.written,
            })
            .collect())
    }

    /// Records the lead's decision on a written refutation: accepting opens its
    /// verification, rejecting closes it. A decision already taken may be changed.
    pub fn review(
        &mut self,
        lead: &Lead,
        annotation_id: i64,
        accepted: bool,
        note: Option<&str>,
    ) -> Result<()> {
        self.acting_lead(lead)?;
        self.decide_review(lead, annotation_id, accepted, note, false)
    }

    /// [`Project::review`] of a refutation the lead saw waiting: refused as a conflict
    /// when it no longer waits (decided meanwhile in another window or by
    /// `factdesk review`), so a screen left open does not silently overturn a decision.
    pub fn review_pending(
        &mut self,
        lead: &Lead,
        annotation_id: i64,
        accepted: bool,
        note: Option<&str>,
    ) -> Result<()> {
        self.acting_lead(lead)?;
        self.decide_review(lead, annotation_id, accepted, note, true)
    }

    fn decide_review(
        &mut self,
        lead: &Lead,
        annotation_id: i64,
        accepted: bool,
        note: Option<&str>,
        pending_only: bool,
    ) -> Result<()> {
        let who = self.find_annotator(lead.name())?;
        let settings = self.settings()?;
        let now = self.clock.now_ms();
        let tx = self.store.transaction()?;
        // Checked inside the write transaction: a writer's new answer cannot slip in
        // between the check and the decision.
        if !reviews::is_refutation(&tx, annotation_id)? {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("answer {annotation_id} is not a written refutation"),
            ));
        }
        // An unreadable answer, or one whose claim says otherwise, is not accepted blind.
        reviews::written_text(&tx, annotation_id)?;
        let written = tx::written_in(&tx, annotation_id)?;
        if let Some((_, Some(RefutationState::Superseded))) = written {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("refutation {annotation_id} was replaced by its writer's new one; review that one"),
            ));
        }
        match written {
            Some((_, Some(state))) if pending_only && state != RefutationState::PendingReview => {
                let what = match state {
                    RefutationState::Accepted => "accepted",
                    RefutationState::Rejected => "rejected",
                    _ => "decided",
                };
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!("refutation {annotation_id} was {what} meanwhile (in another window or by factdesk review); the list is read again"),
                ));
            }
            _ => {}
        }
        reviews::insert(&tx, annotation_id, who.id, accepted, note, now)?;
        if let Some((claim_id, _)) = written {
            if accepted {
                tx::set_refutation_state(&tx, claim_id, RefutationState::Accepted)?;
                refutation::open_verification(&tx, &settings, claim_id, now)?;
            } else {
                tx::set_refutation_state(&tx, claim_id, RefutationState::Rejected)?;
                tasks::close(&tx, TaskKind::Verify, claim_id, now)?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
