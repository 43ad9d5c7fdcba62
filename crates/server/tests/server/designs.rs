//! A project's own design through the team server (issue 33): an annotator is served a
//! design item with its questions and answers it by question; a wrong answer is refused
//! naming the question; the lead reads agreement question by question.

use crate::harness::{error_of, ok, Team};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::tasks::TaskKind;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn design_items_are_served_and_answered_by_question_over_http() {
    let team = Team::start(SignInPolicy::default()).await;
    tokio::task::block_in_place(|| {
        let mut p = team.project();
        let maria = ok(p.as_lead(&ok(p.actor("maria")), "declare a design"));
        let mut settings = ok(p.settings());
        settings.design = Some(ok(serde_json::from_value(serde_json::json!({
            "name": "salient-words",
            "questions": [
                {"id": "sure", "type": "choice", "labels": ["yes", "no"], "required": true},
                {"id": "salient", "type": "span", "over": "text_a", "required": true}
            ]
        }))));
        ok(p.set_settings(&maria, &settings));
        ok(p.create_tasks(&maria, TaskKind::Design, Some(2)));
    });
    let mut tokens = Vec::new();
    for who in ["ana", "ben"] {
        let token = team.token(who).await;
        let next: serde_json::Value = ok(team
            .get("/api/v1/next?kind=design", Some(&token))
            .await
            .json()
            .await);
        let item = &next["item"];
        assert_eq!(item["shows"], "claim", "{next}");
        assert_eq!(item["questions"][1]["id"], "salient");
        let bad = serde_json::json!({"task_id": item["task_id"], "answers": {"sure": "maybe", "salient": {"spans": [[0, 4]]}}});
        let refused = team
            .post("/api/v1/answers", Some(&token), &bad.to_string())
            .await;
        let (status, _, message) = error_of(refused).await;
        assert_eq!(status, 400);
        assert!(message.contains("has no label \"maybe\""), "{message}");
        let good = serde_json::json!({"task_id": item["task_id"], "answers": {"sure": "yes", "salient": {"spans": [[0, 4]]}}});
        let taken = team
            .post("/api/v1/answers", Some(&token), &good.to_string())
            .await;
        assert_eq!(taken.status(), 200);
        tokens.push(token);
    }
    let lead = team.token("maria").await;
    let agreement: serde_json::Value = ok(team
        .get("/api/v1/agreement?kind=design&bootstrap=0", Some(&lead))
        .await
        .json()
        .await);
    assert_eq!(agreement["design"], "salient-words", "{agreement}");
    assert_eq!(agreement["questions"][1]["unit"], "token");
    // An annotator may not read it.
    let refused = team
        .get("/api/v1/agreement?kind=design", Some(&tokens[0]))
        .await;
    assert_eq!(refused.status(), 403);
}
