//! What the hostile pass broke (notes of session 8): large bodies read before the role
//! check, unbounded searches, sign-in lockouts and floods, disabled people and their
//! streams, idle connections.

use crate::harness::{error_of, ok, password, Team};
use factdesk_api::sign_in::SignInPolicy;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends `head` (request line and headers, no body) on a fresh connection and reads what
/// comes back within `wait`: the status line's code, or `None` if nothing came.
pub async fn raw_status(base: &str, head: &str, wait: Duration) -> Option<u16> {
    let addr = base.trim_start_matches("http://");
    let mut stream = ok(tokio::net::TcpStream::connect(addr).await);
    ok(stream.write_all(head.as_bytes()).await);
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(wait, async {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    if read.is_err() && got.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&got);
    text.split_whitespace().nth(1).and_then(|s| s.parse().ok())
}

fn huge_post(path: &str, token: Option<&str>) -> String {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n{auth}Content-Length: 200000000\r\n\r\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_body_is_refused_from_its_headers_unless_a_lead_sends_it() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let wait = Duration::from_secs(5);
    for path in ["/api/v1/import", "/api/v1/imports", "/api/v1/merge"] {
        // Headers only: a 200 MB body is announced and never sent, so an answer can only
        // come from a server that did not wait for it.
        let cases = [
            (None, 401),
            (Some("forged"), 401),
            (Some(ana.as_str()), 403),
        ];
        for (token, status) in cases {
            let got = raw_status(&team.base, &huge_post(path, token), wait).await;
            assert_eq!(got, Some(status), "{path} with {token:?}");
        }
    }
    // A lead's request is read in full and reaches the use case.
    let maria = team.token("maria").await;
    let (status, _, message) = error_of(
        team.post("/api/v1/merge", Some(&maria), r#"{"packs": 5}"#)
            .await,
    )
    .await;
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("packs"), "{message}");
    let _ = password;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_past_the_bounds_is_400_naming_query() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let search = |query: String| serde_json::json!({"op": "search", "args": {"query": query}});
    let words = vec!["harbour"; 65].join(" ");
    let long = "h".repeat(1001);
    for query in [words, long] {
        let body = search(query).to_string();
        let (status, code, message) =
            error_of(team.post("/api/v1/call", Some(&ana), &body).await).await;
        assert_eq!((status, code.as_str()), (400, "invalid_input"), "{message}");
        assert!(message.contains("query"), "{message}");
    }
    let within = search(vec!["harbour"; 64].join(" ")).to_string();
    let response = team.post("/api/v1/call", Some(&ana), &within).await;
    assert_eq!(response.status(), 200);
    let hits: serde_json::Value = ok(response.json().await);
    assert!(
        !hits.as_array().map(Vec::is_empty).unwrap_or(true),
        "{hits}"
    );
}
