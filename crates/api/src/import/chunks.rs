//! Where an import's rows go: the transactions its chunks are written in, and the project
//! as its check reads it (writing nothing) or as its writes change it.

use crate::Result;
use factdesk_store::{Read, Tx};

/// Gives a connection to write each chunk of rows through: one transaction for all of
/// them, or one per chunk.
pub(super) trait Chunks {
    fn run(&mut self, work: &mut dyn FnMut(&Tx<'_>) -> Result<()>) -> Result<()>;
}

/// Every chunk in the caller's transaction.
pub(super) struct OneTransaction<'c, 't>(pub &'c Tx<'t>);

impl Chunks for OneTransaction<'_, '_> {
    fn run(&mut self, work: &mut dyn FnMut(&Tx<'_>) -> Result<()>) -> Result<()> {
        work(self.0)
    }
}

/// The project an import's rows go to: read only while they are checked ([`super::put::check_all`],
/// which writes nothing and gives new rows made-up ids), a write transaction while they
/// are written. Reads go through either.
#[derive(Clone, Copy)]
pub(super) enum Rows<'c, 't> {
    Checked(&'c Read),
    Written(&'c Tx<'t>),
}

impl std::ops::Deref for Rows<'_, '_> {
    type Target = Read;

    fn deref(&self) -> &Read {
        match self {
            Rows::Checked(conn) => conn,
            Rows::Written(tx) => tx,
        }
    }
}
