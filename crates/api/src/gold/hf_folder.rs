//! The folder a Hugging Face export writes into: empty or new, or (with `force`) an
//! earlier Factdesk export, whose data files this export replaces so that the folder holds
//! exactly the new one. Anything else is refused: a file is removed only when it is
//! recognisably ours (under `data/`, beside a README.md card Factdesk wrote).

use crate::{Error, ErrorCode, Result};
use std::path::{Path, PathBuf};

/// The line every card starts its body with, which marks a folder as a Factdesk export.
pub(crate) const MARK: &str = "<!-- written by factdesk export --format hf -->";
/// What cards said before [`MARK`] was written.
const OLDER_MARK: &str = "exported by Factdesk.";

fn refuse(dir: &Path, why: String) -> Error {
    Error::new(
        ErrorCode::InvalidInput,
        format!("{}: {why} (nothing was written)", dir.display()),
    )
}

fn io(path: &Path, e: &std::io::Error) -> Error {
    Error::io(&path.display().to_string(), e)
}

/// The data files of the earlier export held in `dir`, which this export replaces or
/// removes; none for a new or empty folder. A folder holding files is refused without
/// `force`, and even with it unless it is a Factdesk export holding nothing but its card,
/// its `data/*.jsonl` and `data/*.parquet` files, and hidden entries (such as a Hub
/// clone's `.git` and `.gitattributes`, left alone).
pub(crate) fn earlier_export(dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, &e))?
        .collect::<std::io::Result<_>>()
        .map_err(|e| io(dir, &e))?;
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    if !force {
        return Err(refuse(
            dir,
            "already holds files; pass --force to replace an earlier Factdesk export there".into(),
        ));
    }
    let card = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    if !card.contains(MARK) && !card.contains(OLDER_MARK) {
        return Err(refuse(
            dir,
            "holds files but is no Factdesk export (no README.md card written by one), so --force does not write there; choose a new or empty folder".into(),
        ));
    }
    let mut ours = Vec::new();
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(|e| io(&entry.path(), &e))?;
        match name.as_str() {
            _ if name.starts_with('.') => {}
            "README.md" if kind.is_file() => {}
            "data" if kind.is_dir() => ours.extend(data_files(dir, &entry.path())?),
            _ => {
                return Err(refuse(
                    dir,
                    format!("{name} is not part of a Factdesk export; move it away to export here"),
                ))
            }
        }
    }
    Ok(ours)
}

/// The files of an earlier export's `data/` folder, each a `.jsonl` or `.parquet` file.
fn data_files(dir: &Path, data: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(data).map_err(|e| io(data, &e))? {
        let entry = entry.map_err(|e| io(data, &e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| io(&path, &e))?;
        let ours = kind.is_file()
            && path
                .extension()
                .is_some_and(|x| x == "jsonl" || x == "parquet");
        if !ours {
            return Err(refuse(
                dir,
                format!(
                    "data/{} is not a file of a Factdesk export; move it away to export here",
                    entry.file_name().to_string_lossy()
                ),
            ));
        }
        out.push(path);
    }
    Ok(out)
}

/// Removes the earlier export's files that this one did not write again.
pub(crate) fn remove_stale(earlier: &[PathBuf], written: &[String]) -> Result<()> {
    for path in earlier {
        if written.iter().any(|w| Path::new(w) == path) {
            continue;
        }
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(path, &e)),
        }
    }
    Ok(())
}
