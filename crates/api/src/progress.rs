//! Progress reporting for long work (imports, ranking), shown as a bar by the CLI and
//! as events by the app.

/// Receives progress of a long operation.
pub trait Progress {
    /// Starts a phase with a name and an expected total (`0` when unknown).
    fn phase(&mut self, name: &str, total: u64);
    /// Advances the current phase to `done` units.
    fn set(&mut self, done: u64);
}

/// Discards progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&mut self, _name: &str, _total: u64) {}
    fn set(&mut self, _done: u64) {}
}
