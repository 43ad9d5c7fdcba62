//! The `annotators` table: who works on the project, and in which role.

use crate::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnnotatorRow {
    pub id: i64,
    pub name: String,
    /// "lead" or "annotator".
    pub role: String,
    pub created_at: i64,
    /// The lead's decision on a flagged annotator: "include" or "exclude".
    pub flag_override: Option<String>,
}

const COLUMNS: &str = "id, name, role, created_at, flag_override";

fn from_row(r: &Row<'_>) -> rusqlite::Result<AnnotatorRow> {
    Ok(AnnotatorRow {
        id: r.get(0)?,
        name: r.get(1)?,
        role: r.get(2)?,
        created_at: r.get(3)?,
        flag_override: r.get(4)?,
    })
}

/// Adds an annotator; `None` when the name is taken.
pub fn insert(conn: &Connection, name: &str, role: &str, now: i64) -> Result<Option<i64>> {
    let n = conn.execute(
        "INSERT OR IGNORE INTO annotators (name, role, created_at) VALUES (?1, ?2, ?3)",
        params![name, role, now],
    )?;
    Ok((n == 1).then(|| conn.last_insert_rowid()))
}

pub fn list(conn: &Connection) -> Result<Vec<AnnotatorRow>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM annotators ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn by_name(conn: &Connection, name: &str) -> Result<Option<AnnotatorRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM annotators WHERE name = ?1"))?
        .query_row([name], from_row)
        .optional()?)
}

pub fn set_flag_override(conn: &Connection, id: i64, value: Option<&str>) -> Result<()> {
    conn.execute(
        "UPDATE annotators SET flag_override = ?1 WHERE id = ?2",
        params![value, id],
    )?;
    Ok(())
}
