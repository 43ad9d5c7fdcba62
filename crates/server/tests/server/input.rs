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
