//! What one import writes, as the readers hand it to the writers.

use super::claims::ClaimInput;
use super::documents::DocumentInput;
use super::Preset;

/// Everything one import writes.
#[derive(Debug)]
pub(super) struct Batch<'a> {
    pub source: &'a str,
    pub preset: Preset,
    /// Dropped once written and ranked.
    pub documents: Vec<DocumentInput>,
    pub claims: &'a [ClaimInput],
    pub now: i64,
    pub skip_invalid: bool,
    /// Ids of document rows set aside before writing (unreadable, or a second version
    /// of an id in this import): claims naming them are set aside too.
    pub documents_set_aside: std::collections::HashSet<String>,
}
