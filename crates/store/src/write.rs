//! A write transaction as the rest of Factdesk sees it: the connection every table
//! function takes, and a commit whose error is the store's own, so no caller names the
//! SQLite driver.

use crate::Result;
use rusqlite::{Connection, TransactionBehavior};
use std::ops::Deref;

/// A write transaction taken at once (BEGIN IMMEDIATE); dropped without [`Tx::commit`],
/// it rolls back.
#[derive(Debug)]
pub struct Tx<'a>(rusqlite::Transaction<'a>);

impl<'a> Tx<'a> {
    pub(crate) fn begin(conn: &'a mut Connection) -> Result<Tx<'a>> {
        Ok(Tx(conn.transaction_with_behavior(
            TransactionBehavior::Immediate,
        )?))
    }

    /// Makes everything written in the transaction durable.
    pub fn commit(self) -> Result<()> {
        Ok(self.0.commit()?)
    }
}

impl Deref for Tx<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}
