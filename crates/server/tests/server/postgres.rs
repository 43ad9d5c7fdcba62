//! The server over a PostgreSQL project (FACTDESK_TEST_PG, as the api's tests): a
//! connection the database ended is replaced, and the client meanwhile is told to retry.

use crate::harness::{ok, Team};

/// A fresh database on the server FACTDESK_TEST_PG names, and an admin client of it;
/// `None` when the variable is unset (scripts/test-all sets it).
pub(crate) fn fresh_database() -> Option<(String, postgres::Client, String)> {
    let server = std::env::var("FACTDESK_TEST_PG")
        .ok()
        .filter(|s| !s.is_empty())?;
    let mut admin = ok(postgres::Client::connect(&server, postgres::NoTls));
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    // The api's tests drop databases named fdtest_PID_… once that process has ended.
    let name = format!("fdtest_{}_server_{stamp}", std::process::id());
    ok(admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")));
    let base = server.split('?').next().unwrap_or(&server);
    let (head, _) = base.rsplit_once('/').unwrap_or((base, ""));
    Some((format!("{head}/{name}"), admin, name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_the_database_ended_is_replaced_and_the_client_told_to_retry() {
    let Some((url, mut admin, name)) = tokio::task::block_in_place(fresh_database) else {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL server tests did not run");
        return;
    };
    const CONNECTIONS: usize = 2;
    let team = Team::start_on_postgres(&url, CONNECTIONS).await;
    let ana = team.token("ana").await;
    let maria = team.token("maria").await;
    // Both pooled connections open and in use (the counts are a lead's).
    let (a, b) = tokio::join!(
        team.get("/api/v1/stats", Some(&maria)),
        team.get("/api/v1/stats", Some(&maria))
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));

    let ended = tokio::task::block_in_place(|| {
        ok(admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&name],
        ))
        .len()
    });
    assert!(ended >= 1, "the server's connections were ended");

    // Each broken connection costs at most one request a 503 with Retry-After (never a
    // 500, never a hang); then the pool has opened new ones and work goes on.
    let mut unavailable = 0;
    let item = loop {
        let response = ok(tokio::time::timeout(
            std::time::Duration::from_secs(10),
            team.get("/api/v1/next?kind=evidence", Some(&ana)),
        )
        .await);
        match response.status().as_u16() {
            200 => break ok(response.json::<serde_json::Value>().await),
            503 => {
                assert!(
                    response.headers().contains_key("retry-after"),
                    "a 503 says when to retry"
                );
                unavailable += 1;
                assert!(unavailable <= CONNECTIONS, "a broken connection was kept");
            }
            other => panic!("after the database ended a connection: {other}"),
        }
    };
    eprintln!("{unavailable} requests were told to retry while connections were replaced");
    let task_id = item["item"]["task_id"].as_i64().unwrap_or_default();
    assert!(task_id > 0, "{item}");
    let answer = serde_json::json!({"task_id": task_id, "no_evidence": true}).to_string();
    let response = team.post("/api/v1/answers", Some(&ana), &answer).await;
    assert_eq!(response.status(), 200);
    let ack: serde_json::Value = ok(response.json().await);
    let uuid = ack["ack"].as_str().unwrap_or_default().to_string();
    let stored: i64 = tokio::task::block_in_place(|| {
        let mut reader = ok(postgres::Client::connect(&url, postgres::NoTls));
        let n = ok(reader.query_one("SELECT count(*) FROM annotations WHERE uuid = $1", &[&uuid]))
            .get(0);
        drop(reader);
        n
    });
    assert_eq!(
        stored, 1,
        "the answer taken after the reconnection is stored"
    );
    drop(team);
    // PostgreSQL's clients are closed off the runtime, as they block.
    tokio::task::block_in_place(move || {
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        drop(admin);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_committed_beside_the_server_ticks_the_event_stream() {
    use factdesk_api::annotate::Answer;
    use factdesk_api::tasks::TaskKind;
    let Some((url, admin, name)) = tokio::task::block_in_place(fresh_database) else {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL server tests did not run");
        return;
    };
    let team = Team::start_on_postgres(&url, 2).await;
    let maria = team.token("maria").await;
    let mut events = team.events_ready(&maria).await;

    // Ana answers through a connection of her own, as `factdesk submit` or a second
    // server on the same database would: this server commits nothing.
    let answered = tokio::task::block_in_place(|| {
        let mut theirs = team.project();
        let ana = ok(theirs.actor("ana"));
        let item = ok(theirs.next_item(&ana, TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("no item for ana"));
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        };
        ok(theirs.submit(&ana, &answer));
        std::time::Instant::now()
    });
    let mut heard = String::new();
    // Chunk by chunk (a heartbeat may come first), within a bound that only tells "late"
    // from "never" on a busy machine: the tick comes within milliseconds.
    let tick = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while !heard.contains("event: answer") {
            match ok(events.chunk().await) {
                Some(chunk) => heard.push_str(&String::from_utf8_lossy(&chunk)),
                None => break,
            }
        }
    })
    .await;
    assert!(
        tick.is_ok() && heard.contains("event: answer"),
        "no tick within 5 s for an answer committed beside the server: {heard:?}"
    );
    eprintln!("the tick came {:?} after the commit", answered.elapsed());
    drop(events);
    drop(team);
    tokio::task::block_in_place(move || {
        let mut admin = admin;
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        drop(admin);
    });
}
