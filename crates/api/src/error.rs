//! Errors with stable codes, as they cross into the CLI and over IPC.

use serde::{Deserialize, Serialize};
use std::fmt;
use ts_rs::TS;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A stable, machine-readable kind of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    NotFound,
    AlreadyExists,
    NotAProject,
    NewerSchema,
    /// The project is open read-only and the action would change it.
    ReadOnly,
    InvalidInput,
    Conflict,
    /// The person working may not do this (a lead's action).
    Forbidden,
    /// A refutation failed one of the live checks.
    CheckFailed,
    /// The person stopped the work before it finished; nothing was changed.
    Cancelled,
    /// A returned pack holds no answer while it is still out: merging it would take the
    /// work back from its annotator, so the lead is asked first.
    Unanswered,
    Io,
    Database,
    /// No one is signed in: no token, or one that is unknown, expired or ended, or a
    /// wrong name or password.
    Unauthorized,
    /// Too many failed sign-ins for a name or from an address; wait and try again.
    RateLimited,
    /// The store is busy or out of reach for now; the same request may succeed when
    /// retried.
    Unavailable,
}

/// Where in an input file a problem was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Location {
    pub file: String,
    /// 1-based line number; 0 when the problem concerns the whole file.
    pub line: u64,
    pub field: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field \"{field}\"")?;
        }
        Ok(())
    }
}

/// A failure of a use case: a code, a message for the user, and where it applies.
#[derive(Debug, Clone, Serialize, Deserialize, TS, thiserror::Error)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub location: Option<Location>,
    /// For a refusal that ends at a known time (too many sign-ins): milliseconds until
    /// then, for a server's `Retry-After`. Not sent over IPC: the message says it.
    #[serde(skip)]
    #[ts(skip)]
    pub retry_in_ms: Option<u32>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{loc}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            location: None,
            retry_in_ms: None,
        }
    }

    /// Bad input at a place in a file.
    pub fn input(file: &str, line: u64, field: Option<&str>, message: impl Into<String>) -> Error {
        Error {
            code: ErrorCode::InvalidInput,
            message: message.into(),
            location: Some(Location {
                file: file.to_string(),
                line,
                field: field.map(str::to_string),
            }),
            retry_in_ms: None,
        }
    }

    pub fn io(what: &str, err: &std::io::Error) -> Error {
        Error::new(ErrorCode::Io, format!("{what}: {err}"))
    }
}

impl From<factdesk_store::Error> for Error {
    fn from(e: factdesk_store::Error) -> Error {
        use factdesk_store::Error as S;
        let code = match &e {
            S::AlreadyExists(_) => ErrorCode::AlreadyExists,
            S::NotFound(_) => ErrorCode::NotFound,
            S::NotAProject(_) | S::NotAPack(_) | S::IsFolder(_) | S::NoProject => {
                ErrorCode::NotAProject
            }
            S::NewerSchema { .. } | S::NewerPack { .. } => ErrorCode::NewerSchema,
            S::ReadOnly(_)
            | S::ReadOnlyWithLog(_)
            | S::ReadOnlyDatabase
            | S::NeedsUpgrade { .. } => ErrorCode::ReadOnly,
            S::UnfinishedWrite(_) => ErrorCode::Conflict,
            S::Open { .. } | S::Unreadable { .. } | S::Connect { .. } => ErrorCode::Io,
            S::Busy(_) | S::Listen { .. } | S::IndexBuilding => ErrorCode::Unavailable,
            S::DatabaseInUse(_) => ErrorCode::AlreadyExists,
            S::Corrupt(_)
            | S::Sqlite(_)
            | S::Postgres(_)
            | S::Json(_)
            | S::Index(_)
            | S::UnknownTaskKind { .. }
            | S::UnknownRole { .. }
            | S::BadAnswer { .. }
            | S::BadValue { .. } => ErrorCode::Database,
        };
        let code = if e.is_transient() {
            ErrorCode::Unavailable
        } else {
            code
        };
        if let S::Index(detail) = &e {
            // The detail names folders on the server, which an annotator's search must not
            // be told; whoever runs the project reads it in the log.
            tracing::error!("search index: {detail}");
            return Error::new(
                code,
                "the search index could not be read or built (the log says why); `factdesk reindex` builds it again",
            );
        }
        Error::new(code, e.to_string())
    }
}

impl From<factdesk_core::role::UnknownRole> for Error {
    fn from(e: factdesk_core::role::UnknownRole) -> Error {
        Error::new(ErrorCode::InvalidInput, e.to_string())
    }
}

impl From<factdesk_core::task::UnknownTaskKind> for Error {
    fn from(e: factdesk_core::task::UnknownTaskKind) -> Error {
        Error::new(ErrorCode::InvalidInput, e.to_string())
    }
}
