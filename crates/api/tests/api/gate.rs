//! The gate: every lead-only use case refuses an annotator itself (`Forbidden`, naming the
//! person and what they may not do) and changes nothing; front ends check no roles.

use crate::common;
use common::Acting;
use factdesk_api::disagreement::DecisionNote;

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotators::Role;
use factdesk_api::answers::AnswersFormat;
use factdesk_api::claim_view::ClaimStanding;
use factdesk_api::dashboard::DashboardState;
use factdesk_api::gold::{ExportFormat, GoldRequest, HandAnswer, Ruling};
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::packs::{PackRequest, PackSession, Unanswered};
use factdesk_api::report::ReportFiles;
use factdesk_api::settings::Settings;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, Lead, ManualClock, NoProgress, Project, Result};
use factdesk_core::ranking::Ranker;
use std::path::{Path, PathBuf};

fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project with a lead (maria), an annotator (ana) and evidence tasks.
fn team(dir: &Path) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = common::project(dir, 4, &clock);
    ok(p.add_annotator(&p.lead(), "maria", Role::Lead));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    p
}

/// Each lead-only use case, called with a lead's proof; the name is the api function's.
type Call = (&'static str, fn(&mut Project, &Lead, &Path) -> Result<()>);

const LEAD_ONLY: &[Call] = &[
    ("import", |p, a, dir| {
        let req = ImportRequest {
            claims: vec![dir.join("claims.jsonl")],
            ..Default::default()
        };
        import(p, a, &req, &mut NoProgress).map(drop)
    }),
    ("import_upload", |p, a, dir| {
        let claims = factdesk_api::upload::UploadFile::read_all(&[dir.join("claims.jsonl")])?;
        let upload = factdesk_api::upload::Upload {
            claims,
            ..Default::default()
        };
        factdesk_api::upload::import_upload(p, a, &upload, &mut NoProgress).map(drop)
    }),
    ("merge_upload", |p, a, _| {
        let upload = factdesk_api::upload::PacksUpload {
            packs: vec![factdesk_api::upload::UploadFile {
                name: "x.fdpack".into(),
                base64: String::new(),
            }],
            give_back: false,
        };
        factdesk_api::upload::merge_upload(p, a, &upload).map(drop)
    }),
    ("merge_upload_read", |p, a, _| {
        let upload = factdesk_api::upload::PacksUpload {
            packs: vec![factdesk_api::upload::UploadFile {
                name: "x.fdpack".into(),
                base64: String::new(),
            }],
            give_back: false,
        };
        let read = factdesk_api::packs::ReturnedUpload::read(&upload)?;
        p.merge_upload_read(a, &read).map(drop)
    }),
    ("merge_in_batches", |p, a, _| {
        // A real pack, issued by another project so this one stays as it was.
        let other = tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e))?;
        let clock = ManualClock::new(1_700_000_000_000);
        let mut q = common::project(other.path(), 2, &clock);
        q.add_annotator(&q.lead(), "ana", Role::Annotator)?;
        q.create_tasks(&q.lead(), TaskKind::Evidence, Some(1))?;
        let req = PackRequest {
            annotator: "ana".to_string(),
            count: 1,
            kind: None,
            expires_days: 14,
        };
        let path = other.path().join("ana.fdpack");
        q.issue_pack(&q.lead(), &req, &path)?;
        let pack = factdesk_api::packs::ReturnedPack::read(&path)?;
        p.merge_returned(a, &pack, Unanswered::GiveBack).map(drop)
    }),
    ("stats", |p, a, _| p.stats(a).map(drop)),
    ("sessions", |p, a, _| p.sessions(a).map(drop)),
    ("end_sessions", |p, a, _| p.end_sessions(a, "ana").map(drop)),
    ("end_session", |p, a, _| p.end_session(a, "0123456789ab")),
    ("may_import", |p, a, _| {
        factdesk_api::upload::may_import(p, a)
    }),
    ("create_tasks", |p, a, _| {
        p.create_tasks(a, TaskKind::Label, None).map(drop)
    }),
    ("create_tasks_with", |p, a, _| {
        p.create_tasks_with(
            a,
            TaskKind::Label,
            None,
            true,
            &mut factdesk_api::NoProgress,
        )
        .map(drop)
    }),
    ("claims_without_tasks", |p, a, _| {
        p.claims_without_tasks(a).map(drop)
    }),
    ("set_settings_based_on", |p, a, _| {
        p.set_settings_based_on(a, &Settings::default(), None)
    }),
    ("add_annotator", |p, a, _| {
        p.add_annotator(a, "eve", Role::Lead).map(drop)
    }),
    ("add_person", |p, a, _| {
        p.add_person(Some(a), "eve", Role::Lead).map(drop)
    }),
    ("annotators", |p, a, _| p.annotators(a).map(drop)),
    ("annotator", |p, a, _| p.annotator(a, "maria").map(drop)),
    ("set_flag_override", |p, a, _| {
        p.set_flag_override(a, "ana", Some(true)).map(drop)
    }),
    ("rank", |p, a, _| {
        p.rank(a, Ranker::Bm25, 5, false, &mut NoProgress).map(drop)
    }),
    ("rank_with", |p, a, _| {
        let overrides = factdesk_api::rank::RankingOverrides::default();
        p.rank_with(a, Ranker::Bm25, 5, false, &overrides, &mut NoProgress)
            .map(drop)
    }),
    ("semantic_ranker", |p, a, _| {
        p.semantic_ranker(a, None, factdesk_api::semantic::Need::IfAvailable)
            .map(drop)
    }),
    ("eval_ranking_with", |p, a, dir| {
        let overrides = factdesk_api::rank::RankingOverrides::default();
        p.eval_ranking_with(a, &dir.join("claims.jsonl"), false, &overrides)
            .map(drop)
    }),
    ("candidates", |p, a, _| p.candidates(a, "c0").map(drop)),
    ("reindex", |p, a, _| p.reindex(a)),
    ("search_index", |p, a, _| p.search_index(a).map(drop)),
    ("eval_ranking", |p, a, dir| {
        p.eval_ranking(a, &dir.join("claims.jsonl")).map(drop)
    }),
    ("pending_reviews", |p, a, _| p.pending_reviews(a).map(drop)),
    ("problem_reports", |p, a, _| p.problem_reports(a).map(drop)),
    ("mark_problem_seen", |p, a, _| p.mark_problem_seen(a, 1)),
    ("review", |p, a, _| p.review(a, 1, true, None)),
    ("review_pending", |p, a, _| {
        p.review_pending(a, 1, true, None)
    }),
    ("ratings", |p, a, _| {
        p.ratings(a, TaskKind::Evidence, false).map(drop)
    }),
    ("agreement", |p, a, _| {
        p.agreement(a, TaskKind::Evidence, &AgreementRequest::default())
            .map(drop)
    }),
    ("kinds_with_answers", |p, a, _| {
        p.kinds_with_answers(a).map(drop)
    }),
    ("agreements", |p, a, _| {
        p.agreements(a, &AgreementRequest::default()).map(drop)
    }),
    ("report", |p, a, _| {
        p.report(a, &AgreementRequest::default()).map(drop)
    }),
    ("write_report", |p, a, dir| {
        let files = ReportFiles {
            html: dir.join("out").join("report.html"),
            json: Some(dir.join("out").join("report.json")),
            csv: Some(dir.join("out").join("tables")),
        };
        p.write_report(a, &AgreementRequest::default(), &files)
            .map(drop)
    }),
    ("create_study", |p, a, _| {
        let req = StudyRequest {
            kind: TaskKind::Evidence,
            sample: 1,
            members: vec!["ana".to_string()],
            seed: Some(1),
            strata: None,
        };
        p.create_study(a, &req).map(drop)
    }),
    ("delete_study", |p, a, _| p.delete_study(a, 1).map(drop)),
    ("sample_strata", |p, a, _| {
        let by = factdesk_api::study::Strata::Label;
        p.sample_strata(a, TaskKind::Evidence, &by, 1, Some(1))
            .map(drop)
    }),
    ("studies", |p, a, _| p.studies(a).map(drop)),
    ("study_agreements", |p, a, _| {
        p.study_agreements(a, None, &AgreementRequest::default())
            .map(drop)
    }),
    ("refresh", |p, a, _| {
        DashboardState::new().refresh(p, a).map(drop)
    }),
    ("dashboard", |p, a, _| {
        p.dashboard(a, &AgreementRequest::default()).map(drop)
    }),
    ("dashboard_intervals", |p, a, _| {
        p.dashboard_intervals(a, &AgreementRequest::default())
            .map(drop)
    }),
    ("last_annotation_id", |p, a, _| {
        p.last_annotation_id(a).map(drop)
    }),
    ("may_follow_answers", |p, a, _| p.may_follow_answers(a)),
    ("adjudication_queue", |p, a, _| {
        p.adjudication_queue(a, &GoldRequest::default()).map(drop)
    }),
    ("decide", |p, a, _| {
        p.decide(a, 1, Ruling::Take("maria".into()), &DecisionNote::default())
            .map(drop)
    }),
    ("hand_answer", |p, a, _| {
        p.hand_answer(a, 1, &HandAnswer::default()).map(drop)
    }),
    ("undo_decision", |p, a, _| p.undo_decision(a, 1, None)),
    ("decide_seen", |p, a, _| {
        p.decide_seen(
            a,
            1,
            None,
            Ruling::Take("maria".into()),
            &DecisionNote::default(),
        )
        .map(drop)
    }),
    ("undo_decision_seen", |p, a, _| {
        p.undo_decision_seen(a, 1, 0, None)
    }),
    ("sentence_passage", |p, a, _| {
        p.sentence_passage(a, 1).map(drop)
    }),
    ("claims_list", |p, a, _| {
        p.claims_list(a, None, ClaimStanding::Any, 0, 10).map(drop)
    }),
    ("aggregate", |p, a, _| {
        p.aggregate(a, &GoldRequest::default()).map(drop)
    }),
    ("gold", |p, a, _| {
        p.gold(a, &GoldRequest::default()).map(drop)
    }),
    ("export_preview", |p, a, _| {
        p.export_preview(a, &GoldRequest::default()).map(drop)
    }),
    ("keep_sample", |p, a, _| {
        p.keep_sample(
            a,
            TaskKind::Design,
            &factdesk_api::study::Strata::Label,
            1,
            None,
        )
        .map(drop)
    }),
    ("design_agreement", |p, a, _| {
        p.design_agreement(a, &AgreementRequest::default())
            .map(drop)
    }),
    ("design_gold", |p, a, _| {
        p.design_gold(a, &GoldRequest::default()).map(drop)
    }),
    ("export_design_gold", |p, a, dir| {
        p.export_design_gold(
            a,
            &GoldRequest::default(),
            &dir.join("out").join("design.jsonl"),
            false,
        )
        .map(drop)
    }),
    ("export_gold", |p, a, dir| {
        p.export_gold(
            a,
            &GoldRequest::default(),
            &dir.join("out").join("gold.jsonl"),
            ExportFormat::Factdesk,
            false,
        )
        .map(drop)
    }),
    ("issue_pack", |p, a, dir| {
        let req = PackRequest {
            annotator: "ana".to_string(),
            count: 2,
            kind: None,
            expires_days: 14,
        };
        p.issue_pack(a, &req, &dir.join("out").join("ana.fdpack"))
            .map(drop)
    }),
    ("may_merge", |p, a, _| factdesk_api::upload::may_merge(p, a)),
    ("merge_pack", |p, a, dir| {
        p.merge_pack(a, &dir.join("p.fdesk")).map(drop)
    }),
    ("merge_pack_with", |p, a, dir| {
        p.merge_pack_with(a, &dir.join("p.fdesk"), Unanswered::GiveBack)
            .map(drop)
    }),
    ("merge_packs", |p, a, dir| {
        p.merge_packs(a, &[dir.join("p.fdesk")], Unanswered::GiveBack)
            .map(drop)
    }),
    ("packs", |p, a, _| p.packs(a).map(drop)),
    ("answer_rows", |p, a, _| p.answer_rows(a).map(drop)),
    ("import_predictions", |p, a, dir| {
        p.import_predictions(a, &dir.join("claims.jsonl"), Some("m"))
            .map(drop)
    }),
    ("compare_predictions", |p, a, _| {
        p.compare_predictions(a, &GoldRequest::default()).map(drop)
    }),
    ("export_hf", |p, a, dir| {
        p.export_hf(
            a,
            &GoldRequest::default(),
            &dir.join("out").join("hf"),
            "other",
            false,
        )
        .map(drop)
    }),
    ("export_answers", |p, a, dir| {
        p.export_answers(
            a,
            &dir.join("out").join("answers.csv"),
            AnswersFormat::Csv,
            false,
        )
        .map(drop)
    }),
    ("gold_download", |p, a, _| {
        p.gold_download(a, &GoldRequest::default(), ExportFormat::Fever)
            .map(drop)
    }),
    ("pack_download", |p, a, _| {
        let request = PackRequest {
            annotator: "ana".into(),
            ..PackRequest::default()
        };
        p.pack_download(a, &request).map(drop)
    }),
    ("answers_download", |p, a, _| {
        p.answers_download(a, AnswersFormat::Parquet).map(drop)
    }),
    ("add_annotator_with_password", |p, a, _| {
        p.add_annotator_with_password(a, "eve", Role::Lead, "eve's password")
            .map(drop)
    }),
    ("set_password", |p, a, _| {
        p.set_password(a, "maria", "taken over!")
    }),
    ("set_disabled", |p, a, _| p.set_disabled(a, "maria", true)),
    ("serving_audit", |p, a, _| p.serving_audit(a).map(drop)),
    ("missing_answers", |p, a, _| {
        p.missing_answers(a, &[]).map(drop)
    }),
];

/// An annotator gets no lead's proof from the gate, so no lead-only use case can be
/// called for them (each takes the proof: the list below would not compile otherwise),
/// and asking changes nothing.
#[test]
fn the_gate_refuses_an_annotator_a_leads_proof_and_changes_nothing() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let p = team(dir.path());
    let ana = p.who("ana");
    assert!(!ana.is_lead());
    let before = common::project_values(&p);
    for (name, _) in LEAD_ONLY {
        let e = p.as_lead(&ana, name).err();
        let e = e.unwrap_or_else(|| panic!("{name}: an annotator got a lead's proof"));
        assert_eq!(e.code, ErrorCode::Forbidden, "{name}: {e}");
        assert_eq!(
            e.message,
            format!("ana is not a lead of this project and may not {name}")
        );
    }
    assert_eq!(
        common::project_values(&p),
        before,
        "a refused call changed the project"
    );
}

/// Every lead-only use case runs for a lead: none refuses the proof (the calls may fail
/// for their own reasons, e.g. a file that is not there).
#[test]
fn the_lead_passes_the_same_gate() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let mut p = team(dir.path());
    let maria = p.lead_named("maria");
    std::fs::create_dir(dir.path().join("out")).unwrap_or_else(|e| panic!("{e}"));
    for (name, call) in LEAD_ONLY {
        if let Err(e) = call(&mut p, &maria, dir.path()) {
            // Forbidden for a reason of its own (a lead may not disable themselves) is
            // not the gate's.
            assert!(!e.message.contains("is not a lead"), "{name}: {e}");
        }
    }
}

/// The list above is every lead-only use case: each pub fn of the api whose first line
/// takes the lead's proof in (or asks the gate for it) is in it, and nothing else is.
#[test]
fn the_list_is_every_lead_only_use_case() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut gated = Vec::new();
    for path in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let body_start = lines[i..].iter().position(|l| l.ends_with('{'));
            let Some(open) = body_start.map(|k| i + k) else {
                continue;
            };
            let first = lines.get(open + 1).copied().unwrap_or("");
            if first.contains(".acting_lead(") || first.contains(".as_lead(") {
                gated.push(name);
            }
        }
    }
    // add_person lets anyone add the first person, so its check is not on its first line;
    // lead_for_token is the server's way to the gate, not a use case.
    gated.push("add_person".to_string());
    gated.retain(|name| name != "lead_for_token");
    gated.sort();
    let mut listed: Vec<String> = LEAD_ONLY.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(listed, gated);
}

#[test]
fn an_unknown_name_is_no_actor() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let p = team(dir.path());
    let e = p.actor("mallory").err().map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::NotFound));
    let e = p.lead_or_owner(Some("mallory")).err().map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::NotFound));
    // Without a name, the first lead.
    assert_eq!(ok(p.lead_or_owner(None)).name(), "maria");
}

#[test]
fn a_project_without_a_lead_is_its_owners_until_it_has_one() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = common::project(dir.path(), 2, &clock);
    let owner = ok(p.lead_or_owner(None));
    assert!(owner.is_lead() && owner.id().is_none());
    ok(p.add_person(None, "maria", Role::Annotator));
    // The first person is made a lead; after that nobody unnamed adds anyone.
    assert_eq!(ok(p.lead_or_owner(None)).name(), "maria");
    let e = p
        .add_person(None, "ana", Role::Annotator)
        .err()
        .map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::Forbidden));
}

#[test]
fn an_actor_is_no_one_in_another_project() {
    let (a, b) = (
        ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e))),
        ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e))),
    );
    let first = team(a.path());
    let mut second = team(b.path());
    // The same names, resolved in the first project: neither acts in the second.
    let (maria, ana) = (first.lead_named("maria"), first.who("ana"));
    let before = common::project_values(&second);
    let e = second
        .as_lead(&first.who("maria"), "export gold data")
        .err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    let e = second.export_preview(&maria, &GoldRequest::default()).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    let e = second.next_item(&ana, TaskKind::Evidence).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    assert_eq!(common::project_values(&second), before);
    // Resolved in the second, they do.
    ok(second.export_preview(&second.lead_named("maria"), &GoldRequest::default()));
    ok(second.next_item(&second.who("ana"), TaskKind::Evidence));
}

#[test]
fn a_pack_works_for_its_holder_only() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let mut p = team(dir.path());
    let pack = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".to_string(),
        count: 2,
        kind: None,
        expires_days: 14,
    };
    ok(p.issue_pack(&p.lead(), &req, &pack));
    let session = ok(PackSession::open(&pack, Box::new(ManualClock::new(1))));
    assert_eq!(ok(session.actor("ana")).name(), "ana");
    let e = session.actor("maria").err().map(|e| e.code);
    assert_eq!(e, Some(ErrorCode::Forbidden));
    // Ana of the project is not Ana of the pack: each is resolved where the work is.
    let mut session = session;
    let e = session.next_item(&p.who("ana"), TaskKind::Evidence).err();
    assert_eq!(e.map(|e| e.code), Some(ErrorCode::Forbidden));
    ok(session.next_item(&session.who("ana"), TaskKind::Evidence));
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Role checks the front ends must not make: the api's gate is the only one.
const ROLE_CHECKS: [&str; 6] = [
    "require_lead",
    "Role::Lead",
    "Role::Annotator",
    ".is_lead()",
    ".role()",
    ".role ==",
];

fn role_checks_in(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for path in rust_files(dir) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        // A file's tests may set people up in a role; the rule is about the code shipped.
        let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in shipped.lines().enumerate() {
            for check in ROLE_CHECKS {
                if line.contains(check) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_desktop_shell_checks_no_roles() {
    let shell = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src-tauri/src");
    assert!(rust_files(&shell).len() > 5, "the shell's source moved");
    assert_eq!(role_checks_in(&shell), Vec::<String>::new());
}

#[test]
fn the_team_server_checks_no_roles() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src");
    assert!(rust_files(&server).len() >= 4, "the server's source moved");
    assert_eq!(role_checks_in(&server), Vec::<String>::new());
}

#[test]
fn the_cli_checks_no_roles() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/src");
    assert!(rust_files(&cli).len() > 5, "the CLI's source moved");
    assert_eq!(role_checks_in(&cli), Vec::<String>::new());
}
