//! Packs: an annotator's share of the work in a file of its own, taken to a laptop,
//! answered offline and merged back.
//!
//! A pack holds exactly what the annotator's screens receive for its items: each item as
//! `next` serves it (options under the opaque ids the project issued for this annotator
//! and task), the passage "show in document" gives for each option, the guidelines, and
//! the answers made on it. Task ids are opaque too, drawn from the project's secret and
//! the pack id; the lead's project keeps the map. A manifest signed with HMAC-SHA256
//! under the secret names the pack, the project, the annotator, the items, a digest of
//! what was issued (and its size) and the expiry. A merge reads the pack as hostile input
//! without writing to it (its schema exactly as written, its manifest checked first, then
//! what it holds bounded by what was issued before any of it is read, its time bounded),
//! then takes every answer through the project's own checks, as `submit` does, all in one
//! transaction.

mod issue;
mod limits;
mod merge;
mod outcome;
mod results;
mod returned;
mod session;
mod sign;
mod upload;
mod workplace;

pub use factdesk_store::pack_store::is_pack;
pub use issue::PackRequest;
pub use limits::PackKey;
pub use merge::RefusedAnswer;
pub use merge::{MergeReport, Unanswered};
pub use outcome::MergeOutcome;
pub use results::default_results_path;
pub use returned::ReturnedPack;
pub use session::PackSession;
pub use upload::{may_merge, merge_upload, PacksUpload, ReturnedUpload};
pub use upload::{SentPack, SentPacks, WrittenPacks};
pub use workplace::Workplace;

use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use ts_rs::TS;

/// What a pack says about itself, signed by the project that issued it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Manifest {
    pub format: u32,
    pub pack_id: String,
    pub project_id: String,
    pub annotator: String,
    pub annotator_id: i64,
    pub kind: Option<TaskKind>,
    /// The pack's (opaque) task ids.
    pub tasks: Vec<i64>,
    /// SHA-256 over the issued rows (see `factdesk_store::pack_store::issued_rows`).
    pub digest: String,
    pub issued_at: i64,
    pub expires_at: i64,
    /// Bytes of the issued rows' text (see `factdesk_store::pack_returned::issued_bytes`):
    /// a merge refuses a pack whose issued rows grew before it reads them. Packs made
    /// before it was signed lack it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub issued_bytes: Option<u64>,
}

/// A pack just written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PackIssued {
    pub pack_id: String,
    pub path: String,
    pub annotator: String,
    pub items: u64,
    pub expires_at: i64,
}

/// One pack as `factdesk packs` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PackSummary {
    pub id: String,
    pub annotator: String,
    pub kind: Option<TaskKind>,
    pub items: u64,
    pub created_at: i64,
    pub expires_at: i64,
    pub returned_at: Option<i64>,
    /// Answers merged from this pack.
    pub merged: u64,
    /// out, returned or expired.
    pub state: String,
}

const FORMAT: u32 = 2;

impl Project {
    /// Every pack this project issued, newest first.
    pub fn packs(&self, lead: &Lead) -> Result<Vec<PackSummary>> {
        self.acting_lead(lead)?;
        let now = self.clock.now_ms();
        Ok(factdesk_store::pack_file::list(self.store.read())?
            .into_iter()
            .map(|p| PackSummary {
                state: if p.returned_at.is_some() {
                    "returned"
                } else if p.expires_at <= now {
                    "expired"
                } else {
                    "out"
                }
                .to_string(),
                id: p.id,
                annotator: p.annotator,
                kind: p.kind,
                items: p.items as u64,
                created_at: p.created_at,
                expires_at: p.expires_at,
                returned_at: p.returned_at,
                merged: p.merged as u64,
            })
            .collect())
    }
}

/// The manifest and signature of a pack file, or `None` if it is not one.
fn read_manifest(
    conn: &factdesk_store::Read,
    path: &Path,
) -> Result<Option<(Manifest, String, String)>> {
    let Some((text, signature)) = factdesk_store::pack_store::manifest(conn)? else {
        return Ok(None);
    };
    Ok(Some((parse_manifest(&text, path)?, text, signature)))
}

/// The manifest a pack's text says, refused when it cannot be read or is of another format.
fn parse_manifest(text: &str, path: &Path) -> Result<Manifest> {
    let manifest: Manifest = serde_json::from_str(text).map_err(|e| {
        Error::input(
            &path.display().to_string(),
            0,
            Some("manifest.manifest"),
            format!("the pack's manifest cannot be read ({e}); the file was altered or damaged"),
        )
    })?;
    if manifest.format != FORMAT {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "{} is a pack of format {}; this Factdesk reads format {FORMAT}",
                path.display(),
                manifest.format
            ),
        ));
    }
    Ok(manifest)
}

/// The signature of a manifest's exact text under the project's secret.
fn signature(secret: &[u8], manifest_text: &str) -> String {
    sign::hex(&sign::hmac_sha256(
        secret,
        format!("manifest:{manifest_text}").as_bytes(),
    ))
}

/// The id a pack gives one of the project's tasks: under 2^52, so the UI's JavaScript
/// numbers hold it exactly.
fn pack_task_id(secret: &[u8], pack_id: &str, task_id: i64) -> i64 {
    (sign::opaque_id(secret, &format!("task:{pack_id}:{task_id}")) >> 10) + 1
}
