//! What a returned pack may hold, from what its manifest says was issued: checked on the
//! pack's census (sizes SQLite keeps in each row's header) before any of its bulk is read.
//! A merge trusts the manifest for this only once its signature is checked against the
//! project's [`PackKey`], so a pack padded within the general bounds (hundreds of MiB of
//! answers, rows or free pages) is refused at once, not after seconds of reading it.

use super::{sign, signature, Manifest};
use crate::{Project, Result};
use factdesk_store::pack_returned::Census;

/// The most answers a pack keeps for one item (its first and four corrections), and the
/// most a returned pack may hold per item it was issued, on average: a pack of 4,000
/// items with 50 corrections each, within the old bound, held the merge's write lock for
/// 38 s, and colleagues' answers waited and failed (hostile pass of session 25).
pub const ANSWERS_PER_ITEM: u64 = 5;

/// The most bytes one answer may take: a screen writes at most a 10,000-character
/// comment (and, on a refutation, as long a text), under 130 KiB even with every
/// character escaped.
const ANSWER_BYTES: u64 = 256 * 1024;

/// The answers' bytes a pack may hold for each item it was issued, beyond [`ANSWER_ROOM`]:
/// a few of the longest answers on every item, or hundreds of ordinary ones (a few
/// hundred bytes each).
const ANSWER_BYTES_PER_ITEM: u64 = 256 * 1024;
const ANSWER_ROOM: u64 = 1024 * 1024;

/// A pack's file holds its text in SQLite's pages, cells and indexes: at most this many
/// bytes per byte of text and per row, and this many more for its schema and header
/// (a pack of 3 items, 14 passages and one answer: 17 KB of text in a 53 KB file).
const FILE_PER_TEXT_BYTE: u64 = 4;
const FILE_PER_ROW: u64 = 256;
const FILE_ROOM: u64 = 4 * 1024 * 1024;

const MIB: f64 = 1024.0 * 1024.0;

/// The project's id and the secret its packs are signed with: what a merge needs to trust
/// a pack's manifest before it reads the rest. It shows and signs nothing.
#[derive(Clone)]
pub struct PackKey {
    project_id: String,
    secret: Vec<u8>,
}

impl std::fmt::Debug for PackKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackKey")
            .field("project_id", &self.project_id)
            .finish_non_exhaustive()
    }
}

impl PackKey {
    /// Refuses a manifest of another project, or altered after it was signed.
    pub(super) fn vouch(
        &self,
        manifest: &Manifest,
        text: &str,
        signed: &str,
    ) -> std::result::Result<(), String> {
        if manifest.project_id != self.project_id {
            return Err(format!(
                "it belongs to another project ({}), not this one ({})",
                manifest.project_id, self.project_id
            ));
        }
        if !sign::same(&signature(&self.secret, text), signed) {
            return Err(
                "its manifest was altered after it was issued (the signature does not match)"
                    .into(),
            );
        }
        Ok(())
    }
}

impl Project {
    /// The key returned packs are read with before a merge takes the project (see
    /// [`super::ReturnedPack::read_signed`]): a server asks for it, then reads the packs
    /// without holding a connection. Not a use case: the merge checks the lead.
    pub fn pack_key(&self) -> Result<PackKey> {
        Ok(PackKey {
            project_id: self.store.project()?.id,
            secret: factdesk_store::tx::secret(self.store.read())?,
        })
    }
}

/// The answers' bytes a pack of `items` items may hold.
fn answer_budget(items: u64) -> u64 {
    items
        .saturating_mul(ANSWER_BYTES_PER_ITEM)
        .saturating_add(ANSWER_ROOM)
}

/// Refuses a pack that holds more than Factdesk writes for the items its manifest says
/// were issued, saying what and how much.
pub(super) fn check(manifest: &Manifest, census: &Census) -> std::result::Result<(), String> {
    let items = manifest.tasks.len() as u64;
    let most = ANSWERS_PER_ITEM.saturating_mul(items.max(1));
    if census.answers > most {
        // An annotator answers an item once and corrects it a few times at most: rows
        // added by hand (500,000 took 35 s to refuse one by one) are refused whole.
        return Err(format!(
            "it holds {} answers for {items} items, more than {ANSWERS_PER_ITEM} an item: Factdesk never writes such a pack",
            census.answers
        ));
    }
    // One report an item at most, each within what the project takes (a character is at
    // most 4 bytes): a padded table is refused before its text is read.
    if census.problems > items {
        return Err(format!(
            "its problems table holds {} reports for {items} items, more than one an item: Factdesk never writes such a pack",
            census.problems
        ));
    }
    let report_bytes = 4 * crate::problems::REPORT_CHARS as u64;
    if census.largest_problem > report_bytes {
        return Err(format!(
            "a report in its problems table (field text) takes {}, more than any report Factdesk writes ({} at most)",
            size(census.largest_problem),
            size(report_bytes)
        ));
    }
    if census.largest_answer > ANSWER_BYTES {
        return Err(format!(
            "one of its answers takes {}, more than any answer Factdesk writes ({} at most)",
            size(census.largest_answer),
            size(ANSWER_BYTES)
        ));
    }
    let budget = answer_budget(items);
    if census.answer_bytes > budget {
        return Err(format!(
            "its answers take {}, more than the answers to {items} items ever take ({} at most)",
            size(census.answer_bytes),
            size(budget)
        ));
    }
    // The issued rows' digest would say so too, after reading them all.
    let altered = "its issued items were altered after it was issued (the contents do not match the signed digest";
    if census.items != items {
        return Err(format!(
            "{altered}: it holds {} items where {items} were issued)",
            census.items
        ));
    }
    if let Some(issued) = manifest.issued_bytes.filter(|&b| b != census.issued_bytes) {
        return Err(format!(
            "{altered}: its items and passages take {} where {} were issued)",
            size(census.issued_bytes),
            size(issued)
        ));
    }
    // Free pages or anything else no row accounts for: a file this large was padded.
    let text = census
        .issued_bytes
        .saturating_add(census.answer_bytes)
        .saturating_add(census.problem_bytes);
    let file_most = text
        .saturating_mul(FILE_PER_TEXT_BYTE)
        .saturating_add(census.rows().saturating_mul(FILE_PER_ROW))
        .saturating_add(FILE_ROOM);
    if census.file_bytes > file_most {
        return Err(format!(
            "its file takes {} where its rows take {}: Factdesk never writes a pack this much larger than what it holds",
            size(census.file_bytes),
            size(text)
        ));
    }
    Ok(())
}

/// `bytes` for a person: "53.2 KiB", "180.0 MiB".
fn size(bytes: u64) -> String {
    if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / MIB)
    }
}
