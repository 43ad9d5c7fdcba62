//! Files sent as bytes (an import or returned packs a lead picked on another machine):
//! each named as on the sender's machine, placed in a folder of the receiver's own, and
//! named back as sent in reports and errors.

use crate::{Error, ErrorCode, Result};
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One file as sent: its name on the sender's machine (no folders) and its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
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

/// The longest file name taken from the network, in bytes: what file systems hold.
const LONGEST_NAME: usize = 255;

/// Refuses `name`, sent as `field`'s, unless it is one plain file name that a file system
/// takes: nothing that climbs out of the folder it is put in, and not too long (a name a
/// file system refuses was a server error, its whole text in the reply). `done` says what
/// nothing was.
pub(crate) fn plain_name(name: &str, field: &str, done: &str) -> Result<()> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && name.len() <= LONGEST_NAME;
    if plain {
        return Ok(());
    }
    let shown: String = name.chars().take(80).collect();
    let more = if shown.len() < name.len() { "…" } else { "" };
    Err(bad(
        format!("{field}.name"),
        format!(
            "{shown:?}{more} is not a file name of at most {LONGEST_NAME} bytes without a folder (nothing was {done})"
        ),
    ))
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
        plain_name(&f.name, &field, "imported")?;
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

#[cfg(test)]
mod tests {
    use super::plain_name;
    use crate::ErrorCode;

    /// Hostile pass 22: a pack named with 5,000 characters got a 500 ("File name too
    /// long") with the whole name in the reply.
    #[test]
    fn a_name_too_long_for_a_file_system_is_refused_shortly() {
        let long = "a".repeat(5_000);
        let err = plain_name(&long, "packs[0]", "merged").err();
        let err = err.unwrap_or_else(|| panic!("a 5,000-byte name was taken"));
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(
            err.message.starts_with("packs[0].name: "),
            "{}",
            err.message
        );
        assert!(err.message.len() < 300, "{}", err.message);
        assert!(plain_name(&"a".repeat(255), "packs[0]", "merged").is_ok());
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0b"] {
            assert!(plain_name(bad, "files[0]", "imported").is_err(), "{bad:?}");
        }
    }
}
