//! Exports a lead asks for from another machine (the app connected to a team server): the
//! server writes them into a folder of its own choosing, never a path from the client,
//! and sends their bytes back; the client writes them where its user chose, through the
//! same output checks as an export on its own machine ([`crate::output`]).

use crate::answers::{AnswersFormat, AnswersReport};
use crate::gold::{ExportFormat, ExportReport, GoldRequest};
use crate::output::{Inputs, Outputs};
use crate::packs::{PackIssued, PackRequest};
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use ts_rs::TS;

/// The stem the server names its own copy of an export with.
const STEM: &str = "export";

/// One file of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct DownloadFile {
    /// `None`: the file the user names; `Some(s)`: the file `<stem>.<s>` beside it (the
    /// dataset card `card.md`, a split `train.jsonl`).
    pub beside: Option<String>,
    /// The content, in base64.
    pub base64: String,
}

/// An export's files and what the export reported (its paths are the client's once
/// written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Download {
    pub files: Vec<DownloadFile>,
    pub report: Report,
}

/// What the export behind a [`Download`] reported, as that export reports it on the
/// machine it runs on: the JSON is the export's own report, no tag added (each export's
/// report has fields the others lack, which tells them apart).
// One report per export, moved along and never kept in bulk: the gold one's size costs
// nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum Report {
    Gold(ExportReport),
    Answers(AnswersReport),
    Pack(PackIssued),
}

/// Each export's report as a [`Report`], and back: a download that carries another
/// export's report than the one asked for is refused.
macro_rules! reports {
    ($($variant:ident($ty:ty) $what:literal),*) => {
        impl Report {
            /// The export, in words.
            fn what(&self) -> &'static str {
                match self {
                    $(Report::$variant(_) => $what,)*
                }
            }
        }
        $(
            impl From<$ty> for Report {
                fn from(report: $ty) -> Report {
                    Report::$variant(report)
                }
            }

            impl TryFrom<Report> for $ty {
                type Error = Error;

                fn try_from(report: Report) -> Result<$ty> {
                    match report {
                        Report::$variant(report) => Ok(report),
                        other => Err(Error::new(
                            ErrorCode::Io,
                            format!(
                                "the server sent {} where {} was asked for; nothing was written",
                                other.what(),
                                $what
                            ),
                        )),
                    }
                }
            }
        )*
    };
}

reports!(
    Gold(ExportReport) "a gold export",
    Answers(AnswersReport) "the raw answers",
    Pack(PackIssued) "a pack"
);

impl Report {
    /// The report without the server's paths: they are the server's business, and the
    /// client fills in its own once written.
    fn without_paths(mut self) -> Report {
        match &mut self {
            Report::Gold(r) => {
                r.out.clear();
                r.card.clear();
                r.split_files.clear();
            }
            Report::Answers(r) => r.out.clear(),
            Report::Pack(r) => r.path.clear(),
        }
        self
    }

    /// The report with the paths the client wrote: `out`, and the gold export's card and
    /// splits beside it.
    fn written_at(mut self, out: &Path, card: Option<String>, splits: Vec<String>) -> Report {
        let out = out.display().to_string();
        match &mut self {
            Report::Gold(r) => {
                r.out = out;
                if let Some(card) = card {
                    r.card = card;
                }
                r.split_files = splits;
            }
            Report::Answers(r) => r.out = out,
            Report::Pack(r) => r.path = out,
        }
        self
    }
}

fn io(what: &Path, e: &std::io::Error) -> Error {
    Error::io(&what.display().to_string(), e)
}

fn file(path: &Path, beside: Option<String>) -> Result<DownloadFile> {
    let bytes = std::fs::read(path).map_err(|e| io(path, &e))?;
    Ok(DownloadFile {
        beside,
        base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

fn scratch() -> Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(|e| {
        Error::new(
            ErrorCode::Io,
            format!("cannot make a temporary folder for the export: {e}"),
        )
    })
}

impl Project {
    /// The gold export ([`Project::export_gold`]) as bytes: the gold file, its card and,
    /// in FEVER format, each split's file.
    pub fn gold_download(
        &self,
        by: &Lead,
        req: &GoldRequest,
        format: ExportFormat,
    ) -> Result<Download> {
        self.acting_lead(by)?;
        let dir = scratch()?;
        let out = dir.path().join(format!("{STEM}.jsonl"));
        let done = self.export_gold(by, req, &out, format, false)?;
        let mut files = vec![file(&out, None)?];
        let prefix = format!("{STEM}.");
        for other in std::iter::once(&done.card).chain(&done.split_files) {
            let path = PathBuf::from(other);
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let suffix = name.strip_prefix(&prefix).unwrap_or(&name).to_string();
            files.push(file(&path, Some(suffix))?);
        }
        Ok(Download {
            files,
            report: Report::from(done).without_paths(),
        })
    }

    /// A pack issued for an annotator ([`Project::issue_pack`]) as bytes; its items are
    /// reserved as for a pack written beside the project.
    pub fn pack_download(&mut self, by: &Lead, req: &PackRequest) -> Result<Download> {
        self.acting_lead(by)?;
        let dir = scratch()?;
        let out = dir.path().join(format!("{STEM}.fdpack"));
        let done = self.issue_pack(by, req, &out)?;
        Ok(Download {
            files: vec![file(&out, None)?],
            report: Report::from(done).without_paths(),
        })
    }

    /// The raw answers ([`Project::export_answers`]) as bytes.
    pub fn answers_download(&self, by: &Lead, format: AnswersFormat) -> Result<Download> {
        self.acting_lead(by)?;
        let dir = scratch()?;
        let out = dir.path().join(format!("{STEM}.{}", format.as_str()));
        let done = self.export_answers(by, &out, format, false)?;
        Ok(Download {
            files: vec![file(&out, None)?],
            report: Report::from(done).without_paths(),
        })
    }
}

/// `<stem of out>.<suffix>` beside `out`, as a local export names its card and splits.
fn beside(out: &Path, suffix: &str) -> Result<PathBuf> {
    // The suffix came over the network: one plain file name, nothing that climbs out.
    let plain = !suffix.is_empty()
        && !suffix.starts_with('.')
        && !suffix.contains(['/', '\\', '\0'])
        && suffix != "..";
    if !plain {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("the server named an export file {suffix:?}; nothing was written"),
        ));
    }
    let stem = out
        .file_stem()
        .map_or_else(|| "gold".to_string(), |s| s.to_string_lossy().into_owned());
    Ok(out.with_file_name(format!("{stem}.{suffix}")))
}

/// Writes `download` at `out` (and its other files beside it), all together or none,
/// refusing what a local export refuses (a project or pack, a folder, a name given
/// twice); with `replace: false` an existing `out` is refused too, as the raw answers
/// are. The report comes back as the export's own (another export's is refused before
/// anything is written), with the paths written.
pub fn write<R>(download: Download, out: &Path, replace: bool) -> Result<R>
where
    R: TryFrom<Report, Error = Error> + Into<Report>,
{
    let report = R::try_from(download.report)?;
    crate::output::refuse_existing(out, replace)?;
    let mut outputs = Outputs::new(Inputs::default());
    let mut card = None;
    let mut splits = Vec::new();
    for f in &download.files {
        let target = match &f.beside {
            None => out.to_path_buf(),
            Some(suffix) => beside(out, suffix)?,
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "the server sent {} unreadable ({e}); nothing was written",
                        target.display()
                    ),
                )
            })?;
        outputs.bytes(&target, &bytes)?;
        match f.beside.as_deref() {
            None => {}
            Some("card.md") => card = Some(target.display().to_string()),
            Some(_) => splits.push(target.display().to_string()),
        }
    }
    if !download.files.iter().any(|f| f.beside.is_none()) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "the server sent no export file; nothing was written",
        ));
    }
    outputs.commit()?;
    R::try_from(report.into().written_at(out, card, splits))
}
