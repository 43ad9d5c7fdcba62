//! Sign-in tables: a person's password hash and whether they are disabled
//! (`credentials`), signed-in sessions by token hash (`sessions`), failed sign-ins for
//! the limits on guessing (`sign_in_failures` per name and address, `sign_in_names` per
//! name from anywhere), and the addresses a name signed in from (`sign_in_known`).

use crate::db::OptionalExtension;
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::role::Role;

/// A person as sign-in sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub annotator_id: i64,
    pub name: String,
    pub role: Role,
    /// An argon2 PHC string; `None` when no password was ever set.
    pub password_hash: Option<String>,
    pub disabled: bool,
}

fn from_row(r: &crate::db::Row<'_>) -> crate::db::Result<Credential> {
    let annotator_id: i64 = r.get(0)?;
    let name: String = r.get(1)?;
    Ok(Credential {
        role: crate::typed::role(r, 2, || format!("annotator {name:?} (id {annotator_id})"))?,
        annotator_id,
        name,
        password_hash: r.get(3)?,
        disabled: r.get::<_, Option<bool>>(4)?.unwrap_or(false),
    })
}

const SELECT: &str = "SELECT a.id, a.name, a.role, c.password_hash, c.disabled
     FROM annotators a LEFT JOIN credentials c ON c.annotator_id = a.id";

/// The ids of the people who have a password: choosing them asks for it.
pub fn with_password(conn: &Read) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT annotator_id FROM credentials WHERE password_hash IS NOT NULL ORDER BY annotator_id",
    )?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// The person called `name`, with their credential (none set: no hash, not disabled).
pub fn by_name(conn: &Read, name: &str) -> Result<Option<Credential>> {
    Ok(conn
        .prepare_cached(&format!("{SELECT} WHERE a.name = ?1"))?
        .query_row([name], from_row)
        .optional()?)
}

/// Ends the oldest sessions of a person past the newest `keep`; how many.
pub fn end_sessions_past(conn: &crate::Tx<'_>, annotator_id: i64, keep: u64) -> Result<usize> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM sessions WHERE annotator_id = ?1 AND token_hash NOT IN (
                 SELECT token_hash FROM sessions WHERE annotator_id = ?1
                 ORDER BY created_at DESC, token_hash LIMIT ?2)",
        )?
        .execute(params![
            annotator_id,
            i64::try_from(keep).unwrap_or(i64::MAX)
        ])?)
}

/// Sets a person's password hash and ends their sessions in the same transaction: a
/// password changed because it leaked must shut out whoever signed in with it.
pub fn set_password(conn: &crate::Tx<'_>, annotator_id: i64, hash: &str) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO credentials (annotator_id, password_hash) VALUES (?1, ?2)
         ON CONFLICT (annotator_id) DO UPDATE SET password_hash = excluded.password_hash",
    )?
    .execute(params![annotator_id, hash])?;
    end_sessions_of(conn, annotator_id)?;
    Ok(())
}

/// Disables or enables a person; disabling ends their sessions in the same transaction.
pub fn set_disabled(conn: &crate::Tx<'_>, annotator_id: i64, disabled: bool) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO credentials (annotator_id, disabled) VALUES (?1, ?2)
         ON CONFLICT (annotator_id) DO UPDATE SET disabled = excluded.disabled",
    )?
    .execute(params![annotator_id, disabled])?;
    if disabled {
        end_sessions_of(conn, annotator_id)?;
    }
    Ok(())
}

/// Whether a lead disabled this person.
pub fn is_disabled(conn: &Read, annotator_id: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT disabled FROM credentials WHERE annotator_id = ?1")?
        .query_row([annotator_id], |r| r.get::<_, bool>(0))
        .optional()?
        .unwrap_or(false))
}

/// A new session: whose, opened from where, when, and until when, and the password hash
/// the sign-in checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession<'a> {
    pub token_hash: &'a str,
    pub annotator_id: i64,
    pub address: &'a str,
    pub now: i64,
    pub expires_at: i64,
    /// The stored hash the password was verified against, read before the (slow) check.
    pub verified_hash: &'a str,
}

/// Stores a new session, only while `verified_hash` is still the person's password hash
/// and they are not disabled: the check and the insert are one statement, so a password
/// reset or a disabling committed after the password was verified leaves no session
/// behind. False when it was refused. Sessions that expired before `now` are removed on
/// the way.
pub fn insert_session(conn: &crate::Tx<'_>, session: &NewSession<'_>) -> Result<bool> {
    conn.prepare_cached("DELETE FROM sessions WHERE expires_at <= ?1")?
        .execute([session.now])?;
    let inserted = conn
        .prepare_cached(
            "INSERT INTO sessions (token_hash, annotator_id, created_at, expires_at, address, last_seen_at)
             SELECT ?1, c.annotator_id, ?3, ?4, ?5, ?3 FROM credentials c
             WHERE c.annotator_id = ?2 AND c.password_hash = ?6 AND COALESCE(c.disabled, 0) = 0",
        )?
        .execute(params![
            session.token_hash,
            session.annotator_id,
            session.now,
            session.expires_at,
            session.address,
            session.verified_hash
        ])?;
    Ok(inserted == 1)
}

/// The person holding a session that is still valid at `now` and not disabled, and when
/// the session was last used.
pub fn session_person(
    conn: &Read,
    token_hash: &str,
    now: i64,
) -> Result<Option<(Credential, Option<i64>)>> {
    Ok(conn
        .prepare_cached(
            "SELECT a.id, a.name, a.role, c.password_hash, c.disabled, s.last_seen_at
             FROM sessions s JOIN annotators a ON a.id = s.annotator_id
             LEFT JOIN credentials c ON c.annotator_id = a.id
             WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND COALESCE(c.disabled, 0) = 0",
        )?
        .query_row(params![token_hash, now], |r| {
            Ok((from_row(r)?, r.get::<_, Option<i64>>(5)?))
        })
        .optional()?)
}

/// Notes that a session was used at `now`, without waiting: on a file another
/// connection's write (an import can take minutes) makes it fail at once rather than
/// hold the request back; the session's next request notes it then. The one write that
/// takes a plain connection rather than a [`crate::Tx`]: a single statement on the
/// connection that checks the token, which must not wait for the write lock.
pub fn touch_session(conn: &Read, token_hash: &str, now: i64) -> Result<()> {
    const SQL: &str = "UPDATE sessions SET last_seen_at = ?2 WHERE token_hash = ?1";
    let Some(file) = conn.sqlite() else {
        conn.prepare_cached(SQL)?
            .execute(params![token_hash, now])?;
        return Ok(());
    };
    file.busy_timeout(std::time::Duration::ZERO)?;
    let touched = conn
        .prepare_cached(SQL)
        .and_then(|mut s| s.execute(params![token_hash, now]));
    crate::wait_when_busy(file)?;
    touched?;
    Ok(())
}

/// The length of a session's id (the `12` of the queries below): the start of its
/// token's hash, enough to tell sessions apart and no help in forging a token.
pub const SESSION_ID_CHARS: usize = 12;

/// A live session as a lead sees it; never its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub name: String,
    pub role: Role,
    pub created_at: i64,
    pub last_seen_at: Option<i64>,
    pub expires_at: i64,
    /// The address it was opened from; `None` for sessions older than the column.
    pub address: Option<String>,
}

/// Every session still valid at `now`, by name and then oldest first.
pub fn live_sessions(conn: &Read, now: i64) -> Result<Vec<SessionRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT substr(s.token_hash, 1, 12), a.name, a.role, s.created_at, s.last_seen_at,
                s.expires_at, s.address
         FROM sessions s JOIN annotators a ON a.id = s.annotator_id
         WHERE s.expires_at > ?1
         ORDER BY a.name, s.created_at, s.token_hash",
    )?;
    let rows = stmt.query_map([now], |r| {
        let name: String = r.get(1)?;
        Ok(SessionRow {
            role: crate::typed::role(r, 2, || format!("annotator {name:?}"))?,
            id: r.get(0)?,
            name,
            created_at: r.get(3)?,
            last_seen_at: r.get(4)?,
            expires_at: r.get(5)?,
            address: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// Ends every session of a person; how many there were.
pub fn end_sessions_of(conn: &crate::Tx<'_>, annotator_id: i64) -> Result<usize> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE annotator_id = ?1")?
        .execute([annotator_id])?)
}

/// Ends the sessions whose id is `id`; how many there were.
pub fn end_session_by_id(conn: &crate::Tx<'_>, id: &str) -> Result<usize> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE substr(token_hash, 1, 12) = ?1")?
        .execute([id])?)
}

/// Ends one session; true when there was one.
pub fn delete_session(conn: &crate::Tx<'_>, token_hash: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")?
        .execute([token_hash])?
        == 1)
}

/// Records a sign-in attempt for `subject` at `now`; it counts as a failure until a
/// success removes it.
pub fn record_failure(conn: &crate::Tx<'_>, subject: &str, now: i64) -> Result<()> {
    conn.prepare_cached("INSERT INTO sign_in_failures (subject, at) VALUES (?1, ?2)")?
        .execute(params![subject, now])?;
    Ok(())
}

/// Drops every failure older than `before`, whatever its subject, so names nobody uses
/// leave nothing behind.
pub fn prune_failures(conn: &crate::Tx<'_>, before: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE at < ?1")?
        .execute([before])?;
    Ok(())
}

/// When `subject`'s failures at or after `since` happened, oldest first.
pub fn failure_times(conn: &Read, subject: &str, since: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT at FROM sign_in_failures WHERE subject = ?1 AND at >= ?2 ORDER BY at",
    )?;
    let rows = stmt.query_map(params![subject, since], |r| r.get::<_, i64>(0))?;
    Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// Forgets the attempt recorded for `subject` at `at` (it succeeded).
pub fn forget_attempt(conn: &crate::Tx<'_>, subject: &str, at: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE subject = ?1 AND at = ?2")?
        .execute(params![subject, at])?;
    Ok(())
}

/// Failed sign-ins for `subject` at or after `since`.
pub fn failures_since(conn: &Read, subject: &str, since: i64) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM sign_in_failures WHERE subject = ?1 AND at >= ?2")?
        .query_row(params![subject, since], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

/// `subject`'s failures at or after `since`, and when the last of them was, in one read.
pub fn failures_and_last_since(
    conn: &Read,
    subject: &str,
    since: i64,
) -> Result<(u64, Option<i64>)> {
    let (n, last): (i64, Option<i64>) = conn
        .prepare_cached(
            "SELECT COUNT(*), max(at) FROM sign_in_failures WHERE subject = ?1 AND at >= ?2",
        )?
        .query_row(params![subject, since], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok((n.max(0) as u64, last))
}

/// Forgets `subject`'s failures (after a successful sign-in).
pub fn clear_failures(conn: &crate::Tx<'_>, subject: &str) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_failures WHERE subject = ?1")?
        .execute([subject])?;
    Ok(())
}

/// A name's failed password checks from anywhere (`sign_in_names`): how many, and when
/// the last one was.
pub fn name_failures(conn: &Read, subject: &str) -> Result<Option<(u64, i64)>> {
    Ok(conn
        .prepare_cached("SELECT failures, last_at FROM sign_in_names WHERE subject = ?1")?
        .query_row([subject], |r| {
            Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get::<_, i64>(1)?))
        })
        .optional()?)
}

/// Counts one more check of a name at `now`; it stays a failure unless
/// [`forget_name_failure`] takes it back.
pub fn record_name_failure(conn: &crate::Tx<'_>, subject: &str, now: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO sign_in_names (subject, failures, last_at) VALUES (?1, 1, ?2)
         ON CONFLICT (subject) DO UPDATE
         SET failures = sign_in_names.failures + 1, last_at = excluded.last_at",
    )?
    .execute(params![subject, now])?;
    Ok(())
}

/// Takes back one check of a name (it succeeded).
pub fn forget_name_failure(conn: &crate::Tx<'_>, subject: &str) -> Result<()> {
    conn.prepare_cached(
        "UPDATE sign_in_names SET failures = failures - 1 WHERE subject = ?1 AND failures > 0",
    )?
    .execute([subject])?;
    Ok(())
}

/// Forgets names whose last failure was before `before`, and known addresses last used
/// before `known_before`.
pub fn prune_names(conn: &crate::Tx<'_>, before: i64, known_before: i64) -> Result<()> {
    conn.prepare_cached("DELETE FROM sign_in_names WHERE last_at < ?1")?
        .execute([before])?;
    conn.prepare_cached("DELETE FROM sign_in_known WHERE at < ?1")?
        .execute([known_before])?;
    Ok(())
}

/// Whether `subject` (a name at an address) signed in at or after `since`.
pub fn is_known(conn: &Read, subject: &str, since: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT 1 FROM sign_in_known WHERE subject = ?1 AND at >= ?2")?
        .query_row(params![subject, since], |r| r.get::<_, i64>(0))
        .optional()?
        .is_some())
}

/// Remembers that `subject` (a name at an address) signed in at `now`.
pub fn remember_known(conn: &crate::Tx<'_>, subject: &str, now: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO sign_in_known (subject, at) VALUES (?1, ?2)
         ON CONFLICT (subject) DO UPDATE SET at = excluded.at",
    )?
    .execute(params![subject, now])?;
    Ok(())
}
