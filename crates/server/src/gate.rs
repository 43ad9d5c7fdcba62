//! The request's session, and the checks made before a body is read: the import and
//! merge routes take bodies of up to `--import-limit`, so only a signed-in lead may make
//! the server read one; the operations' call and an answer only someone signed in.
//! Anyone else is answered from the headers alone (401 without a valid token, 403 for an
//! annotator), and the body is never read.

use crate::error::ApiError;
use crate::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// How long the body of a request may take when not the server's default: set on a
/// lead's large-body request once checked.
#[derive(Debug, Clone, Copy)]
pub struct BodyDeadline(pub std::time::Duration);

/// Which of the api's checks a large-body route needs.
#[derive(Debug, Clone, Copy)]
pub enum Bulk {
    Import,
    Merge,
}

/// The middleware in front of a large-body route: the token and the api's own role
/// check of that use case, then the route (which reads the body and checks again).
pub async fn lead_first(
    State((state, bulk)): State<(AppState, Bulk)>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = match bearer(request.headers()) {
        Ok(token) => token,
        Err(e) => return closing(e.into_response()),
    };
    let checked = state
        .pool
        .run(move |p| match bulk {
            Bulk::Import => {
                factdesk_api::upload::may_import(p, &p.lead_for_token(&token, "import data")?)
            }
            Bulk::Merge => {
                factdesk_api::upload::may_merge(p, &p.lead_for_token(&token, "merge packs")?)
            }
        })
        .await;
    match checked {
        Ok(()) => {
            request
                .extensions_mut()
                .insert(BodyDeadline(state.bulk_body_timeout));
            next.run(request).await
        }
        Err(e) => closing(ApiError::from(e).into_response()),
    }
}

/// The person a request's session stands for, found by [`someone_first`] before the
/// body was read. The route asks [`SignedInPerson::still`] for them once the body is in.
#[derive(Debug, Clone)]
pub struct SignedInPerson {
    actor: factdesk_api::Actor,
    token: String,
    checked: std::time::Instant,
}

/// How long after its check a session is taken as still live without a second look. A
/// body can be held back for up to the body timeout; a password reset or a disable in
/// the meantime must still stop the request (a held call added a lead 25 s after its
/// caller's password was reset, fourteenth hostile pass). A body that came with its
/// headers, nearly every one, costs no second lookup.
const STILL_LIVE_FOR: std::time::Duration = std::time::Duration::from_millis(100);

impl SignedInPerson {
    /// The name of the person found before the body was read.
    pub fn name(&self) -> &str {
        self.actor.name()
    }

    /// The person to act for, on the project the request runs on: the one found before
    /// the body, or, when that was more than [`STILL_LIVE_FOR`] ago, whoever the session
    /// stands for now (an ended session is refused).
    pub fn still(self, p: &factdesk_api::Project) -> factdesk_api::Result<factdesk_api::Actor> {
        if self.checked.elapsed() <= STILL_LIVE_FOR {
            return Ok(self.actor);
        }
        p.actor_for_token(&self.token)
    }
}

/// The middleware in front of a route whose body comes from someone signed in (the
/// operations' call, an answer): the session is looked up before the body is read, so a
/// caller with no live session never has the server hold a body for it (thousands of
/// anonymous connections each sending 64 KiB slowly got a server with 1 GiB killed for
/// memory, thirteenth hostile pass). The person found goes to the route.
pub async fn someone_first(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = match bearer(request.headers()) {
        Ok(token) => token,
        Err(e) => return closing(e.into_response()),
    };
    let looked_up = token.clone();
    match state.pool.run(move |p| p.actor_for_token(&looked_up)).await {
        Ok(actor) => {
            request.extensions_mut().insert(SignedInPerson {
                actor,
                token,
                checked: std::time::Instant::now(),
            });
            next.run(request).await
        }
        Err(e) => closing(ApiError::from(e).into_response()),
    }
}

/// Refuses at once (413) a request whose Content-Length says its body is over `limit`:
/// read first, it would be held in memory while it arrives, however slowly.
pub async fn declared_within(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return closing(
            ApiError::new(
                axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("this request's body is over {limit} bytes"),
            )
            .into_response(),
        );
    }
    next.run(request).await
}

/// A refusal sent before the body was read ends its connection, and says so: a client
/// that kept the connection for its next request would find it closed under it (the
/// unread body cannot be skipped).
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// The bearer token of the request; 401 without one.
pub(crate) fn bearer(headers: &HeaderMap) -> Result<String, ApiError> {
    if let Some(token) = authorization(headers) {
        return Ok(token);
    }
    match crate::browser::cookie_session(headers) {
        crate::browser::CookieSession::Several => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this browser sends two Factdesk sessions for this address (another site may have planted one): clear this site's cookies in the browser, then sign in again",
        )),
        crate::browser::CookieSession::One(token) if crate::browser::from_our_page(headers) => {
            Ok(token)
        }
        crate::browser::CookieSession::One(_) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "this request came with the browser's session but not from Factdesk's own page (no X-Factdesk-Browser header): refused",
        )),
        crate::browser::CookieSession::None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "sign in first (POST /api/v1/login) and send the token as Authorization: Bearer TOKEN",
        )),
    }
}

/// Whether the request carries a session at all (a token or a browser's cookie).
pub(crate) fn has_session(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
        || crate::browser::cookie_session(headers) != crate::browser::CookieSession::None
}

fn authorization(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_string())
        .filter(|t| !t.is_empty())
}
