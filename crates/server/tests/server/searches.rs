//! Issue 31: one annotator's costly searches froze the team. Each search held one of the
//! server's project connections while the index was searched, so eight at once kept
//! every `/next`, answer and sign-in waiting (answers 55 s, the lead's sign-in 20 s), and
//! searches sent on connections closed at once still ran. Here searches are held where
//! the index is searched ([`SearchHold`]), as a costly one would be, and the order of
//! events shows what waits on them: the others' work ends while the searches cannot have.

use crate::harness::{ok, password, Team};
use factdesk_server::{SearchHold, SEARCHES_PER_PERSON};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Only tells "late" from "never" (a request stuck behind held searches waits forever).
const GENEROUS: Duration = Duration::from_secs(60);

/// A search for `token`, sent on a task of its own: its status and body.
fn search(team: &Team, token: &str) -> tokio::task::JoinHandle<(u16, Value)> {
    let request = team
        .http
        .post(team.url("/api/v1/call"))
        .bearer_auth(token)
        .json(&serde_json::json!({"op": "search", "args": {"query": "lighthouse"}}));
    tokio::spawn(async move {
        let response = ok(request.send().await);
        let status = response.status().as_u16();
        (status, ok(response.json().await))
    })
}

/// Releases the hold when dropped, also when a test fails: a search held for good would
/// keep the test's runtime from shutting down.
struct Releasing(Arc<SearchHold>);

impl Drop for Releasing {
    fn drop(&mut self) {
        self.0.release();
    }
}

/// What `search` answered, or a failure if it never answers.
async fn answered(search: tokio::task::JoinHandle<(u16, Value)>, what: &str) -> (u16, Value) {
    let answer = tokio::time::timeout(GENEROUS, search).await;
    ok(answer.unwrap_or_else(|_| panic!("{what} was never answered")))
}

/// Waits until `n` searches in all have reached the hold.
async fn arrived(hold: &SearchHold, n: usize) {
    let waited = tokio::time::timeout(GENEROUS, async {
        while hold.arrived() < n {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    waited
        .await
        .unwrap_or_else(|_| panic!("{n} searches never reached the index"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_hold_no_connection_and_one_person_runs_two_at_once() {
    let hold = Arc::new(SearchHold::default());
    let _released = Releasing(hold.clone());
    // Two connections: two searches each holding one while the index is searched would
    // leave the team none.
    let team = Team::start_searches_held(2, hold.clone()).await;
    let (dan, ana) = (team.token("dan").await, team.token("ana").await);
    let dans: Vec<_> = (0..SEARCHES_PER_PERSON)
        .map(|_| search(&team, &dan))
        .collect();
    arrived(&hold, SEARCHES_PER_PERSON).await;

    // dan's next searches are refused at once while his two run.
    for _ in 0..6 {
        let (status, body) = answered(search(&team, &dan), "dan's third search").await;
        assert_eq!(status, 429, "{body}");
        assert_eq!(body["code"], "rate_limited", "{body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains("searches running"), "{message}");
    }

    // Everyone else works on meanwhile: ana answers, the lead signs in, and ana's own
    // search is hers, not dan's, and gets as far as his.
    let others = tokio::time::timeout(GENEROUS, async {
        let ack = team.answer_next(&ana, "while dan searches").await;
        let login = team.login("maria", &password("maria")).await;
        (ack, login.status())
    });
    let (ack, login) = others
        .await
        .unwrap_or_else(|_| panic!("ana's answer or maria's sign-in waited on dan's searches"));
    assert!(ack.is_object(), "{ack}");
    assert_eq!(login, 200);
    let anas = search(&team, &ana);
    arrived(&hold, SEARCHES_PER_PERSON + 1).await;
    assert!(
        dans.iter().all(|s| !s.is_finished()),
        "dan's searches were held all along"
    );

    hold.release();
    for s in dans.into_iter().chain([anas]) {
        let (status, body) = answered(s, "a search released").await;
        assert_eq!(status, 200, "{body}");
        assert!(
            body.as_array().is_some_and(|hits| !hits.is_empty()),
            "{body}"
        );
    }
    let (status, body) = answered(search(&team, &dan), "dan's search after").await;
    assert_eq!(
        status, 200,
        "dan searches again once his searches ended: {body}"
    );
}

/// A search whose client has gone runs on, so it still counts against its person until
/// it ends: sixteen searches on connections closed at once held the team 16 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_whose_client_has_gone_counts_until_it_ends() {
    let hold = Arc::new(SearchHold::default());
    let _released = Releasing(hold.clone());
    let team = Team::start_searches_held(4, hold.clone()).await;
    let dan = team.token("dan").await;
    let gone: Vec<_> = (0..SEARCHES_PER_PERSON)
        .map(|_| search(&team, &dan))
        .collect();
    arrived(&hold, SEARCHES_PER_PERSON).await;
    for g in gone {
        g.abort();
        assert!(g.await.is_err_and(|e| e.is_cancelled()));
    }
    let (status, body) = answered(search(&team, &dan), "dan's third search").await;
    assert_eq!(
        (status, &body["code"]),
        (429, &Value::from("rate_limited")),
        "{body}"
    );

    hold.release();
    // Once the two abandoned searches end, dan's turns are his again.
    let again = tokio::time::timeout(GENEROUS, async {
        loop {
            let (status, body) = ok(search(&team, &dan).await);
            match status {
                200 => return body,
                429 => tokio::time::sleep(Duration::from_millis(10)).await,
                _ => panic!("{status} {body}"),
            }
        }
    });
    let body = again
        .await
        .unwrap_or_else(|_| panic!("the abandoned searches never ended"));
    assert!(
        body.as_array().is_some_and(|hits| !hits.is_empty()),
        "{body}"
    );
}
