//! Files sent as bytes (an import or returned packs a lead picked on another machine):
//! each named as on the sender's machine, placed in a folder of the receiver's own, and
//! named back as sent in reports and errors.

use crate::{Error, ErrorCode, Result};
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
