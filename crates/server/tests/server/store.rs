//! The store behind the server: an ack only for a committed answer, live ticks as
//! answers land, and "retry" (503 with Retry-After) when the store is out of reach.

use crate::harness::{error_of, ok, Team};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{Error, ErrorCode};
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_ack_is_already_in_the_project_when_it_arrives() {
    let team = Arc::new(Team::start(SignInPolicy::default()).await);
    let mut workers = Vec::new();
    for name in ["ana", "ben", "eve"] {
        let team = team.clone();
        workers.push(tokio::spawn(async move {
            let token = team.token(name).await;
            let reader = ok(rusqlite::Connection::open(&team.path));
            for _ in 0..3 {
                let ack = team.answer_next(&token, "").await;
                let uuid = ack["ack"].as_str().unwrap_or_default().to_string();
                let stored: i64 = ok(reader.query_row(
                    "SELECT COUNT(*) FROM annotations WHERE uuid = ?1",
                    [&uuid],
                    |r| r.get(0),
                ));
                assert_eq!(
                    stored, 1,
                    "ack {uuid} arrived before its answer was committed"
                );
            }
        }));
    }
    for w in workers {
        ok(w.await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_ticks_when_an_answer_lands() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let ana = team.token("ana").await;
    let mut stream = team.get("/api/v1/events", Some(&maria)).await;
    assert_eq!(stream.status(), 200);
    let mut seen = String::new();
    // The bounds below only tell "late" from "never": the tick comes within
    // milliseconds, and a busy machine may hold the test's threads for seconds.
    while !seen.contains("event: ready") {
        let chunk = ok(tokio::time::timeout(Duration::from_secs(20), stream.chunk()).await);
        seen.push_str(&String::from_utf8_lossy(&ok(chunk).unwrap_or_default()));
    }
    team.answer_next(&ana, "").await;
    let arrived = tokio::time::timeout(Duration::from_secs(10), async {
        while !seen.contains("event: answer") {
            let chunk = ok(stream.chunk().await).unwrap_or_default();
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(arrived.is_ok(), "no tick within ten seconds: {seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_beats_while_nothing_happens() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let mut stream = team.get("/api/v1/events", Some(&maria)).await;
    assert_eq!(stream.status(), 200);
    let started = std::time::Instant::now();
    let mut seen = String::new();
    // No answer comes: two heartbeats within two intervals and a margin wide enough for
    // a busy machine (it only tells "late" from "never").
    let beats = tokio::time::timeout(
        factdesk_server::HEARTBEAT * 2 + Duration::from_secs(10),
        async {
            while seen.matches(": heartbeat\n").count() < 2 {
                let chunk = ok(stream.chunk().await).unwrap_or_default();
                seen.push_str(&String::from_utf8_lossy(&chunk));
            }
        },
    )
    .await;
    assert!(beats.is_ok(), "fewer than two heartbeats: {seen:?}");
    assert!(seen.starts_with("event: ready"), "{seen:?}");
    assert!(!seen.contains("event: answer"), "{seen:?}");
    // Not sooner than the interval either: the first beat waits for it.
    assert!(
        started.elapsed() >= factdesk_server::HEARTBEAT,
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_out_of_reach_is_503_with_retry_after() {
    let down: factdesk_server::Opener =
        Arc::new(|| Err(Error::new(ErrorCode::Io, "connection refused")));
    let team = Team::start_with(SignInPolicy::default(), 4096, Some(down)).await;
    let response = team.login("ana", "ana-password").await;
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1")
    );
    let (status, code, _) = error_of(response).await;
    assert_eq!((status, code.as_str()), (503, "unavailable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_database_is_503_and_the_retry_succeeds() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let blocker = ok(rusqlite::Connection::open(&team.path));
    ok(blocker.execute_batch("BEGIN EXCLUSIVE"));
    let (status, code, _) = error_of(team.get("/api/v1/next", Some(&ana)).await).await;
    assert_eq!((status, code.as_str()), (503, "unavailable"));
    ok(blocker.execute_batch("COMMIT"));
    assert_eq!(team.get("/api/v1/next", Some(&ana)).await.status(), 200);
}
