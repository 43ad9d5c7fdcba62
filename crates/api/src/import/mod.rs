//! Importing claims and evidence documents.
//!
//! Everything is read and checked before anything is written, and the writing happens
//! in one transaction with the new claims' candidates: a failed or killed import leaves
//! the project exactly as it was. Rows carry a
//! content hash, so importing the same rows again adds nothing, while a row whose id is
//! already taken by different content is refused.

mod batch;
mod chunks;
mod claims;
mod delimited;
mod documents;
mod fields;
mod input_file;
mod json_row;
mod live;
mod numbers;
mod parallel;
mod preset;
mod put;
mod ranking;
mod rejects;
mod row;
mod rows;
mod window;
mod write;

pub use claims::NATIVE_FIELDS;
pub use preset::Preset;
pub use rejects::rejects_path;
pub use rows::MAX_ROW_BYTES;

use crate::dto::ImportReport;
use crate::Lead;
use crate::{Error, ErrorCode, Progress, Project, Result};
use claims::{ClaimInput, FieldMap};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How many rows at the start of a file show whether it is a preset's dataset.
const FIRST_ROWS: usize = 256;

/// What to import.
#[derive(Debug, Clone, Default)]
pub struct ImportRequest {
    pub claims: Vec<PathBuf>,
    pub documents: Vec<PathBuf>,
    pub preset: Preset,
    /// `field=column` pairs renaming native fields to the input's columns.
    pub map: Vec<(String, String)>,
    /// Import the good rows and write the bad ones, with reasons, beside the input.
    pub skip_invalid: bool,
    /// Merge each document's sentences into paragraphs of more than this many
    /// characters, the title first, ranked and chosen as candidates like sentences.
    pub paragraphs: Option<usize>,
}

pub(crate) use factdesk_core::digest::digest;

/// The digest of `value`'s compact JSON, streamed into the hash rather than built first.
pub(crate) fn digest_json(value: &impl serde::Serialize) -> String {
    let mut hasher = blake3::Hasher::new();
    match serde_json::to_writer(&mut hasher, value) {
        Ok(()) => hasher.finalize().to_hex().to_string(),
        // Only a map with keys that are not text fails, which rows never hold; such a
        // value hashes as empty, as it did when it was serialised first.
        Err(_) => digest(&[]),
    }
}

/// Rows set aside under `--skip-invalid`, per input file.
type Rejects = rejects::Rejects;

/// Imports claims and documents into `project` in one transaction.
pub fn import(
    project: &mut Project,
    lead: &Lead,
    req: &ImportRequest,
    progress: &mut dyn Progress,
) -> Result<ImportReport> {
    project.acting_lead(lead)?;
    let inputs = check_request(project, req)?;
    let map = FieldMap::parse(&req.map)?;
    let mut rejects = Rejects::default();
    let mut report = ImportReport::default();

    progress.phase("reading", 0);
    let mut docs = Vec::new();
    let mut documents_set_aside = std::collections::HashSet::new();
    for path in &req.documents {
        report.files.push(path.display().to_string());
        let start = docs.len();
        let bad = documents::read(path, req.skip_invalid, report.rows, progress, &mut docs)?;
        report.rows += (docs.len() - start + bad.len()) as u64;
        if let Some(longer_than) = req.paragraphs {
            for d in &mut docs[start..] {
                documents::into_paragraphs(d, longer_than);
            }
        }
        for bad in bad {
            documents_set_aside.extend(id_in_row(&bad.raw));
            rejects.add(path, bad, req.skip_invalid)?;
        }
    }
    let mut claims = Vec::new();
    for path in &req.claims {
        read_claims(
            req,
            &map,
            path,
            &mut claims,
            &mut rejects,
            &mut report,
            progress,
        )?;
    }
    // A control item's known answers must fit the design now, before anything is written:
    // a control that fits no design could never be corrected (its row is then a clash).
    let design = project.settings()?.design;
    for c in &claims {
        if let Some(control) = &c.control {
            if let Some(problem) = crate::design::control_problem(design.as_ref(), control) {
                return Err(Error::input(&c.file, c.line, Some("control"), problem));
            }
        }
    }
    assign_ids(req.preset, &mut claims);
    if req.preset == Preset::CovidFact {
        claims::link_covid_fact_refutations(&mut claims);
    }
    // Hashing every row is the costliest step before writing; fill the hashes in parallel.
    parallel::map_ordered(&claims, |c| {
        c.hash();
    });
    let versions = dedupe(
        &mut docs,
        |d| (d.ext_id.as_str(), d.hash(), d.line),
        |d| (d.file.to_string(), d.raw.clone()),
        &mut rejects,
        req.skip_invalid,
    )?;
    documents_set_aside.extend(versions);
    dedupe(
        &mut claims,
        |c| (c.ext_id.as_deref().unwrap_or_default(), c.hash(), c.line),
        |c| (c.file.to_string(), c.raw.clone()),
        &mut rejects,
        req.skip_invalid,
    )?;

    let now = project.clock.now_ms();
    let label = req
        .claims
        .iter()
        .chain(&req.documents)
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let batch = write::Batch {
        source: &label,
        preset: req.preset,
        documents: docs,
        claims: &claims,
        now,
        skip_invalid: req.skip_invalid,
        documents_set_aside,
    };
    write::write(project, batch, &mut rejects, &mut report, progress)?;
    rejects.finish(&mut report, &inputs)?;
    Ok(report)
}

/// The request's checks before anything is read: something to import, a writable
/// project, no file named twice, rejects files that can be written, `--map` only with
/// the generic preset. Returns the import's inputs, which no output may overwrite.
fn check_request(project: &Project, req: &ImportRequest) -> Result<crate::output::Inputs> {
    if req.claims.is_empty() && req.documents.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "nothing to import: name a claims file or --docs",
        ));
    }
    if req.paragraphs.is_some() && req.documents.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "--paragraphs merges the sentences of --docs documents: name them with --docs",
        ));
    }
    if req.paragraphs == Some(0) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "--paragraphs 0 would make every sentence a paragraph: give more characters (1000 if none given)",
        ));
    }
    project.store.require_writable()?;
    refuse_repeated_inputs(req)?;
    let inputs = req
        .claims
        .iter()
        .chain(&req.documents)
        .fold(crate::output::Inputs::project(project.path()), |i, p| {
            i.file(p)
        });
    if req.skip_invalid {
        // The rejects files are refused now, before the project changes, and their
        // folders shown writable: a temporary file is made beside each and dropped.
        let mut probe = crate::output::Outputs::new(inputs.clone());
        for path in req.claims.iter().chain(&req.documents) {
            let out = rejects::rejects_path(path);
            probe.file(&out)?;
            rejects::refuse_foreign(&out)?;
        }
    }
    if !req.map.is_empty() && !matches!(req.preset, Preset::Native | Preset::Generic) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "--map goes with the generic preset",
        ));
    }
    Ok(inputs)
}

/// Reads the claims file at `path` into `claims`, rows set aside into `rejects`; the
/// first rows show whether the file is the preset's dataset.
fn read_claims(
    req: &ImportRequest,
    map: &FieldMap,
    path: &Path,
    claims: &mut Vec<ClaimInput>,
    rejects: &mut Rejects,
    report: &mut ImportReport,
    progress: &mut dyn Progress,
) -> Result<()> {
    let name: std::sync::Arc<str> = path.display().to_string().into();
    report.files.push(name.to_string());
    let convert = |row: std::result::Result<rows::Row, rows::BadRow>| {
        let row = row?;
        match claims::from_row(req.preset, map, &name, &row) {
            Ok(mut c) => {
                if req.skip_invalid {
                    c.raw = row.raw;
                }
                Ok(c)
            }
            Err(error) => Err(rows::BadRow {
                error,
                raw: row.raw,
            }),
        }
    };
    let mut take = |parsed: Vec<std::result::Result<ClaimInput, rows::BadRow>>,
                    report: &mut ImportReport|
     -> Result<()> {
        for c in parsed {
            report.rows += 1;
            match c {
                Ok(c) => claims.push(c),
                Err(bad) => rejects.add(path, bad, req.skip_invalid)?,
            }
        }
        progress.set(report.rows);
        progress.check_cancelled()
    };
    let mut checked = false;
    rows::batches(path, |batch| {
        if !checked && req.preset.has_shape() {
            let readable = batch.readable(&name, FIRST_ROWS);
            req.preset.check_fits(&name, &readable)?;
            checked = !readable.is_empty();
        }
        take(batch.map(&name, convert), report)
    })?;
    Ok(())
}

/// Refuses a file named twice in one import: rows without an id take one from their
/// content and the n-th identical row a suffix, so the second reading would add every
/// such row again.
fn refuse_repeated_inputs(req: &ImportRequest) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for path in req.claims.iter().chain(&req.documents) {
        if !seen.insert(same_file(path)) {
            return Err(Error::input(
                &path.display().to_string(),
                0,
                None,
                "this file is named twice in one import; name each file once (nothing was imported)",
            ));
        }
    }
    Ok(())
}

/// What makes two names one file: its device and inode where there are such (hard
/// links too), else its resolved path.
#[derive(Debug, PartialEq, Eq, Hash)]
enum SameFile {
    Inode(u64, u64),
    Path(PathBuf),
}

fn same_file(path: &Path) -> SameFile {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata(path) {
            return SameFile::Inode(m.dev(), m.ino());
        }
    }
    SameFile::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Rows without an id get one from their content; the n-th identical row gets a suffix,
/// so a file with repeated rows keeps all of them and re-importing it still adds nothing.
fn assign_ids(preset: Preset, claims: &mut [ClaimInput]) {
    let prefix = match preset {
        Preset::Native | Preset::Generic => "row",
        other => other.name(),
    };
    let mut seen: HashMap<String, u32> = HashMap::new();
    for c in claims.iter_mut().filter(|c| c.ext_id.is_none()) {
        let h = c.hash().to_string();
        let n = seen.entry(h.clone()).or_insert(0);
        *n += 1;
        c.ext_id = Some(match *n {
            1 => format!("{prefix}:{}", &h[..16]),
            k => format!("{prefix}:{}-{k}", &h[..16]),
        });
    }
}

/// Drops exact repeats of an id within one import and refuses an id given twice with
/// different content. `key` gives (id, content hash, line); `place` (file, raw row) is
/// only asked for when a row is refused.
fn dedupe<T>(
    items: &mut Vec<T>,
    key: impl for<'a> Fn(&'a T) -> (&'a str, &'a str, u64),
    place: impl Fn(&T) -> (String, String),
    rejects: &mut Rejects,
    skip_invalid: bool,
) -> Result<Vec<String>> {
    // The rows stay where they are and the map borrows their ids and hashes: a second
    // list of the rows and a copy of every id and hash once raised the import's peak.
    let mut keep = Vec::with_capacity(items.len());
    let mut versions = Vec::new();
    let mut first: HashMap<&str, (&str, u64)> = HashMap::with_capacity(items.len());
    for item in items.iter() {
        let (id, hash, line) = key(item);
        match first.get(id) {
            None => {
                first.insert(id, (hash, line));
                keep.push(true);
            }
            Some(&(h0, _)) if h0 == hash => keep.push(false),
            Some(&(_, line0)) => {
                let message = format!(
                    "id {id:?} is used again with different content (first at line {line0})"
                );
                let (file, raw) = place(item);
                let error = Error::input(&file, line, Some("id"), message);
                rejects.add_error(&file, error, raw, skip_invalid)?;
                versions.push(id.to_string());
                keep.push(false);
            }
        }
    }
    drop(first);
    let mut keep = keep.into_iter();
    items.retain(|_| keep.next().unwrap_or(false));
    Ok(versions)
}

/// The id a row set aside as unreadable gives itself, if its JSON can be read that far.
fn id_in_row(raw: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(raw)
        .ok()?
        .get("id")?
    {
        serde_json::Value::String(s) => Some(s.trim().to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
