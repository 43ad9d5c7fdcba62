//! The layer that tells the door ([`crate::door`]) what each connection is doing: which
//! has a request in the server's handlers, whether that request's body is still
//! arriving, and which has shown it belongs to someone signed in. The door makes room at
//! its cap by closing others first.

use crate::door::{Activity, Door};
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Body as _, Frame, SizeHint};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Marks the connection of each request while the server answers it. A connection whose
/// request has all arrived keeps its place at the cap; one whose body is still coming
/// does not on that account (slow bodies kept every place taken, third hostile pass of
/// session 26). A signed-in request answered 2xx, or a sign-in that succeeded, marks its
/// connection as someone's.
pub async fn layer(
    State(door): State<Door>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let Some(activity) = door.connection(peer) else {
        return next.run(request).await;
    };
    // Every route but these two answers 2xx only to a valid token.
    let path = request.uri().path();
    let signing_in = request.method() == Method::POST && path == "/api/v1/login";
    let signed_in = request.headers().contains_key(header::AUTHORIZATION)
        && path != "/api/v1/openapi.json"
        && !signing_in;
    let (parts, body) = request.into_parts();
    let to_come = !body.is_end_stream();
    activity.request_started(to_come);
    let mut ended = Ended {
        activity: activity.clone(),
        trusted: false,
    };
    let body = Body::new(Arriving {
        inner: body,
        activity: to_come.then_some(activity),
    });
    let response = next.run(Request::from_parts(parts, body)).await;
    ended.trusted = response.status().is_success() && (signed_in || signing_in);
    response
}

/// Ends the request's mark, even when the handler is dropped midway.
struct Ended {
    activity: Arc<Activity>,
    trusted: bool,
}

impl Drop for Ended {
    fn drop(&mut self) {
        self.activity.request_ended(self.trusted);
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
