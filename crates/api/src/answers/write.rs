//! The raw answers laid out as JSON Lines, CSV or Parquet, with the same columns in the
//! same order in each.

use super::AnswerRow;
use super::AnswersFormat;
use crate::{Error, ErrorCode, Result};
use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, BooleanArray, Int64Array, ListArray, RecordBatch, StringArray};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// The columns of every format, in order.
pub fn columns() -> [&'static str; 24] {
    [
        "answer_id",
        "answer_uuid",
        "task_id",
        "task_kind",
        "claim_id",
        "claim",
        "parent_claim_id",
        "annotator",
        "selected_sentence_ids",
        "selected_sentences",
        "no_evidence",
        "label",
        "verdict",
        "text",
        "comment",
        "created_at",
        "duration_ms",
        "status",
        "supersedes",
        "superseded_by",
        "counted",
        "trick",
        "pack",
        "refutation_state",
    ]
}

fn write_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("{}: cannot write: {e}", path.display()),
    )
}

/// Writes `rows` into `file`, staged for `path`.
pub(super) fn rows(
    path: &Path,
    file: &mut dyn Write,
    rows: &[AnswerRow],
    format: AnswersFormat,
) -> Result<()> {
    match format {
        AnswersFormat::Jsonl => {
            for r in rows {
                serde_json::to_writer(&mut *file, r).map_err(|e| write_error(path, e))?;
                file.write_all(b"\n").map_err(|e| write_error(path, e))?;
            }
            Ok(())
        }
        AnswersFormat::Csv => csv(path, file, rows),
        AnswersFormat::Parquet => {
            let bytes = crate::columnar::parquet(&batch(rows).map_err(|e| write_error(path, e))?)
                .map_err(|e| write_error(path, e))?;
            file.write_all(&bytes).map_err(|e| write_error(path, e))
        }
    }
}

/// CSV: one header line, then one record per answer; lists as JSON arrays, nulls empty,
/// booleans `true`/`false`. Fields holding commas, quotes or line breaks are quoted.
fn csv(path: &Path, file: &mut dyn Write, rows: &[AnswerRow]) -> Result<()> {
    let mut w = csv::Writer::from_writer(file);
    w.write_record(columns())
        .map_err(|e| write_error(path, e))?;
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let int = |v: Option<i64>| v.map(|n| n.to_string()).unwrap_or_default();
    let json = |v: Option<serde_json::Value>| v.map(|v| v.to_string()).unwrap_or_default();
    for r in rows {
        w.write_record([
            r.answer_id.to_string(),
            r.answer_uuid.clone(),
            r.task_id.to_string(),
            r.task_kind.clone(),
            r.claim_id.clone(),
            r.claim.clone(),
            text(&r.parent_claim_id),
            r.annotator.clone(),
            json(
                r.selected_sentence_ids
                    .as_ref()
                    .map(|v| serde_json::json!(v)),
            ),
            json(r.selected_sentences.as_ref().map(|v| serde_json::json!(v))),
            r.no_evidence.map(|b| b.to_string()).unwrap_or_default(),
            text(&r.label),
            text(&r.verdict),
            text(&r.text),
            text(&r.comment),
            r.created_at.to_string(),
            int(r.duration_ms),
            r.status.as_str().to_string(),
            int(r.supersedes),
            int(r.superseded_by),
            r.counted.to_string(),
            text(&r.trick),
            text(&r.pack),
            text(&r.refutation_state),
        ])
        .map_err(|e| write_error(path, e))?;
    }
    w.flush().map_err(|e| write_error(path, e))
}

fn strings<'a>(rows: &'a [AnswerRow], f: impl Fn(&'a AnswerRow) -> Option<&'a str>) -> ArrayRef {
    Arc::new(rows.iter().map(f).collect::<StringArray>())
}

fn ints(rows: &[AnswerRow], f: impl Fn(&AnswerRow) -> Option<i64>) -> ArrayRef {
    Arc::new(rows.iter().map(f).collect::<Int64Array>())
}

/// The rows as one Arrow record batch, columns in [`columns`] order.
fn batch(rows: &[AnswerRow]) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let ids = ListArray::from_iter_primitive::<Int64Type, _, _>(rows.iter().map(|r| {
        r.selected_sentence_ids
            .as_ref()
            .map(|v| v.iter().map(|&id| Some(id)).collect::<Vec<_>>())
    }));
    let mut texts = ListBuilder::new(StringBuilder::new());
    for r in rows {
        match &r.selected_sentences {
            Some(v) => {
                for t in v {
                    texts.values().append_value(t);
                }
                texts.append(true);
            }
            None => texts.append(false),
        }
    }
    let arrays: Vec<ArrayRef> = vec![
        ints(rows, |r| Some(r.answer_id)),
        strings(rows, |r| Some(&r.answer_uuid)),
        ints(rows, |r| Some(r.task_id)),
        strings(rows, |r| Some(&r.task_kind)),
        strings(rows, |r| Some(&r.claim_id)),
        strings(rows, |r| Some(&r.claim)),
        strings(rows, |r| r.parent_claim_id.as_deref()),
        strings(rows, |r| Some(&r.annotator)),
        Arc::new(ids),
        Arc::new(texts.finish()),
        Arc::new(rows.iter().map(|r| r.no_evidence).collect::<BooleanArray>()),
        strings(rows, |r| r.label.as_deref()),
        strings(rows, |r| r.verdict.as_deref()),
        strings(rows, |r| r.text.as_deref()),
        strings(rows, |r| r.comment.as_deref()),
        ints(rows, |r| Some(r.created_at)),
        ints(rows, |r| r.duration_ms),
        strings(rows, |r| Some(r.status.as_str())),
        ints(rows, |r| r.supersedes),
        ints(rows, |r| r.superseded_by),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.counted))
                .collect::<BooleanArray>(),
        ),
        strings(rows, |r| r.trick.as_deref()),
        strings(rows, |r| r.pack.as_deref()),
        strings(rows, |r| r.refutation_state.as_deref()),
    ];
    // Nullability from the column's meaning, not from the rows at hand, so every file
    // has the same schema.
    const REQUIRED: [&str; 10] = [
        "answer_id",
        "answer_uuid",
        "task_id",
        "task_kind",
        "claim_id",
        "claim",
        "annotator",
        "created_at",
        "status",
        "counted",
    ];
    RecordBatch::try_from_iter_with_nullable(
        columns()
            .into_iter()
            .zip(arrays)
            .map(|(name, a)| (name, a, !REQUIRED.contains(&name))),
    )
}
