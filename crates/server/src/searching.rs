//! Searches on the team server: each holds a project connection only to read the project,
//! never while the index is searched, and one person runs at most
//! [`SEARCHES_PER_PERSON`] at once.
//!
//! One annotator's searches froze the team (issue 31): each search held one of the pool's
//! connections for as long as the index took, so eight costly ones at once kept every
//! `/next`, answer and sign-in waiting (answers 55 s, the lead's sign-in 20 s), and
//! searches whose client had gone kept running. Now a search takes a connection to read
//! what it needs (the person, the claims they may find, the index as current), gives it
//! back while the index is searched on a blocking thread, and takes one again to read the
//! hits' texts. Its turn is held by a task of its own, so a search whose client has gone
//! still counts against its person until it ends.

use crate::error::ApiError;
use crate::gate::SignedInPerson;
use crate::AppState;
use axum::response::{IntoResponse, Response};
use axum::Json;
use factdesk_api::call::Reply;
use factdesk_api::search::HITS_SHOWN;
use factdesk_api::{Error, ErrorCode};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

/// Searches one person may run at once; one more is answered 429 at once. Two let a
/// person type on while the last search ends, and keep one person's searches to two of
/// the server's threads.
pub const SEARCHES_PER_PERSON: usize = 2;

/// The searches running, per person (by name, unique in a project).
#[derive(Debug, Default)]
pub(crate) struct Searching {
    running: Mutex<HashMap<String, usize>>,
}

/// One running search's place in [`Searching`], given back when dropped.
#[derive(Debug)]
struct Turn {
    searching: Arc<Searching>,
    who: String,
}

impl Searching {
    /// A turn for `who`, unless they already run [`SEARCHES_PER_PERSON`] searches.
    fn take(self: &Arc<Self>, who: &str) -> Option<Turn> {
        // A poisoned count is still a count: a panic elsewhere must not stop searches.
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        let n = running.entry(who.to_string()).or_insert(0);
        if *n >= SEARCHES_PER_PERSON {
            return None;
        }
        *n += 1;
        Some(Turn {
            searching: self.clone(),
            who: who.to_string(),
        })
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut running = (self.searching.running.lock()).unwrap_or_else(|p| p.into_inner());
        if let Some(n) = running.get_mut(&self.who) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                running.remove(&self.who);
            }
        }
    }
}

/// For tests: stops every search just before it searches the index (its connection given
/// back) until [`SearchHold::release`], so a test can hold searches there as a costly
/// search would be held, and see what the server does meanwhile.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct SearchHold {
    /// How many searches have arrived at the hold, and whether it is open.
    state: Mutex<(usize, bool)>,
    opened: Condvar,
}

impl SearchHold {
    /// How many searches have reached the hold so far.
    pub fn arrived(&self) -> usize {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    /// Lets every search held, and every later one, go on.
    pub fn release(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = true;
        self.opened.notify_all();
    }

    /// Waits, on a blocking thread, until released.
    fn wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 += 1;
        while !state.1 {
            state = self.opened.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }
}

fn failed_inside(e: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::Io,
        format!("the request failed inside the server: {e}"),
    )
}

/// The `search` operation for `person`, answered as `POST /api/v1/call` answers it.
pub(crate) async fn search(
    state: &AppState,
    person: SignedInPerson,
    query: String,
) -> Result<Response, ApiError> {
    let turn = state.searching.take(person.name()).ok_or_else(|| {
        let busy = Error::new(
            ErrorCode::RateLimited,
            format!(
                "you already have {SEARCHES_PER_PERSON} searches running; search again once one has finished"
            ),
        );
        // A search ends in well under a second: the default wait (60 s) is a sign-in's.
        ApiError::from(busy).retry_after(1)
    })?;
    let (pool, hold) = (state.pool.clone(), state.search_hold.clone());
    let searching = tokio::spawn(async move {
        let _turn = turn;
        let plan = pool
            .run(move |p| {
                let actor = person.still(p)?;
                p.plan_search(&actor, &query, HITS_SHOWN)
            })
            .await?;
        let found = tokio::task::spawn_blocking(move || {
            if let Some(hold) = hold {
                hold.wait();
            }
            plan.run()
        })
        .await
        .map_err(failed_inside)??;
        pool.run(move |p| p.finish_search(found)).await
    });
    let hits = searching.await.map_err(failed_inside)??;
    Ok(Json(Reply::Search(hits)).into_response())
}
