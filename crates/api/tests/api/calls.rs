//! The app's operations as data ([`factdesk_api::call::Call`]): their JSON shape, and that
//! running one is running its use case, gate included, on a project or in a pack.

use crate::common;
use common::Acting;
use factdesk_api::RawSql as _;

use factdesk_api::annotators::Role;
use factdesk_api::call::{run, run_in, Call, Reply, Who, OPS};
use factdesk_api::gold::Ruling;
use factdesk_api::packs::{PackRequest, Workplace};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project, Result};
use factdesk_core::answer::{Response, Selection};
use factdesk_core::claim::Label;
use serde_json::json;

fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A call's response as the JSON a server sends.
fn reply(r: Result<Reply>) -> serde_json::Value {
    serde_json::to_value(ok(r)).unwrap_or_else(|e| panic!("{e}"))
}

fn call(value: serde_json::Value) -> std::result::Result<Call, String> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

fn team(dir: &std::path::Path) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = common::project(dir, 4, &clock);
    ok(p.add_annotator(&p.lead(), "maria", Role::Lead));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    ok(p.add_annotator(&p.lead(), "ben", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    p
}

#[test]
fn a_call_is_an_op_with_its_args_and_nothing_else() {
    assert_eq!(
        call(json!({"op": "next_item", "args": {"kind": "evidence"}})),
        Ok(Call::NextItem {
            kind: TaskKind::Evidence
        })
    );
    assert_eq!(call(json!({"op": "paces"})), Ok(Call::Paces));
    assert_eq!(
        call(json!({"op": "dashboard", "args": {}})),
        Ok(Call::Dashboard { intervals: false })
    );
    // The JSON written is the JSON read.
    let decide = Call::Decide {
        task_id: 3,
        seen: None,
        ruling: Ruling::Take("ana".into()),
        reason: Some("clearer".into()),
        category: Some("guideline gap".into()),
    };
    assert_eq!(call(ok_json(&decide)), Ok(decide.clone()));
    assert_eq!(decide.name(), "decide");

    let unknown_op = call(json!({"op": "import_claims", "args": {"path": "/etc/passwd"}}));
    assert!(
        unknown_op
            .as_ref()
            .is_err_and(|e| e.contains("import_claims")),
        "{unknown_op:?}"
    );
    // An export takes no path: the server chooses where it writes its copy.
    let with_path =
        call(json!({"op": "export_answers", "args": {"format": "csv", "out": "/etc/passwd"}}));
    assert!(
        with_path.as_ref().is_err_and(|e| e.contains("out")),
        "{with_path:?}"
    );
    let extra = call(json!({"op": "paces", "extra": 1}));
    assert!(extra.is_err(), "{extra:?}");
    let extra_arg = call(json!({"op": "next_item", "args": {"kind": "evidence", "as": "maria"}}));
    assert!(
        extra_arg.as_ref().is_err_and(|e| e.contains("as")),
        "no one acts as someone else by adding a field: {extra_arg:?}"
    );
    let bad_kind = call(json!({"op": "next_item", "args": {"kind": "gold"}}));
    assert!(bad_kind.is_err(), "{bad_kind:?}");
}

/// A decision takes one annotator's answer or gives the lead's own, typed: both, neither
/// or an untyped answer is refused as the call is read, before any use case runs.
#[test]
fn a_decision_is_one_of_its_two_cases() {
    let decide = |ruling: serde_json::Value| {
        call(
            json!({"op": "decide", "args": {"task_id": 1, "seen": null, "ruling": ruling, "reason": null}}),
        )
    };
    assert_eq!(
        decide(json!({"take": "ana"})),
        Ok(Call::Decide {
            task_id: 1,
            seen: None,
            ruling: Ruling::Take("ana".into()),
            reason: None,
            category: None,
        })
    );
    let given =
        decide(json!({"answer": {"kind": "evidence", "selected": [7, 3], "no_evidence": false}}));
    assert_eq!(
        given,
        Ok(Call::Decide {
            task_id: 1,
            seen: None,
            ruling: Ruling::Answer(Response::Evidence {
                selection: Selection::sentences(vec![3, 7]),
            }),
            reason: None,
            category: None,
        })
    );
    assert_eq!(
        ok_json(&Call::Decide {
            task_id: 1,
            seen: None,
            ruling: Ruling::Answer(Response::Label {
                label: Label::Refuted
            }),
            reason: None,
            category: None,
        })["args"]["ruling"],
        json!({"answer": {"kind": "label", "label": "REFUTED"}})
    );
    for bad in [
        json!({"take": "ana", "answer": {"kind": "label", "label": "REFUTED"}}),
        json!({}),
        json!(null),
        json!("ana"),
        // The old untyped shape: an answer with no kind.
        json!({"answer": {"label": "REFUTED"}}),
        json!({"answer": {"kind": "evidence", "selected": [3], "no_evidence": true}}),
        json!({"give": {"kind": "label", "label": "REFUTED"}}),
    ] {
        let refused = decide(bad.clone());
        assert!(refused.is_err(), "{bad} was read as {refused:?}");
    }
    // Read from the bytes of a body, as the server reads it, both keys say so.
    let both = serde_json::from_str::<Ruling>(
        r#"{"take": "ana", "answer": {"kind": "label", "label": "REFUTED"}}"#,
    );
    assert!(
        both.as_ref()
            .is_err_and(|e| e.to_string().contains("not both")),
        "{both:?}"
    );
    let neither = serde_json::from_str::<Ruling>("{}");
    assert!(
        neither
            .as_ref()
            .is_err_and(|e| e.to_string().contains("needs \"take\"")),
        "{neither:?}"
    );
    // The fields before this type are gone, not ignored.
    let old = call(
        json!({"op": "decide", "args": {"task_id": 1, "seen": null, "take": "ana", "answer": null, "reason": null}}),
    );
    assert!(
        old.as_ref().is_err_and(|e| e.contains("unknown field")),
        "{old:?}"
    );
}

#[test]
fn the_list_of_ops_is_every_op() {
    let refused = call(json!({"op": "no_such_op"})).err().unwrap_or_default();
    let listed: Vec<&str> = refused
        .split("expected one of ")
        .nth(1)
        .unwrap_or_default()
        .split(", ")
        .map(|op| op.trim_matches('`'))
        .collect();
    assert_eq!(listed, OPS, "{refused}");
}

fn ok_json(c: &Call) -> serde_json::Value {
    serde_json::to_value(c).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_call_runs_its_use_case_for_the_actor_with_the_use_cases_own_gate() {
    let dir =
        ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::new(ErrorCode::Io, e.to_string())));
    let mut p = team(dir.path());
    let ana = p.who("ana");
    let maria = p.who("maria");

    let me = reply(run(&mut p, &ana, Call::Me));
    assert_eq!(
        me,
        json!({"name": "ana", "role": "annotator", "has_password": false})
    );

    // Remote clients are not told where the server keeps the project; the counts are a
    // lead's (`claim_refs`).
    let overview = reply(run(&mut p, &ana, Call::Overview));
    assert_eq!(overview["path"], "");
    assert!(overview["stats"].is_null(), "{overview}");
    let leads = reply(run(&mut p, &maria, Call::Overview));
    assert!(leads["stats"].is_object(), "{leads}");

    let next = reply(run(
        &mut p,
        &ana,
        Call::NextItem {
            kind: TaskKind::Evidence,
        },
    ));
    let task_id = next["item"]["task_id"].as_i64().unwrap_or_default();
    let option = next["item"]["options"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(task_id > 0, "{next}");
    let answer = serde_json::from_value(json!({"task_id": task_id, "selected": [option]}));
    let answer = answer.unwrap_or_else(|e| panic!("{e}"));
    let ack = reply(run(&mut p, &ana, Call::SubmitAnswer { answer }));
    assert_eq!(ack["task_id"], task_id);
    assert!(Call::SubmitAnswer {
        answer: Default::default()
    }
    .moves_the_dashboard());

    // Every lead's operation refuses the annotator by the api's gate, and serves the lead.
    let lead_only = [
        Call::Annotators,
        Call::ClaimsWithoutTasks,
        Call::Dashboard { intervals: false },
        Call::PendingReviews,
        Call::Packs,
        Call::Settings,
        Call::SentencePassage { sentence_id: 1 },
        Call::CreateTasks {
            kind: TaskKind::Label,
            overlap: None,
        },
        Call::AddPerson {
            name: "zed".into(),
            role: Role::Lead,
        },
        Call::FlagDecision {
            name: "ben".into(),
            include: Some(true),
        },
    ];
    for c in lead_only {
        let name = c.name();
        let refused = run(&mut p, &ana, c.clone());
        assert_eq!(
            refused.as_ref().err().map(|e| e.code),
            Some(ErrorCode::Forbidden),
            "{name} as ana: {refused:?}"
        );
        // The declaration says so too (AddPerson: anyone adds the first person).
        if name != "add_person" {
            assert_eq!(c.who(), Who::Lead, "{name}");
        }
        reply(run(&mut p, &maria, c));
    }
    let dashboard = reply(run(&mut p, &maria, Call::Dashboard { intervals: false }));
    // Her answer shows (counted or not: the first option may be the trick).
    assert_eq!(
        dashboard["kinds"][0]["people"][0]["answers"], 1,
        "{dashboard}"
    );
    assert!(dashboard["intervals_as_of"].is_null());
    let full = reply(run(&mut p, &maria, Call::Dashboard { intervals: true }));
    assert_eq!(full["intervals_as_of"], dashboard["last_annotation_id"]);
}

#[test]
fn in_the_app_a_call_needs_someone_chosen_and_a_pack_runs_only_the_annotators_work() {
    let dir =
        ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::new(ErrorCode::Io, e.to_string())));
    let mut p = team(dir.path());
    let maria = p.lead_named("maria");
    let pack_path = dir.path().join("ana.fdpack");
    let request = PackRequest {
        annotator: "ana".into(),
        count: 2,
        kind: Some(TaskKind::Evidence),
        ..Default::default()
    };
    ok(p.issue_pack(&maria, &request, &pack_path));

    let mut work = Workplace::Project(p);
    // Before anyone is chosen: the project's face only.
    reply(run_in(&mut work, None, Call::Overview));
    let nobody = run_in(&mut work, None, Call::Paces);
    assert_eq!(nobody.map_err(|e| e.code).err(), Some(ErrorCode::NotFound));

    let mut pack = ok(Workplace::open(
        &pack_path,
        Box::new(ManualClock::new(1_700_000_100_000)),
    ));
    let holder = pack.who("ana");
    let next = reply(run_in(
        &mut pack,
        Some(&holder),
        Call::NextItem {
            kind: TaskKind::Evidence,
        },
    ));
    assert!(next["item"]["task_id"].as_i64().is_some(), "{next}");
    let refused = run_in(&mut pack, Some(&holder), Call::Annotators);
    let refused = refused
        .err()
        .unwrap_or_else(|| panic!("a pack has no annotators list"));
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert!(refused.message.contains("is a pack"), "{}", refused.message);
}

/// An operation's response as a server sends it, read back as the operation's declared
/// response type (as the app reads a team server's answer) and written again.
macro_rules! reread {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:ident $({
            $( $(#[$field:meta])* $arg:ident : $ty:ty ),* $(,)?
        })? -> $res:ty, $who:ident, $shell:ident;
    )*) => {
        fn reread(call: &Call, sent: &serde_json::Value) -> std::result::Result<serde_json::Value, String> {
            match call {
                $(Call::$variant { .. } => serde_json::from_value::<$res>(sent.clone())
                    .and_then(|read| serde_json::to_value(read))
                    .map_err(|e| format!("{}: {e}", stringify!($name))),)*
            }
        }
    };
}

factdesk_api::for_each_operation!(reread);

/// Runs operations and checks that each response reads back as its type, unchanged;
/// remembers which operations were checked.
#[derive(Default)]
struct ReadBack {
    checked: std::collections::BTreeSet<&'static str>,
}

impl ReadBack {
    /// `call` run for `who`: its response as sent, once checked.
    fn run(&mut self, p: &mut Project, who: &factdesk_api::Actor, call: Call) -> serde_json::Value {
        let sent = reply(run(p, who, call.clone()));
        assert_eq!(reread(&call, &sent), Ok(sent.clone()), "{}", call.name());
        self.checked.insert(call.name());
        sent
    }
}

/// Ana's work: an evidence answer, an item skipped, and a refutation written (left for
/// the lead's review); the evidence task she answered.
fn annotators_work(p: &mut Project, back: &mut ReadBack) -> i64 {
    let ana = p.who("ana");
    back.run(p, &ana, Call::Me);
    back.run(p, &ana, Call::Overview);
    let kind = TaskKind::Evidence;
    let next = back.run(p, &ana, Call::NextItem { kind });
    let task_id = next["item"]["task_id"].as_i64().unwrap_or_default();
    let option_id = next["item"]["options"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    back.run(
        p,
        &ana,
        Call::Passage {
            task_id,
            option_id: option_id.clone(),
        },
    );
    back.run(
        p,
        &ana,
        Call::Search {
            query: "lighthouse".into(),
        },
    );
    let answer = ok_answer(json!({"task_id": task_id, "selected": [option_id]}));
    back.run(p, &ana, Call::SubmitAnswer { answer });
    back.run(
        p,
        &ana,
        Call::PreviousItem {
            kind,
            current: None,
        },
    );
    let next = back.run(p, &ana, Call::NextItem { kind });
    let skipped = next["item"]["task_id"].as_i64().unwrap_or_default();
    back.run(p, &ana, Call::SkipItem { task_id: skipped });
    let next = back.run(p, &ana, Call::NextItem { kind });
    let reported = next["item"]["task_id"].as_i64().unwrap_or_default();
    let report = Call::ReportProblem {
        task_id: reported,
        text: "The sentences are cut off.".into(),
    };
    back.run(p, &ana, report);
    back.run(p, &ana, Call::Paces);

    let kind = TaskKind::Refute;
    let next = back.run(p, &ana, Call::NextItem { kind });
    let refute = next["item"]["task_id"].as_i64().unwrap_or_default();
    // The claim with another year: its facts changed, not only negated.
    let claim = next["item"]["claim"].as_str().unwrap_or_default();
    let text = claim.replace("built in 18", "built in 17");
    back.run(
        p,
        &ana,
        Call::CheckRefutation {
            task_id: refute,
            text: text.clone(),
        },
    );
    let answer = ok_answer(json!({"task_id": refute, "text": text}));
    back.run(p, &ana, Call::SubmitAnswer { answer });
    // Ana's items carry ids of her own: the lead names the task by its row.
    ok(p.store()
        .read()
        .query_row(
            "SELECT a.task_id FROM annotations a JOIN annotators n ON n.id = a.annotator_id
             JOIN tasks t ON t.id = a.task_id WHERE n.name = 'ana' AND t.kind = 'evidence'
             ORDER BY a.id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .map_err(|e| factdesk_api::Error::new(ErrorCode::Io, e.to_string())))
}

fn ok_answer(value: serde_json::Value) -> factdesk_api::annotate::Answer {
    serde_json::from_value(value).unwrap_or_else(|e| panic!("{e}"))
}

/// The lead's work on what ana did: every lead's screen, a decision taken back, a
/// study drawn and deleted, the exports.
fn leads_work(p: &mut Project, back: &mut ReadBack, answered: i64) {
    let maria = p.who("maria");
    let name = "zed".to_string();
    back.run(
        p,
        &maria,
        Call::AddPerson {
            name,
            role: Role::Annotator,
        },
    );
    back.run(p, &maria, Call::Annotators);
    back.run(p, &maria, Call::ClaimsWithoutTasks);
    back.run(
        p,
        &maria,
        Call::ClaimView {
            claim: "#1".to_string(),
        },
    );
    let standing = Default::default();
    back.run(
        p,
        &maria,
        Call::ClaimsList {
            words: None,
            standing,
            offset: 0,
            limit: 10,
        },
    );
    let pending = back.run(p, &maria, Call::PendingReviews);
    let annotation_id = pending[0]["annotation_id"].as_i64().unwrap_or_default();
    let review = Call::ReviewRefutation {
        annotation_id,
        accepted: true,
        note: None,
    };
    back.run(p, &maria, review);
    // The lead's own answer: ana's may have picked the trick, which is never taken.
    let request = factdesk_api::gold::GoldRequest::default();
    let queue = Call::AdjudicationQueue { request };
    let given = json!({"answer": {"kind": "evidence", "selected": [], "no_evidence": true}});
    let ruling = serde_json::from_value(given).unwrap_or_else(|e| panic!("{e}"));
    let decide = Call::Decide {
        task_id: answered,
        seen: None,
        ruling,
        reason: None,
        category: Some("Missing Context".into()),
    };
    back.run(p, &maria, decide);
    let queue = back.run(p, &maria, queue);
    let decided = queue
        .as_array()
        .and_then(|q| q.iter().find(|i| i["task_id"] == answered));
    // The category as the project spells it.
    assert_eq!(
        decided.map(|i| &i["decision"]["category"]),
        Some(&json!("missing context"))
    );
    let seen = decided.and_then(|i| i["decision"]["at"].as_i64());
    let seen = seen.unwrap_or_else(|| panic!("the decision is in the queue: {queue}"));
    let undo = Call::UndoDecision {
        task_id: answered,
        seen,
        reason: None,
    };
    back.run(p, &maria, undo);
    back.run(p, &maria, Call::SentencePassage { sentence_id: 1 });
    let study = json!({"kind": "evidence", "sample": 1, "members": ["ben"], "seed": 1});
    let request = serde_json::from_value(study).unwrap_or_else(|e| panic!("{e}"));
    let studies = back.run(p, &maria, Call::CreateStudy { request });
    let id = studies[0]["study"]["id"].as_i64().unwrap_or_default();
    back.run(p, &maria, Call::DeleteStudy { id });
    back.run(p, &maria, Call::Dashboard { intervals: true });
    let settings = back.run(p, &maria, Call::Settings);
    let settings = serde_json::from_value(settings).unwrap_or_else(|e| panic!("{e}"));
    back.run(
        p,
        &maria,
        Call::SaveSettings {
            settings,
            based_on: None,
        },
    );
    let reports = back.run(p, &maria, Call::ProblemReports);
    let id = reports[0]["id"].as_i64().unwrap_or_default();
    back.run(p, &maria, Call::MarkProblemSeen { id });
    let password = Call::SetPassword {
        name: "ben".into(),
        password: "ben's new one".into(),
    };
    back.run(p, &maria, password);
    back.run(
        p,
        &maria,
        Call::FlagDecision {
            name: "ben".into(),
            include: Some(true),
        },
    );
    let request = factdesk_api::gold::GoldRequest::default();
    back.run(
        p,
        &maria,
        Call::ExportPreview {
            request: request.clone(),
        },
    );
    let format = factdesk_api::gold::ExportFormat::Fever;
    back.run(p, &maria, Call::ExportGold { request, format });
    let format = factdesk_api::answers::AnswersFormat::Csv;
    back.run(p, &maria, Call::ExportAnswers { format });
    let request = PackRequest {
        annotator: "ben".into(),
        count: 1,
        kind: Some(TaskKind::Evidence),
        ..Default::default()
    };
    back.run(p, &maria, Call::IssuePack { request });
    back.run(p, &maria, Call::Packs);
}

#[test]
fn every_operations_response_reads_back_as_its_type_as_the_app_reads_a_servers() {
    let dir =
        ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::new(ErrorCode::Io, e.to_string())));
    let mut p = team(dir.path());
    let maria = p.who("maria");
    let mut back = ReadBack::default();
    back.run(
        &mut p,
        &maria,
        Call::CreateTasks {
            kind: TaskKind::Refute,
            overlap: Some(1),
        },
    );
    let answered = annotators_work(&mut p, &mut back);
    leads_work(&mut p, &mut back, answered);
    assert_eq!(back.checked.iter().copied().collect::<Vec<_>>(), {
        let mut all = OPS.to_vec();
        all.sort_unstable();
        all
    });
    // Another shape is an error naming the operation.
    let wrong = reread(&Call::Paces, &json!({"kind": "evidence"}));
    assert!(wrong.is_err_and(|e| e.starts_with("paces: ")));
}
