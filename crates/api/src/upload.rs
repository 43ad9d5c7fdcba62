//! Importing files a lead picked on another machine (the app connected to a team server):
//! the bytes come with the file's name, the server puts them in a folder of its own under
//! that name and runs the same import as for a path, and errors name the file as the lead
//! knows it, with its line and field.

use crate::dto::{ImportOutcome, ImportProgress, ImportReport};
use crate::import::{import, ImportRequest, Preset};
use crate::packs::{MergeOutcome, ReturnedUpload};
use crate::{Actor, Error, ErrorCode, Progress, Project, Result};
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One file as sent: its name on the sender's machine (no folders) and its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadFile {
    pub name: String,
    /// The content, in base64.
    pub base64: String,
}

impl UploadFile {
    /// Reads the files at `paths` on this machine, each under its own name.
    pub fn read_all(paths: &[PathBuf]) -> Result<Vec<UploadFile>> {
        paths
            .iter()
            .map(|p| {
                let bytes =
                    std::fs::read(p).map_err(|e| Error::io(&p.display().to_string(), &e))?;
                Ok(UploadFile {
                    name: p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    base64: base64::engine::general_purpose::STANDARD.encode(bytes),
                })
            })
            .collect()
    }
}

/// An import as sent: the claims and documents files, and the preset.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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

fn bad(field: String, message: String) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("{field}: {message}"))
}

/// Writes each file under its own numbered folder of `dir` (two files may share a name).
pub(crate) fn place(
    dir: &Path,
    files: &[UploadFile],
    what: &str,
    first: usize,
) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let field = format!("{what}[{i}]");
        // A name from the network: one plain file name, nothing that climbs out.
        let plain = !f.name.is_empty()
            && f.name != "."
            && f.name != ".."
            && !f.name.contains(['/', '\\', '\0']);
        if !plain {
            return Err(bad(
                format!("{field}.name"),
                format!("{:?} is not a file name (nothing was imported)", f.name),
            ));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| {
                bad(
                    format!("{field}.base64"),
                    format!("{} is not base64 ({e}); nothing was imported", f.name),
                )
            })?;
        let folder = dir.join((first + i).to_string());
        std::fs::create_dir(&folder).map_err(|e| Error::io(&folder.display().to_string(), &e))?;
        let path = folder.join(&f.name);
        std::fs::write(&path, bytes).map_err(|e| Error::io(&f.name, &e))?;
        paths.push(path);
    }
    Ok(paths)
}

/// `text` with the server's folders taken out, so each file reads as its sent name.
pub(crate) fn as_sent(dir: &Path, text: &str, count: usize) -> String {
    let mut text = text.to_string();
    for i in 0..count {
        let folder = format!("{}/", dir.join(i.to_string()).display());
        text = text.replace(&folder, "");
    }
    text
}

/// Returned packs as sent, to merge.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacksUpload {
    pub packs: Vec<UploadFile>,
    /// Take back the work of a pack with no answers instead of refusing it.
    #[serde(default)]
    pub give_back: bool,
}

/// Merges returned packs sent as bytes, each as [`Project::merge_packs`] merges a file:
/// validated whole before anything changes; outcomes name each file as sent. A server
/// reads them first, without a connection to the project ([`ReturnedUpload::read`]), then
/// merges them ([`Project::merge_upload_read`]).
pub fn merge_upload(
    project: &mut Project,
    lead: &Actor,
    upload: &PacksUpload,
) -> Result<Vec<MergeOutcome>> {
    project.require_lead(lead, "merge packs")?;
    let read = ReturnedUpload::read(upload)?;
    project.merge_upload_read(lead, &read)
}

/// An import a server runs as a job for the lead who sent it: how far it has come, and
/// once it ended, its report or why it failed (`cancelled` when stopped, nothing changed).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportJob {
    pub id: u64,
    pub progress: ImportProgress,
    pub outcome: Option<ImportOutcome>,
}

/// Whether `lead` may import into `project` (the check [`import_upload`] makes first),
/// so a server refuses a job before it takes one.
pub fn may_import(project: &Project, lead: &Actor) -> Result<()> {
    project.require_lead(lead, "import data")
}

/// Whether `lead` may merge packs into `project` (the check [`merge_upload`] makes first),
/// so a server refuses a large body before it reads it.
pub fn may_merge(project: &Project, lead: &Actor) -> Result<()> {
    project.require_lead(lead, "merge packs")
}

/// Imports `upload` into `project` for `lead` as [`import`] imports files.
pub fn import_upload(
    project: &mut Project,
    lead: &Actor,
    upload: &Upload,
    progress: &mut dyn Progress,
) -> Result<ImportReport> {
    project.require_lead(lead, "import data")?;
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
