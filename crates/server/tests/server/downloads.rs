//! Exports through the server: a lead's gold data and raw answers come back as bytes,
//! the same bytes an export beside the project writes, and the client writes them on its
//! own machine; no path crosses.

use crate::harness::{error_of, ok, Team};
use factdesk_api::answers::{AnswersFormat, AnswersReport};
use factdesk_api::download::{self, Download};
use factdesk_api::gold::{ExportFormat, ExportReport, GoldRequest};
use factdesk_api::packs::{MergeOutcome, PackIssued};
use factdesk_api::sign_in::SignInPolicy;
use serde_json::{json, Value};

fn request() -> Value {
    json!({"method": "majority", "include_flagged": false, "splits": [70, 15, 15], "seed": 1})
}

async fn download(team: &Team, token: &str, body: Value) -> Download {
    let response = team
        .post("/api/v1/call", Some(token), &body.to_string())
        .await;
    assert_eq!(response.status(), 200, "{body}");
    ok(serde_json::from_value(ok(response.json::<Value>().await)))
}

fn read(path: &std::path::Path) -> Vec<u8> {
    ok(std::fs::read(path))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leads_gold_export_through_the_server_is_the_local_export_written_on_the_laptop() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    for name in ["ben", "dan"] {
        let token = team.token(name).await;
        team.answer_next(&token, "").await;
    }
    let laptop = ok(tempfile::tempdir());
    let here = ok(tempfile::tempdir());
    let project = team.project();
    let lead = ok(project.as_lead(&ok(project.actor("maria")), "act as a lead"));
    let req: GoldRequest = ok(serde_json::from_value(request()));
    for (format, name) in [
        (ExportFormat::Factdesk, "factdesk"),
        (ExportFormat::Fever, "fever"),
    ] {
        let got = download(
            &team,
            &maria,
            json!({"op": "export_gold", "args": {"request": request(), "format": name}}),
        )
        .await;
        // No path of the server's comes back: only names beside the client's file.
        let sent = ok(serde_json::to_string(&got.report));
        assert!(!sent.contains("/tmp/"), "{sent}");
        let out = laptop.path().join(format!("{name}.jsonl"));
        let report: ExportReport = ok(download::write(got, &out, true));
        let local = here.path().join(format!("{name}.jsonl"));
        let expected = ok(project.export_gold(&lead, &req, &local, format, false));
        assert_eq!(report.out, out.display().to_string());
        assert_eq!(read(&out), read(&local), "{name}");
        let card = laptop.path().join(format!("{name}.card.md"));
        assert_eq!(report.card, card.display().to_string());
        assert_eq!(read(&card), read(std::path::Path::new(&expected.card)));
        assert_eq!(report.split_files.len(), expected.split_files.len());
        assert_eq!(report.preview, expected.preview);
        for split in &expected.split_files {
            let file = std::path::Path::new(split).file_name().unwrap_or_default();
            assert_eq!(
                read(&laptop.path().join(file)),
                read(std::path::Path::new(split))
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_answers_through_the_server_in_each_format_are_the_local_ones() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let ben = team.token("ben").await;
    team.answer_next(&ben, "ben's note").await;
    let laptop = ok(tempfile::tempdir());
    let here = ok(tempfile::tempdir());
    let project = team.project();
    let lead = ok(project.as_lead(&ok(project.actor("maria")), "act as a lead"));
    for format in [
        AnswersFormat::Jsonl,
        AnswersFormat::Csv,
        AnswersFormat::Parquet,
    ] {
        let got = download(
            &team,
            &maria,
            json!({"op": "export_answers", "args": {"format": format.as_str()}}),
        )
        .await;
        let out = laptop.path().join(format!("answers.{}", format.as_str()));
        let report: AnswersReport = ok(download::write(got.clone(), &out, false));
        assert_eq!(report.rows, 1, "{report:?}");
        assert_eq!(report.out, out.display().to_string());
        let local = here.path().join(format!("answers.{}", format.as_str()));
        ok(project.export_answers(&lead, &local, format, false));
        assert_eq!(read(&out), read(&local), "{}", format.as_str());
        // Written once, the file is replaced only when the user says so.
        let again = download::write::<AnswersReport>(got.clone(), &out, false);
        assert!(
            again.is_err(),
            "an existing file was replaced without force"
        );
        ok(download::write::<AnswersReport>(got, &out, true));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_with_a_bad_format_or_a_path_is_400_naming_it() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    // A path from the client is no field of an export: refused by name, nothing written.
    for (body, named) in [
        (
            json!({"op": "export_answers", "args": {"format": "xlsx"}}),
            "xlsx",
        ),
        (
            json!({"op": "export_gold", "args": {"request": request(), "format": "hf"}}),
            "hf",
        ),
        (
            json!({"op": "export_gold", "args": {"request": request(), "format": "fever", "out": "/tmp/x"}}),
            "out",
        ),
        (
            json!({"op": "export_answers", "args": {"format": "csv", "out": "/tmp/x"}}),
            "out",
        ),
    ] {
        let response = team
            .post("/api/v1/call", Some(&maria), &body.to_string())
            .await;
        let (status, code, message) = error_of(response).await;
        assert_eq!((status, code.as_str()), (400, "invalid_input"), "{message}");
        assert!(message.contains(named), "{body}: {message}");
    }
}

/// A claims line of the native format.
pub(crate) fn claim_line(id: &str) -> String {
    format!(
        "{}\n",
        json!({"id": id, "claim": format!("Claim {id} about a lighthouse"), "doc_ids": ["d0"], "label": "REFUTED"})
    )
}

/// An import request sending `text` as a claims file named `name`.
pub(crate) fn upload(name: &str, text: &str) -> Value {
    use base64::Engine;
    json!({"claims": [{"name": name, "base64": base64::engine::general_purpose::STANDARD.encode(text)}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_imports_a_file_sent_from_the_laptop_and_errors_name_it_with_line_and_field() {
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let before = team.counts().claims;
    let good = format!("{}{}", claim_line("new1"), claim_line("new2"));
    let response = team
        .post(
            "/api/v1/import",
            Some(&maria),
            &upload("mine.jsonl", &good).to_string(),
        )
        .await;
    assert_eq!(response.status(), 200);
    let report: Value = ok(response.json().await);
    assert_eq!(report["claims_added"], 2, "{report}");
    assert_eq!(report["files"], json!(["mine.jsonl"]), "{report}");
    assert_eq!(team.counts().claims, before + 2);
    // A bad line: named by the laptop's file name, its line and field; nothing imported.
    let bad = format!(
        "{}{}\n",
        claim_line("new3"),
        json!({"id": "new4", "claim": 5})
    );
    let (status, code, message) = error_of(
        team.post(
            "/api/v1/import",
            Some(&maria),
            &upload("mine2.jsonl", &bad).to_string(),
        )
        .await,
    )
    .await;
    assert_eq!((status, code.as_str()), (400, "invalid_input"), "{message}");
    assert!(
        message.starts_with("mine2.jsonl:2: field \"claim\""),
        "{message}"
    );
    assert!(!message.contains("/tmp"), "a server path leaked: {message}");
    assert_eq!(team.counts().claims, before + 2);
    // A name that climbs out, or bytes that are no base64, are refused by field.
    for (body, field) in [
        (upload("../x.jsonl", &good), "claims[0].name"),
        (
            json!({"claims": [{"name": "a.jsonl", "base64": "!!"}]}),
            "claims[0].base64",
        ),
        (json!({"claims": [], "path": "/etc/passwd"}), "path"),
    ] {
        let (status, _, message) = error_of(
            team.post("/api/v1/import", Some(&maria), &body.to_string())
                .await,
        )
        .await;
        assert_eq!(status, 400, "{message}");
        assert!(message.contains(field), "{body}: {message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_has_its_own_body_limit_larger_than_the_others() {
    let team = Team::start_with(SignInPolicy::default(), 1024, None).await;
    let maria = team.token("maria").await;
    // Past the 1 KiB limit of other routes, well within the import's.
    let lines: String = (0..40).map(|i| claim_line(&format!("big{i}"))).collect();
    let body = upload("big.jsonl", &lines).to_string();
    assert!(body.len() > 1024);
    let response = team.post("/api/v1/import", Some(&maria), &body).await;
    assert_eq!(response.status(), 200);
    let call = json!({"op": "search", "args": {"query": "x".repeat(2000)}}).to_string();
    let (status, code, _) = error_of(team.post("/api/v1/call", Some(&maria), &call).await).await;
    assert_eq!((status, code.as_str()), (413, "too_large"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_past_its_limit_is_413() {
    let team = Team::start_limits(SignInPolicy::default(), 4096).await;
    let maria = team.token("maria").await;
    let lines: String = (0..200).map(|i| claim_line(&format!("big{i}"))).collect();
    let body = upload("big.jsonl", &lines).to_string();
    let before = team.counts().claims;
    let (status, code, _) = error_of(team.post("/api/v1/import", Some(&maria), &body).await).await;
    assert_eq!((status, code.as_str()), (413, "too_large"));
    assert_eq!(team.counts().claims, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pack_issued_and_merged_through_the_server_never_touches_a_path_of_the_client() {
    use base64::Engine;
    use factdesk_api::packs::PackSession;
    use factdesk_api::tasks::TaskKind;
    let team = Team::start(SignInPolicy::default()).await;
    let maria = team.token("maria").await;
    let laptop = ok(tempfile::tempdir());
    let got = download(
        &team,
        &maria,
        json!({"op": "issue_pack", "args": {"request": {"annotator": "eve", "count": 1, "kind": "evidence"}}}),
    )
    .await;
    let out = laptop.path().join("eve.fdpack");
    let issued: PackIssued = ok(download::write(got.clone(), &out, false));
    assert_eq!(issued.path, out.display().to_string(), "{issued:?}");
    assert_eq!(issued.items, 1, "{issued:?}");
    // The same bytes again do not replace the pack written.
    assert!(download::write::<PackIssued>(got, &out, false).is_err());
    // Eve answers on her laptop.
    let mut pack = ok(PackSession::open(&out, Box::new(team.clock.clone())));
    let eve = ok(pack.actor("eve"));
    let item = ok(pack.next_item(&eve, TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("the pack has an item"));
    let answer = serde_json::from_value(json!({"task_id": item.task_id, "no_evidence": true}));
    ok(pack.submit(&eve, &ok(answer)));
    let results = ok(pack.return_results(None));
    drop(pack);
    let b64 = |bytes: Vec<u8>| base64::engine::general_purpose::STANDARD.encode(bytes);
    let body = json!({"packs": [
        {"name": "eve-results.fdpack", "base64": b64(read(&results))},
        {"name": "garbage.fdpack", "base64": b64(b"SQLite format 3\0 not really".to_vec())},
    ]});
    // An annotator may not merge.
    let ana = team.token("ana").await;
    let (status, code, _) = error_of(
        team.post("/api/v1/merge", Some(&ana), &body.to_string())
            .await,
    )
    .await;
    assert_eq!((status, code.as_str()), (403, "forbidden"));
    let response = team
        .post("/api/v1/merge", Some(&maria), &body.to_string())
        .await;
    assert_eq!(response.status(), 200);
    let outcomes: Value = ok(response.json().await);
    assert_eq!(outcomes[0]["file"], "eve-results.fdpack", "{outcomes}");
    assert_eq!(outcomes[0]["report"]["added"], 1, "{outcomes}");
    // The hostile file is refused on its own, named as sent, no server path in sight.
    assert_eq!(outcomes[1]["file"], "garbage.fdpack", "{outcomes}");
    assert!(outcomes[1]["report"].is_null(), "{outcomes}");
    assert!(!outcomes.to_string().contains("/tmp"), "{outcomes}");
    // The app reads the answer as the api's outcomes (`Remote::merge`).
    let read: Vec<MergeOutcome> = ok(serde_json::from_value(outcomes.clone()));
    assert_eq!(ok(serde_json::to_value(&read)), outcomes);
    assert!(read[1].error.is_some(), "{outcomes}");
}
