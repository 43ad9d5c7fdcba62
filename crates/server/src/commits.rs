//! The event stream's ticks for answers committed on a PostgreSQL project by anyone: a
//! second server on the same database, `factdesk submit` or `merge` beside the server.
//! The routes tick for what this server commits as they commit it; a listener
//! ([`factdesk_api::AnswerListener`]) on a connection of its own ticks for every commit
//! the database announces, this server's included (a refresh folds a second tick). A
//! project file has no listener.

use crate::pool::Pool;
use factdesk_api::{AnswerListener, Result};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use tokio::sync::broadcast::Sender;

/// Starts ticking `answers` for each commit announced on `pool`'s project, until `stop`'s
/// sender is dropped. The listener is opened before this returns, so a commit made once
/// the server takes requests ticks; if it cannot be opened now (the database out of
/// reach), it is tried again every [`factdesk_api::listen::PAUSE`].
pub(crate) async fn tick_on_commits(pool: Arc<Pool>, answers: Sender<()>, stop: Receiver<()>) {
    let opened = pool.run(|p| p.answer_listener()).await;
    let Some(mut stop) = follow(opened, &answers, stop) else {
        return;
    };
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(factdesk_api::listen::PAUSE).await;
            if stopped(&stop) {
                return;
            }
            let opened = pool.run(|p| p.answer_listener()).await;
            match follow(opened, &answers, stop) {
                Some(again) => stop = again,
                None => return,
            }
        }
    });
}

/// Follows the listener `opened`, if any, on a thread of its own (it blocks); gives
/// `stop` back when none could be opened, to try again.
fn follow(
    opened: Result<Option<AnswerListener>>,
    answers: &Sender<()>,
    stop: Receiver<()>,
) -> Option<Receiver<()>> {
    match opened {
        Ok(None) => None,
        Ok(Some(listener)) => {
            let answers = answers.clone();
            let tick = move || {
                // No one following the stream is no reason to stop listening.
                let _ = answers.send(());
                true
            };
            let spawned = std::thread::Builder::new()
                .name("answer-listener".into())
                .spawn(move || listener.follow(tick, || !stopped(&stop)));
            if let Err(e) = spawned {
                tracing::warn!("cannot follow answers committed beside the server: {e}");
            }
            None
        }
        Err(e) => {
            tracing::warn!("cannot follow answers committed beside the server yet: {e}");
            Some(stop)
        }
    }
}

/// Whether the server ended (it dropped the sender).
fn stopped(stop: &Receiver<()>) -> bool {
    matches!(stop.try_recv(), Err(TryRecvError::Disconnected))
}
