//! Issue 31, item 3, through the server: a doctored pack posted to `POST /api/v1/merge`
//! (its answers a view that never ends) is refused, twice at once, while /login and /next
//! keep answering everyone.

use crate::harness::{ok, password, Team};
use base64::Engine;
use factdesk_api::annotate::Answer;
use factdesk_api::packs::{PackRequest, PackSession};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::tasks::TaskKind;
use serde_json::{json, Value};
use std::time::Duration;

/// Far longer than any of these requests takes; a request past it fails the test.
const GENEROUS: Duration = Duration::from_secs(60);

/// A pack for eve with one item answered, on her laptop.
fn answered_pack(team: &Team, dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("eve.fdpack");
    let mut project = team.project();
    let maria = ok(project.as_lead(&ok(project.actor("maria")), "act as a lead"));
    let req = PackRequest {
        annotator: "eve".into(),
        count: 2,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    ok(project.issue_pack(&maria, &req, &path));
    drop(project);
    {
        let mut pack = ok(PackSession::open(&path, Box::new(team.clock.clone())));
        let eve = ok(pack.actor("eve"));
        let item = ok(pack.next_item(&eve, TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("the pack has an item"));
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        };
        ok(pack.submit(&eve, &answer));
    }
    path
}

/// The bytes of a pack for eve, one item answered, its answers then replaced by a view
/// that never ends (as the annotator who owns the file can).
fn endless_pack(team: &Team, dir: &std::path::Path) -> Vec<u8> {
    let path = answered_pack(team, dir);
    let conn = ok(rusqlite::Connection::open(&path));
    ok(conn.execute_batch(
        "PRAGMA foreign_keys = OFF;
         DROP TRIGGER answers_kept;
         DROP TRIGGER answers_not_deleted;
         DROP TABLE answers;
         CREATE VIEW answers (seq, uuid, task_id, answer, created_at, supersedes) AS
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
             SELECT i, 'a' || i, 1, '{}', 0, NULL FROM n;",
    ));
    drop(conn);
    ok(std::fs::read(&path))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_that_never_ends_is_refused_while_next_and_login_keep_answering() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let ana = team.token("ana").await;
    let laptop = ok(tempfile::tempdir());
    let bytes = endless_pack(&team, laptop.path());
    let body = json!({"packs": [{
        "name": "endless.fdpack",
        "base64": base64::engine::general_purpose::STANDARD.encode(bytes),
    }]})
    .to_string();
    let before = team.counts().annotations;

    // Two merges of it at once, as in the issue.
    let merges: Vec<_> = (0..2)
        .map(|_| {
            let request = team
                .http
                .post(team.url("/api/v1/merge"))
                .bearer_auth(&maria)
                .header("content-type", "application/json")
                .body(body.clone());
            tokio::spawn(async move {
                let response = ok(request.send().await);
                let status = response.status().as_u16();
                let outcomes: Value = ok(response.json().await);
                (status, outcomes)
            })
        })
        .collect();

    // Meanwhile everyone else works on.
    let login = tokio::time::timeout(GENEROUS, team.login("ben", &password("ben")))
        .await
        .unwrap_or_else(|_| panic!("/login did not answer during the merges"));
    assert_eq!(login.status(), 200);
    let next = tokio::time::timeout(GENEROUS, team.get("/api/v1/next?kind=evidence", Some(&ana)))
        .await
        .unwrap_or_else(|_| panic!("/next did not answer during the merges"));
    assert_eq!(next.status(), 200);

    for merge in merges {
        let (status, outcomes) = ok(tokio::time::timeout(GENEROUS, merge)
            .await
            .unwrap_or_else(|_| panic!("the merge of a pack that never ends did not return")));
        assert_eq!(status, 200, "{outcomes}");
        assert_eq!(outcomes[0]["file"], "endless.fdpack", "{outcomes}");
        assert!(outcomes[0]["report"].is_null(), "{outcomes}");
        let message = outcomes[0]["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("endless.fdpack: refused, nothing was changed:")
                && message.contains("\"answers\" is a view where Factdesk writes a table"),
            "{outcomes}"
        );
    }
    assert_eq!(team.counts().annotations, before);
}

/// Posts `body` to /api/v1/merge as maria; the status and the outcomes.
async fn merge(team: &Team, body: String) -> (u16, Value) {
    let maria = team.token("maria").await;
    let request = team
        .http
        .post(team.url("/api/v1/merge"))
        .bearer_auth(&maria)
        .header("content-type", "application/json")
        .body(body);
    let response = ok(tokio::time::timeout(GENEROUS, request.send())
        .await
        .unwrap_or_else(|_| panic!("the merge did not return")));
    let status = response.status().as_u16();
    (status, ok(response.json().await))
}

/// Issue 31, F7: a pack padded within the general bounds (here 16 MiB of free pages) is
/// refused from what its signed manifest says was issued, before the padding is read,
/// and named as sent; nothing changes. The server reads the body without copying it
/// (docs/server.md has the figures): a pack whose base64 a client wrote with `\/` (JSON
/// allows it, and the text is then no longer the body's own) merges all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_padded_pack_is_refused_as_sent_and_an_escaped_one_merges() {
    let team = Team::start(SignInPolicy::default()).await;
    let laptop = ok(tempfile::tempdir());
    let path = answered_pack(&team, laptop.path());
    let padded = laptop.path().join("padded.fdpack");
    ok(std::fs::copy(&path, &padded));
    let conn = ok(rusqlite::Connection::open(&padded));
    ok(conn.execute_batch(
        "CREATE TABLE pad (x); INSERT INTO pad VALUES (zeroblob(16777216)); DROP TABLE pad;",
    ));
    drop(conn);
    let base64 = |p: &std::path::Path| {
        base64::engine::general_purpose::STANDARD.encode(ok(std::fs::read(p)))
    };
    let before = team.counts().annotations;

    let body = json!({"packs": [{"name": "padded.fdpack", "base64": base64(&padded)}]});
    let (status, outcomes) = merge(&team, body.to_string()).await;
    assert_eq!(status, 200, "{outcomes}");
    let message = outcomes[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("padded.fdpack: refused, nothing was changed: its file takes 16.1 MiB where its rows take"),
        "{outcomes}"
    );
    assert_eq!(team.counts().annotations, before);

    let sent = base64(&path);
    assert!(sent.contains('/'), "no slash to escape in {sent}");
    let body = format!(
        r#"{{"packs": [{{"name": "eve.fdpack", "base64": "{}"}}]}}"#,
        sent.replace('/', "\\/")
    );
    let (status, outcomes) = merge(&team, body).await;
    assert_eq!(status, 200, "{outcomes}");
    assert_eq!(outcomes[0]["report"]["added"], 1, "{outcomes}");
    assert_eq!(team.counts().annotations, before + 1);
}
