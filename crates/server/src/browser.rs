//! A browser's session: its token lives in an HttpOnly, SameSite=Strict cookie that no
//! script can read, and every request the page makes carries a header of ours. A page of
//! another site can make a browser send the cookie (a form, an image) but cannot add a
//! header without this server's consent, which it never gives (it answers no CORS), so
//! a request with the cookie and without the header is refused: no cross-site writes.

use crate::AppState;
use axum::http::{header, HeaderMap, HeaderValue};
use std::net::SocketAddr;

/// The cookie a browser's session token is kept in.
pub const SESSION_COOKIE: &str = "factdesk_session";
/// The header every request of the server's own page carries (any value).
pub const BROWSER_HEADER: &str = "x-factdesk-browser";

/// The session token in the request's cookie, if there is one.
pub(crate) fn cookie_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|token| !token.is_empty())
}

/// Whether the request says it comes from the server's own page.
pub(crate) fn from_our_page(headers: &HeaderMap) -> bool {
    headers.contains_key(BROWSER_HEADER)
}

/// Whether the browser reached the server over TLS: the server's own, or a trusted
/// proxy's that says so. Only then is the cookie marked Secure (a browser would drop a
/// Secure cookie sent over plain HTTP to a machine on the network).
pub(crate) fn over_tls(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> bool {
    state.tls
        || (crate::caller::is_proxy(peer.ip(), state.trusted_proxy)
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|p| p.trim().eq_ignore_ascii_case("https")))
}

/// The cookie that keeps `token` while the browser runs (the server ends the session
/// itself when it expires).
pub(crate) fn session_cookie(token: &str, secure: bool) -> Option<HeaderValue> {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}"
    ))
    .ok()
}

/// The cookie that ends the session in the browser.
pub(crate) fn ended_cookie() -> HeaderValue {
    HeaderValue::from_static("factdesk_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_read_from_among_other_cookies() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; factdesk_session=abc ; b=2"),
        );
        assert_eq!(cookie_token(&headers).as_deref(), Some("abc"));
        let mut other = HeaderMap::new();
        other.append(
            header::COOKIE,
            HeaderValue::from_static("factdesk_session_x=1; factdesk_session="),
        );
        assert_eq!(cookie_token(&other), None);
    }
}
