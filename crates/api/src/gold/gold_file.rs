//! Writing gold lines to files: the Factdesk and FEVER line shapes, and the files beside
//! the gold file.

use super::records::GoldLine;
use crate::{Error, ErrorCode, Result};
use factdesk_core::claim::Label;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A FEVER-shaped line: FEVER's field names and labels; one evidence set holding every
/// gold sentence as [annotation id, evidence id, page, sentence id].
pub(super) fn fever_line(l: &GoldLine) -> serde_json::Result<serde_json::Value> {
    let label = match l.label {
        Label::Supported => "SUPPORTS",
        Label::Refuted => "REFUTES",
        Label::NotEnoughInfo | Label::Failed => "NOT ENOUGH INFO",
    };
    // FEVER's NOT ENOUGH INFO claims have no evidence, whatever sentences were picked.
    let nei = matches!(l.label, Label::NotEnoughInfo | Label::Failed);
    let evidence = if l.evidence.is_empty() || nei {
        serde_json::json!([[[l.task_id, null, null, null]]])
    } else {
        let set: Vec<serde_json::Value> = l
            .evidence
            .iter()
            .enumerate()
            .map(|(i, e)| serde_json::json!([l.task_id, i, e.document_id, e.sentence_index]))
            .collect();
        serde_json::json!([set])
    };
    let mut line = serde_json::json!({
        "id": l.row_id,
        "verifiable": if label == "NOT ENOUGH INFO" { "NOT VERIFIABLE" } else { "VERIFIABLE" },
        "label": label,
        "claim": l.claim,
        "evidence": evidence,
    });
    // Only on lines the lead asked for (`include_under_annotated`): FEVER has no such
    // field, and a reader must still be able to tell these lines from the others.
    if l.agreement.under_annotated {
        line["under_annotated"] = serde_json::Value::Bool(true);
    }
    Ok(line)
}

/// `gold.jsonl` → `gold.<suffix>` in the same folder.
pub(crate) fn beside(out: &Path, suffix: &str) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "gold".to_string(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.{suffix}"))
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("{}: cannot write: {e}", path.display()),
    )
}

/// Writes `json` of each line `keep` takes, one per line, into an output being staged at
/// `path`. The later half of the lines is turned into text on a second thread while the
/// first half is written.
pub(super) fn write_lines(
    path: &Path,
    file: &mut dyn Write,
    lines: &[GoldLine],
    keep: &(dyn Fn(&GoldLine) -> bool + Sync),
    json: fn(&GoldLine) -> serde_json::Result<serde_json::Value>,
) -> Result<()> {
    let write = |part: &[GoldLine], out: &mut dyn Write| -> Result<()> {
        // Each line serialised into one buffer and written whole: formatting the value
        // straight into the file went through a formatter adapter a few bytes at a time.
        let mut buffer = Vec::new();
        for line in part.iter().filter(|l| keep(l)) {
            let value = json(line).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            buffer.clear();
            serde_json::to_writer(&mut buffer, &value)
                .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            buffer.push(b'\n');
            out.write_all(&buffer).map_err(|e| io_error(path, e))?;
        }
        Ok(())
    };
    if lines.len() < 4096 {
        return write(lines, file);
    }
    let (first, later) = lines.split_at(lines.len() / 2);
    std::thread::scope(|s| {
        let later = s.spawn(|| {
            let mut text = Vec::new();
            write(later, &mut text).map(|()| text)
        });
        let first = write(first, file);
        let later = later.join();
        // The first half's failure first: it is the first line that could not be written.
        first?;
        let later = later
            .map_err(|_| Error::new(ErrorCode::Io, "turning the gold lines into text stopped"))??;
        file.write_all(&later).map_err(|e| io_error(path, e))
    })
}
