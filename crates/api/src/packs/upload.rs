//! Returned packs sent to a server as base64 in a JSON body. A server parses the body
//! borrowing its text ([`SentPacks`]) and decodes each pack straight into a file of its
//! own, so it holds the body once (it held it three times over: the body, the parsed
//! strings, each decoded pack), then reads each file as a merge does, before it takes the
//! project.

use super::limits::PackKey;
use super::{MergeOutcome, ReturnedPack, Unanswered};
use crate::sent::{as_sent, UploadFile};
use crate::Lead;
use crate::Project;
use crate::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Returned packs as sent, to merge.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PacksUpload {
    pub packs: Vec<UploadFile>,
    /// Take back the work of a pack with no answers instead of refusing it.
    #[serde(default)]
    pub give_back: bool,
}

/// A [`PacksUpload`] as read from a request body, its texts borrowed from the body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentPacks<'a> {
    #[serde(borrow)]
    pub packs: Vec<SentPack<'a>>,
    #[serde(default)]
    pub give_back: bool,
}

/// One pack as sent: its name on the sender's machine and its content in base64.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentPack<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub base64: Cow<'a, str>,
}

/// Sent packs written to a folder of the server's own, each in a folder of its own (two
/// may share a name); the folder is removed when this and what it is read into are gone.
#[derive(Debug)]
pub struct WrittenPacks {
    scratch: tempfile::TempDir,
    files: Vec<PathBuf>,
    unanswered: Unanswered,
}

/// Returned packs sent to a server, each read (or refused) before the project is taken.
#[derive(Debug)]
pub struct ReturnedUpload {
    /// The server's folder the packs were written to, removed when this is dropped.
    scratch: tempfile::TempDir,
    pub(super) packs: Vec<(String, Result<ReturnedPack>)>,
    pub(super) unanswered: Unanswered,
}

fn bad(field: String, message: String) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("{field}: {message}"))
}

/// Decodes `base64` into a new file at `path` a piece at a time.
fn decode_into(path: &Path, base64: &str, field: &str, name: &str) -> Result<()> {
    use base64::engine::general_purpose::STANDARD;
    let file = std::fs::File::create(path).map_err(|e| Error::io(name, &e))?;
    let mut out = std::io::BufWriter::new(file);
    let mut decoder = base64::read::DecoderReader::new(base64.as_bytes(), &STANDARD);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = decoder.read(&mut buf).map_err(|e| {
            bad(
                format!("{field}.base64"),
                format!("{name} is not base64 ({e}); nothing was merged"),
            )
        })?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n]).map_err(|e| Error::io(name, &e))?;
    }
    out.flush().map_err(|e| Error::io(name, &e))
}

impl<'a> SentPacks<'a> {
    /// `upload` as sent, borrowed.
    pub fn of(upload: &'a PacksUpload) -> SentPacks<'a> {
        SentPacks {
            packs: (upload.packs.iter())
                .map(|f| SentPack {
                    name: Cow::Borrowed(&f.name),
                    base64: Cow::Borrowed(&f.base64),
                })
                .collect(),
            give_back: upload.give_back,
        }
    }

    /// Writes each pack under its own name, in a numbered folder of a folder of its own
    /// (as `crate::sent` places files, so errors name them as sent), decoding as it goes.
    pub fn write(&self) -> Result<WrittenPacks> {
        let scratch = tempfile::tempdir().map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot make a temporary folder for the packs: {e}"),
            )
        })?;
        let mut files = Vec::with_capacity(self.packs.len());
        for (i, pack) in self.packs.iter().enumerate() {
            let field = format!("packs[{i}]");
            let name: &str = &pack.name;
            crate::sent::plain_name(name, &field, "merged")?;
            let folder = scratch.path().join(i.to_string());
            std::fs::create_dir(&folder)
                .map_err(|e| Error::io(&folder.display().to_string(), &e))?;
            let path = folder.join(name);
            decode_into(&path, &pack.base64, &field, name)?;
            files.push(path);
        }
        Ok(WrittenPacks {
            scratch,
            files,
            unanswered: if self.give_back {
                Unanswered::GiveBack
            } else {
                Unanswered::Refuse
            },
        })
    }
}

impl WrittenPacks {
    /// Reads each pack: with the project's key as a merge does ([`ReturnedPack::read_signed`]),
    /// without it within what its own manifest says ([`ReturnedPack::read`]).
    pub fn read(self, key: Option<&PackKey>) -> ReturnedUpload {
        let packs = (self.files.iter())
            .map(|p| {
                let read = match key {
                    Some(key) => ReturnedPack::read_signed(p, key),
                    None => ReturnedPack::read(p),
                };
                (p.display().to_string(), read)
            })
            .collect();
        ReturnedUpload {
            scratch: self.scratch,
            packs,
            unanswered: self.unanswered,
        }
    }
}

impl ReturnedUpload {
    /// Writes each sent pack to a folder of its own and reads it, without the project's
    /// key: each is checked against it when merged. A server reads with the key
    /// ([`SentPacks::write`], then [`WrittenPacks::read`]).
    pub fn read(upload: &PacksUpload) -> Result<ReturnedUpload> {
        Ok(SentPacks::of(upload).write()?.read(None))
    }

    /// `text` with the server's folders taken out, so each pack reads as its sent name.
    pub(super) fn as_sent(&self, text: &str) -> String {
        as_sent(self.scratch.path(), text, self.packs.len())
    }
}

/// Merges returned packs sent as bytes, each as [`Project::merge_packs`] merges a file:
/// validated whole before anything changes; outcomes name each file as sent. A server
/// reads them first, without a connection to the project ([`SentPacks::write`],
/// [`WrittenPacks::read`] with [`Project::pack_key`]), then merges them
/// ([`Project::merge_upload_read`]).
pub fn merge_upload(
    project: &mut Project,
    lead: &Lead,
    upload: &PacksUpload,
) -> Result<Vec<MergeOutcome>> {
    project.acting_lead(lead)?;
    let key = project.pack_key()?;
    let read = SentPacks::of(upload).write()?.read(Some(&key));
    project.merge_upload_read(lead, &read)
}

/// Whether `lead` may merge packs into `project` (the check [`merge_upload`] makes first),
/// so a server refuses a large body before it reads it.
pub fn may_merge(project: &Project, lead: &Lead) -> Result<()> {
    project.acting_lead(lead)
}
