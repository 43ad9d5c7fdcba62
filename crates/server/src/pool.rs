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
    idle: Mutex<Vec<Project>>,
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
            idle: Mutex::new(Vec::new()),
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
        let _permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| unavailable("the server is shutting down"))?;
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let open = self.open.clone();
        let (project, result) = tokio::task::spawn_blocking(move || {
            let mut project = match idle {
                Some(p) => p,
                None => match open() {
                    Ok(p) => p,
                    Err(e) => return (None, Err(reachable(e))),
                },
            };
            let result = work(&mut project);
            (Some(project), result)
        })
        .await
        .map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("the request failed inside the server: {e}"),
            )
        })?;
        let broken = matches!(&result, Err(e) if e.code == ErrorCode::Unavailable);
        if let (Some(project), false) = (project, broken) {
            if let Ok(mut idle) = self.idle.lock() {
                idle.push(project);
            }
        }
        result
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
