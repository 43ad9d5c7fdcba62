//! A few open projects shared by the requests: each call takes one, runs on a blocking
//! thread (the api is synchronous) and gives it back. A connection whose call failed as
//! unavailable (the database out of reach) is dropped, and a new one opened when next
//! needed, so a restarted database is picked up without restarting the server.

use crate::Opener;
use factdesk_api::{Error, ErrorCode, Project, Result};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

/// At most `size` projects open, created as needed.
pub struct Pool {
    open: Opener,
    idle: Arc<Mutex<Vec<Project>>>,
    permits: Arc<Semaphore>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("available", &self.permits.available_permits())
            .finish_non_exhaustive()
    }
}

fn unavailable(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::Unavailable, message)
}

impl Pool {
    pub fn new(open: Opener, size: usize) -> Pool {
        Pool {
            open,
            idle: Arc::new(Mutex::new(Vec::new())),
            permits: Arc::new(Semaphore::new(size.max(1))),
        }
    }

    /// Runs `work` on a project of the pool, on a blocking thread; waits for one when all
    /// are busy.
    pub async fn run<T, F>(&self, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Project) -> Result<T> + Send + 'static,
    {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| unavailable("the server is shutting down"))?;
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let open = self.open.clone();
        let pool = self.idle.clone();
        tokio::task::spawn_blocking(move || {
            // The permit and the connection go back when the work ends, not when the
            // request does: a request dropped mid-call (its client gave up) leaves the call
            // running on its connection, and a new connection opened beside it would
            // exceed the pool's size.
            let _permit = permit;
            let mut project = match idle {
                Some(p) => p,
                None => open().map_err(reachable)?,
            };
            let result = work(&mut project);
            // A broken connection is closed here, off the runtime's threads: closing a
            // PostgreSQL client blocks.
            let broken = matches!(&result, Err(e) if e.code == ErrorCode::Unavailable);
            if broken {
                drop(project);
            } else if let Ok(mut idle) = pool.lock() {
                idle.push(project);
            }
            result
        })
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("the request failed inside the server: {e}"),
            )
        })?
    }
}

/// A project that cannot be opened now (the database down, the file locked) is a reason
/// to retry, not a broken request.
fn reachable(e: Error) -> Error {
    match e.code {
        ErrorCode::Io | ErrorCode::Database => {
            unavailable(format!("the project cannot be reached now: {}", e.message))
        }
        _ => e,
    }
}

impl Drop for Pool {
    /// Closes the idle connections on a thread of their own: a PostgreSQL client blocks
    /// as it closes, which a runtime's thread (where the server drops its pool) may not.
    fn drop(&mut self) {
        let idle = match self.idle.lock() {
            Ok(mut idle) => std::mem::take(&mut *idle),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        };
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}
