//! A returned pack read before the project is touched, as hostile input: its schema
//! checked, its manifest read and (given the project's key) checked, then what it holds
//! measured against what was issued before any of its bulk is read (see `limits`), its
//! issued rows hashed one at a time, and every read within a deadline (see
//! `factdesk_store::pack_returned`). A rewritten pack is refused at once, and the project
//! (or a server's connection to it) is only taken once the pack is in memory.

use super::limits::{self, PackKey};
use super::{parse_manifest, sign, Manifest};
use crate::{Error, ErrorCode, Result};
use factdesk_store::pack_returned::{self, Bounds, ReadError};
use factdesk_store::pack_store::{PackAnswerRow, PackProblemRow};
use sha2::{Digest, Sha256};
use std::path::Path;

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
    /// The problems its holder reported, each checked and its text trimmed (see
    /// [`check_problems`]).
    pub(super) problems: Vec<PackProblemRow>,
}

pub(super) fn refused(file: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!("{file}: refused, nothing was changed: {why}"),
    )
}

/// The refusal of a pack whose issued rows do not hash to its signed digest.
pub(super) const ALTERED_ITEMS: &str = "its issued items were altered after it was issued (the contents do not match the signed digest)";

/// Whether the file starts as every SQLite database does.
fn is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| &header == b"SQLite format 3\0")
}

/// Why reading a pack stopped.
enum Stop {
    Read(ReadError),
    /// Its manifest cannot be read.
    Unreadable(Error),
    Refused(String),
}

impl From<ReadError> for Stop {
    fn from(e: ReadError) -> Stop {
        Stop::Read(e)
    }
}

impl ReturnedPack {
    /// Reads the pack at `file` without writing a byte of it, within the default bounds
    /// and what its own manifest says was issued; the merge checks the manifest after.
    pub fn read(file: &Path) -> Result<ReturnedPack> {
        ReturnedPack::read_within(file, &Bounds::default())
    }

    /// [`ReturnedPack::read`] within `bounds`: a pack whose schema is not the one
    /// Factdesk writes, or that holds or takes more than they allow, is refused.
    pub fn read_within(file: &Path, bounds: &Bounds) -> Result<ReturnedPack> {
        read_pack(file, bounds, None)
    }

    /// Reads the pack at `file` as a merge does: its manifest must be this project's and
    /// signed by it before anything else is read, and then what it may hold follows from
    /// what was issued, so a padded pack is refused before its bulk is read.
    pub fn read_signed(file: &Path, key: &PackKey) -> Result<ReturnedPack> {
        read_pack(file, &Bounds::default(), Some(key))
    }

    /// The file as the lead named it.
    pub fn file(&self) -> &str {
        &self.name
    }
}

fn read_pack(file: &Path, bounds: &Bounds, key: Option<&PackKey>) -> Result<ReturnedPack> {
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
    let read = pack_returned::read(file, bounds, |pack| {
        let (text, signature) = pack
            .manifest()?
            .ok_or_else(|| Stop::Refused("it is not a pack (it has no manifest)".into()))?;
        let manifest = parse_manifest(&text, file).map_err(Stop::Unreadable)?;
        if let Some(key) = key {
            key.vouch(&manifest, &text, &signature)
                .map_err(Stop::Refused)?;
        }
        limits::check(&manifest, &pack.census()?).map_err(Stop::Refused)?;
        let mut digest = Sha256::new();
        pack.issued(&mut |bytes| digest.update(bytes))?;
        let digest = sign::hex(&digest.finalize());
        // With the key the digest is checked now, before the answers are read.
        if key.is_some() && !sign::same(&digest, &manifest.digest) {
            return Err(Stop::Refused(ALTERED_ITEMS.into()));
        }
        let (answers, malformed) = pack.answers()?;
        check_answers_per_item(&answers).map_err(Stop::Refused)?;
        let mut problems = pack.problems()?;
        check_problems(&manifest, &mut problems).map_err(Stop::Refused)?;
        Ok(ReturnedPack {
            name: name.clone(),
            manifest,
            text,
            signature,
            digest,
            answers,
            malformed,
            problems,
        })
    });
    read.map_err(|stop| match stop {
        Stop::Read(ReadError::Store(factdesk_store::Error::NotAPack(_))) if is_sqlite(file) => {
            refused(
                &name,
                "it is not a pack (it has no manifest): a project file or another database",
            )
        }
        Stop::Read(ReadError::Refused(why)) | Stop::Refused(why) => refused(&name, why),
        Stop::Read(ReadError::Store(e)) => unreadable(&e),
        Stop::Unreadable(e) => unreadable(&e),
    })
}

/// Refuses the pack at the first item holding more answers than a pack session keeps
/// for one item ([`limits::ANSWERS_PER_ITEM`]): the census holds them to that on
/// average, and 150 answers on one item of a 30-item pack went in, where the project
/// takes ten from one person (hostile pass of session 34).
fn check_answers_per_item(answers: &[PackAnswerRow]) -> std::result::Result<(), String> {
    let mut per_item = std::collections::HashMap::new();
    for answer in answers {
        let n = per_item.entry(answer.task_id).or_insert(0u64);
        *n += 1;
        if *n > limits::ANSWERS_PER_ITEM {
            return Err(format!(
                "its answers table, row {}, field task_id: answer {n} to task {}, more than the {} a pack keeps for one item: Factdesk never writes such a pack",
                answer.seq,
                answer.task_id,
                limits::ANSWERS_PER_ITEM
            ));
        }
    }
    Ok(())
}

/// Refuses the pack at its first report a pack session never writes: on a task not in
/// the pack, a second on one task, or a text the project would not take
/// ([`crate::problems::REPORT_CHARS`]); each named by table, row and field. The census
/// already held them to one an item and their text's bytes. Each text is left as the
/// project stores it (trimmed), so the merge takes it as it is.
fn check_problems(
    manifest: &Manifest,
    problems: &mut [PackProblemRow],
) -> std::result::Result<(), String> {
    let issued: std::collections::HashSet<i64> = manifest.tasks.iter().copied().collect();
    let mut seen = std::collections::HashMap::new();
    for report in problems {
        let at = |field: &str| format!("its problems table, row {}, field {field}", report.seq);
        if !issued.contains(&report.task_id) {
            return Err(format!(
                "{}: task {} is not in this pack",
                at("task_id"),
                report.task_id
            ));
        }
        if let Some(first) = seen.insert(report.task_id, report.seq) {
            return Err(format!(
                "{}: a second report on task {} (row {first} is the first); a pack keeps one report an item",
                at("task_id"),
                report.task_id
            ));
        }
        let text = crate::problems::checked_text(&report.text)
            .map_err(|e| format!("{}: {}", at("text"), e.message))?
            .to_string();
        report.text = text;
    }
    Ok(())
}
