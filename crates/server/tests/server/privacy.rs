//! What an annotator may never see in any response: another person's answers, which
//! option is the trick sentence, a gold label, the moment anyone else commits an answer.

use crate::harness::{error_of, ok, Team};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::RawSql as _;

/// Every key of a JSON value, at any depth.
fn keys(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                keys(v, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_annotator_sees_no_one_elses_answers_no_trick_and_no_gold_label() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let ben = team.token("ben").await;
    // Ana answers first; with fill-first routing ben is then served the same item.
    let ack = team.answer_next(&ana, "ana's private note qzxv").await;
    let mut bodies = Vec::new();
    let next = team.next(&ben).await;
    // Each person's items carry ids of their own: the item ana answered, held now by
    // ben, has another id for him.
    assert_ne!(next["item"]["task_id"], ack["task_id"]);
    let held: i64 = ok(team.project().store().read().query_row(
        "SELECT count(*) FROM assignments b JOIN annotators n ON n.id = b.annotator_id
         WHERE n.name = 'ben' AND b.state = 'reserved' AND b.task_id IN (SELECT a.task_id
             FROM annotations a JOIN annotators m ON m.id = a.annotator_id WHERE m.name = 'ana')",
        [],
        |r| r.get(0),
    ));
    assert_eq!(held, 1, "ben gets the item ana answered");
    assert!(
        next["item"]["previous"].is_null(),
        "no answer of anyone else comes with it"
    );
    bodies.push(next.clone());
    let ben_ack = team.answer_next(&ben, "ben's note").await;
    bodies.push(ben_ack);
    bodies.push(ok(team.get("/api/v1/stats", Some(&ben)).await.json().await));
    let refused: serde_json::Value =
        ok(team.get("/api/v1/agreement", Some(&ben)).await.json().await);
    bodies.push(refused);
    // Ben's next item, which nobody has answered yet.
    bodies.push(team.next(&ben).await);

    // The trick is among the options (it has to be, to catch careless answers), but
    // nothing tells it apart: every option has the same fields and an opaque id.
    let options = next["item"]["options"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let settings = ok(team.project().settings());
    let claim = next["item"]["claim"].as_str().unwrap_or_default();
    let trick = factdesk_api::settings::trick_sentence(&settings.trick_template, claim);
    assert!(
        options
            .iter()
            .any(|o| o["text"].as_str() == Some(trick.as_str())),
        "the item shows its trick sentence: {options:?}"
    );
    for option in &options {
        let fields: Vec<&String> = option
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(fields, ["id", "pieces", "text"], "{option}");
        let id = option["id"].as_str().unwrap_or_default();
        assert!(id.starts_with('o') && id.len() == 13, "{id}");
    }
    let ids: Vec<&serde_json::Value> = options.iter().map(|o| &o["id"]).collect();
    let questions = next["item"]["questions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(questions.len(), 2, "{next}");
    assert_eq!(
        questions[0]["labels"]
            .as_array()
            .map(|l| l.iter().collect::<Vec<_>>()),
        Some(ids),
        "the evidence question offers the options shown and nothing else"
    );
    assert!(questions[1].get("labels").is_none());
    for body in &bodies {
        let text = body.to_string();
        assert!(!text.contains("qzxv"), "ana's note reached ben: {text}");
        assert!(!text.contains("\"ana\""), "ana's name reached ben: {text}");
        assert!(
            !text.contains("REFUTED"),
            "a gold label reached ben: {text}"
        );
        let mut found = Vec::new();
        keys(body, &mut found);
        // A question's `labels` are what it can be answered with: for an evidence item
        // the ids of the options shown, checked below to be nothing more.
        for key in found.into_iter().filter(|k| k != "labels") {
            for secret in ["trick", "gold", "label", "sentence_id", "score", "rank"] {
                assert!(!key.contains(secret), "ben got a {key:?} field: {text}");
            }
            assert!(
                !["annotator", "annotator_id", "name", "by"].contains(&key.as_str()),
                "ben got a {key:?} field: {text}"
            );
        }
    }
}

/// Issue 31: the event stream ticks the moment anyone commits an answer, so it is the
/// lead's dashboard's; an annotator following it would learn when each other person
/// answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_annotator_may_not_follow_the_event_stream_and_a_lead_may() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let maria = team.token("maria").await;
    let refused = team.get("/api/v1/events", Some(&ana)).await;
    let kind = refused
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(kind.starts_with("application/json"), "{kind}");
    let (status, code, message) = error_of(refused).await;
    assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
    assert!(
        message.contains("ana") && message.contains("lead's dashboard"),
        "{message}"
    );
    let stream = team.events_ready(&maria).await;
    let kind = stream
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(kind.starts_with("text/event-stream"), "{kind}");
}
