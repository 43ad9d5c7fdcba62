//! Commits pushed to whoever follows a PostgreSQL project, whichever process made them
//! (a server, another server on the same database, `factdesk submit` or `merge`): every
//! transaction that stores an answer, or a lead's decision on who counts, sends a
//! notification on [`CHANNEL`], and an [`AnswerListener`] holds a connection of its own
//! that `LISTEN`s there. NOTIFY is transactional: it reaches listeners when the
//! transaction commits, never for one rolled back, and the same notification sent again
//! within a transaction is delivered once. A project file needs none of this: the
//! operating system tells a watcher when the file is written.

use crate::db::{Connection, Engine};
use crate::{Error, Result};
use postgres::fallible_iterator::FallibleIterator;
use std::time::{Duration, Instant};

/// The channel commits are announced on.
pub const CHANNEL: &str = "factdesk_answers";

/// With nothing heard for this long, a wait asks the server whether the connection still
/// stands: a network that died without a word ends no connection by itself.
const CHECK_AFTER: Duration = Duration::from_secs(30);
/// How long that question, and connecting, may take before the connection counts as lost.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// Announces the transaction's commit to the listeners; nothing on a file. Storing an
/// answer announces it within its own statement (`serving::store_answer`), at no cost of
/// a round trip.
pub(crate) fn notify(conn: &crate::Tx<'_>) -> Result<()> {
    if conn.engine() == Engine::Postgres {
        conn.execute_batch(&format!("SELECT pg_notify('{CHANNEL}', '')"))?;
    }
    Ok(())
}

/// A connection of its own to a project database, listening for its commits.
pub struct AnswerListener {
    config: postgres::Config,
    /// The database, as it may be shown (no password).
    location: String,
    /// `None` once the connection was lost, until [`AnswerListener::reconnect`].
    client: Option<postgres::Client>,
    /// When the connection last showed it stands.
    alive_at: Instant,
}

impl std::fmt::Debug for AnswerListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerListener")
            .field("location", &self.location)
            .field("connected", &self.client.is_some())
            .finish_non_exhaustive()
    }
}

impl AnswerListener {
    /// Connects with `config` (what the project's own connection used) and listens.
    pub(crate) fn open(mut config: postgres::Config, location: String) -> Result<AnswerListener> {
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(ANSWER_WITHIN);
        }
        let mut listener = AnswerListener {
            config,
            location,
            client: None,
            alive_at: Instant::now(),
        };
        listener.reconnect()?;
        Ok(listener)
    }

    /// Connects again and listens from now on; a commit made while it was not connected
    /// is never told, so the caller reads the project once more.
    pub fn reconnect(&mut self) -> Result<()> {
        self.let_go();
        let mut client = self
            .config
            .connect(postgres::NoTls)
            .map_err(|e| Error::Connect {
                location: self.location.clone(),
                reason: crate::db::Error::from(e).to_string(),
            })?;
        client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .map_err(|e| self.lost(&crate::db::Error::from(e).to_string()))?;
        self.client = Some(client);
        self.alive_at = Instant::now();
        Ok(())
    }

    /// Waits up to `timeout` for a commit: true when at least one was announced, every
    /// announcement pending then taken with it (a burst of commits wakes the caller once,
    /// or a few times). An error once the connection is lost; after
    /// [`AnswerListener::reconnect`] it listens again.
    pub fn wait(&mut self, timeout: Duration) -> Result<bool> {
        let Some(client) = self.client.as_mut() else {
            return Err(self.lost("not connected"));
        };
        let heard = match heard_within(client, timeout) {
            Ok(heard) => heard,
            Err(e) => return Err(self.lost(&crate::db::Error::from(e).to_string())),
        };
        if heard {
            self.alive_at = Instant::now();
            return Ok(true);
        }
        // A connection the server ended tells no error, only that nothing more will come.
        if client.is_closed() {
            return Err(self.lost("the server closed the connection"));
        }
        if self.alive_at.elapsed() >= CHECK_AFTER {
            if let Err(e) = client.is_valid(ANSWER_WITHIN) {
                return Err(self.lost(&crate::db::Error::from(e).to_string()));
            }
            self.alive_at = Instant::now();
        }
        Ok(false)
    }

    /// The connection is given up: the error to report.
    fn lost(&mut self, reason: &str) -> Error {
        self.let_go();
        Error::Listen {
            location: self.location.clone(),
            reason: reason.to_string(),
        }
    }

    /// Closes the connection on a thread of its own: closing waits for the server, which
    /// on a dead network may be minutes.
    fn let_go(&mut self) {
        if let Some(client) = self.client.take() {
            std::thread::spawn(move || drop(client));
        }
    }
}

/// Whether a notification comes within `timeout`; then takes those pending with it.
fn heard_within(client: &mut postgres::Client, timeout: Duration) -> Result<bool, postgres::Error> {
    let mut notifications = client.notifications();
    if notifications.timeout_iter(timeout).next()?.is_none() {
        return Ok(false);
    }
    while notifications.iter().next()?.is_some() {}
    Ok(true)
}

/// A listener for the project on `conn`: `None` on a file.
pub(crate) fn listener(
    conn: &Connection,
    location: &std::path::Path,
) -> Result<Option<AnswerListener>> {
    match conn {
        Connection::Sqlite(_) => Ok(None),
        Connection::Postgres(c) => {
            AnswerListener::open(c.config().clone(), location.display().to_string()).map(Some)
        }
    }
}
