//! Merging several returned packs at once, as the lead's app does: each file gets its own
//! outcome, and a refused file does not stop the others.

use super::{MergeReport, ReturnedUpload, Unanswered};
use crate::Lead;
use crate::{Error, Project, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use ts_rs::TS;

/// One file's outcome: its report when merged, else why it was refused (nothing changed).
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct MergeOutcome {
    pub file: String,
    pub report: Option<MergeReport>,
    pub error: Option<Error>,
}

impl MergeOutcome {
    fn of(file: String, merged: Result<MergeReport>) -> MergeOutcome {
        let (report, error) = match merged {
            Ok(r) => (Some(r), None),
            Err(e) => (None, Some(e)),
        };
        MergeOutcome {
            file,
            report,
            error,
        }
    }
}

impl Project {
    /// Leads only: merges each file in turn.
    pub fn merge_packs(
        &mut self,
        lead: &Lead,
        files: &[PathBuf],
        unanswered: Unanswered,
    ) -> Result<Vec<MergeOutcome>> {
        self.acting_lead(lead)?;
        Ok(files
            .iter()
            .map(|f| {
                let merged = self.merge_pack_with(lead, f, unanswered);
                MergeOutcome::of(f.display().to_string(), merged)
            })
            .collect())
    }

    /// Leads only: merges packs sent to a server and read there before the project was
    /// taken (see [`ReturnedUpload::read`]); outcomes name each pack as sent.
    pub fn merge_upload_read(
        &mut self,
        lead: &Lead,
        upload: &ReturnedUpload,
    ) -> Result<Vec<MergeOutcome>> {
        self.acting_lead(lead)?;
        let mut outcomes = Vec::with_capacity(upload.packs.len());
        for (file, pack) in &upload.packs {
            let merged = match pack {
                Ok(pack) => self.merge_returned(lead, pack, upload.unanswered),
                Err(e) => Err(e.clone()),
            };
            let mut o = MergeOutcome::of(upload.as_sent(file), merged);
            if let Some(r) = o.report.as_mut() {
                r.file = upload.as_sent(&r.file);
            }
            if let Some(e) = o.error.as_mut() {
                e.message = upload.as_sent(&e.message);
                if let Some(at) = e.location.as_mut() {
                    at.file = upload.as_sent(&at.file);
                }
            }
            outcomes.push(o);
        }
        Ok(outcomes)
    }
}
