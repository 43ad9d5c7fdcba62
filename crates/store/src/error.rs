use std::path::{Path, PathBuf};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong with a project file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0} already exists; choose another name or open it instead")]
    AlreadyExists(PathBuf),
    #[error("{0} does not exist")]
    NotFound(PathBuf),
    #[error("{0} is not a Factdesk project file")]
    NotAProject(PathBuf),
    #[error("{0} is a folder, not a project file")]
    IsFolder(PathBuf),
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is read-only: this changes the project, so it needs write access to the file and its folder")]
    ReadOnly(PathBuf),
    #[error("{0} is read-only and has changes in its write-ahead log ({0}-wal) that SQLite can only read with write access to the folder (it keeps a -shm file there); open it once where it can be written, or copy the file with its -wal to a writable folder; nothing was changed")]
    ReadOnlyWithLog(PathBuf),
    #[error("the project file is read-only: this changes the project, so it needs write access to the file and its folder")]
    ReadOnlyDatabase,
    #[error(
        "{path} was written by an older Factdesk (schema version {found}; this version uses {supported}) and is read-only here, so it cannot be updated. Open it once with write access to update it; the file was not changed."
    )]
    NeedsUpgrade {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error(
        "{path} was written by a newer Factdesk (schema version {found}; this version reads up to {supported}). Update Factdesk to open it; the file was not changed."
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("{0} is busy: another connection holds the whole file and did not let go within 5 seconds; try again once it has finished. Nothing was changed.")]
    Busy(PathBuf),
    #[error("cannot open {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{0} is not a Factdesk pack")]
    NotAPack(PathBuf),
    #[error(
        "{path} is a pack written by a newer Factdesk (pack version {found}; this version reads up to {supported}). Update Factdesk to open it; the file was not changed."
    )]
    NewerPack {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("{0} was not closed cleanly (changes sit in a journal or write-ahead log beside it, not in the file); open it in Factdesk once and close it, then return it")]
    UnfinishedWrite(PathBuf),
    #[error("the project file failed its integrity check: {0}")]
    Corrupt(String),
    #[error("the project file has no project row; it may be damaged")]
    NoProject,
    #[error("search index: {0}")]
    Index(String),
    #[error("the search index is being built; search again in a moment")]
    IndexBuilding,
    #[error("{}", sqlite_message(.0))]
    Sqlite(rusqlite::Error),
    #[error("database error: {0}")]
    Postgres(crate::db::Error),
    #[error("{0} already holds tables; a project needs an empty database of its own")]
    DatabaseInUse(String),
    #[error("cannot connect to {location}: {reason}")]
    Connect { location: String, reason: String },
    #[error("no longer hearing of new answers from {location}: {reason}")]
    Listen { location: String, reason: String },
    #[error("{row} has an unknown task kind {kind:?}: the project file is damaged or comes from a newer Factdesk")]
    UnknownTaskKind { row: String, kind: String },
    #[error("{row} has an unknown role {role:?} (Factdesk knows lead and annotator): the project file is damaged or comes from a newer Factdesk")]
    UnknownRole { row: String, role: String },
    #[error("{row}: the stored answer cannot be read: {reason}")]
    BadAnswer { row: String, reason: String },
    #[error("{row}: {reason}")]
    BadValue { row: String, reason: String },
    #[error("stored JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    pub(crate) fn open(path: &Path, source: rusqlite::Error) -> Error {
        // SQLite says "file is not a database" for anything that is not SQLite at all.
        if let rusqlite::Error::SqliteFailure(f, _) = &source {
            match f.code {
                rusqlite::ErrorCode::NotADatabase => return Error::NotAProject(path.to_path_buf()),
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked => {
                    return Error::Busy(path.to_path_buf())
                }
                _ => {}
            }
        }
        Error::Open {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ReadOnly => {
                Error::ReadOnlyDatabase
            }
            e => Error::Sqlite(e),
        }
    }
}

/// SQLite's words, but a lock held past the wait said in the user's: someone else's long
/// write, worth waiting for, not a fault of the project.
fn sqlite_message(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => format!(
            "the project is busy: another program writing to it (a ranking, an import, a merge) did not let go within {} seconds; try again once it has finished. Nothing was changed.",
            crate::BUSY_TIMEOUT.as_secs()
        ),
        _ => format!("database error: {e}"),
    }
}

impl From<crate::db::Error> for Error {
    fn from(e: crate::db::Error) -> Error {
        use crate::db::Error as D;
        match e {
            D::Sqlite(e) => Error::from(e),
            D::NoRows => Error::from(rusqlite::Error::QueryReturnedNoRows),
            // A row that names itself, from a typed read (see `typed`).
            D::Carried(e) => *e,
            e => Error::Postgres(e),
        }
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Error {
        match e {
            // Two writers of one index: an import, a re-index or a ranking beside another.
            tantivy::TantivyError::LockFailure(tantivy::directory::error::LockError::LockBusy, _) => {
                Error::Index(
                    "another import, re-index or ranking is writing this project's search index; try again once it has finished (nothing was changed)"
                        .to_string(),
                )
            }
            e => Error::Index(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    /// A second writer of an index is told what holds it, not tantivy's lock file.
    #[test]
    fn a_busy_index_says_who_holds_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut schema = tantivy::schema::Schema::builder();
        schema.add_text_field("t", tantivy::schema::TEXT);
        let index = tantivy::Index::create_in_dir(dir.path(), schema.build())
            .unwrap_or_else(|e| panic!("{e}"));
        let _first: tantivy::IndexWriter =
            index.writer(15_000_000).unwrap_or_else(|e| panic!("{e}"));
        let second = index.writer::<tantivy::TantivyDocument>(15_000_000);
        let message =
            super::Error::from(second.err().unwrap_or_else(|| panic!("two writers"))).to_string();
        assert!(message.contains("another import"), "{message}");
        assert!(!message.to_lowercase().contains("lockfile"), "{message}");
    }
}
