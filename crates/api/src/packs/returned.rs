//! A returned pack read before the project is touched: as hostile input, its schema
//! checked and its rows and time bounded (see `factdesk_store::pack_returned`), so a
//! rewritten pack is refused at once and the project (or a server's connection to it) is
//! only taken once the pack is in memory.

use super::MergeOutcome;
use super::{parse_manifest, sign, Manifest, Unanswered};
use crate::sent::{as_sent, place, UploadFile};
use crate::{Actor, Project};
use crate::{Error, ErrorCode, Result};
use factdesk_store::pack_returned::{self, Bounds, ReadError};
use factdesk_store::pack_store::PackAnswerRow;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A pack read whole within bounds: what its manifest says and what it holds.
#[derive(Debug, Clone)]
pub struct ReturnedPack {
    /// The file as the lead named it.
    pub(super) name: String,
    pub(super) manifest: Manifest,
    /// The manifest's exact text and its signature.
    pub(super) text: String,
    pub(super) signature: String,
    /// The digest of the issued rows as the pack holds them now.
    pub(super) digest: String,
    pub(super) answers: Vec<PackAnswerRow>,
    pub(super) malformed: Vec<(String, String)>,
}

pub(super) fn refused(file: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!("{file}: refused, nothing was changed: {why}"),
    )
}

/// Whether the file starts as every SQLite database does.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| &header == b"SQLite format 3\0")
}

/// The most answers a returned pack may hold per item it was issued (corrections
/// included).
pub const ANSWERS_PER_ITEM: usize = 50;

impl ReturnedPack {
    /// Reads the pack at `file` without writing a byte of it, within the default bounds.
    pub fn read(file: &Path) -> Result<ReturnedPack> {
        ReturnedPack::read_within(file, &Bounds::default())
    }

    /// [`ReturnedPack::read`] within `bounds`: a pack whose schema is not the one
    /// Factdesk writes, or that holds or takes more than they allow, is refused.
    pub fn read_within(file: &Path, bounds: &Bounds) -> Result<ReturnedPack> {
        let name = file.display().to_string();
        if !file.is_file() {
            return Err(refused(&name, "there is no such file"));
        }
        let unreadable = |e: &dyn std::fmt::Display| {
            refused(
                &name,
                format!("it cannot be read as a pack (damaged or altered): {e}"),
            )
        };
        let rows = match pack_returned::read(file, bounds) {
            Ok(rows) => rows,
            Err(ReadError::Store(factdesk_store::Error::NotAPack(_))) if is_sqlite(file) => {
                return Err(refused(
                    &name,
                    "it is not a pack (it has no manifest): a project file or another database",
                ))
            }
            Err(ReadError::Refused(why)) => return Err(refused(&name, why)),
            Err(ReadError::Store(e)) => return Err(unreadable(&e)),
        };
        // An annotator answers an item once and corrects it a few times at most; a pack
        // with far more answers than items was filled by hand (500,000 rows took 35 s to
        // refuse one by one), and is refused whole before any is checked.
        let answers = rows.answers.len() + rows.malformed.len();
        let most = ANSWERS_PER_ITEM.saturating_mul(rows.issued.len().max(1));
        if answers > most {
            return Err(refused(
                &name,
                format!(
                    "it holds {answers} answers for {} items, more than {ANSWERS_PER_ITEM} an item: Factdesk never writes such a pack",
                    rows.issued.len()
                ),
            ));
        }
        let (text, signature) = rows
            .manifest
            .ok_or_else(|| refused(&name, "it is not a pack (it has no manifest)"))?;
        let manifest = parse_manifest(&text, file).map_err(|e| unreadable(&e))?;
        Ok(ReturnedPack {
            name,
            manifest,
            text,
            signature,
            digest: sign::digest_lines(&rows.issued),
            answers: rows.answers,
            malformed: rows.malformed,
        })
    }

    /// The file as the lead named it.
    pub fn file(&self) -> &str {
        &self.name
    }
}

/// Returned packs sent to a server, each read (or refused) before the project is taken.
#[derive(Debug)]
pub struct ReturnedUpload {
    /// The server's folder the packs were written to, removed when this is dropped.
    scratch: tempfile::TempDir,
    pub(super) packs: Vec<(String, Result<ReturnedPack>)>,
    pub(super) unanswered: Unanswered,
}

impl ReturnedUpload {
    /// Writes each sent pack to a folder of its own and reads it.
    pub fn read(upload: &PacksUpload) -> Result<ReturnedUpload> {
        let scratch = tempfile::tempdir().map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot make a temporary folder for the packs: {e}"),
            )
        })?;
        let paths: Vec<PathBuf> = place(scratch.path(), &upload.packs, "packs", 0)?;
        let packs = paths
            .iter()
            .map(|p| (p.display().to_string(), ReturnedPack::read(p)))
            .collect();
        Ok(ReturnedUpload {
            scratch,
            packs,
            unanswered: if upload.give_back {
                Unanswered::GiveBack
            } else {
                Unanswered::Refuse
            },
        })
    }

    /// `text` with the server's folders taken out, so each pack reads as its sent name.
    pub(super) fn as_sent(&self, text: &str) -> String {
        as_sent(self.scratch.path(), text, self.packs.len())
    }
}

/// Returned packs as sent, to merge.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacksUpload {
    pub packs: Vec<UploadFile>,
    /// Take back the work of a pack with no answers instead of refusing it.
    #[serde(default)]
    pub give_back: bool,
}

/// Merges returned packs sent as bytes, each as [`Project::merge_packs`] merges a file:
/// validated whole before anything changes; outcomes name each file as sent. A server
/// reads them first, without a connection to the project ([`ReturnedUpload::read`]), then
/// merges them ([`Project::merge_upload_read`]).
pub fn merge_upload(
    project: &mut Project,
    lead: &Actor,
    upload: &PacksUpload,
) -> Result<Vec<MergeOutcome>> {
    project.require_lead(lead, "merge packs")?;
    let read = ReturnedUpload::read(upload)?;
    project.merge_upload_read(lead, &read)
}

/// Whether `lead` may merge packs into `project` (the check [`merge_upload`] makes first),
/// so a server refuses a large body before it reads it.
pub fn may_merge(project: &Project, lead: &Actor) -> Result<()> {
    project.require_lead(lead, "merge packs")
}
