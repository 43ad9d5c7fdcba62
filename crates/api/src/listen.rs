//! Following a PostgreSQL project's answers as they are committed, by any process: what
//! the desktop app's dashboard and the team server's event stream wake on. A project
//! file has no listener; its front ends watch the file, which the operating system says
//! was written.

use crate::{Project, Result};
use std::time::Duration;

/// How long one wait lasts with nothing committed, so that a follower that is no longer
/// wanted stops within about this long.
pub const WAIT: Duration = Duration::from_secs(1);

/// How long after the connection was lost it is opened again.
pub const PAUSE: Duration = Duration::from_secs(2);

/// A connection of its own to a project database that hears each commit of an answer
/// (and each decision on who counts), from whichever process made it.
#[derive(Debug)]
pub struct AnswerListener(factdesk_store::AnswerListener);

impl Project {
    /// A listener for this project's commits, on a connection of its own; `None` when the
    /// project is a file.
    pub fn answer_listener(&self) -> Result<Option<AnswerListener>> {
        Ok(self.store.answer_listener()?.map(AnswerListener))
    }
}

impl AnswerListener {
    /// Waits up to `timeout` for a commit: true when at least one was made, however many
    /// were (a burst wakes once, or a few times). An error once the connection is lost
    /// (`ErrorCode::Unavailable`); [`AnswerListener::reconnect`] then listens again.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool> {
        Ok(self.0.wait(timeout)?)
    }

    /// Connects again after the connection was lost, and listens from now on.
    pub fn reconnect(&mut self) -> Result<()> {
        Ok(self.0.reconnect()?)
    }

    /// Calls `heard` once for each commit or burst of commits, until `heard` returns
    /// false or `wanted` does (asked every [`WAIT`] at least). A lost connection is
    /// opened again after [`PAUSE`], then `heard` is called once: a commit may have come
    /// while no one listened.
    pub fn follow(mut self, mut heard: impl FnMut() -> bool, wanted: impl Fn() -> bool) {
        while wanted() {
            match self.wait(WAIT) {
                Ok(true) if !heard() => return,
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("{e}; listening again in {PAUSE:?}");
                    if !self.listen_again(&wanted) || !heard() {
                        return;
                    }
                }
            }
        }
    }

    /// Connects again after each [`PAUSE`] until it listens (true) or is no longer
    /// `wanted` (false).
    fn listen_again(&mut self, wanted: &impl Fn() -> bool) -> bool {
        loop {
            std::thread::sleep(PAUSE);
            if !wanted() {
                return false;
            }
            match self.reconnect() {
                Ok(()) => {
                    tracing::info!("listening for new answers again");
                    return true;
                }
                Err(e) => tracing::warn!("{e}; trying again in {PAUSE:?}"),
            }
        }
    }
}
