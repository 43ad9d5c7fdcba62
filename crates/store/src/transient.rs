//! Which store failures are worth retrying: the database was busy or out of reach, not
//! wrong. A server answers those with "try again" instead of a failure.

use crate::Error;

impl Error {
    /// True when the same request may succeed if retried: another writer held the lock
    /// past the busy timeout, or the database could not be reached or opened for now.
    pub fn is_transient(&self) -> bool {
        let sqlite = match self {
            Error::Sqlite(e) | Error::Open { source: e, .. } => e,
            Error::Unreadable { .. } => return true,
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
        let constraint = Error::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
            None,
        ));
        assert!(!constraint.is_transient());
        assert!(!Error::NoProject.is_transient());
    }
}
