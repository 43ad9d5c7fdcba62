//! Texts kept beside a claim row in tables of their own (issue 33): an imported pair's
//! second text (`pair_texts`) and a control item's known answers (`control_answers`, a
//! JSON object of question ids and labels). One claim row holds at most one of each.

use crate::db::{CopyRow, OptionalExtension};
use crate::params;
use crate::Read;
use crate::Result;
use std::collections::HashMap;

/// Which text beside a claim row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beside {
    /// A pair's second text.
    PairText,
    /// A control item's known answers.
    Control,
}

impl Beside {
    fn table(self) -> &'static str {
        match self {
            Beside::PairText => "pair_texts",
            Beside::Control => "control_answers",
        }
    }

    /// The table's columns, as a bulk write names them.
    fn columns(self) -> &'static str {
        match self {
            Beside::PairText => "claim_id, text_b",
            Beside::Control => "claim_id, answers",
        }
    }

    fn column(self) -> &'static str {
        match self {
            Beside::PairText => "text_b",
            Beside::Control => "answers",
        }
    }
}

/// Keeps `text` beside claim row `claim_id`, in bulk when the import writes in bulk.
pub fn insert(conn: &crate::Tx<'_>, beside: Beside, claim_id: i64, text: &str) -> Result<()> {
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let row = CopyRow {
            table: beside.table(),
            columns: beside.columns(),
            ignore_conflicts: false,
        };
        pg.stage(row, params![claim_id, text])?;
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO {} ({}) VALUES (?1, ?2)",
        beside.table(),
        beside.columns()
    );
    conn.prepare_cached(&sql)?
        .execute(params![claim_id, text])?;
    Ok(())
}

/// The text beside claim row `claim_id`, if it has one.
pub fn of(conn: &Read, beside: Beside, claim_id: i64) -> Result<Option<String>> {
    let sql = format!(
        "SELECT {} FROM {} WHERE claim_id = ?1",
        beside.column(),
        beside.table()
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![claim_id], |r| r.get(0))
        .optional()?)
}

/// Every such text, by claim row id.
pub fn all(conn: &Read, beside: Beside) -> Result<HashMap<i64, String>> {
    let sql = format!("SELECT {} FROM {}", beside.columns(), beside.table());
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}
