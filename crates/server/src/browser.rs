//! A browser's session: its token lives in an HttpOnly, SameSite=Strict cookie that no
//! script can read, and every request the page makes carries a header of ours. A page of
//! another site can make a browser send the cookie (a form, an image) but cannot add a
//! header without this server's consent, which it never gives (it answers no CORS), so
//! a request with the cookie and without the header is refused: no cross-site writes.

use crate::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use std::net::SocketAddr;

/// The cookie a browser's session token is kept in over plain HTTP.
pub const SESSION_COOKIE: &str = "factdesk_session";
/// Its name over TLS: a browser takes a `__Host-` cookie only from this very host, with
/// Secure and for every path, so no sibling site can set or shadow it.
pub const SECURE_SESSION_COOKIE: &str = "__Host-factdesk_session";
/// The header every request of the server's own page carries (any value).
pub const BROWSER_HEADER: &str = "x-factdesk-browser";

/// What session cookies a request carries.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CookieSession {
    None,
    One(String),
    /// More than one: a cookie can be planted for this host by a site on another of its
    /// ports or a sibling domain, with a narrower path so the browser sends it first, and
    /// the person then worked under the planter's account (thirteenth hostile pass).
    Several,
}

/// The session cookies of a request.
pub(crate) fn cookie_session(headers: &HeaderMap) -> CookieSession {
    let mut tokens = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == SESSION_COOKIE || *name == SECURE_SESSION_COOKIE)
        .map(|(_, value)| value.trim().to_string());
    match (tokens.next(), tokens.next()) {
        (None, _) => CookieSession::None,
        (Some(token), None) if !token.is_empty() => CookieSession::One(token),
        (Some(_), None) => CookieSession::None,
        (Some(_), Some(_)) => CookieSession::Several,
    }
}

/// Whether the request says it comes from the server's own page.
pub(crate) fn from_our_page(headers: &HeaderMap) -> bool {
    headers.contains_key(BROWSER_HEADER)
}

/// Whether the browser reached the server over TLS: the server's own, or a trusted
/// proxy's that says so. Only then is the cookie marked Secure (a browser would drop a
/// Secure cookie sent over plain HTTP to a machine on the network). A chain of proxies
/// lists one protocol each ("https, http"): any https counts, since taking a TLS browser
/// for a plain one would let a sibling site's cookie in (fifteenth hostile pass).
pub(crate) fn over_tls(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> bool {
    state.tls
        || (crate::caller::is_proxy(peer.ip(), state.trusted_proxy)
            && headers
                .get_all("x-forwarded-proto")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|line| line.split(','))
                .any(|p| p.trim().eq_ignore_ascii_case("https")))
}

/// Over TLS a browser's session comes only in the `__Host-` cookie: a plain-named one
/// can be set by a sibling site for the parent domain, and the person would then work
/// under the setter's account (fourteenth hostile pass). It is taken out of the request
/// before anything reads the cookies.
pub(crate) async fn secure_cookie_only(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    if over_tls(&state, peer, request.headers()) {
        without_plain_session(request.headers_mut());
    }
    next.run(request).await
}

/// Removes the plain-named session cookie from the request's cookie lines.
fn without_plain_session(headers: &mut HeaderMap) {
    let plain = |pair: &str| {
        pair.trim()
            .split_once('=')
            .is_some_and(|(name, _)| name.trim() == SESSION_COOKIE)
    };
    let lines: Vec<&HeaderValue> = headers.get_all(header::COOKIE).iter().collect();
    if !lines
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|line| line.split(';').any(plain))
    {
        return;
    }
    let kept: Vec<HeaderValue> = lines
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(|line| {
            line.split(';')
                .filter(|pair| !plain(pair))
                .collect::<Vec<_>>()
                .join(";")
        })
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| HeaderValue::from_str(&line).ok())
        .collect();
    headers.remove(header::COOKIE);
    for line in kept {
        headers.append(header::COOKIE, line);
    }
}

/// The cookie that keeps `token` while the browser runs (the server ends the session
/// itself when it expires).
pub(crate) fn session_cookie(token: &str, secure: bool) -> Option<HeaderValue> {
    let cookie = if secure {
        format!("{SECURE_SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Secure")
    } else {
        format!("{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict")
    };
    HeaderValue::from_str(&cookie).ok()
}

/// The cookie a browser keeps its device token in (see `factdesk_api::sign_in::Login`),
/// sent only with sign-ins, for 30 days; over TLS under a `__Host-` name, as the session.
pub const DEVICE_COOKIE: &str = "factdesk_device";
pub const SECURE_DEVICE_COOKIE: &str = "__Host-factdesk_device";

/// The Set-Cookie header that keeps `token` as the browser's device token.
pub(crate) fn device_cookie(token: &str, secure: bool) -> Option<HeaderValue> {
    const MONTH_S: u32 = 30 * 24 * 3600;
    let cookie = if secure {
        format!("{SECURE_DEVICE_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age={MONTH_S}")
    } else {
        format!("{DEVICE_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={MONTH_S}")
    };
    HeaderValue::from_str(&cookie).ok()
}

/// The device tokens a browser's sign-in carries: over TLS only the `__Host-` cookie's,
/// over plain HTTP only the plain one's, every one of them (the request's size bounds
/// them; a cap of 8 let 8 planted ones hide the owner's). The sign-in takes the first
/// that vouches for its person: a cookie planted beside the owner's (by a sibling site,
/// for the parent domain) vouches only for its planter and leaves the owner's standing;
/// taking none when there were two let a planted one cancel the owner's (hostile pass
/// of session 34).
pub(crate) fn cookie_devices(headers: &HeaderMap, secure: bool) -> Vec<String> {
    let wanted = if secure {
        SECURE_DEVICE_COOKIE
    } else {
        DEVICE_COOKIE
    };
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, value)| name.trim() == wanted && !value.trim().is_empty())
        .map(|(_, value)| value.trim().to_string())
        .collect()
}

/// The cookies that end the session in the browser (whichever name it had).
pub(crate) fn ended_cookies() -> [HeaderValue; 2] {
    [
        HeaderValue::from_static("factdesk_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
        HeaderValue::from_static(
            "__Host-factdesk_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookies(line: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static(line));
        headers
    }

    #[test]
    fn over_tls_only_the_host_cookie_is_left_to_read() {
        let mut planted = cookies("factdesk_session=planted; __Host-factdesk_session=mine; a=1");
        without_plain_session(&mut planted);
        assert_eq!(
            cookie_session(&planted),
            CookieSession::One("mine".to_string())
        );
        let mut alone = cookies("factdesk_session=planted");
        without_plain_session(&mut alone);
        assert_eq!(cookie_session(&alone), CookieSession::None);
        assert!(alone.get(header::COOKIE).is_none());
    }

    #[test]
    fn the_token_is_read_from_among_other_cookies() {
        let one = |t: &str| CookieSession::One(t.to_string());
        assert_eq!(
            cookie_session(&cookies("a=1; factdesk_session=abc ; b=2")),
            one("abc")
        );
        assert_eq!(
            cookie_session(&cookies("__Host-factdesk_session=abc")),
            one("abc")
        );
        assert_eq!(
            cookie_session(&cookies("factdesk_session_x=1; factdesk_session=")),
            CookieSession::None
        );
    }

    /// Thirteenth hostile pass (MEDIUM): a cookie planted by another port of the host
    /// shadowed the real one, and the person's answers went to the planter's account.
    #[test]
    fn two_session_cookies_are_no_session_and_over_tls_the_cookie_is_the_hosts_own() {
        for line in [
            "factdesk_session=planted; factdesk_session=mine",
            "factdesk_session=planted; __Host-factdesk_session=mine",
        ] {
            assert_eq!(
                cookie_session(&cookies(line)),
                CookieSession::Several,
                "{line}"
            );
        }
        let secure = session_cookie("t", true).unwrap_or_else(|| HeaderValue::from_static(""));
        assert_eq!(
            secure.to_str().unwrap_or_default(),
            "__Host-factdesk_session=t; Path=/; HttpOnly; SameSite=Strict; Secure"
        );
    }
}
