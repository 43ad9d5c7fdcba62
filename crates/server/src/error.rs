//! Errors as they leave the server: `{code, message}` with the HTTP status that code
//! means. The api's codes are kept; the server adds its own for what never reaches the
//! api (a body too large, a route that does not exist).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use factdesk_api::ErrorCode;
use serde::Serialize;

/// An error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiError {
    #[serde(skip)]
    pub status: StatusCode,
    pub code: String,
    pub message: String,
    /// Seconds for `Retry-After` when they are known; otherwise the status's default.
    #[serde(skip)]
    pub retry_after: Option<u64>,
}

/// Seconds a client should wait before retrying a request that met an unavailable store.
pub const RETRY_AFTER_SECONDS: u32 = 1;

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code: code.to_string(),
            message: message.into(),
            retry_after: None,
        }
    }

    /// The same error, telling the client to retry after `seconds`.
    pub fn retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds.max(1));
        self
    }

    /// A body that is not the JSON the route takes; `message` names the field.
    pub fn bad_json(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_input", message)
    }
}

/// The status each of the api's codes is sent with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::AlreadyExists
        | ErrorCode::Conflict
        | ErrorCode::Unanswered
        | ErrorCode::Cancelled => StatusCode::CONFLICT,
        ErrorCode::InvalidInput | ErrorCode::CheckFailed => StatusCode::BAD_REQUEST,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        // A project the server cannot write, or cannot read at all, is its operator's to
        // fix: retrying would not help.
        ErrorCode::ReadOnly
        | ErrorCode::NotAProject
        | ErrorCode::NewerSchema
        | ErrorCode::Io
        | ErrorCode::Database => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<factdesk_api::Error> for ApiError {
    fn from(e: factdesk_api::Error) -> ApiError {
        let code = serde_json::to_value(e.code)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "database".to_string());
        let status = status_of(e.code);
        // A refusal that ends at a known time says when (a sign-in past its limits).
        let retry_after = e.retry_in_ms.map(|ms| u64::from(ms).div_ceil(1000).max(1));
        ApiError {
            status,
            code,
            message: e.to_string(),
            retry_after,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status;
        let mut response = (status, axum::Json(&self)).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::TOO_MANY_REQUESTS {
            // Logged by the answering layer, counted once a second: anyone can cause
            // thousands a second (13.5 MB of log in 45 s, fifth hostile pass).
            response
                .extensions_mut()
                .insert(crate::answering::TurnedAway(self.message.clone()));
        }
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            // The same for failures inside the server: a full disk fails every request.
            response
                .extensions_mut()
                .insert(crate::answering::Failed(format!(
                    "{}: {}",
                    self.code, self.message
                )));
        }
        if status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::TOO_MANY_REQUESTS {
            let wait = self
                .retry_after
                .unwrap_or(if status == StatusCode::TOO_MANY_REQUESTS {
                    60
                } else {
                    u64::from(RETRY_AFTER_SECONDS)
                });
            if let Ok(value) = HeaderValue::from_str(&wait.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}
