//! Factdesk's use cases, shared by the `factdesk` CLI and the desktop app.
//!
//! Each function takes what it needs explicitly — an open [`Project`], a [`Clock`], a
//! progress sink — so nothing depends on global state and results are reproducible.
//! Errors carry a stable [`ErrorCode`] and a message meant for the user; the app sends
//! them over IPC as `{code, message}`.

#[macro_use]
mod choice;
mod actor;
pub mod agreement;
pub mod annotate;
pub mod annotators;
pub mod answers;
pub mod audit;
pub mod call;
pub mod claim_view;
pub mod clock;
mod columnar;
mod configure;
mod csv_cell;
mod current;
pub mod dashboard;
pub mod declared;
pub mod design;
pub mod disagreement;
pub mod download;
pub mod dto;
pub mod error;
pub mod eval;
pub mod gold;
pub mod import;
pub mod listen;
mod opaque;
pub mod output;
pub mod packs;
pub mod predictions;
pub mod problems;
pub mod progress;
pub mod project;
pub mod rank;
pub mod recent;
pub mod recipe;
mod refutation;
pub mod report;
pub mod review;
pub mod search;
mod seed_text;
pub mod semantic;
mod sent;
pub mod settings;
pub mod sign_in;
pub mod study;
pub mod tasks;
mod trick_search;
pub mod upload;

pub use actor::{Actor, Lead};
pub use clock::{Clock, FixedClock, ManualClock, SystemClock};
pub use error::{Error, ErrorCode, Location, Result};
/// Where a project lives: a file, or a PostgreSQL database named by a `postgres://` URL.
pub use factdesk_store::ProjectLocation;
/// SQL past the table functions, for this crate's tests and benches (feature `raw-store`).
#[cfg(feature = "raw-store")]
pub use factdesk_store::RawSql;
pub use listen::AnswerListener;
pub use progress::{NoProgress, Progress};
pub use project::{FoundNothing, Project};
