//! The layer that tells the door ([`crate::door`]) what each connection is doing: which
//! has a request in the server's handlers, whether that request's body is still
//! arriving, and which has shown it belongs to someone signed in, for as long as that
//! session lasts. The door makes room at its cap by closing others first.

use crate::door::{Activity, Door, Holder};
use crate::pool::Pool;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Body as _, Frame, SizeHint};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// How often the door asks which of the sessions vouching for connections still live.
const SESSIONS_CHECKED_EVERY: Duration = Duration::from_secs(5);

/// Set on a response by a route that knows whose session answered it (a sign-in, the
/// event stream): its connection is that person's at once, before the session lookup
/// other requests wait for in a busy pool (fifth hostile pass: a lead's reopened event
/// stream was nobody's until then, and closed first).
#[derive(Debug, Clone)]
pub(crate) struct SignedIn {
    pub(crate) token: Arc<str>,
    pub(crate) person: i64,
}

/// Set on a 503 or 429 answer: why, for the log.
#[derive(Debug, Clone)]
pub(crate) struct TurnedAway(pub(crate) String);

/// Set on a 500 answer: what failed inside the server, for the log.
#[derive(Debug, Clone)]
pub(crate) struct Failed(pub(crate) String);

/// Set on a sign-out's response by its route: the ended session's token.
#[derive(Debug, Clone)]
pub(crate) struct SignedOut(pub(crate) Arc<str>);

/// Marks the connection of each request while the server answers it. A connection whose
/// request has all arrived keeps its place at the cap; one whose body is still coming
/// does not on that account (slow bodies kept every place taken, third hostile pass of
/// session 26). A signed-in request answered 2xx, or a sign-in that succeeded, marks its
/// connection as someone's (see [`Doorkeeper::vouch`](crate::door::Doorkeeper::vouch)),
/// until the session ends.
pub async fn layer(
    State((door, pool)): State<(Door, Arc<Pool>)>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let Some(activity) = door.connection(peer) else {
        let mut response = next.run(request).await;
        log_refusals(&door, &mut response);
        return response;
    };
    // Every route but these two answers 2xx only to a valid token.
    let path = request.uri().path();
    let signing_in = request.method() == Method::POST && path == "/api/v1/login";
    let signed_in = crate::gate::has_session(request.headers())
        && path != "/api/v1/openapi.json"
        && path != "/api/v1/logout"
        && !signing_in;
    let token = signed_in
        .then(|| crate::gate::bearer(request.headers()).ok())
        .flatten();
    let (parts, body) = request.into_parts();
    let to_come = !body.is_end_stream();
    activity.request_started(to_come);
    let _ended = Ended {
        activity: activity.clone(),
    };
    let body = Body::new(Arriving {
        inner: body,
        activity: to_come.then_some(activity.clone()),
    });
    let mut response = next.run(Request::from_parts(parts, body)).await;
    log_refusals(&door, &mut response);
    if let Some(SignedOut(token)) = response.extensions_mut().remove::<SignedOut>() {
        door.withdraw(&token);
    }
    if let Some(SignedIn { token, person }) = response.extensions_mut().remove::<SignedIn>() {
        door.vouch(&activity, Holder { person, token });
        return response;
    }
    let vouching = token
        .filter(|_| response.status().is_success())
        .map(Arc::<str>::from);
    if let Some(token) = vouching.filter(|t| !activity.held_by(t)) {
        // Whose it is, asked beside the answer rather than before it is sent.
        tokio::spawn(async move {
            let asked = token.clone();
            if let Ok(Some(person)) = pool.run(move |p| p.session_holder(&asked)).await {
                door.vouch(&activity, Holder { person, token });
            }
        });
    }
    response
}

/// Logs a response turned away (503, 429) or failed inside the server (500), each kind
/// counted and written once a second at most.
fn log_refusals(door: &Door, response: &mut Response) {
    let status = response.status().as_u16();
    if let Some(TurnedAway(why)) = response.extensions_mut().remove::<TurnedAway>() {
        door.log_turned_away(status, &why);
    }
    if let Some(Failed(why)) = response.extensions_mut().remove::<Failed>() {
        door.log_failed(status, &why);
    }
}

/// Lets go, every few seconds, of the connections whose session ended some other way
/// than by signing out on the server: a password changed or reset, sessions ended by a
/// lead, a person disabled, a session expired. Runs until `stop` fires or is dropped.
pub(crate) async fn let_go_of_ended_sessions(
    door: Door,
    pool: Arc<Pool>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = &mut stop => return,
            () = tokio::time::sleep(SESSIONS_CHECKED_EVERY) => {}
        }
        let tokens = door.vouching();
        if tokens.is_empty() {
            continue;
        }
        let ended = pool
            .run(move |p| {
                Ok(tokens
                    .into_iter()
                    .filter(|t| matches!(p.session_holder(t), Ok(None)))
                    .collect::<Vec<_>>())
            })
            .await;
        for token in ended.unwrap_or_default() {
            door.withdraw(&token);
        }
    }
}

/// Ends the request's mark, even when the handler is dropped midway.
struct Ended {
    activity: Arc<Activity>,
}

impl Drop for Ended {
    fn drop(&mut self) {
        self.activity.request_ended();
    }
}

/// A request body that tells its connection when it has all arrived (or is dropped).
struct Arriving {
    inner: Body,
    activity: Option<Arc<Activity>>,
}

impl Arriving {
    fn received(&mut self) {
        if let Some(activity) = self.activity.take() {
            activity.body_received();
        }
    }
}

impl http_body::Body for Arriving {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let over = match &polled {
            Poll::Ready(None | Some(Err(_))) => true,
            Poll::Ready(Some(Ok(_))) => self.inner.is_end_stream(),
            Poll::Pending => false,
        };
        if over {
            self.received();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Arriving {
    fn drop(&mut self) {
        self.received();
    }
}
