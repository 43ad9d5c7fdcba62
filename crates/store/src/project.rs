//! The `project` and `imports` tables.

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::{Error, Result};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ProjectRow {
    pub id: String,
    pub name: String,
    pub created_at: i64,
    pub settings: serde_json::Value,
}

pub(crate) fn insert(conn: &crate::Tx<'_>, name: &str, now_ms: i64) -> Result<()> {
    let id = uuid::Uuid::new_v4().to_string();
    let secret = uuid::Uuid::new_v4().as_bytes().to_vec();
    let secret2 = uuid::Uuid::new_v4().as_bytes().to_vec();
    conn.execute(
        "INSERT INTO project (id, name, created_at, settings, secret) VALUES (?1, ?2, ?3, '{}', ?4)",
        params![id, name, now_ms, [secret, secret2].concat()],
    )?;
    Ok(())
}

pub(crate) fn get(conn: &Read) -> Result<ProjectRow> {
    let row = conn
        .query_row(
            "SELECT id, name, created_at, settings FROM project LIMIT 1",
            [],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?
        .ok_or(Error::NoProject)?;
    Ok(ProjectRow {
        id: row.0,
        name: row.1,
        created_at: row.2,
        settings: serde_json::from_str(&row.3)?,
    })
}

/// Records one import and returns its id, for provenance of the rows it added.
pub fn record_import(
    conn: &crate::Tx<'_>,
    file: &str,
    preset: &str,
    rows_seen: u64,
    now_ms: i64,
) -> Result<i64> {
    insert_import(conn, file, preset, 0, rows_seen, now_ms)
}

/// The `imports` row of an import, with `rows_added` as it starts (0, or the mark of an
/// import still writing, `unfinished::UNFINISHED`).
pub(crate) fn insert_import(
    conn: &crate::Tx<'_>,
    file: &str,
    preset: &str,
    rows_added: i64,
    rows_seen: u64,
    now_ms: i64,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO imports (file, preset, rows_added, rows_seen, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![file, preset, rows_added, rows_seen as i64, now_ms],
    )?;
    Ok(conn.last_insert_rowid()?)
}

/// Records how many rows an import added, once it is done.
pub fn finish_import(conn: &crate::Tx<'_>, import_id: i64, rows_added: u64) -> Result<()> {
    conn.execute(
        "UPDATE imports SET rows_added = ?1 WHERE id = ?2",
        params![rows_added as i64, import_id],
    )?;
    Ok(())
}

/// Replaces the project's settings (a JSON object).
pub fn set_settings(conn: &crate::Tx<'_>, settings: &serde_json::Value) -> Result<()> {
    conn.execute("UPDATE project SET settings = ?1", [settings.to_string()])?;
    Ok(())
}

/// The project's settings (a JSON object), read inside the caller's transaction.
pub fn settings(conn: &Read) -> Result<serde_json::Value> {
    let text: String = conn.query_row("SELECT settings FROM project LIMIT 1", [], |r| r.get(0))?;
    Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
}

/// The project's secret key; it never leaves the project file.
pub fn secret(conn: &Read) -> Result<Vec<u8>> {
    Ok(conn.query_row("SELECT secret FROM project LIMIT 1", [], |r| r.get(0))?)
}
