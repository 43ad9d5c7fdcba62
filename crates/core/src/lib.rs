//! Domain types and pure logic for Factdesk.
//!
//! Nothing here does IO or knows about SQLite or Tauri: callers pass text in and get
//! values back, so every function is deterministic and cheap to test.

pub mod agreement;
pub mod answer;
pub mod chance;
pub mod checks;
pub mod claim;
pub mod design;
pub mod digest;
pub mod gold;
pub mod highlight;
pub mod key_hash;
pub mod language;
pub mod pace;
pub mod ranking;
pub mod role;
pub mod scores;
pub mod seeded;
mod stopwords;
pub mod strata;
pub mod task;
pub mod text;
pub mod time;
pub mod trick;
