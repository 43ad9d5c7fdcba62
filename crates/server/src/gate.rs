//! Checks made before a large body is read: the import and merge routes take bodies of
//! up to `--import-limit`, so only a signed-in lead may make the server read one. Anyone
//! else is answered from the headers alone (401 without a valid token, 403 for an
//! annotator), and the body is never read.

use crate::error::ApiError;
use crate::AppState;
use axum::extract::{Request, State};
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
    let token = match crate::routes::bearer(request.headers()) {
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
