//! Issue 31, hostile pass of session 22: the project's counts are a lead's. An annotator
//! read them from `GET /api/v1/stats` and the overview: the count of originals told which
//! claim numbers were refutations (so a label item's gold), and the count of answers
//! ticked as others answered.

use crate::harness::{error_of, ok, Team};
use factdesk_api::sign_in::SignInPolicy;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_annotator_gets_no_counts_from_the_server_and_the_lead_does() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let maria = team.token("maria").await;
    team.answer_next(&ana, "ana's answer").await;

    let (status, code, message) = error_of(team.get("/api/v1/stats", Some(&ana)).await).await;
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    let stats = team.get("/api/v1/stats", Some(&maria)).await;
    assert_eq!(stats.status(), 200);
    let counts: Value = ok(stats.json().await);
    let stored = tokio::task::block_in_place(|| team.counts());
    assert_eq!(counts["root_claims"], stored.root_claims, "{counts}");
    assert_eq!(counts["annotations"], 1, "{counts}");

    // The app's overview, through the server: ana's names the project and counts nothing.
    for (token, lead) in [(&ana, false), (&maria, true)] {
        let response = team
            .post("/api/v1/call", Some(token), r#"{"op": "overview"}"#)
            .await;
        assert_eq!(response.status(), 200);
        let overview: Value = ok(response.json().await);
        assert!(overview["name"].is_string(), "{overview}");
        assert_eq!(overview["stats"].is_object(), lead, "{overview}");
        assert_eq!(overview["stats"].is_null(), !lead, "{overview}");
        let text = overview.to_string();
        assert_eq!(text.contains("root_claims"), lead, "{text}");
        assert_eq!(text.contains("annotations"), lead, "{text}");
    }
}
