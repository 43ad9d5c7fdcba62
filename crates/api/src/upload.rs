//! Importing files a lead picked on another machine (the app connected to a team server):
//! the bytes come with the file's name, the server puts them in a folder of its own under
//! that name and runs the same import as for a path, and errors name the file as the lead
//! knows it, with its line and field.

pub use crate::packs::{may_merge, merge_upload, PacksUpload};
pub use crate::sent::UploadFile;

use crate::dto::{ImportOutcome, ImportProgress, ImportReport};
use crate::import::{import, ImportRequest, Preset};
use crate::sent::{as_sent, place};
use crate::Lead;
use crate::{Error, ErrorCode, Progress, Project, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// An import as sent: the claims and documents files, and the preset.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct Upload {
    #[serde(default)]
    pub claims: Vec<UploadFile>,
    #[serde(default)]
    pub documents: Vec<UploadFile>,
    #[serde(default)]
    pub preset: Option<String>,
}

impl Upload {
    /// Reads the files at `claims` and `documents` on this machine into an upload.
    pub fn read(claims: &[PathBuf], documents: &[PathBuf], preset: &str) -> Result<Upload> {
        Ok(Upload {
            claims: UploadFile::read_all(claims)?,
            documents: UploadFile::read_all(documents)?,
            preset: Some(preset.to_string()),
        })
    }
}

/// An import a server runs as a job for the lead who sent it: how far it has come, and
/// once it ended, its report or why it failed (`cancelled` when stopped, nothing changed).
#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportJob {
    #[ts(type = "number")]
    pub id: u64,
    pub progress: ImportProgress,
    pub outcome: Option<ImportOutcome>,
}

/// Whether `lead` may import into `project` (the check [`import_upload`] makes first),
/// so a server refuses a job before it takes one.
pub fn may_import(project: &Project, lead: &Lead) -> Result<()> {
    project.acting_lead(lead)
}

/// Imports `upload` into `project` for `lead` as [`import`] imports files.
pub fn import_upload(
    project: &mut Project,
    lead: &Lead,
    upload: &Upload,
    progress: &mut dyn Progress,
) -> Result<ImportReport> {
    project.acting_lead(lead)?;
    let preset = match &upload.preset {
        Some(p) => p.parse::<Preset>()?,
        None => Preset::default(),
    };
    let scratch = tempfile::tempdir().map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!("cannot make a temporary folder for the import: {e}"),
        )
    })?;
    let dir = scratch.path();
    let claims = place(dir, &upload.claims, "claims", 0)?;
    let documents = place(dir, &upload.documents, "documents", claims.len())?;
    let count = claims.len() + documents.len();
    let req = ImportRequest {
        claims,
        documents,
        preset,
        ..Default::default()
    };
    match import(project, lead, &req, progress) {
        Ok(mut report) => {
            for f in &mut report.files {
                *f = as_sent(dir, f, count);
            }
            report.rejects_files.clear();
            report.rejects_file = None;
            Ok(report)
        }
        Err(mut e) => {
            e.message = as_sent(dir, &e.message, count);
            if let Some(at) = e.location.as_mut() {
                at.file = as_sent(dir, &at.file, count);
            }
            Err(e)
        }
    }
}
