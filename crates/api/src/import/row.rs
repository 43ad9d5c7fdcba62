//! One row of an input file, read or refused: what every reader (JSON Lines, CSV and
//! TSV) hands on, below the readers themselves.

use crate::Error;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The longest row accepted. Real claim rows are kilobytes; a larger one is almost
/// certainly a file that is not what it claims to be.
pub const MAX_ROW_BYTES: usize = 16 * 1024 * 1024;

/// One input row as field name -> value, with its 1-based line number.
#[derive(Debug, Clone)]
pub struct Row {
    pub line: u64,
    pub fields: Map<String, Value>,
    /// The row's own text, for the rejects file.
    pub raw: String,
    /// Whether values carry JSON types (JSON Lines); CSV and TSV cells are all text.
    pub typed: bool,
    /// Numbers as written, where a float could not hold them exactly (an id beyond 2^64),
    /// keyed by field, or `field[i]` for an item of a list.
    pub exact: HashMap<String, String>,
    /// Per field, a number in it that a float would keep as another value (JSON Lines;
    /// see [`super::numbers`]): refused where the value is kept, as in `metadata`.
    pub changed: HashMap<String, String>,
}

/// A row that could not be read, with enough to report or skip it.
#[derive(Debug, Clone)]
pub struct BadRow {
    pub error: Error,
    pub raw: String,
}

/// A row over [`MAX_ROW_BYTES`], refused without its text.
pub(crate) fn too_long(name: &str, line: u64, bytes: usize) -> BadRow {
    BadRow {
        error: Error::input(
            name,
            line,
            None,
            format!(
                "the row is {:.1} MB long, over the {} MB limit for one row",
                bytes as f64 / 1e6,
                MAX_ROW_BYTES / (1024 * 1024)
            ),
        ),
        raw: String::new(),
    }
}

/// A field holding a NUL character, which text may not contain.
pub(crate) fn nul_error(name: &str, line: u64, field: &str) -> Error {
    Error::input(
        name,
        line,
        Some(field),
        "holds a NUL character (\\u0000), which text may not contain",
    )
}
