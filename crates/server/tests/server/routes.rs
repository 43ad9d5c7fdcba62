//! Every route with each role (no token, annotator, lead, a disabled person, an expired
//! token), and the OpenAPI document against the routes and the statuses they gave.

use crate::harness::{ok, password, Team};
use factdesk_api::sign_in::SignInPolicy;
use factdesk_server::routes::ROUTES;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    Nobody,
    Annotator,
    Lead,
    Disabled,
    Expired,
}

pub(crate) const EVERYONE: [Who; 5] = [
    Who::Nobody,
    Who::Annotator,
    Who::Lead,
    Who::Disabled,
    Who::Expired,
];

/// The status each role gets on a route.
fn expected(method: &str, path: &str, who: Who) -> u16 {
    let signed_in = matches!(who, Who::Annotator | Who::Lead);
    match (method, path) {
        ("get", "/api/v1/openapi.json") => 200,
        // Signing in asks for a password, not a token: the disabled person's right
        // password is refused, as is nobody's wrong one.
        ("post", "/api/v1/login") => match who {
            Who::Nobody | Who::Disabled => 401,
            _ => 200,
        },
        // The event stream is the lead's dashboard's: it would tell an annotator the
        // moment anyone else answers. The counts would too, and the count of originals
        // which claims are refutations.
        ("get", "/api/v1/agreement")
        | ("get", "/api/v1/events")
        | ("get", "/api/v1/stats")
        | ("post", "/api/v1/import")
        | ("post", "/api/v1/merge") => match who {
            Who::Lead => 200,
            Who::Annotator => 403,
            _ => 401,
        },
        ("post", "/api/v1/imports") => match who {
            Who::Lead => 200,
            Who::Annotator => 403,
            _ => 401,
        },
        // A job is the lead's who started it: anyone else signed in is told there is none.
        ("get", "/api/v1/imports/{id}") | ("post", "/api/v1/imports/{id}/cancel") => match who {
            Who::Lead => 200,
            Who::Annotator => 404,
            _ => 401,
        },
        ("post", "/api/v1/logout") if signed_in => 204,
        _ if signed_in => 200,
        _ => 401,
    }
}

/// The person each role is, and the token they hold.
pub(crate) struct Cast {
    tokens: Vec<(Who, Option<String>, &'static str)>,
}

impl Cast {
    pub(crate) fn token(&self, who: Who) -> Option<&str> {
        self.tokens
            .iter()
            .find(|(w, _, _)| *w == who)
            .and_then(|(_, t, _)| t.as_deref())
    }
    fn name(&self, who: Who) -> &'static str {
        self.tokens
            .iter()
            .find(|(w, _, _)| *w == who)
            .map(|(_, _, n)| *n)
            .unwrap_or("nobody")
    }
}

pub(crate) async fn cast(team: &Team, policy: &SignInPolicy) -> Cast {
    // Eve signs in first; the clock then runs past her session but not the others'.
    let eve = team.token("eve").await;
    team.clock.advance_ms(policy.session_ms - 60_000);
    let ana = team.token("ana").await;
    let maria = team.token("maria").await;
    let dan = team.token("dan").await;
    let mut p = team.project();
    let lead = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
    ok(p.set_disabled(&lead, "dan", true));
    team.clock.advance_ms(120_000);
    Cast {
        tokens: vec![
            (Who::Nobody, None, "nobody"),
            (Who::Annotator, Some(ana), "ana"),
            (Who::Lead, Some(maria), "maria"),
            (Who::Disabled, Some(dan), "dan"),
            (Who::Expired, Some(eve), "eve"),
        ],
    }
}

/// Calls `method path` as `who`; the status.
async fn call(team: &Team, cast: &Cast, method: &str, path: &str, who: Who) -> u16 {
    let token = cast.token(who);
    let valid = matches!(who, Who::Annotator | Who::Lead);
    let response = match (method, path) {
        ("post", "/api/v1/login") => {
            let name = cast.name(who);
            let pass = if who == Who::Nobody {
                "a wrong guess".to_string()
            } else {
                password(name)
            };
            team.login(name, &pass).await
        }
        ("post", "/api/v1/logout") if valid => {
            // A fresh session of the same person, so the role's token lives on.
            let fresh = team.token(cast.name(who)).await;
            team.post(path, Some(&fresh), "").await
        }
        ("post", "/api/v1/logout") => team.post(path, token, "").await,
        ("get", "/api/v1/next") => team.get("/api/v1/next?kind=evidence", token).await,
        ("post", "/api/v1/answers") if valid => {
            let next = team.next(token.unwrap_or_default()).await;
            let item = &next["item"];
            let answer = serde_json::json!({"task_id": item["task_id"], "selected": [item["options"][0]["id"]]});
            team.post(path, token, &answer.to_string()).await
        }
        ("post", "/api/v1/answers") => {
            team.post(path, token, r#"{"task_id": 1, "no_evidence": true}"#)
                .await
        }
        // Every operation is walked with each role in calls.rs; here one that anyone
        // signed in may run.
        ("post", "/api/v1/call") => team.post(path, token, r#"{"op": "paces"}"#).await,
        ("post", "/api/v1/import") => {
            let body = crate::downloads::upload("walk.jsonl", &crate::downloads::claim_line("w1"));
            team.post(path, token, &body.to_string()).await
        }
        ("post", "/api/v1/imports") => {
            let body = crate::downloads::upload("walk.jsonl", &crate::downloads::claim_line("w2"));
            team.post(path, token, &body.to_string()).await
        }
        // On a job the lead started.
        ("get", "/api/v1/imports/{id}") | ("post", "/api/v1/imports/{id}/cancel") => {
            let lead = cast.token(Who::Lead).unwrap_or_default();
            let body = crate::downloads::upload("walk.jsonl", &crate::downloads::claim_line("w3"));
            let job: serde_json::Value = ok(team
                .post("/api/v1/imports", Some(lead), &body.to_string())
                .await
                .json()
                .await);
            let at = path.replace("{id}", &job["id"].to_string());
            if method == "get" {
                team.get(&at, token).await
            } else {
                team.post(&at, token, "").await
            }
        }
        // Nothing a pack: each pack's refusal is an outcome, the call itself succeeds.
        ("post", "/api/v1/merge") => {
            let body = serde_json::json!({"packs": [{"name": "walk.fdpack", "base64": "AAAA"}]});
            team.post(path, token, &body.to_string()).await
        }
        ("get", "/api/v1/agreement") => {
            team.get("/api/v1/agreement?kind=evidence&bootstrap=10", token)
                .await
        }
        ("get", _) => team.get(path, token).await,
        _ => panic!("the walk does not know {method} {path}: add it"),
    };
    let status = response.status().as_u16();
    if path == "/api/v1/events" && status == 200 {
        let kind = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
    }
    status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_each_role_with_its_status_and_the_document_lists_them() {
    let policy = SignInPolicy::default();
    let team = Team::start(policy).await;
    let cast = cast(&team, &policy).await;
    let mut seen = BTreeSet::new();
    for &(method, path) in ROUTES {
        for who in EVERYONE {
            let status = call(&team, &cast, method, path, who).await;
            assert_eq!(
                status,
                expected(method, path, who),
                "{method} {path} as {who:?}"
            );
            seen.insert((method, path, status));
        }
    }
    let document: serde_json::Value = ok(team.get("/api/v1/openapi.json", None).await.json().await);
    let documented: BTreeSet<(String, String)> = document["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(path, ops)| {
            ops.as_object()
                .into_iter()
                .flatten()
                .map(move |(method, _)| (method.clone(), path.clone()))
        })
        .collect();
    let served: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(
        documented, served,
        "the document has exactly the routes served"
    );
    for (method, path, status) in seen {
        assert!(
            document["paths"][path][method]["responses"][status.to_string()].is_object(),
            "{method} {path} answered {status}, which the document does not list"
        );
    }
    for (method, path, statuses) in factdesk_server::openapi::STATUSES {
        for status in *statuses {
            assert!(
                document["paths"][path][method]["responses"][status.to_string()].is_object(),
                "{method} {path}: {status} is not in the document"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_or_method_is_an_error_body() {
    let team = Team::start(SignInPolicy::default()).await;
    let (status, code, _) = crate::harness::error_of(team.get("/api/v1/nothing", None).await).await;
    assert_eq!((status, code.as_str()), (404, "not_found"));
    let (status, code, _) = crate::harness::error_of(team.get("/api/v1/login", None).await).await;
    assert_eq!((status, code.as_str()), (405, "method_not_allowed"));
}
