//! Merging several returned packs at once, as the lead's app does: each file gets its own
//! outcome, and a refused file does not stop the others.

use super::{MergeReport, Unanswered};
use crate::{Actor, Error, Project, Result};
use serde::Serialize;
use std::path::PathBuf;
use ts_rs::TS;

/// One file's outcome: its report when merged, else why it was refused (nothing changed).
#[derive(Debug, Clone, Serialize, TS)]
pub struct MergeOutcome {
    pub file: String,
    pub report: Option<MergeReport>,
    pub error: Option<Error>,
}

impl Project {
    /// Leads only: merges each file in turn.
    pub fn merge_packs(
        &mut self,
        lead: &Actor,
        files: &[PathBuf],
        unanswered: Unanswered,
    ) -> Result<Vec<MergeOutcome>> {
        self.require_lead(lead, "merge packs")?;
        Ok(files
            .iter()
            .map(|f| {
                let (report, error) = match self.merge_pack_with(lead, f, unanswered) {
                    Ok(r) => (Some(r), None),
                    Err(e) => (None, Some(e)),
                };
                MergeOutcome {
                    file: f.display().to_string(),
                    report,
                    error,
                }
            })
            .collect())
    }
}
