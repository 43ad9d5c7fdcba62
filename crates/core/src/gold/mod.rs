//! Gold labels from many annotators' answers, and the split each claim family lands in.
//!
//! Everything here is pure: callers turn their answers into [`Vote`]s (items, annotators
//! and categories as 0-based indices) and get labels back. The store and API layers decide
//! which answers count (flagged annotators, lead decisions) before calling in.

mod aggregate;
mod dawid_skene;
mod splits;

pub use aggregate::majority;
pub use dawid_skene::{dawid_skene, DawidSkene, DawidSkeneOptions};
pub use splits::split_of;

/// One answer: which item, which annotator, which category (all 0-based indices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vote {
    pub item: usize,
    pub annotator: usize,
    pub category: usize,
}
