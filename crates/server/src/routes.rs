//! The routes: each takes its input, turns the bearer token into the api's actor and
//! calls one use case on a pooled project. No route checks a role: the use case does.

mod sign_in;

pub(crate) use sign_in::Checking;

use crate::error::ApiError;
use crate::gate::{bearer, BodyDeadline, Bulk, SignedInPerson};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Extension, FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Json, Router};
use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::call::{Call, Host, OnProject};
use factdesk_api::packs::{ReturnedUpload, SentPacks};
use factdesk_api::tasks::TaskKind;
use factdesk_api::upload::Upload;
use factdesk_api::{ErrorCode, NoProgress, Project};
use serde::Deserialize;
use sign_in::{login, logout};
use std::convert::Infallible;

/// Every route, with the method it answers; the OpenAPI document is tested against it.
pub const ROUTES: &[(&str, &str)] = &[
    ("post", "/api/v1/login"),
    ("post", "/api/v1/logout"),
    ("get", "/api/v1/next"),
    ("post", "/api/v1/answers"),
    ("get", "/api/v1/stats"),
    ("get", "/api/v1/agreement"),
    ("get", "/api/v1/events"),
    ("get", "/api/v1/openapi.json"),
    ("post", "/api/v1/call"),
    ("post", "/api/v1/import"),
    ("post", "/api/v1/merge"),
    ("post", "/api/v1/imports"),
    ("get", "/api/v1/imports/{id}"),
    ("post", "/api/v1/imports/{id}/cancel"),
];

/// The server's routes over `state`.
pub fn router(state: AppState) -> Router {
    let limit = state.body_limit;
    Router::new()
        // A sign-in is a name and a password of at most 1 KiB: a small body limit of
        // its own, since anyone may send one.
        .route("/api/v1/login", {
            let most = limit.min(LOGIN_BODY_LIMIT);
            post(login)
                .layer(DefaultBodyLimit::max(most))
                .layer(middleware::from_fn_with_state(
                    most,
                    crate::gate::declared_within,
                ))
        })
        .route("/api/v1/logout", post(logout))
        .route("/api/v1/next", get(next))
        .route("/api/v1/answers", someones(post(answers), &state))
        .route("/api/v1/stats", get(stats))
        .route("/api/v1/agreement", get(agreement))
        .route("/api/v1/events", get(events))
        .route("/api/v1/openapi.json", get(openapi))
        .route("/api/v1/call", someones(post(call), &state))
        // Files to import are larger than any other request: a limit of their own, for a
        // lead only, checked before the body is read.
        .route("/api/v1/import", bulk(post(import), &state, Bulk::Import))
        .route("/api/v1/merge", bulk(post(merge), &state, Bulk::Merge))
        .route(
            "/api/v1/imports",
            bulk(post(start_import), &state, Bulk::Import),
        )
        .route("/api/v1/imports/{id}", get(import_job))
        .route("/api/v1/imports/{id}/cancel", post(cancel_import))
        // The app's screens for a browser.
        .route("/", get(crate::ui::page))
        .route("/assets/{*file}", get(crate::ui::page))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

/// The largest sign-in body: a name and a password (at most 1 KiB), escaped.
const LOGIN_BODY_LIMIT: usize = 8 * 1024;

/// A route whose body is read only once the caller's session is known to live.
/// A body declared over the limit is refused before the session is looked up.
fn someones(route: MethodRouter<AppState>, state: &AppState) -> MethodRouter<AppState> {
    route
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::gate::someone_first,
        ))
        .layer(middleware::from_fn_with_state(
            state.body_limit,
            crate::gate::declared_within,
        ))
}

/// A large-body route: the import limit, behind the lead's check.
fn bulk(route: MethodRouter<AppState>, state: &AppState, check: Bulk) -> MethodRouter<AppState> {
    route
        .layer(DefaultBodyLimit::max(state.import_limit))
        .layer(middleware::from_fn_with_state(
            (state.clone(), check),
            crate::gate::lead_first,
        ))
}

type Reply<T> = Result<T, ApiError>;

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such route; see /api/v1/openapi.json",
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this route does not take that method; see /api/v1/openapi.json",
    )
}

/// The request body, or 413 past the limit.
fn body(body: Result<Bytes, BytesRejection>) -> Reply<Bytes> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                "the request body is larger than this server takes",
            )
        } else {
            ApiError::bad_json(format!("cannot read the request body: {rejection}"))
        }
    })
}

/// A request's JSON body, read within the server's deadline for it: 415 unless sent as
/// `application/json`, 408 when it came too slowly, 413 past the limit.
struct Body(Reply<Bytes>);

impl FromRequest<AppState> for Body {
    type Rejection = Infallible;

    async fn from_request(request: Request, state: &AppState) -> Result<Body, Infallible> {
        // Only JSON is taken: a form or text a browser may send across sites is not.
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Ok(Body(Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as Content-Type: application/json",
            ))));
        }
        let deadline = request
            .extensions()
            .get::<BodyDeadline>()
            .map_or(state.body_timeout, |d| d.0);
        let read = tokio::time::timeout(deadline, Bytes::from_request(request, state)).await;
        Ok(Body(match read {
            Ok(bytes) => body(bytes),
            Err(_) => {
                tracing::warn!("a request body took longer than {deadline:?}");
                Err(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "timeout",
                    "the request body came too slowly",
                ))
            }
        }))
    }
}

/// Parses a JSON body; a failure names the field it is about.
fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Reply<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // "?" is where the body ended before a field was named (truncated JSON).
        if path.is_empty() || path == "." || path == "?" {
            ApiError::bad_json(format!("invalid JSON body: {inner}"))
        } else {
            ApiError::bad_json(format!("invalid JSON body: field \"{path}\": {inner}"))
        }
    })?;
    de.end()
        .map_err(|e| ApiError::bad_json(format!("invalid JSON body: {e}")))?;
    Ok(value)
}

fn query<T>(q: Result<Query<T>, QueryRejection>) -> Reply<T> {
    q.map(|Query(q)| q)
        .map_err(|e| ApiError::bad_json(format!("invalid query: {}", e.body_text())))
}

fn kind_of(given: Option<&str>) -> Reply<TaskKind> {
    Ok(given
        .unwrap_or("evidence")
        .parse::<TaskKind>()
        .map_err(factdesk_api::Error::from)?)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindQuery {
    kind: Option<String>,
}

async fn next(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<KindQuery>, QueryRejection>,
) -> Reply<Response> {
    let token = bearer(&headers)?;
    let kind = kind_of(query(q)?.kind.as_deref())?;
    let next = state
        .pool
        .run(move |p| {
            let actor = p.actor_for_token(&token)?;
            // As the app's calls serve it: an annotator's item under their own id.
            OnProject::new(p, Some(&actor)).next_item(kind)
        })
        .await?;
    Ok(Json(next).into_response())
}

async fn answers(
    State(state): State<AppState>,
    Extension(person): Extension<SignedInPerson>,
    raw: Body,
) -> Reply<Response> {
    let answer: Answer = parse(&raw.0?)?;
    // The api returns the ack only once the answer is committed: it is sent after that.
    let ack = state
        .pool
        .run(move |p| {
            let actor = person.still(p)?;
            OnProject::new(p, Some(&actor)).submit_answer(answer)
        })
        .await?;
    let _ = state.answers.send(());
    Ok(Json(ack).into_response())
}

async fn stats(State(state): State<AppState>, headers: HeaderMap) -> Reply<Response> {
    let token = bearer(&headers)?;
    let stats = state
        .pool
        .run(move |p| {
            let lead = p.lead_for_token(&token, "read the project's counts")?;
            p.stats(&lead)
        })
        .await?;
    Ok(Json(stats).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgreementQuery {
    kind: Option<String>,
    #[serde(default)]
    include_flagged: bool,
    bootstrap: Option<usize>,
    seed: Option<u64>,
}

/// The most bootstrap replicates a request may ask for: each costs a pass over the
/// answers.
const MAX_BOOTSTRAP: usize = 10_000;

async fn agreement(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<AgreementQuery>, QueryRejection>,
) -> Reply<Response> {
    let token = bearer(&headers)?;
    let q = query(q)?;
    let kind = q.kind.as_deref().map(|k| kind_of(Some(k))).transpose()?;
    let defaults = AgreementRequest::default();
    let req = AgreementRequest {
        include_flagged: q.include_flagged,
        bootstrap_reps: q
            .bootstrap
            .unwrap_or(defaults.bootstrap_reps)
            .min(MAX_BOOTSTRAP),
        seed: q.seed.unwrap_or(defaults.seed),
        ..defaults
    };
    let report = state
        .pool
        .run(move |p| {
            let lead = p.lead_for_token(&token, "see agreement")?;
            // As `factdesk agreement --json`: one report for a kind, else one per kind.
            match kind {
                // The project's own design: agreement question by question.
                Some(TaskKind::Design) => {
                    Ok(serde_json::to_value(p.design_agreement(&lead, &req)?))
                }
                Some(kind) => Ok(serde_json::to_value(p.agreement(&lead, kind, &req)?)),
                None => {
                    let mut all = serde_json::Map::new();
                    for kind in p.kinds_with_answers(&lead)? {
                        let report = p.agreement(&lead, kind, &req)?;
                        all.insert(
                            kind.as_str().to_string(),
                            serde_json::to_value(report).unwrap_or_default(),
                        );
                    }
                    if let Some(design) = p.design_agreement(&lead, &req)?.filter(|d| d.answered())
                    {
                        all.insert(
                            "design".into(),
                            serde_json::to_value(design).unwrap_or_default(),
                        );
                    }
                    Ok(Ok(serde_json::Value::Object(all)))
                }
            }
        })
        .await?
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "io", e.to_string()))?;
    Ok(Json(report).into_response())
}

/// A tick (`event: answer`) each time an answer is committed through this server, or on
/// PostgreSQL by any process (`crate::commits`), after a first `event: ready`; the lead's
/// dashboard refreshes on each. A lead's only ([`watcher`]). A `: heartbeat` comment
/// comes every [`crate::HEARTBEAT`], after the token and the role are checked again: the
/// stream ends once its session ended or expired, or its holder was disabled or is no
/// longer a lead.
async fn events(State(state): State<AppState>, headers: HeaderMap) -> Reply<Response> {
    let token = bearer(&headers)?;
    let first = token.clone();
    let person = state.pool.run(move |p| watcher(p, &first)).await?;
    let vouched = crate::answering::SignedIn {
        token: token.as_str().into(),
        person,
    };
    let ticks = state.answers.subscribe();
    let ready = futures_util::stream::once(async {
        Ok::<_, Infallible>(Event::default().event("ready").data("{}"))
    });
    let start = tokio::time::Instant::now() + crate::HEARTBEAT;
    let beat = tokio::time::interval_at(start, crate::HEARTBEAT);
    let watch = (ticks, beat, token, state.pool.clone());
    let answers = futures_util::stream::unfold(watch, |mut watch| async move {
        use tokio::sync::broadcast::error::RecvError;
        let (ticks, beat, token, pool) = &mut watch;
        tokio::select! {
            tick = ticks.recv() => match tick {
                // Missed ticks need no replay: one refresh covers them.
                Ok(()) | Err(RecvError::Lagged(_)) => {
                    Some((Ok(Event::default().event("answer").data("{}")), watch))
                }
                Err(RecvError::Closed) => None,
            },
            _ = beat.tick() => {
                let token = token.clone();
                let held = pool.run(move |p| watcher(p, &token)).await;
                match held {
                    // A session ended, or a lead demoted or disabled since it opened.
                    Err(e) if matches!(e.code, ErrorCode::Unauthorized | ErrorCode::Forbidden) => {
                        None
                    }
                    // A store out of reach now is no reason to end a dashboard's stream.
                    _ => Some((Ok(Event::default().comment("heartbeat")), watch)),
                }
            }
        }
    });
    use futures_util::StreamExt;
    let mut response = Sse::new(ready.chain(answers)).into_response();
    response.extensions_mut().insert(vouched);
    Ok(response)
}

/// Whether `token`'s person may follow the event stream (a lead, for the dashboard; the
/// use case says).
/// The lead a token stands for, if they may follow the answers: their id.
fn watcher(p: &Project, token: &str) -> factdesk_api::Result<i64> {
    let actor = p.actor_for_token(token)?;
    p.may_follow_answers(&actor)?;
    actor.id().ok_or_else(|| {
        factdesk_api::Error::new(ErrorCode::Unauthorized, "this sign-in names nobody")
    })
}

/// Any of the app's operations ([`Call`]), run for the token's person by the same function
/// the app runs on a project file; the use case checks the role.
async fn call(
    State(state): State<AppState>,
    Extension(person): Extension<SignedInPerson>,
    raw: Body,
) -> Reply<Response> {
    let call: Call = parse(&raw.0?)?;
    // A search holds a connection only to read the project, not while the index is
    // searched, and one person runs few at once (`crate::searching`).
    let call = match call {
        Call::Search { query } => return crate::searching::search(&state, person, query).await,
        call => call,
    };
    let tick = call.moves_the_dashboard();
    let floor = call
        .answered_no_sooner_than()
        .map(|d| tokio::time::Instant::now() + d);
    let reply = state
        .pool
        .run(move |p| {
            let actor = person.still(p)?;
            factdesk_api::call::run(p, &actor, call)
        })
        .await?;
    if tick {
        let _ = state.answers.send(());
    }
    if let Some(at) = floor {
        tokio::time::sleep_until(at).await;
    }
    Ok(Json(reply).into_response())
}

/// Imports claims and documents a lead sent as bytes, as `factdesk import` would.
async fn import(State(state): State<AppState>, headers: HeaderMap, raw: Body) -> Reply<Response> {
    let token = bearer(&headers)?;
    let upload: Upload = parse(&raw.0?)?;
    let report = state
        .pool
        .run(move |p| {
            let lead = p.lead_for_token(&token, "import data")?;
            factdesk_api::upload::import_upload(p, &lead, &upload, &mut NoProgress)
        })
        .await?;
    Ok(Json(report).into_response())
}

/// Starts importing claims and documents a lead sent as bytes as a job, after the api's
/// check that the person may import; answers with the job at once.
async fn start_import(
    State(state): State<AppState>,
    headers: HeaderMap,
    raw: Body,
) -> Reply<Response> {
    let token = bearer(&headers)?;
    let upload: Upload = parse(&raw.0?)?;
    let lead = state
        .pool
        .run(move |p| {
            let lead = p.lead_for_token(&token, "import data")?;
            factdesk_api::upload::may_import(p, &lead)?;
            Ok(lead)
        })
        .await?;
    let job = state.jobs.start(lead.name());
    let (pool, running) = (state.pool.clone(), job.clone());
    tokio::spawn(async move {
        let mut progress = crate::jobs::JobProgress(running.clone());
        let result = pool
            .run(move |p| factdesk_api::upload::import_upload(p, &lead, &upload, &mut progress))
            .await;
        running.finish(result);
    });
    Ok(Json(job.state()).into_response())
}

fn job_id(id: Result<Path<u64>, PathRejection>) -> Reply<u64> {
    id.map(|Path(id)| id)
        .map_err(|e| ApiError::bad_json(format!("invalid job id: {}", e.body_text())))
}

/// The person's job `id`; 404 for anyone else's, as for one that does not exist. Who
/// asks is checked before the id is read: a caller without a live session learns
/// nothing about ids, not even that one is malformed.
async fn job_of(
    state: &AppState,
    headers: &HeaderMap,
    id: Result<Path<u64>, PathRejection>,
) -> Reply<std::sync::Arc<crate::jobs::Job>> {
    let token = bearer(headers)?;
    let actor = state.pool.run(move |p| p.actor_for_token(&token)).await?;
    let id = job_id(id)?;
    state.jobs.of(id, actor.name()).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no import job {id} of yours on this server (ended jobs are kept ten minutes)"),
        )
    })
}

/// Where an import job stands: phase, done and total, then its report or error.
async fn import_job(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<u64>, PathRejection>,
) -> Reply<Response> {
    let job = job_of(&state, &headers, id).await?;
    Ok(Json(job.state()).into_response())
}

/// Asks an import job to stop; it ends with a `cancelled` error, nothing imported.
async fn cancel_import(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<u64>, PathRejection>,
) -> Reply<Response> {
    let job = job_of(&state, &headers, id).await?;
    job.cancel();
    Ok(Json(job.state()).into_response())
}

/// Merges returned packs a lead sent as bytes, as `factdesk merge` would; each pack is
/// validated whole before it changes anything.
async fn merge(State(state): State<AppState>, headers: HeaderMap, raw: Body) -> Reply<Response> {
    let (token, body) = (bearer(&headers)?, raw.0?);
    // The packs are read (hostile input, within a deadline, each manifest checked against
    // the project's key first) before a connection is taken for the merge, one merge at a
    // time: /next and /login keep the rest of the pool. The body is held once (parsed
    // borrowing it, each pack decoded straight into a file).
    let key = state.pool.run(|p| p.pack_key()).await?;
    let read = tokio::task::spawn_blocking(move || -> Reply<ReturnedUpload> {
        let written = parse::<SentPacks>(&body)?.write()?;
        drop(body);
        Ok(written.read(Some(&key)))
    });
    let read = read.await.map_err(|e| {
        let inside = format!("the request failed inside the server: {e}");
        factdesk_api::Error::new(ErrorCode::Io, inside)
    })??;
    let _merging = state.merging.acquire().await.map_err(|_| {
        factdesk_api::Error::new(ErrorCode::Unavailable, "the server is shutting down")
    })?;
    let outcomes = state
        .pool
        .run(move |p| {
            let lead = p.lead_for_token(&token, "merge packs")?;
            p.merge_upload_read(&lead, &read)
        })
        .await?;
    if outcomes.iter().any(|o| o.report.is_some()) {
        let _ = state.answers.send(());
    }
    Ok(Json(outcomes).into_response())
}

async fn openapi() -> Json<serde_json::Value> {
    Json(crate::openapi::document())
}
