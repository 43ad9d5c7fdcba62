//! Factdesk's use cases, shared by the `factdesk` CLI and the desktop app.
//!
//! Each function takes what it needs explicitly — an open [`Project`], a [`Clock`], a
//! progress sink — so nothing depends on global state and results are reproducible.
//! Errors carry a stable [`ErrorCode`] and a message meant for the user; the app sends
//! them over IPC as `{code, message}`.

mod actor;
pub mod agreement;
pub mod annotate;
pub mod annotators;
pub mod claim_view;
pub mod clock;
pub mod dashboard;
pub mod dto;
pub mod error;
pub mod eval;
pub mod gold;
pub mod import;
pub mod output;
pub mod packs;
pub mod progress;
pub mod project;
pub mod rank;
pub mod recent;
mod refutation;
pub mod report;
pub mod review;
pub mod search;
pub mod semantic;
pub mod settings;
pub mod study;
pub mod tasks;

pub use actor::Actor;
pub use clock::{Clock, FixedClock, ManualClock, SystemClock};
pub use error::{Error, ErrorCode, Location, Result};
pub use progress::{NoProgress, Progress};
pub use project::Project;
