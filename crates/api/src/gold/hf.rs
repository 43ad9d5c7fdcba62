//! The gold data as a Hugging Face dataset folder: `data/<split>.parquet` and
//! `data/<split>.jsonl` per split, and a README.md dataset card whose YAML header the Hub
//! and `datasets.load_dataset(DIR)` read (configs with the data files per split, the
//! features, license, task categories and size category).
//!
//! Splits are the export's own: a hash of each root claim's id and the seed, scaled into
//! the ratios, so a claim and its refutations share a split. `dev` is named `validation`,
//! as the Hub expects; a split with no line is left out of the folder and the card says so.

use super::records::{ExportPreview, GoldLine};
use super::GoldRequest;
use crate::agreement::AgreementRequest;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{
    ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use ts_rs::TS;

/// What `export_hf` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct HfReport {
    pub dir: String,
    /// The splits written, with their line counts, in order.
    pub splits: Vec<(String, u64)>,
    /// Every file written, README.md last.
    pub files: Vec<String>,
    pub license: String,
    pub preview: ExportPreview,
}

/// The Hub's name for a split.
fn hub_split(name: &str) -> String {
    if name == "dev" {
        "validation".into()
    } else {
        name.into()
    }
}

/// A license identifier as the Hub's YAML takes it: lowercase letters, digits, `.`, `-`.
fn check_license(license: &str) -> Result<()> {
    let fine = !license.is_empty()
        && license.len() <= 64
        && license
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
    if fine {
        Ok(())
    } else {
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "license {license:?}: use a Hub license identifier such as cc-by-4.0, mit or other"
            ),
        ))
    }
}

impl Project {
    /// Writes the gold data under `req` as a Hugging Face dataset folder at `dir` (created
    /// if missing). A folder that already holds files is written into only with `force`
    /// and only when it holds an earlier Factdesk export, whose other data files are then
    /// removed; every file is staged and renamed into place together.
    pub fn export_hf(
        &self,
        by: &Lead,
        req: &GoldRequest,
        dir: &Path,
        license: &str,
        force: bool,
    ) -> Result<HfReport> {
        self.acting_lead(by)?;
        check_license(license)?;
        super::thin::refuse_unmarked(req, "hf")?;
        if dir.exists() && !dir.is_dir() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} is a file; --format hf writes a folder (nothing was written)",
                    dir.display()
                ),
            ));
        }
        // Refused folders are found before the gold data is gathered.
        let earlier = super::hf_folder::earlier_export(dir, force)?;
        let (mut lines, mut preview) = self.gold(by, req)?;
        if lines.is_empty() {
            // A folder with a card and no data file is no dataset `datasets` can load.
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "no claim made it into the gold data ({} dropped; the export preview says why); nothing was written",
                    preview.dropped.len()
                ),
            ));
        }
        let names = to_hub_splits(req, &mut lines, &mut preview);
        let mut agreement = Vec::new();
        let areq = AgreementRequest {
            include_flagged: req.include_flagged,
            ..AgreementRequest::default()
        };
        for kind in self.kinds_with_answers(by)? {
            agreement.push((kind, self.agreement(by, kind, &areq)?));
        }
        let inputs = crate::output::Inputs::project(self.path());
        let mut outputs = crate::output::Outputs::new(inputs);
        let mut splits = Vec::new();
        let mut files = Vec::new();
        for name in &names {
            let part: Vec<&GoldLine> = lines.iter().filter(|l| &l.split == name).collect();
            if part.is_empty() {
                continue;
            }
            let (split, written) = write_split(&mut outputs, dir, name, &part)?;
            files.extend(written);
            splits.push(split);
        }
        let card = super::hf_card::Card {
            name: &self.store.project()?.name,
            license,
            splits: &splits,
            empty: names
                .iter()
                .filter(|n| !splits.iter().any(|s| &s.name == *n))
                .cloned()
                .collect(),
            preview: &preview,
            req,
            agreement: &agreement,
        }
        .render()
            + &self.study_samples_card()?;
        let readme = dir.join("README.md");
        outputs
            .file_in_new_folder(&readme)?
            .write_all(card.as_bytes())
            .map_err(|e| write_error(&readme, e))?;
        files.push(readme.display().to_string());
        outputs.commit()?;
        // The new export is in place: the earlier one's other files go, so the folder
        // holds this export only.
        super::hf_folder::remove_stale(&earlier, &files)?;
        Ok(HfReport {
            dir: dir.display().to_string(),
            splits: splits.into_iter().map(|s| (s.name, s.examples)).collect(),
            files,
            license: license.to_string(),
            preview,
        })
    }
}

/// Gives the lines, counts and warnings the splits' names in this folder; returns the
/// names in order.
fn to_hub_splits(
    req: &GoldRequest,
    lines: &mut [GoldLine],
    preview: &mut ExportPreview,
) -> Vec<String> {
    for l in lines.iter_mut() {
        l.split = hub_split(&l.split);
    }
    preview.per_split = (preview.per_split.iter())
        .map(|(name, n)| (hub_split(name), *n))
        .collect();
    let names: Vec<String> = super::split_names(req.splits.len())
        .iter()
        .map(|n| hub_split(n))
        .collect();
    preview.split_warnings =
        super::family::split_warnings(&req.splits, &names, &preview.per_split, preview.lines);
    names
}

/// Writes one split's lines as JSON Lines and Parquet under `dir/data`; returns the split
/// and the two files.
fn write_split(
    outputs: &mut crate::output::Outputs,
    dir: &Path,
    name: &str,
    part: &[&GoldLine],
) -> Result<(super::hf_card::Split, [String; 2])> {
    let jsonl = dir.join("data").join(format!("{name}.jsonl"));
    let file = outputs.file_in_new_folder(&jsonl)?;
    for l in part {
        serde_json::to_writer(&mut *file, l).map_err(|e| write_error(&jsonl, e))?;
        file.write_all(b"\n").map_err(|e| write_error(&jsonl, e))?;
    }
    let pq = dir.join("data").join(format!("{name}.parquet"));
    let bytes = batch(part)
        .map_err(|e| write_error(&pq, e))
        .and_then(|b| crate::columnar::parquet(&b).map_err(|e| write_error(&pq, e)))?;
    outputs
        .file_in_new_folder(&pq)?
        .write_all(&bytes)
        .map_err(|e| write_error(&pq, e))?;
    let split = super::hf_card::Split {
        name: name.to_string(),
        examples: part.len() as u64,
        bytes: bytes.len() as u64,
    };
    Ok((
        split,
        [jsonl.display().to_string(), pq.display().to_string()],
    ))
}

fn write_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("{}: cannot write: {e}", path.display()),
    )
}

fn strings<'a>(lines: &[&'a GoldLine], f: impl Fn(&'a GoldLine) -> Option<&'a str>) -> ArrayRef {
    Arc::new(lines.iter().map(|l| f(l)).collect::<StringArray>())
}

/// The evidence sentence's fields, as the card's features name them.
fn evidence_fields() -> Fields {
    Fields::from(vec![
        Field::new("document_id", DataType::Utf8, true),
        Field::new("sentence_index", DataType::Int64, true),
        Field::new("text", DataType::Utf8, true),
    ])
}

/// The lines as one record batch, columns in the order of [`GoldLine`]'s fields.
fn batch(lines: &[&GoldLine]) -> std::result::Result<RecordBatch, arrow_schema::ArrowError> {
    let mut doc = StringBuilder::new();
    let mut idx = Int64Builder::new();
    let mut text = StringBuilder::new();
    for e in lines.iter().flat_map(|l| &l.evidence) {
        doc.append_value(&e.document_id);
        idx.append_value(e.sentence_index);
        text.append_value(&e.text);
    }
    let sentences = StructArray::try_new(
        evidence_fields(),
        vec![
            Arc::new(doc.finish()),
            Arc::new(idx.finish()),
            Arc::new(text.finish()),
        ],
        None,
    )?;
    let evidence = ListArray::try_new(
        Arc::new(Field::new(
            "item",
            DataType::Struct(evidence_fields()),
            true,
        )),
        OffsetBuffer::from_lengths(lines.iter().map(|l| l.evidence.len())),
        Arc::new(sentences),
        None,
    )?;
    let agreement = StructArray::try_new(
        Fields::from(vec![
            Field::new("answers", DataType::Int64, true),
            Field::new("share_agreeing", DataType::Float64, true),
        ]),
        vec![
            Arc::new(
                lines
                    .iter()
                    .map(|l| Some(i64::from(l.agreement.answers)))
                    .collect::<Int64Array>(),
            ),
            Arc::new(
                lines
                    .iter()
                    .map(|l| l.agreement.share_agreeing)
                    .collect::<Float64Array>(),
            ),
        ],
        None,
    )?;
    let provenance = StructArray::try_new(
        Fields::from(vec![
            Field::new("method", DataType::Utf8, true),
            Field::new("lead", DataType::Utf8, true),
            Field::new("at", DataType::Int64, true),
            Field::new("reason", DataType::Utf8, true),
            Field::new("taken_from", DataType::Utf8, true),
        ]),
        vec![
            strings(lines, |l| Some(&l.provenance.method)),
            strings(lines, |l| l.provenance.lead.as_deref()),
            Arc::new(
                lines
                    .iter()
                    .map(|l| l.provenance.at)
                    .collect::<Int64Array>(),
            ),
            strings(lines, |l| l.provenance.reason.as_deref()),
            strings(lines, |l| l.provenance.taken_from.as_deref()),
        ],
        None,
    )?;
    // Every split's file has the same schema: nullability from the field's meaning.
    RecordBatch::try_from_iter_with_nullable([
        ("id", strings(lines, |l| Some(&l.id)), false),
        ("claim", strings(lines, |l| Some(&l.claim)), false),
        ("label", strings(lines, |l| Some(l.label.as_str())), false),
        ("evidence", Arc::new(evidence) as ArrayRef, false),
        ("context", strings(lines, |l| l.context.as_deref()), true),
        (
            "source_url",
            strings(lines, |l| l.source_url.as_deref()),
            true,
        ),
        (
            "parent_id",
            strings(lines, |l| l.parent_id.as_deref()),
            true,
        ),
        ("split", strings(lines, |l| Some(&l.split)), false),
        ("agreement", Arc::new(agreement) as ArrayRef, false),
        ("provenance", Arc::new(provenance) as ArrayRef, false),
    ])
}
