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
    /// may be one of `inputs` or a project file.
    pub fn finish(self, report: &mut ImportReport, inputs: &Inputs) -> Result<()> {
        let mut outputs = Outputs::new(inputs.clone());
        for (file, rows) in self.by_file {
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

/// Where the rejected rows of `input` go: `<input>.rejects.jsonl` beside it.
pub fn rejects_path(input: &Path) -> PathBuf {
    factdesk_store::sibling(input, ".rejects.jsonl")
}
