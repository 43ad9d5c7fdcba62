//! The OpenAPI document of the server, written out here and checked by the tests against
//! the routes the router serves and the statuses each one answers with.

use serde_json::{json, Value};

/// What each status means on this server.
fn status(code: u16) -> (&'static str, Value) {
    let error = json!({"$ref": "#/components/schemas/Error"});
    let (description, schema) = match code {
        400 => ("bad JSON or query: the message names the field", error),
        401 => (
            "no token, or one unknown, expired or ended; or a wrong name or password",
            error,
        ),
        403 => (
            "the api's gate refused this person (e.g. an annotator on a lead's route)",
            error,
        ),
        404 => ("no such task, person or route", error),
        409 => ("the request conflicts with the project's state", error),
        408 => ("the body came too slowly (30 s; 10 min for a lead's import)", error),
        413 => ("the body is larger than the server takes", error),
        415 => ("the body was not sent as Content-Type: application/json", error),
        429 => (
            "too many failed sign-ins for the name from this address, or (a search) too many of the person's searches running at once; Retry-After says when to try again",
            error,
        ),
        503 => (
            "the store is unavailable for now: retry after Retry-After seconds",
            error,
        ),
        _ => ("", error),
    };
    (description, schema)
}

fn responses(ok: (&str, Value), errors: &[u16]) -> Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "200".to_string(),
        json!({"description": ok.0, "content": {"application/json": {"schema": ok.1}}}),
    );
    for &code in errors {
        let (description, schema) = status(code);
        out.insert(
            code.to_string(),
            json!({"description": description, "content": {"application/json": {"schema": schema}}}),
        );
    }
    Value::Object(out)
}

fn kind_parameter(required: bool) -> Value {
    json!({"name": "kind", "in": "query", "required": required,
           "schema": {"type": "string", "enum": ["evidence", "refute", "verify", "label", "design"]},
           "description": "the task kind; next defaults to evidence, agreement to every kind with answers"})
}

/// The statuses each route may answer with besides its success, as the tests check them.
pub const STATUSES: &[(&str, &str, &[u16])] = &[
    (
        "post",
        "/api/v1/login",
        &[400, 401, 408, 413, 415, 429, 500, 503],
    ),
    ("post", "/api/v1/logout", &[401, 500, 503]),
    ("get", "/api/v1/next", &[400, 401, 403, 404, 500, 503]),
    (
        "post",
        "/api/v1/answers",
        &[400, 401, 403, 404, 408, 409, 413, 415, 500, 503],
    ),
    ("get", "/api/v1/stats", &[401, 403, 500, 503]),
    ("get", "/api/v1/agreement", &[400, 401, 403, 500, 503]),
    ("get", "/api/v1/events", &[401, 403, 500, 503]),
    ("get", "/api/v1/openapi.json", &[]),
    (
        "post",
        "/api/v1/call",
        &[400, 401, 403, 404, 408, 409, 413, 415, 429, 500, 503],
    ),
    (
        "post",
        "/api/v1/import",
        &[400, 401, 403, 408, 409, 413, 415, 500, 503],
    ),
    (
        "post",
        "/api/v1/merge",
        &[400, 401, 403, 408, 413, 415, 500, 503],
    ),
    (
        "post",
        "/api/v1/imports",
        &[400, 401, 403, 408, 413, 415, 500, 503],
    ),
    ("get", "/api/v1/imports/{id}", &[400, 401, 404, 500, 503]),
    (
        "post",
        "/api/v1/imports/{id}/cancel",
        &[400, 401, 404, 500, 503],
    ),
];

fn errors_of(method: &str, path: &str) -> &'static [u16] {
    STATUSES
        .iter()
        .find(|(m, p, _)| *m == method && *p == path)
        .map(|(_, _, s)| *s)
        .unwrap_or(&[])
}

/// Who may call each operation, from its declaration: `anyone`, `person` or `lead`.
fn who_may_call() -> Value {
    factdesk_api::call::OPS
        .iter()
        .map(|op| (op.to_string(), json!(factdesk_api::call::who_may(op))))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// The document served at `/api/v1/openapi.json`.
pub fn document() -> Value {
    let mut paths = work_paths();
    if let (Some(all), Value::Object(more)) = (paths.as_object_mut(), lead_paths()) {
        all.extend(more);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Factdesk team server",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Bodies have the shapes of the factdesk CLI's --json output. Errors are {code, message}."
        },
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "The token from POST /api/v1/login. The server's own page signs in with the header X-Factdesk-Browser and gets the token in an HttpOnly, SameSite=Strict cookie (factdesk_session) instead; a request carrying that cookie counts only with the same header, which another site cannot add"
            }},
            "schemas": schemas()
        }
    })
}

/// A reference to one of the document's schemas.
fn obj(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// What a signed-in request carries.
fn bearer() -> Value {
    json!([{"bearer": []}])
}

/// Signing in and out, work, counts, agreement, events and the operations' call.
fn work_paths() -> Value {
    let bearer = bearer();
    json!({
            "/api/v1/login": {"post": {
                "summary": "Sign in: a bearer token and the person's role (with X-Factdesk-Browser: the token in an HttpOnly cookie instead, and only the role and expiry in the body)",
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("Login")}}},
                "responses": responses(("signed in", obj("Session")), errors_of("post", "/api/v1/login"))
            }},
            "/api/v1/logout": {"post": {
                "summary": "End this token's session",
                "security": bearer,
                "responses": {
                    "204": {"description": "the session ended"},
                    "401": {"description": status(401).0, "content": {"application/json": {"schema": status(401).1}}},
                    "500": {"description": status(500).0, "content": {"application/json": {"schema": status(500).1}}},
                    "503": {"description": status(503).0, "content": {"application/json": {"schema": status(503).1}}}
                }
            }},
            "/api/v1/next": {"get": {
                "summary": "The next item of a kind, reserved for the signed-in person (factdesk next --json)",
                "security": bearer,
                "parameters": [kind_parameter(false)],
                "responses": responses(("the item, or why there is none", obj("Next")), errors_of("get", "/api/v1/next"))
            }},
            "/api/v1/answers": {"post": {
                "summary": "Submit one answer, as a line of factdesk submit; the ack comes only after the commit",
                "security": bearer,
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("Answer")}}},
                "responses": responses(("committed", obj("Ack")), errors_of("post", "/api/v1/answers"))
            }},
            "/api/v1/stats": {"get": {
                "summary": "Row counts (factdesk stats --json); a lead's",
                "security": bearer,
                "responses": responses(("the counts", obj("Stats")), errors_of("get", "/api/v1/stats"))
            }},
            "/api/v1/agreement": {"get": {
                "summary": "Agreement between annotators (factdesk agreement --json); a lead's",
                "security": bearer,
                "parameters": [
                    kind_parameter(false),
                    {"name": "include_flagged", "in": "query", "schema": {"type": "boolean"}},
                    {"name": "bootstrap", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 10000}},
                    {"name": "seed", "in": "query", "schema": {"type": "integer", "minimum": 0}}
                ],
                "responses": responses(("one report, or one per kind keyed by kind", json!({"type": "object"})), errors_of("get", "/api/v1/agreement"))
            }},
            "/api/v1/events": {"get": {
                "summary": "Server-sent events for the lead's dashboard (a lead's): `ready` once, then `answer` each time an answer is committed through this server (on PostgreSQL, by any process); the stream ends once the session does or its holder is no longer a lead",
                "security": bearer,
                "responses": {
                    "200": {"description": "an event stream", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                    "401": {"description": status(401).0, "content": {"application/json": {"schema": status(401).1}}},
                    "403": {"description": status(403).0, "content": {"application/json": {"schema": status(403).1}}},
                    "500": {"description": status(500).0, "content": {"application/json": {"schema": status(500).1}}},
                    "503": {"description": status(503).0, "content": {"application/json": {"schema": status(503).1}}}
                }
            }},
            "/api/v1/call": {"post": {
                "summary": "Any of the desktop app's operations, run for the signed-in person by the same function the app runs on a project file; the api checks the role",
                "security": bearer,
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("Call")}}},
                "responses": responses(("what the operation returns, as the app receives it", json!({})), errors_of("post", "/api/v1/call"))
            }}
    })
}

/// A lead's uploads (imports, import jobs, merges), and this document.
fn lead_paths() -> Value {
    let bearer = bearer();
    json!({
            "/api/v1/import": {"post": {
                "summary": "Imports claims and documents files a lead sent as bytes (leads only), as `factdesk import` does; errors name the file as sent, its line and field. Bodies up to `--import-limit` (256 MiB unless set)",
                "security": bearer,
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("Upload")}}},
                "responses": responses(("what was imported", json!({"type": "object"})), errors_of("post", "/api/v1/import"))
            }},
            "/api/v1/imports": {"post": {
                "summary": "Starts the import `POST /api/v1/import` does as a job (leads only) and answers at once with the job: {id, progress: {phase, done, total}, outcome: null}. Bodies up to `--import-limit`",
                "security": bearer,
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("Upload")}}},
                "responses": responses(("the job, started", json!({"type": "object"})), errors_of("post", "/api/v1/imports"))
            }},
            "/api/v1/imports/{id}": {"get": {
                "summary": "Where your import job stands: {id, progress: {phase, done, total}, outcome}; outcome is null while it runs, then {report, error} (error `cancelled` when it was cancelled: nothing was imported). Ended jobs are kept ten minutes; someone else's job is 404",
                "security": bearer,
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "responses": responses(("the job", json!({"type": "object"})), errors_of("get", "/api/v1/imports/{id}"))
            }},
            "/api/v1/imports/{id}/cancel": {"post": {
                "summary": "Asks your import job to stop at its next step; it ends with the error `cancelled` and the project unchanged (an import that already ended stays as it ended)",
                "security": bearer,
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "responses": responses(("the job as it stands", json!({"type": "object"})), errors_of("post", "/api/v1/imports/{id}/cancel"))
            }},
            "/api/v1/merge": {"post": {
                "summary": "Merges returned packs a lead sent as bytes (leads only), as `factdesk merge` does: each pack is validated whole and merged or refused on its own; one outcome per pack, named as sent. Bodies up to `--import-limit`",
                "security": bearer,
                "requestBody": {"required": true, "content": {"application/json": {"schema": obj("PacksUpload")}}},
                "responses": responses(("each pack's outcome", json!({"type": "array"})), errors_of("post", "/api/v1/merge"))
            }},
            "/api/v1/openapi.json": {"get": {
                "summary": "This document",
                "responses": {"200": {"description": "the OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}}
            }}
    })
}

/// The bodies' schemas.
fn schemas() -> Value {
    json!({
                "Error": {"type": "object", "required": ["code", "message"], "properties": {
                    "code": {"type": "string", "description": "stable: unauthorized, forbidden, invalid_input, not_found, conflict, too_large, rate_limited, unavailable, ..."},
                    "message": {"type": "string"}
                }},
                "Call": {"type": "object", "required": ["op"], "additionalProperties": false, "properties": {
                    "op": {"type": "string", "enum": factdesk_api::call::OPS},
                    "args": {"type": "object", "description": "the operation's fields, snake_case, as the app's command of the same name takes them"}
                }, "x-who": who_may_call()},
                "Upload": {"type": "object", "additionalProperties": false, "properties": {
                    "claims": {"type": "array", "items": obj("UploadFile")},
                    "documents": {"type": "array", "items": obj("UploadFile")},
                    "preset": {"type": "string", "description": "as `factdesk import --preset`; native when left out"}
                }},
                "PacksUpload": {"type": "object", "required": ["packs"], "additionalProperties": false, "properties": {
                    "packs": {"type": "array", "items": obj("UploadFile")},
                    "give_back": {"type": "boolean", "description": "take back the work of a pack with no answers instead of refusing it"}
                }},
                "UploadFile": {"type": "object", "required": ["name", "base64"], "additionalProperties": false, "properties": {
                    "name": {"type": "string", "description": "the file's name on the sender's machine, no folders; its extension says the format"},
                    "base64": {"type": "string"}
                }},
                "Login": {"type": "object", "required": ["name", "password"], "additionalProperties": false, "properties": {
                    "name": {"type": "string"}, "password": {"type": "string"},
                    "device": {"type": "string", "description": "the device token an earlier sign-in of this person gave back: guesses of the name from the same address then do not hold its owner"}
                }},
                "Session": {"type": "object", "required": ["token", "role", "expires_at", "device"], "properties": {
                    "token": {"type": "string"}, "role": {"type": "string", "enum": ["lead", "annotator"]},
                    "expires_at": {"type": "integer", "description": "unix milliseconds"},
                    "device": {"type": "string", "description": "a device token for this person's next sign-ins from this client; a new password ends it"}
                }},
                "Answer": {"type": "object", "required": ["task_id"], "additionalProperties": false, "properties": {
                    "task_id": {"type": "integer"},
                    "selected": {"type": "array", "items": {"type": "string"}},
                    "no_evidence": {"type": "boolean"},
                    "text": {"type": ["string", "null"]},
                    "label": {"type": ["string", "null"]},
                    "comment": {"type": ["string", "null"]},
                    "duration_ms": {"type": ["integer", "null"]},
                    "answers": {"type": "object", "description": "the answer by question id, as the item's questions name them, instead of selected/no_evidence/text/label: a label, a list of labels ([] for no evidence), {\"spans\": [[start, end], ...]} or a text",
                        "additionalProperties": {"oneOf": [
                            {"type": "string"},
                            {"type": "array", "items": {"type": "string"}},
                            {"type": "object", "required": ["spans"], "additionalProperties": false, "properties": {"spans": {"type": "array", "items": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2}}}}
                        ]}}
                }},
                "Ack": {"type": "object", "required": ["ack", "task_id"], "properties": {
                    "ack": {"type": "string"}, "task_id": {"type": "integer"}
                }},
                "Next": {"type": "object", "properties": {
                    "item": {"type": ["object", "null"]}, "reason": {"type": ["string", "null"]}
                }},
                "Stats": {"type": "object", "properties": {
                    "claims": {"type": "integer"}, "root_claims": {"type": "integer"}, "refutations": {"type": "integer"},
                    "documents": {"type": "integer"}, "sentences": {"type": "integer"}, "candidates": {"type": "integer"},
                    "tasks": {"type": "integer"}, "annotations": {"type": "integer"}, "annotators": {"type": "integer"}
                }}
    })
}
