//! Sign-in tables: a person's password hash and whether they are disabled
//! (`credentials`), signed-in sessions by token hash (`sessions`), and failed sign-ins
//! for the limit on guessing (`sign_in_failures`).

use crate::db::{Connection, OptionalExtension};
use crate::params;
use crate::Result;

/// A person as sign-in sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub annotator_id: i64,
    pub name: String,
    /// "lead" or "annotator".
    pub role: String,
    /// An argon2 PHC string; `None` when no password was ever set.
    pub password_hash: Option<String>,
    pub disabled: bool,
}

fn from_row(r: &crate::db::Row<'_>) -> crate::db::Result<Credential> {
    Ok(Credential {
        annotator_id: r.get(0)?,
        name: r.get(1)?,
        role: r.get(2)?,
        password_hash: r.get(3)?,
        disabled: r.get::<_, Option<bool>>(4)?.unwrap_or(false),
    })
}

const SELECT: &str = "SELECT a.id, a.name, a.role, c.password_hash, c.disabled
     FROM annotators a LEFT JOIN credentials c ON c.annotator_id = a.id";

/// The person called `name`, with their credential (none set: no hash, not disabled).
pub fn by_name(conn: &Connection, name: &str) -> Result<Option<Credential>> {
    Ok(conn
        .prepare_cached(&format!("{SELECT} WHERE a.name = ?1"))?
        .query_row([name], from_row)
        .optional()?)
}

/// Sets a person's password hash.
pub fn set_password(conn: &Connection, annotator_id: i64, hash: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO credentials (annotator_id, password_hash) VALUES (?1, ?2)
         ON CONFLICT (annotator_id) DO UPDATE SET password_hash = excluded.password_hash",
    )?
    .execute(params![annotator_id, hash])?;
    Ok(())
}

/// Disables or enables a person; disabling ends their sessions in the same transaction.
pub fn set_disabled(conn: &Connection, annotator_id: i64, disabled: bool) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO credentials (annotator_id, disabled) VALUES (?1, ?2)
         ON CONFLICT (annotator_id) DO UPDATE SET disabled = excluded.disabled",
    )?
    .execute(params![annotator_id, disabled])?;
    if disabled {
        conn.prepare_cached("DELETE FROM sessions WHERE annotator_id = ?1")?
            .execute([annotator_id])?;
    }
    Ok(())
}

/// Whether a lead disabled this person.
pub fn is_disabled(conn: &Connection, annotator_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT disabled FROM credentials WHERE annotator_id = ?1")?
        .query_row([annotator_id], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

/// Stores a new session; sessions that expired before `now` are removed on the way.
pub fn insert_session(
    conn: &Connection,
    token_hash: &str,
    annotator_id: i64,
    now: i64,
    expires_at: i64,
) -> Result<()> {
    conn.prepare_cached("DELETE FROM sessions WHERE expires_at <= ?1")?
        .execute([now])?;
    conn.prepare_cached(
        "INSERT INTO sessions (token_hash, annotator_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![token_hash, annotator_id, now, expires_at])?;
    Ok(())
}

/// The person holding a session that is still valid at `now` and not disabled.
pub fn session_person(conn: &Connection, token_hash: &str, now: i64) -> Result<Option<Credential>> {
    Ok(conn
        .prepare_cached(&format!(
            "{SELECT} JOIN sessions s ON s.annotator_id = a.id
             WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND COALESCE(c.disabled, 0) = 0"
        ))?
        .query_row(params![token_hash, now], from_row)
        .optional()?)
}

/// Ends one session; true when there was one.
pub fn delete_session(conn: &Connection, token_hash: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")?
        .execute([token_hash])?
        == 1)
}

/// Records a sign-in attempt for `subject` at `now`; it counts as a failure until a
/// success removes it.
pub fn record_failure(conn: &Connection, subject: &str, now: i64) -> Result<()> {
    conn.prepare_cached("INSERT INTO sign_in_failures (subject, at) VALUES (?1, ?2)")?
        .execute(params![subject, now])?;
    Ok(())
}

/// Drops every failure older than `before`, whatever its subject, so names nobody uses
/// leave nothing behind.
pub fn prune_failures(conn: &Connection, before: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE at < ?1")?
        .execute([before])?;
    Ok(())
}

/// When `subject`'s failures at or after `since` happened, oldest first.
pub fn failure_times(conn: &Connection, subject: &str, since: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT at FROM sign_in_failures WHERE subject = ?1 AND at >= ?2 ORDER BY at",
    )?;
    let rows = stmt.query_map(params![subject, since], |r| r.get::<_, i64>(0))?;
    Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// Forgets the attempt recorded for `subject` at `at` (it succeeded).
pub fn forget_attempt(conn: &Connection, subject: &str, at: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE subject = ?1 AND at = ?2")?
        .execute(params![subject, at])?;
    Ok(())
}

/// Failed sign-ins for `subject` at or after `since`.
pub fn failures_since(conn: &Connection, subject: &str, since: i64) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM sign_in_failures WHERE subject = ?1 AND at >= ?2")?
        .query_row(params![subject, since], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

/// Forgets `subject`'s failures (after a successful sign-in).
pub fn clear_failures(conn: &Connection, subject: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE subject = ?1")?
        .execute([subject])?;
    Ok(())
}
