//! The app's screens for a browser: the built UI (ui/dist), embedded in the binary when
//! it compiles, served at `/` and `/assets/…`. Only the embedded files are served, by
//! exact path (nothing is read from disk, so no path can reach outside them), with a
//! Content-Security-Policy that lets the page load nothing but its own scripts and styles
//! and talk to nothing but this server.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));

/// What the page may load and do: its own files and calls to this server only; no
/// inline script, no frames, no forms posting elsewhere, never framed by another site.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// `GET /` and `GET /assets/…`: the embedded file at that path, or 404.
pub async fn page(request: Request) -> Response {
    let path = match request.uri().path() {
        "/" => "/index.html",
        path => path,
    };
    let Some((_, bytes)) = ASSETS.iter().find(|(at, _)| *at == path) else {
        return (StatusCode::NOT_FOUND, "no such page").into_response();
    };
    let mut response = (*bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(media_type(path)),
    );
    // The scripts and styles carry their content's hash in their names: kept a year. The
    // page that names them is asked for again each time, so a new server's screens load.
    let cache = if path.starts_with("/assets/") {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

fn media_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}
