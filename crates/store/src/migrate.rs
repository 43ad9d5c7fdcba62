//! Embedded migrations, applied in one transaction.

use crate::{Error, Result};
use rusqlite::Transaction;
use std::path::Path;

/// Each entry moves the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_initial.sql"),
    include_str!("migrations/0002_assignment.sql"),
    include_str!("migrations/0003_decisions.sql"),
    include_str!("migrations/0004_packs.sql"),
    include_str!("migrations/0005_open_tasks.sql"),
    include_str!("migrations/0006_counted_answers.sql"),
    include_str!("migrations/0008_refutation_lifecycle.sql"),
    include_str!("migrations/0010_pack_merges.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the schema up to date inside `tx`, or refuses a file from a newer version.
pub(crate) fn apply(tx: &Transaction<'_>, path: &Path) -> Result<()> {
    let found: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tracing::info!(version = i + 1, "applying migration");
        tx.execute_batch(sql)?;
    }
    if found < SCHEMA_VERSION {
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    Ok(())
}
