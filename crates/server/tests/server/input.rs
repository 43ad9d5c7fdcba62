//! Hostile input: bad JSON names the field, bodies over the limit, guessing passwords,
//! expired tokens.

use crate::harness::{error_of, password, Team};
use factdesk_api::sign_in::SignInPolicy;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_json_is_400_naming_the_field() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let cases = [
        ("/api/v1/answers", r#"{"task_id": "seven"}"#, "task_id"),
        (
            "/api/v1/answers",
            r#"{"task_id": 1, "selected": "o1"}"#,
            "selected",
        ),
        (
            "/api/v1/answers",
            r#"{"task_id": 1, "colour": "red"}"#,
            "colour",
        ),
        ("/api/v1/answers", r#"{"task_id": 1,"#, "EOF"),
        ("/api/v1/login", r#"{"name": 5, "password": "x"}"#, "name"),
        ("/api/v1/login", r#"{"name": "ana"}"#, "password"),
        (
            "/api/v1/call",
            r#"{"op": "next_item", "args": {"kind": 5}}"#,
            "kind",
        ),
        (
            "/api/v1/call",
            r#"{"op": "submit_answer", "args": {"answer": {"task_id": "seven"}}}"#,
            "task_id",
        ),
        (
            "/api/v1/call",
            r#"{"op": "next_item", "args": {"kind": "evidence", "as": "maria"}}"#,
            "as",
        ),
        (
            "/api/v1/call",
            r#"{"op": "import_claims"}"#,
            "import_claims",
        ),
        ("/api/v1/call", r#"{"args": {}}"#, "op"),
    ];
    for (path, body, field) in cases {
        let (status, code, message) = error_of(team.post(path, Some(&ana), body).await).await;
        assert_eq!(
            (status, code.as_str()),
            (400, "invalid_input"),
            "{body}: {message}"
        );
        assert!(
            message.contains(field),
            "{body}: {message} does not name {field}"
        );
    }
    let (status, _, message) =
        error_of(team.get("/api/v1/next?kind=poetry", Some(&ana)).await).await;
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("poetry"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413() {
    let team = Team::start_with(SignInPolicy::default(), 2048, None).await;
    let ana = team.token("ana").await;
    let comment = "x".repeat(4096);
    let body =
        serde_json::json!({"task_id": 1, "no_evidence": true, "comment": comment}).to_string();
    let call = serde_json::json!({"op": "submit_answer", "args": {"answer": {"task_id": 1, "no_evidence": true, "comment": comment}}}).to_string();
    let (status, code, _) = error_of(team.post("/api/v1/call", Some(&ana), &call).await).await;
    assert_eq!((status, code.as_str()), (413, "too_large"), "/api/v1/call");
    for path in ["/api/v1/answers", "/api/v1/login"] {
        let (status, code, _) = error_of(team.post(path, Some(&ana), &body).await).await;
        assert_eq!((status, code.as_str()), (413, "too_large"), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_failed_sign_ins_are_429_with_retry_after() {
    let policy = SignInPolicy {
        failures_per_name_and_address: 3,
        ..SignInPolicy::default()
    };
    let team = Team::start(policy).await;
    for _ in 0..3 {
        assert_eq!(team.login("ana", "a guess").await.status(), 401);
    }
    let refused = team.login("ana", &password("ana")).await;
    assert!(refused.headers().contains_key("retry-after"));
    let (status, code, _) = error_of(refused).await;
    assert_eq!((status, code.as_str()), (429, "rate_limited"));
    team.clock.advance_ms(policy.window_ms + 1);
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_401() {
    let policy = SignInPolicy {
        session_ms: 3_600_000,
        ..SignInPolicy::default()
    };
    let team = Team::start(policy).await;
    let maria = team.token("maria").await;
    assert_eq!(team.get("/api/v1/stats", Some(&maria)).await.status(), 200);
    team.clock.advance_ms(3_600_000);
    let (status, code, _) = error_of(team.get("/api/v1/stats", Some(&maria)).await).await;
    assert_eq!((status, code.as_str()), (401, "unauthorized"));
    let (status, _, _) = error_of(team.get("/api/v1/next", Some("not-a-token")).await).await;
    assert_eq!(status, 401);
}

/// `request` sent as bytes; what the server answered before it closed (or 20 s passed).
async fn sent_raw(team: &Team, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = team.base.trim_start_matches("http://").to_string();
    let Ok(mut stream) = tokio::net::TcpStream::connect(address).await else {
        panic!("cannot connect");
    };
    if stream.write_all(request).await.is_err() {
        return String::new();
    }
    let mut answer = vec![0u8; 4096];
    let read =
        tokio::time::timeout(std::time::Duration::from_secs(20), stream.read(&mut answer)).await;
    match read {
        Ok(Ok(n)) => String::from_utf8_lossy(&answer[..n]).to_string(),
        _ => String::new(),
    }
}

/// Twelfth hostile pass (HIGH on a small host): thousands of anonymous connections,
/// each sending an unfinished header of 400 KB, held that much memory each until the
/// header timeout and got the server killed for memory. A request's headers now fit in
/// 16 KB or are answered 431 at once; ordinary headers, a browser's cookie among them,
/// are far below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_unfinished_header_is_refused_at_once_and_an_ordinary_one_served() {
    let team = Team::start(SignInPolicy::default()).await;
    let mut huge = b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ".to_vec();
    huge.extend(std::iter::repeat_n(b'a', 64 * 1024));
    let answer = sent_raw(&team, &huge).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "answered: {answer:?}");
    let cookie = format!("factdesk_session={}", "t".repeat(64));
    let ordinary = format!(
        "GET /api/v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nX-Pad: {}\r\nConnection: close\r\n\r\n",
        "b".repeat(6 * 1024)
    );
    let answer = sent_raw(&team, ordinary.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "answered: {answer:?}");
}

/// Thirteenth hostile pass (HIGH on a small host): thousands of anonymous connections
/// each sending a 64 KiB body slowly, to the sign-in or to a route that read its body
/// before it looked at the token, held about 155 KB each for 30 s and got a server with
/// 1 GiB killed for memory. A sign-in body is now at most 8 KiB (413 at once past it),
/// and the operations' call and an answer are refused before their body is read when
/// the caller has no live session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_is_read_only_from_someone_signed_in_and_a_sign_in_body_is_small() {
    let team = Team::start(SignInPolicy::default()).await;
    let slow = |route: &str, auth: &str| {
        format!(
            "POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 65536\r\n{auth}\r\n{{\"op\":"
        )
    };
    for auth in ["", "Authorization: Bearer not-a-session\r\n"] {
        for route in ["/api/v1/call", "/api/v1/answers"] {
            let answer = sent_raw(&team, slow(route, auth).as_bytes()).await;
            assert!(
                answer.starts_with("HTTP/1.1 401"),
                "{route} {auth:?}: {answer:?}"
            );
        }
    }
    let answer = sent_raw(&team, slow("/api/v1/login", "").as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "sign-in: {answer:?}");
    // Someone signed in still sends a body as before.
    let ana = team.token("ana").await;
    let next = team
        .post(
            "/api/v1/call",
            Some(&ana),
            r#"{"op": "next_item", "args": {"kind": "evidence"}}"#,
        )
        .await;
    assert_eq!(next.status(), 200);
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
}
