//! Imports as jobs: progress as they run, their report or error, cancel with nothing
//! changed, and a job is its starter's alone.

use crate::downloads::{claim_line, upload};
use crate::harness::{ok, Team};
use factdesk_api::sign_in::SignInPolicy;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Polls job `id` as `token` until it has an outcome; the last state.
async fn until_ended(team: &Team, token: &str, id: &Value) -> Value {
    until_ended_seeing(team, token, id, &mut Vec::new()).await
}

/// As [`until_ended`], keeping the progress of each state polled before the end in `seen`.
async fn until_ended_seeing(team: &Team, token: &str, id: &Value, seen: &mut Vec<Value>) -> Value {
    let started = Instant::now();
    loop {
        let response = team
            .get(&format!("/api/v1/imports/{id}"), Some(token))
            .await;
        assert_eq!(response.status(), 200);
        let job: Value = ok(response.json().await);
        if !job["outcome"].is_null() {
            return job;
        }
        seen.push(job["progress"].clone());
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the job never ended: {job}"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

fn claims(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| claim_line(&format!("{prefix}{i}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_job_reports_progress_then_its_report() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let mut expected = team.counts().claims;
    let total = |p: &Value| p["total"].as_u64().unwrap_or(0);
    let done = |p: &Value| p["done"].as_u64().unwrap_or(0);
    // Whether a poll lands while a phase is partly done is the machine's: an import that
    // ended between two polls is imported again, twice as large, until one is seen
    // (four sizes; every one is checked whole).
    let mut size = 3000;
    let mut seen_running = false;
    let mut last = Value::Null;
    for attempt in 0..4 {
        let name = format!("many{attempt}.jsonl");
        let body = upload(&name, &claims(&format!("j{attempt}-"), size)).to_string();
        let response = team.post("/api/v1/imports", Some(&maria), &body).await;
        assert_eq!(response.status(), 200);
        let job: Value = ok(response.json().await);
        assert!(job["outcome"].is_null(), "answered before it ran: {job}");
        let mut seen = Vec::new();
        let ended = until_ended_seeing(&team, &maria, &job["id"], &mut seen).await;
        let report = &ended["outcome"]["report"];
        assert_eq!(report["claims_added"], size, "{ended}");
        assert_eq!(report["files"], serde_json::json!([name]), "{ended}");
        // Never past its total.
        assert!(
            seen.iter().all(|p| total(p) == 0 || done(p) <= total(p)),
            "{seen:?}"
        );
        expected += size as u64;
        assert_eq!(team.counts().claims, expected);
        last = job;
        // While it ran: a phase with a known total, partly done.
        if seen.iter().any(|p| total(p) > 0 && done(p) < total(p)) {
            seen_running = true;
            break;
        }
        size *= 2;
    }
    assert!(
        seen_running,
        "no progress seen while four imports ran, of 3000 to 24000 claims"
    );
    // Cancelling an ended job leaves it as it ended.
    let cancel = team
        .post(
            &format!("/api/v1/imports/{}/cancel", last["id"]),
            Some(&maria),
            "",
        )
        .await;
    assert_eq!(cancel.status(), 200);
    let after: Value = ok(cancel.json().await);
    assert_eq!(after["outcome"]["report"]["claims_added"], size, "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_import_job_changes_nothing() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let before = team.counts().claims;
    let body = upload("huge.jsonl", &claims("k", 20_000)).to_string();
    // The import cannot commit before the cancel arrives: a writer behind the server's
    // back holds the project's write lock until the server has taken the cancel, so the
    // import is still reading or waits for the lock, and meets the cancel at its next
    // step (inside its transaction, if it had begun one). Only a wait for the lock past
    // the store's busy timeout (seconds, for one request to be answered) ends it
    // otherwise, as "unavailable" and with nothing changed: that attempt is run again.
    let mut outcome = Value::Null;
    for _ in 0..3 {
        let blocker = ok(rusqlite::Connection::open(&team.path));
        ok(blocker.execute_batch("BEGIN IMMEDIATE"));
        let response = team.post("/api/v1/imports", Some(&maria), &body).await;
        assert_eq!(response.status(), 200);
        let job: Value = ok(response.json().await);
        let cancel = team
            .post(
                &format!("/api/v1/imports/{}/cancel", job["id"]),
                Some(&maria),
                "",
            )
            .await;
        assert_eq!(cancel.status(), 200);
        let cancelled: Value = ok(cancel.json().await);
        assert!(
            cancelled["outcome"]["report"].is_null(),
            "ended before the cancel with the lock held: {cancelled}"
        );
        ok(blocker.execute_batch("ROLLBACK"));
        drop(blocker);
        let ended = until_ended(&team, &maria, &job["id"]).await;
        assert!(ended["outcome"]["report"].is_null(), "{ended}");
        assert_eq!(team.counts().claims, before);
        outcome = ended["outcome"].clone();
        if outcome["error"]["code"] != "unavailable" {
            break;
        }
    }
    assert_eq!(outcome["error"]["code"], "cancelled", "{outcome}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_is_its_starters_and_a_bad_file_ends_it_with_the_error_by_line_and_field() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let ana = team.token("ana").await;
    let before = team.counts().claims;
    let bad = format!(
        "{}{}\n",
        claim_line("b1"),
        serde_json::json!({"id": "b2", "claim": 5})
    );
    let response = team
        .post(
            "/api/v1/imports",
            Some(&maria),
            &upload("bad.jsonl", &bad).to_string(),
        )
        .await;
    let job: Value = ok(response.json().await);
    for path in [format!("/api/v1/imports/{}", job["id"])] {
        assert_eq!(team.get(&path, Some(&ana)).await.status(), 404);
        let cancel = team.post(&format!("{path}/cancel"), Some(&ana), "").await;
        assert_eq!(cancel.status(), 404);
    }
    let ended = until_ended(&team, &maria, &job["id"]).await;
    let error = &ended["outcome"]["error"];
    assert_eq!(error["code"], "invalid_input", "{ended}");
    assert_eq!(
        error["location"],
        serde_json::json!({"file": "bad.jsonl", "line": 2, "field": "claim"}),
        "{ended}"
    );
    assert!(
        !ended.to_string().contains("/tmp"),
        "a server path leaked: {ended}"
    );
    assert_eq!(team.counts().claims, before);
    // An annotator cannot start one; a job id that is not a number is 400.
    let refused = team
        .post(
            "/api/v1/imports",
            Some(&ana),
            &upload("a.jsonl", &claim_line("a1")).to_string(),
        )
        .await;
    assert_eq!(refused.status(), 403);
    assert_eq!(
        team.get("/api/v1/imports/x", Some(&maria)).await.status(),
        400
    );
    // Without a live session, who asks is refused before the id is read (the hostile
    // pass got 400 for a malformed id from an ended session, 401 for a well-formed one).
    for token in [None, Some("not-a-session")] {
        assert_eq!(team.get("/api/v1/imports/x", token).await.status(), 401);
        let cancel = team.post("/api/v1/imports/x/cancel", token, "").await;
        assert_eq!(cancel.status(), 401);
    }
}
