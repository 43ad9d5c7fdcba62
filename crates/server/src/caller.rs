//! Who is calling, as the sign-in limits count them: the peer's address, or behind the
//! trusted proxy the caller it names; an IPv6 address under its /64.

use crate::AppState;
use axum::http::HeaderMap;
use std::net::SocketAddr;

/// Whether `peer` is the trusted proxy, in either form of an IPv4 address: on a dual-stack
/// socket an IPv4 proxy arrives as `::ffff:a.b.c.d`, and compared as given it was never
/// trusted, its callers all counted as one address (eleventh hostile pass: 30 wrong
/// guesses locked every newcomer behind the proxy out for 15 minutes).
pub(crate) fn is_proxy(peer: std::net::IpAddr, proxy: Option<std::net::IpAddr>) -> bool {
    proxy.is_some_and(|p| p.to_canonical() == peer.to_canonical())
}

/// The caller's address as the sign-in limits count it: the peer's, or behind the
/// trusted proxy the last address it added to X-Forwarded-For (earlier entries are the
/// client's to forge); an IPv6 address under its /64, which one machine is commonly
/// given whole (each address counted alone let one /64 take every password check).
pub(crate) fn caller(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> String {
    let behind_proxy = is_proxy(peer.ip(), state.trusted_proxy);
    behind_proxy
        .then(|| headers.get_all("x-forwarded-for").iter().next_back())
        .flatten()
        .and_then(|v| v.to_str().ok())
        .and_then(forwarded_caller)
        .unwrap_or_else(|| crate::door::counted_as(peer.ip()).to_string())
}

/// The caller an X-Forwarded-For line names: its last entry that is not empty, with a
/// port some proxies add ("10.0.0.4:51234", "[2001:db8::5]:443") left out; an entry that
/// is no address is counted as written, so that the proxy's callers do not all share
/// the proxy's own budget.
fn forwarded_caller(line: &str) -> Option<String> {
    let entry = line.rsplit(',').map(str::trim).find(|e| !e.is_empty())?;
    let ip = entry
        .parse::<std::net::IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()));
    Some(match ip {
        Some(ip) => crate::door::counted_as(ip).to_string(),
        None => entry.chars().take(64).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::{forwarded_caller, is_proxy};

    /// Eleventh hostile pass (MEDIUM): an IPv4 proxy reached a dual-stack socket as
    /// `::ffff:a.b.c.d` and was not trusted.
    #[test]
    fn the_proxy_is_trusted_in_either_form_of_its_address() {
        let ip = |s: &str| {
            s.parse::<std::net::IpAddr>()
                .unwrap_or(std::net::IpAddr::from([0, 0, 0, 0]))
        };
        let proxy = Some(ip("127.0.0.1"));
        assert!(is_proxy(ip("127.0.0.1"), proxy));
        assert!(is_proxy(ip("::ffff:127.0.0.1"), proxy));
        assert!(is_proxy(ip("127.0.0.1"), Some(ip("::ffff:127.0.0.1"))));
        assert!(!is_proxy(ip("127.0.0.2"), proxy));
        assert!(!is_proxy(ip("::1"), proxy));
        assert!(!is_proxy(ip("127.0.0.1"), None));
    }

    /// Hostile pass of session 26 (HIGH, LOW): addresses of one IPv6 /64 each had a
    /// sign-in budget of their own, and "ip:port" or a trailing comma from the proxy
    /// counted every caller as the proxy.
    #[test]
    fn a_forwarded_caller_is_its_address_without_port_and_an_ipv6_one_its_64() {
        let caller = |line: &str| forwarded_caller(line).unwrap_or_default();
        assert_eq!(caller("203.0.113.9, 10.0.0.4"), "10.0.0.4");
        assert_eq!(caller("10.0.0.4:51234"), "10.0.0.4");
        assert_eq!(caller("10.0.0.4, "), "10.0.0.4");
        assert_eq!(caller("2001:db8:7:7::1"), "2001:db8:7:7::");
        assert_eq!(caller("2001:db8:7:7:ffff::9"), "2001:db8:7:7::");
        assert_eq!(caller("[2001:db8::5]:443"), "2001:db8::");
        assert_eq!(caller("::ffff:10.0.0.4"), "10.0.0.4");
        assert_eq!(caller("unknown"), "unknown");
        assert_eq!(forwarded_caller(" , "), None);
    }
}
