//! The `annotators` table: who works on the project, and in which role.

use crate::db::{OptionalExtension, Row};
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::role::Role;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnnotatorRow {
    pub id: i64,
    pub name: String,
    pub role: Role,
    pub created_at: i64,
    /// The lead's decision on a flagged annotator: "include" or "exclude".
    pub flag_override: Option<String>,
    /// Evidence items answered (current answers), each of which showed a trick; kept by a
    /// trigger on `annotations`.
    pub tricks_seen: u64,
    /// Of those, answers that picked the trick.
    pub tricks_failed: u64,
    /// Whether this person's answers count (not flagged, or included by the lead).
    pub counted: bool,
}

const COLUMNS: &str =
    "id, name, role, created_at, flag_override, tricks_seen, tricks_failed, counted";

pub(crate) fn from_row(r: &Row<'_>) -> crate::db::Result<AnnotatorRow> {
    let id: i64 = r.get(0)?;
    let name: String = r.get(1)?;
    Ok(AnnotatorRow {
        role: crate::typed::role(r, 2, || format!("annotator {name:?} (id {id})"))?,
        id,
        name,
        created_at: r.get(3)?,
        flag_override: r.get(4)?,
        tricks_seen: r.get::<_, i64>(5)?.max(0) as u64,
        tricks_failed: r.get::<_, i64>(6)?.max(0) as u64,
        counted: r.get(7)?,
    })
}

/// Adds an annotator; `None` when the name is taken.
pub fn insert(conn: &crate::Tx<'_>, name: &str, role: Role, now: i64) -> Result<Option<i64>> {
    let n = conn.execute(
        "INSERT OR IGNORE INTO annotators (name, role, created_at) VALUES (?1, ?2, ?3)",
        params![name, role.as_str(), now],
    )?;
    if n == 1 {
        Ok(Some(conn.last_insert_rowid()?))
    } else {
        Ok(None)
    }
}

pub fn list(conn: &Read) -> Result<Vec<AnnotatorRow>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM annotators ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

pub fn get(conn: &Read, id: i64) -> Result<Option<AnnotatorRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM annotators WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()?)
}

/// Records whether a person's answers count; the caller recounts their tasks.
pub fn set_counted(conn: &crate::Tx<'_>, id: i64, counted: bool) -> Result<()> {
    conn.prepare_cached("UPDATE annotators SET counted = ?1 WHERE id = ?2")?
        .execute(params![counted, id])?;
    Ok(())
}

pub fn by_name(conn: &Read, name: &str) -> Result<Option<AnnotatorRow>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM annotators WHERE name = ?1"))?
        .query_row([name], from_row)
        .optional()?)
}

/// Counts, leaves out or follows the flag of a flagged annotator: the dashboards
/// following the project are told, as it moves who counts.
pub fn set_flag_override(conn: &crate::Tx<'_>, id: i64, value: Option<&str>) -> Result<()> {
    conn.execute(
        "UPDATE annotators SET flag_override = ?1 WHERE id = ?2",
        params![value, id],
    )?;
    crate::listen::notify(conn)
}
