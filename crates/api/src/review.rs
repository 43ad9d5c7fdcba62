//! The lead's review of written refutations, which qualifies new writers.

use crate::annotators::Role;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::reviews;
use serde::Serialize;
use ts_rs::TS;

/// A written refutation waiting for the lead's accept or reject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PendingReview {
    pub annotation_id: i64,
    pub annotator: String,
    pub original: String,
    pub written: String,
}

impl Project {
    pub fn pending_reviews(&self) -> Result<Vec<PendingReview>> {
        Ok(reviews::pending(self.store.conn())?
            .into_iter()
            .map(
                |(annotation_id, annotator, original, written)| PendingReview {
                    annotation_id,
                    annotator,
                    original,
                    written,
                },
            )
            .collect())
    }

    /// Records the lead's decision on a written refutation.
    pub fn review(
        &mut self,
        lead: &str,
        annotation_id: i64,
        accepted: bool,
        note: Option<&str>,
    ) -> Result<()> {
        let who = self.annotator(lead)?;
        if who.role != Role::Lead {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("{lead} is not a lead; only leads review refutations"),
            ));
        }
        let is_refutation: bool = self.store.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM annotations a JOIN tasks t ON t.id = a.task_id WHERE a.id = ?1 AND t.kind = 'refute')",
            [annotation_id],
            |r| r.get(0),
        )?;
        if !is_refutation {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("answer {annotation_id} is not a written refutation"),
            ));
        }
        let now = self.clock.now_ms();
        reviews::insert(
            self.store.conn(),
            annotation_id,
            who.id,
            accepted,
            note,
            now,
        )?;
        Ok(())
    }
}
