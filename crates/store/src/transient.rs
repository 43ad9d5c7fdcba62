//! Which store failures are worth retrying: the database was busy or out of reach, not
//! wrong. A server answers those with "try again" instead of a failure.

use crate::Error;

impl Error {
    /// True when the same request may succeed if retried: another writer held the lock
    /// past the busy timeout, or the database could not be reached or opened for now.
    pub fn is_transient(&self) -> bool {
        let sqlite = match self {
            Error::Sqlite(e) | Error::Open { source: e, .. } => e,
            Error::Unreadable { .. }
            | Error::Connect { .. }
            | Error::Listen { .. }
            | Error::Busy(_) => return true,
            Error::Postgres(crate::db::Error::Postgres(e)) => return postgres_transient(e),
            _ => return false,
        };
        matches!(
            sqlite,
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseBusy
                        | rusqlite::ErrorCode::DatabaseLocked
                        | rusqlite::ErrorCode::CannotOpen
                        | rusqlite::ErrorCode::SystemIoFailure
                )
        )
    }
}

/// A lost or refused connection (class 08), a server shutting down or starting (57P),
/// too many connections, and a transaction the server chose to abort (serialization
/// failure, deadlock): retrying the whole request can succeed.
fn postgres_transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    let Some(code) = e.code() else {
        // No SQL state: the socket failed before the server answered.
        return e.as_db_error().is_none();
    };
    let code = code.code();
    code.starts_with("08") || code.starts_with("57P") || matches!(code, "53300" | "40001" | "40P01")
}

#[cfg(test)]
mod tests {
    use crate::Error;

    #[test]
    fn a_busy_database_is_transient_and_a_constraint_is_not() {
        let busy = Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        ));
        assert!(busy.is_transient());
        // Said in the user's words (a regression test from a hostile pass: a ranking
        // stopped mid-write left annotators with "database is locked").
        assert!(
            busy.to_string().starts_with("the project is busy"),
            "{busy}"
        );
        let constraint = Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
            None,
        ));
        assert!(!constraint.is_transient());
        assert!(!Error::NoProject.is_transient());
    }
}
