//! Rows set aside under `--skip-invalid`, written beside their input with the reason.

use super::rows::BadRow;
use crate::dto::ImportReport;
use crate::output::{Inputs, Outputs};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub struct Rejects {
    by_file: BTreeMap<String, Vec<(Error, String)>>,
}

impl Rejects {
    /// Records a bad row, or fails the import with it when rows may not be skipped.
    pub fn add(&mut self, path: &Path, bad: BadRow, skip: bool) -> Result<()> {
        self.add_error(&path.display().to_string(), bad.error, bad.raw, skip)
    }

    pub fn add_error(&mut self, file: &str, error: Error, raw: String, skip: bool) -> Result<()> {
        if !skip {
            return Err(error);
        }
        self.by_file
            .entry(file.to_string())
            .or_default()
            .push((error, raw));
        Ok(())
    }

    /// How many rows were set aside so far.
    pub fn count(&self) -> usize {
        self.by_file.values().map(Vec::len).sum()
    }

    /// Writes `<input>.rejects.jsonl` for each input with rejected rows, all together; none
    /// may be one of `inputs` or a project file. A rejects file an earlier run left beside
    /// an input without rejected rows now is left alone: it may hold the person's notes.
    pub fn finish(self, report: &mut ImportReport, inputs: &Inputs) -> Result<()> {
        let mut outputs = Outputs::new(inputs.clone());
        for (file, mut rows) in self.by_file {
            // Rows are set aside at several steps; the file lists them as the input has them.
            rows.sort_by_key(|(e, _)| e.location.as_ref().map_or(0, |l| l.line));
            let out = rejects_path(Path::new(&file));
            let w = outputs.file(&out)?;
            let shown = out.display().to_string();
            for (error, raw) in &rows {
                let loc = error.location.as_ref();
                let line = serde_json::json!({
                    "line": loc.map(|l| l.line),
                    "field": loc.and_then(|l| l.field.clone()),
                    "reason": error.message,
                    "row": raw,
                });
                writeln!(w, "{line}")
                    .map_err(|e| Error::io(&format!("cannot write {shown}"), &e))?;
            }
            report.rejected += rows.len() as u64;
            report.rejects_files.push(shown);
        }
        outputs.commit()?;
        report.rejects_file = report.rejects_files.first().cloned();
        Ok(())
    }
}

/// Refuses, before anything is imported, a rejects file that may not be replaced: a
/// link (its target, any file, would be written), a read-only file, or a file that is
/// not a rejects file (a person's own file under that name).
pub fn refuse_foreign(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let why = if meta.file_type().is_symlink() {
        "is a link; Factdesk writes rejected rows only to a file of its own under this name"
    } else if !meta.is_file() {
        return Ok(());
    } else if meta.permissions().readonly() {
        "is read-only; Factdesk would replace it with this run's rejected rows"
    } else if !is_rejects_file(path) {
        "exists and is not a rejects file Factdesk wrote; this run's rejected rows would \
         replace it"
    } else {
        return Ok(());
    };
    Err(Error::new(
        crate::ErrorCode::InvalidInput,
        format!(
            "{} {why}: move it away first (nothing was imported)",
            path.display()
        ),
    ))
}

/// Whether the regular file at `path` is a rejects file Factdesk wrote: its first line
/// is a set-aside row.
fn is_rejects_file(path: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = String::new();
    if std::io::BufReader::new(file)
        .take(1 << 20)
        .read_line(&mut first)
        .is_err()
    {
        return false;
    }
    matches!(
        serde_json::from_str::<serde_json::Value>(&first),
        Ok(serde_json::Value::Object(m)) if m.contains_key("reason") && m.contains_key("row")
    )
}

/// Where the rejected rows of `input` go: `<input>.rejects.jsonl` beside it.
pub fn rejects_path(input: &Path) -> PathBuf {
    factdesk_store::sibling(input, ".rejects.jsonl")
}
