//! Progress reporting for long work (imports, ranking), shown as a bar by the CLI and
//! as events by the app, and the way to ask such work to stop.

use crate::{Error, ErrorCode, Result};

/// Receives progress of a long operation.
pub trait Progress {
    /// Starts a phase with a name and an expected total (`0` when unknown).
    fn phase(&mut self, name: &str, total: u64);
    /// Advances the current phase to `done` units.
    fn set(&mut self, done: u64);
    /// Whether the person asked to stop. Long work asks between steps and, when told to
    /// stop, rolls back everything it did.
    fn cancelled(&self) -> bool {
        false
    }
}

impl dyn Progress + '_ {
    /// Fails with [`ErrorCode::Cancelled`] when the person asked to stop.
    pub fn check_cancelled(&self) -> Result<()> {
        if self.cancelled() {
            return Err(Error::new(
                ErrorCode::Cancelled,
                "cancelled: nothing was changed",
            ));
        }
        Ok(())
    }
}

/// Discards progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&mut self, _name: &str, _total: u64) {}
    fn set(&mut self, _done: u64) {}
}
