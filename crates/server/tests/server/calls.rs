//! `POST /api/v1/call`, the app's operations over the server: every operation with each
//! role. The route checks no role itself: an annotator meets the api's gate (403) on a
//! lead's operation, and what an annotator may run shows no one else's answers, no trick
//! and no gold label.

use crate::harness::{ok, Team};
use crate::routes::{cast, Cast, Who, EVERYONE};
use factdesk_api::call::{who_may, Who as Declared, OPS};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::tasks::TaskKind;
use serde_json::{json, Value};

/// Whether an annotator is refused the operation: a lead's, as declared, and adding a
/// person once the project has one.
fn lead_only(op: &str) -> bool {
    who_may(op) == Some(Declared::Lead) || op == "add_person"
}

/// Operations whose walk arguments may meet a rule of the project rather than succeed.
const RULED: &[&str] = &[
    "undo_decision",
    "review_refutation",
    "check_refutation",
    "decide",
    "create_study",
    "delete_study",
    "mark_problem_seen",
    "set_password",
];

async fn post(team: &Team, token: Option<&str>, body: &Value) -> (u16, Value) {
    let response = team.post("/api/v1/call", token, &body.to_string()).await;
    let status = response.status().as_u16();
    (status, ok(response.json().await))
}

/// A call of `op` whose arguments a lead's call would get through, made for `token`.
async fn body_of(team: &Team, token: Option<&str>, op: &str, n: usize) -> Value {
    let next = || async {
        let (_, next) = post(
            team,
            token,
            &json!({"op": "next_item", "args": {"kind": "evidence"}}),
        )
        .await;
        next
    };
    let args = match op {
        "add_person" => json!({"name": format!("new{n}"), "role": "annotator"}),
        "create_tasks" => json!({"kind": "label", "overlap": 2}),
        "next_item" => json!({"kind": "evidence"}),
        "previous_item" => json!({"kind": "evidence", "current": null}),
        "submit_answer" => {
            let item = next().await;
            let item = &item["item"];
            json!({"answer": {"task_id": item["task_id"], "selected": [item["options"][0]["id"]]}})
        }
        "passage" => {
            let item = next().await;
            let item = &item["item"];
            json!({"task_id": item["task_id"], "option_id": item["options"][0]["id"]})
        }
        "skip_item" => {
            let item = next().await;
            json!({"task_id": item["item"]["task_id"]})
        }
        "report_problem" => {
            let item = next().await;
            json!({"task_id": item["item"]["task_id"], "text": "walk"})
        }
        // No such report, no such person: the lead meets the project's rule (404), and
        // nobody's sessions end mid-walk.
        "mark_problem_seen" => json!({"id": 999_999}),
        "set_password" => json!({"name": "nobody", "password": "walk walk walk"}),
        // The checks run only on a refute item given to the caller: one is served first.
        "check_refutation" => {
            let (_, next) = post(
                team,
                token,
                &json!({"op": "next_item", "args": {"kind": "refute"}}),
            )
            .await;
            json!({"task_id": next["item"]["task_id"], "text": "Town 1 had no lighthouse"})
        }
        "search" => json!({"query": "lighthouse"}),
        // A claim by the reference the caller's own search shows: ana's, of a claim she
        // answered (an annotator finds no other: search_membership); the lead's number.
        "claim_view" => {
            let (_, hits) = post(
                team,
                token,
                &json!({"op": "search", "args": {"query": "lighthouse"}}),
            )
            .await;
            let hits = hits.as_array().cloned().unwrap_or_default();
            let claim = hits.iter().find(|h| h["kind"] == "claim");
            json!({"claim": claim.map_or(json!("#1"), |h| h["reference"].clone())})
        }
        "claims_list" => json!({"words": null, "standing": "any", "offset": 0, "limit": 10}),
        "create_study" => {
            json!({"request": {"kind": "evidence", "sample": 1, "members": ["ben"], "seed": 1}})
        }
        // No such study: the lead meets the project's rule (404).
        "delete_study" => json!({"id": 999_999}),
        "dashboard" => json!({"intervals": n.is_multiple_of(2)}),
        "adjudication_queue" | "export_preview" => {
            json!({"request": {"method": "majority", "include_flagged": false, "splits": [70, 15, 15], "seed": 1}})
        }
        "decide" => {
            json!({"task_id": 1, "seen": null, "ruling": {"answer": {"kind": "evidence", "selected": [], "no_evidence": true}}, "reason": "walk", "category": "other"})
        }
        "undo_decision" => json!({"task_id": 1, "seen": 0, "reason": null}),
        "sentence_passage" => json!({"sentence_id": 1}),
        "review_refutation" => json!({"annotation_id": 1, "accepted": true, "note": null}),
        "save_settings" => json!({"settings": ok(team.project().settings()).pipe_json()}),
        "flag_decision" => json!({"name": "eve", "include": null}),
        "export_gold" => {
            json!({"request": {"method": "majority", "include_flagged": false, "splits": [70, 15, 15], "seed": 1}, "format": "fever"})
        }
        "export_answers" => json!({"format": "csv"}),
        "issue_pack" => json!({"request": {"annotator": "eve", "count": 1, "kind": "evidence"}}),
        _ => Value::Null,
    };
    if args.is_null() {
        json!({"op": op})
    } else {
        json!({"op": op, "args": args})
    }
}

trait PipeJson {
    fn pipe_json(&self) -> Value;
}

impl PipeJson for factdesk_api::settings::Settings {
    fn pipe_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// What an annotator's successful call may not carry: someone else's name, a gold label,
/// a field that tells the trick or the gold apart.
fn assert_blind(op: &str, body: &Value) {
    let text = body.to_string();
    if op == "search" {
        let hits = body.as_array().map(Vec::as_slice).unwrap_or_default();
        assert!(!hits.is_empty(), "{op}: {text}");
        assert!(hits.iter().all(|h| h["score"].is_null()), "{op}: {text}");
    }
    for other in ["\"ben\"", "\"maria\"", "\"dan\"", "\"eve\"", "REFUTED"] {
        assert!(!text.contains(other), "{op} showed ana {other}: {text}");
    }
    let mut keys = Vec::new();
    collect_keys(body, &mut keys);
    for key in keys {
        // A search hit has a score field, but an annotator's is empty: it was BM25 over
        // the whole index, claims she may not see included, and moved as a colleague wrote
        // a refutation (issue 31). Checked below.
        if op == "search" && key == "score" {
            continue;
        }
        // Her own answers come back with whether each picked the trick, as on her laptop;
        // others' answers do not come at all (no one else's name, above).
        if op == "claim_view" && key == "trick_failed" {
            continue;
        }
        // Which rankers placed each candidate is the lead's to see: hers is always empty.
        if op == "claim_view" && key == "candidate_rankers" {
            assert_eq!(body[key.as_str()], serde_json::json!([]), "{op}: {text}");
            continue;
        }
        for secret in ["trick", "gold", "sentence_id", "score", "rank"] {
            assert!(
                !key.contains(secret),
                "{op} gave ana a {key:?} field: {text}"
            );
        }
    }
}

fn collect_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                collect_keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_keys(v, out)),
        _ => {}
    }
}

async fn walk(team: &Team, cast: &Cast, op: &str, who: Who, n: usize) -> (u16, Value) {
    let token = cast.token(who);
    // Someone not signed in sends a call the lead's token would get through.
    let builder = if matches!(who, Who::Annotator | Who::Lead) {
        token
    } else {
        cast.token(Who::Lead)
    };
    let body = body_of(team, builder, op, n).await;
    post(team, token, &body).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_with_each_role_meets_the_apis_gate() {
    let policy = SignInPolicy::default();
    let team = Team::start(policy).await;
    let cast = cast(&team, &policy).await;
    // Refute items, for the refutation checks an annotator runs on the one she holds.
    let mut p = team.project();
    let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
    ok(p.create_tasks(&maria, TaskKind::Refute, Some(2)));
    drop(p);
    // Someone else's answer and note, which ana must never see: marked with letters no
    // hex id holds (a hex mark was found by chance inside an option's keyed id).
    let ben = team.token("ben").await;
    team.answer_next(&ben, "ben's note qzxw").await;
    // Ana's own answer, on the item ben answered (fill-first), whose claim she may open.
    if let Some(ana) = cast.token(Who::Annotator) {
        team.answer_next(ana, "ana's own note").await;
    }
    for (n, op) in OPS.iter().enumerate() {
        for who in EVERYONE {
            let (status, body) = walk(&team, &cast, op, who, n).await;
            match who {
                Who::Nobody | Who::Disabled | Who::Expired => {
                    assert_eq!(status, 401, "{op} as {who:?}: {body}")
                }
                Who::Annotator if lead_only(op) => {
                    assert_eq!(
                        (status, body["code"].as_str()),
                        (403, Some("forbidden")),
                        "{op} as ana: {body}"
                    )
                }
                Who::Annotator => {
                    assert_eq!(status, 200, "{op} as ana: {body}");
                    assert!(!body.to_string().contains("qzxw"), "{op}: {body}");
                    assert_blind(op, &body);
                }
                Who::Lead => {
                    // A lead's call gets through the gate; a few then meet the project's
                    // own rules (nothing decided to undo, no refutation to review).
                    if RULED.contains(op) {
                        assert!(
                            [200, 400, 404, 409].contains(&status),
                            "{op} as maria: {status} {body}"
                        );
                    } else {
                        assert_eq!(status, 200, "{op} as maria: {body}");
                    }
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_through_the_call_ticks_the_event_stream_and_the_lead_sees_it() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let ana = team.token("ana").await;
    let mut events = ok(team
        .http
        .get(team.url("/api/v1/events"))
        .bearer_auth(&maria)
        .send()
        .await);
    let first = ok(events.chunk().await).unwrap_or_default();
    assert!(String::from_utf8_lossy(&first).contains("event: ready"));
    let before = post(
        &team,
        Some(&maria),
        &json!({"op": "dashboard", "args": {"intervals": false}}),
    )
    .await;
    assert_eq!(before.0, 200);
    assert_eq!(before.1["last_annotation_id"], 0);
    let body = body_of(&team, Some(&ana), "submit_answer", 0).await;
    let (status, ack) = post(&team, Some(&ana), &body).await;
    assert_eq!(status, 200, "{ack}");
    // Chunk by chunk (a heartbeat may come first), within a bound that only tells
    // "late" from "never": the tick comes within milliseconds, a busy machine may hold
    // the test's threads for seconds.
    let mut heard = String::new();
    let tick = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while !heard.contains("event: answer") {
            let chunk = ok(events.chunk().await).unwrap_or_default();
            if chunk.is_empty() {
                break;
            }
            heard.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(
        tick.is_ok() && heard.contains("event: answer"),
        "no tick within ten seconds: {heard:?}"
    );
    let (_, after) = post(
        &team,
        Some(&maria),
        &json!({"op": "dashboard", "args": {"intervals": false}}),
    )
    .await;
    assert!(
        after["last_annotation_id"].as_i64().unwrap_or_default() > 0,
        "{after}"
    );
    // Her answer shows (counted or not: the first option may be the trick).
    assert_eq!(after["kinds"][0]["people"][0]["answers"], 1, "{after}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_issued_from_the_served_project_merges_back_and_the_lead_sees_it_through_the_server()
{
    use factdesk_api::packs::{PackRequest, PackSession, Unanswered};
    use factdesk_api::tasks::TaskKind;
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let dir = ok(tempfile::tempdir());
    let pack_path = dir.path().join("eve.fdpack");
    // Beside the running server, as `factdesk pack` on its machine.
    let mut project = team.project();
    let lead = ok(project.as_lead(&ok(project.actor("maria")), "act as a lead"));
    let request = PackRequest {
        annotator: "eve".into(),
        count: 1,
        kind: Some(TaskKind::Evidence),
        ..Default::default()
    };
    ok(project.issue_pack(&lead, &request, &pack_path));
    // Eve answers on her laptop, offline.
    let mut pack = ok(PackSession::open(&pack_path, Box::new(team.clock.clone())));
    let eve = ok(pack.actor("eve"));
    let item = ok(pack.next_item(&eve, TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("the pack has an item"));
    let answer = serde_json::from_value(json!({"task_id": item.task_id, "no_evidence": true}));
    ok(pack.submit(&eve, &ok(answer)));
    let results = ok(pack.return_results(None));
    drop(pack);
    let (_, before) = post(
        &team,
        Some(&maria),
        &json!({"op": "dashboard", "args": {"intervals": false}}),
    )
    .await;
    // `factdesk merge` on the server's machine while the server runs.
    let merged = ok(project.merge_packs(&lead, std::slice::from_ref(&results), Unanswered::Refuse));
    assert!(merged.iter().all(|m| m.error.is_none()), "{merged:?}");
    let (status, after) = post(
        &team,
        Some(&maria),
        &json!({"op": "dashboard", "args": {"intervals": false}}),
    )
    .await;
    assert_eq!(status, 200, "{after}");
    assert!(
        after["last_annotation_id"].as_i64() > before["last_annotation_id"].as_i64(),
        "the merged answer is in the server's project: {before} -> {after}"
    );
    let people = after["kinds"][0]["people"].to_string();
    assert!(people.contains("\"eve\""), "{people}");
}

/// Hostile pass of session 25 (MEDIUM): the trick's passage is built by another path and
/// came back microseconds sooner, so timing each option's passage many times told the
/// trick. Every passage is answered no sooner than the same floor, a bound below which
/// no answer comes, so this cannot fail on a busy machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_options_passage_is_answered_no_sooner_than_the_floor() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let (_, next) = post(
        &team,
        Some(&ana),
        &json!({"op": "next_item", "args": {"kind": "evidence"}}),
    )
    .await;
    let item = &next["item"];
    let options = item["options"].as_array().cloned().unwrap_or_default();
    assert!(options.len() >= 2, "{item}");
    let floor = std::time::Duration::from_millis(factdesk_api::call::PASSAGE_FLOOR_MS);
    for option in &options {
        let body = json!({"op": "passage", "args": {"task_id": item["task_id"], "option_id": option["id"]}});
        let started = std::time::Instant::now();
        let (status, passage) = post(&team, Some(&ana), &body).await;
        let took = started.elapsed();
        assert_eq!(status, 200, "{passage}");
        assert!(
            took >= floor,
            "{:?}'s passage came in {took:?}",
            option["id"]
        );
    }
}
