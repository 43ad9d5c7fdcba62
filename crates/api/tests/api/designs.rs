//! A project's own design (issue 33) under bad input and misuse: a design that cannot be
//! answered, pair rows that do not fit, answers in the wrong shape, a design changed
//! after answers, design work in packs and studies, a sample kept after work began. Each
//! is refused with the field or question named, and changes nothing.

use crate::common::{self, must, Acting};
use factdesk_api::annotate::{Answer, ByQuestion, Given};
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::packs::PackRequest;
use factdesk_api::study::Strata;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Project};
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) fn design() -> factdesk_core::design::Design {
    must(serde_json::from_value(serde_json::json!({
        "name": "pairs",
        "questions": [
            {"id": "relation", "type": "choice", "labels": ["same", "different"], "required": true},
            {"id": "topics", "type": "multi", "labels": ["health", "money"], "required": false},
            {"id": "words", "type": "span", "over": "text_b", "required": false}
        ]
    })))
}

/// A project of `rows` (pairs), the design declared, design tasks of `overlap`, the
/// lead lea and annotators `names`.
pub(crate) fn project_of(
    dir: &Path,
    rows: &[serde_json::Value],
    overlap: u32,
    names: &[&str],
) -> Project {
    let file = dir.join("pairs.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    must(std::fs::write(&file, text));
    let mut p = must(Project::create(
        &common::location(dir, "p.fdesk"),
        Box::new(ManualClock::new(1_800_000_000_000)),
    ));
    let lead = p.lead();
    // The design first: control items are checked against it as they are imported.
    let mut settings = must(p.settings());
    settings.design = Some(design());
    must(p.set_settings(&lead, &settings));
    let req = ImportRequest {
        claims: vec![file],
        ..Default::default()
    };
    must(import(&mut p, &lead, &req, &mut NoProgress));
    must(p.create_tasks(&lead, TaskKind::Design, Some(overlap)));
    must(p.add_annotator(&lead, "lea", factdesk_api::annotators::Role::Lead));
    for n in names {
        must(p.add_annotator(&lead, n, factdesk_api::annotators::Role::Annotator));
    }
    p
}

/// A project of `n` pairs ("p0".., text_a "The price of bread rose by i percent", text_b
/// "Bread costs i percent more") for ana and ben, overlap 2.
fn pairs_project(dir: &Path, n: usize) -> Project {
    let rows: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"id": format!("p{i}"), "text_a": format!("The price of bread rose by {i} percent"), "text_b": format!("Bread costs {i} percent more")}))
        .collect();
    project_of(dir, &rows, 2, &["ana", "ben"])
}

pub(crate) fn by_question(task_id: i64, pairs: &[(&str, Given)]) -> Answer {
    Answer {
        task_id,
        answers: Some(ByQuestion(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
        )),
        ..Default::default()
    }
}

#[test]
fn a_design_that_cannot_be_answered_is_refused_naming_the_field_and_nothing_changes() {
    let dir = must(tempfile::tempdir());
    let mut p = pairs_project(dir.path(), 2);
    let before = must(p.settings());
    let mut bad = before.clone();
    let mut d = design();
    d.questions[1].labels = Some(vec!["health".into(), "Health".into()]);
    bad.design = Some(d);
    let err = p
        .set_settings(&p.lead(), &bad)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    assert_eq!(err.code, ErrorCode::InvalidInput);
    let said = err.to_string();
    assert!(
        said.contains("field \"design\"") && said.contains("listed twice"),
        "{said}"
    );
    assert_eq!(must(p.settings()), before);
    // Design tasks need a declared design.
    let dir2 = must(tempfile::tempdir());
    let mut bare = common::project(dir2.path(), 2, &ManualClock::new(0));
    let err = bare
        .create_tasks(&bare.lead(), TaskKind::Design, None)
        .err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::Conflict));
}

#[test]
fn pair_rows_that_do_not_fit_are_refused_by_line_and_field_and_import_nothing() {
    let dir = must(tempfile::tempdir());
    let mut p = must(Project::create(
        &common::location(dir.path(), "p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let lead = p.lead();
    for (row, field) in [
        (
            serde_json::json!({"id": "x", "claim": "A", "text_a": "B", "text_b": "C"}),
            "text_a",
        ),
        (
            serde_json::json!({"id": "x", "text_a": "A", "text_b": "  "}),
            "text_b",
        ),
        (serde_json::json!({"id": "x", "text_b": "C"}), "claim"),
    ] {
        let file = dir.path().join("bad.jsonl");
        must(std::fs::write(
            &file,
            format!("{{\"id\": \"ok\", \"text_a\": \"fine\", \"text_b\": \"too\"}}\n{row}\n"),
        ));
        let req = ImportRequest {
            claims: vec![file],
            ..Default::default()
        };
        let err = import(&mut p, &lead, &req, &mut NoProgress)
            .err()
            .unwrap_or_else(|| panic!("{row} taken"));
        let said = err.to_string();
        assert!(said.contains("bad.jsonl:2"), "{said}");
        assert!(
            said.contains(&format!("field \"{field}\"")),
            "{field}: {said}"
        );
        assert!(
            must(p.store().pair_texts()).is_empty(),
            "{row} imported a pair"
        );
    }
}

#[test]
fn answers_are_checked_against_the_design_and_the_items_texts() {
    let dir = must(tempfile::tempdir());
    let mut p = pairs_project(dir.path(), 3);
    let item = must(p.next_item(&p.who("ana"), TaskKind::Design)).item;
    let item = item.unwrap_or_else(|| panic!("ana is served nothing"));
    let text_b = item.text_b.clone().unwrap_or_default();
    assert!(text_b.starts_with("Bread costs"), "{text_b}");
    assert_eq!(
        item.claim
            .replace("The price of bread rose by", "Bread costs")
            .replace(" percent", " percent more"),
        text_b
    );
    let t = item.task_id;
    let text_b_len = text_b.chars().count() as u32;
    let cases: Vec<(Answer, &str)> = vec![
        (
            by_question(t, &[("topics", Given::Many(vec![]))]),
            "\"relation\" is not answered",
        ),
        (
            by_question(t, &[("relation", Given::Many(vec!["same".into()]))]),
            "takes one label",
        ),
        (
            by_question(
                t,
                &[
                    ("relation", Given::One("same".into())),
                    (
                        "words",
                        Given::Spans {
                            spans: vec![[0, text_b_len + 1]],
                        },
                    ),
                ],
            ),
            "start < end",
        ),
        (
            by_question(
                t,
                &[
                    ("relation", Given::One("same".into())),
                    ("mood", Given::One("x".into())),
                ],
            ),
            "asks no question \"mood\"",
        ),
        (
            Answer {
                task_id: t,
                label: Some("same".into()),
                ..Default::default()
            },
            "label does not belong",
        ),
    ];
    for (answer, wanted) in cases {
        let err = p
            .submit(&p.who("ana"), &answer)
            .err()
            .unwrap_or_else(|| panic!("{answer:?} taken"));
        assert!(
            err.message.contains(wanted),
            "{wanted:?} not in {:?}",
            err.message
        );
    }
    // A fitting answer is kept as the design spells it, the comment in its field, and
    // shown again on going back.
    let good = by_question(
        t,
        &[
            ("relation", Given::One("SAME".into())),
            ("topics", Given::Many(vec!["money".into(), "health".into()])),
            (
                "words",
                Given::Spans {
                    spans: vec![[6, 11], [0, 5]],
                },
            ),
            ("comment", Given::One("easy".into())),
        ],
    );
    must(p.submit(&p.who("ana"), &good));
    let back = must(p.previous_item(&p.who("ana"), TaskKind::Design, None));
    let previous = back
        .and_then(|i| i.previous)
        .unwrap_or_else(|| panic!("no previous answer"));
    assert_eq!(previous.comment.as_deref(), Some("easy"));
    let answers = previous.answers.unwrap_or_default();
    assert_eq!(answers["relation"], Given::One("same".into()));
    assert_eq!(
        answers["topics"],
        Given::Many(vec!["health".into(), "money".into()])
    );
    assert_eq!(
        answers["words"],
        Given::Spans {
            spans: vec![[0, 5], [6, 11]]
        }
    );
}

#[test]
fn the_questions_are_fixed_once_answered_and_design_work_stays_out_of_packs_and_studies() {
    let dir = must(tempfile::tempdir());
    let mut p = pairs_project(dir.path(), 4);
    let lead = p.lead_named("lea");
    // No design item goes into a pack, asked for or not.
    let out = dir.path().join("ana.fdpack");
    let req = PackRequest {
        annotator: "ana".into(),
        kind: Some(TaskKind::Design),
        ..Default::default()
    };
    assert_eq!(
        p.issue_pack(&lead, &req, &out).err().map(|e| e.code),
        Some(ErrorCode::InvalidInput)
    );
    let any = PackRequest {
        annotator: "ana".into(),
        ..Default::default()
    };
    assert!(
        p.issue_pack(&lead, &any, &out).is_err(),
        "a pack of design items only was issued"
    );
    let study = factdesk_api::study::StudyRequest {
        kind: TaskKind::Design,
        sample: 1,
        members: vec!["ben".into()],
        seed: Some(1),
        strata: None,
    };
    assert_eq!(
        p.create_study(&lead, &study).err().map(|e| e.code),
        Some(ErrorCode::InvalidInput)
    );

    let item = must(p.next_item(&p.who("ana"), TaskKind::Design))
        .item
        .unwrap_or_else(|| panic!("nothing served"));
    must(p.submit(
        &p.who("ana"),
        &by_question(item.task_id, &[("relation", Given::One("same".into()))]),
    ));
    let mut changed = must(p.settings());
    if let Some(d) = changed.design.as_mut() {
        d.questions[0].labels = Some(vec!["same".into(), "different".into(), "unsure".into()]);
    }
    let err = p
        .set_settings(&lead, &changed)
        .err()
        .unwrap_or_else(|| panic!("changed"));
    assert_eq!(err.code, ErrorCode::Conflict);
    let mut reworded = must(p.settings());
    if let Some(d) = reworded.design.as_mut() {
        d.questions[0].guideline = Some("Same fact, any words.".into());
    }
    must(p.set_settings(&lead, &reworded));
    // A sample cannot become the task set once an item outside it was given.
    let by = Strata::JaccardBins { bins: 1 };
    let drawn = p.sample_strata(&lead, TaskKind::Design, &by, 1, Some(3));
    let drawn = must(drawn);
    let given_outside = drawn.items.iter().all(|i| i.task_id != item.task_id);
    let kept = p.keep_sample(&lead, TaskKind::Design, &by, 1, Some(3));
    if given_outside {
        assert_eq!(kept.err().map(|e| e.code), Some(ErrorCode::InvalidInput));
    } else {
        must(kept);
        assert_eq!(
            p.keep_sample(&lead, TaskKind::Design, &by, 1, Some(3))
                .err()
                .map(|e| e.code),
            Some(ErrorCode::Conflict)
        );
    }
}

/// A project of 6 pairs and 3 control items (known answer "different"), for ana, ben and
/// cy with an overlap of 3.
fn with_controls(dir: &Path) -> Project {
    let rows: Vec<serde_json::Value> = (0..9)
        .map(|i| {
            let mut row = serde_json::json!({"id": format!("p{i}"), "text_a": format!("Bread rose by {i} percent in May"), "text_b": format!("Bread fell by {i} percent in May")});
            if i >= 6 {
                row["control"] = serde_json::json!({"relation": "different"});
            }
            row
        })
        .collect();
    project_of(dir, &rows, 3, &["ana", "ben", "cy"])
}

#[test]
fn control_items_are_a_designs_trick_and_never_data() {
    let dir = must(tempfile::tempdir());
    let mut p = with_controls(dir.path());
    let lead = p.lead();
    // ben calls every pair "same", the control items too; ana and cy see the difference.
    for (who, label) in [("ana", "different"), ("ben", "same"), ("cy", "different")] {
        while let Some(item) = must(p.next_item(&p.who(who), TaskKind::Design)).item {
            must(p.submit(
                &p.who(who),
                &by_question(item.task_id, &[("relation", Given::One(label.into()))]),
            ));
        }
    }
    let people = must(p.annotators(&lead));
    let record = |name: &str| {
        let a = people
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("no {name}"));
        (a.tricks_seen, a.tricks_failed, a.flagged)
    };
    assert_eq!(record("ana"), (3, 0, false));
    assert_eq!(record("ben"), (3, 3, true));
    // Agreement and gold read the 6 pairs, by the two counted annotators.
    let agreement =
        must(p.design_agreement(&lead, &factdesk_api::agreement::AgreementRequest::default()));
    let relation = agreement
        .map(|a| a.questions[0].clone())
        .unwrap_or_else(|| panic!("no design"));
    let report = relation.report.unwrap_or_else(|| panic!("no report"));
    assert_eq!((report.units, report.annotators), (6, 2));
    let gold = must(p.design_gold(
        &lead,
        &factdesk_api::gold::GoldRequest {
            include_under_annotated: true,
            ..Default::default()
        },
    ));
    let ids: Vec<String> = gold
        .map(|g| g.lines.into_iter().map(|l| l.id).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 6, "{ids:?}");
    assert!(
        ids.iter()
            .all(|id| !["p6", "p7", "p8"].contains(&id.as_str())),
        "{ids:?}"
    );
}

#[test]
fn a_control_that_does_not_fit_the_design_is_refused_naming_the_item() {
    let dir = must(tempfile::tempdir());
    let mut p = with_controls(dir.path());
    let lead = p.lead();
    let mut other = must(p.settings());
    if let Some(d) = other.design.as_mut() {
        d.questions[0].labels = Some(vec!["alike".into(), "unlike".into()]);
    }
    let err = p
        .set_settings(&lead, &other)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    let said = err.to_string();
    assert!(
        said.contains("control item \"p6\"") && said.contains("\"different\""),
        "{said}"
    );
}

#[test]
fn a_split_design_item_waits_in_the_adjudication_queue_with_its_questions() {
    let dir = must(tempfile::tempdir());
    let mut p = pairs_project(dir.path(), 2);
    let lead = p.lead_named("lea");
    for (who, label) in [("ana", "same"), ("ben", "different")] {
        while let Some(item) = must(p.next_item(&p.who(who), TaskKind::Design)).item {
            must(p.submit(
                &p.who(who),
                &by_question(item.task_id, &[("relation", Given::One(label.into()))]),
            ));
        }
    }
    let req = factdesk_api::gold::GoldRequest::default();
    let queue = must(p.adjudication_queue(&lead, &req));
    assert_eq!(queue.len(), 2, "both items split");
    let first = &queue[0];
    assert_eq!(first.kind, TaskKind::Design);
    assert_eq!(first.questions[0].id, "relation");
    assert!(first
        .text_b
        .as_deref()
        .is_some_and(|t| t.starts_with("Bread costs")));
    assert_eq!(first.answers.len(), 2);
    assert_eq!(first.share_agreeing, Some(0.5));
    must(p.decide(
        &lead,
        first.task_id,
        factdesk_api::gold::Ruling::Take("ben".into()),
        &factdesk_api::disagreement::DecisionNote::category("judgement call"),
    ));
    let queue = must(p.adjudication_queue(&lead, &req));
    let decided = queue
        .iter()
        .find(|i| i.task_id == first.task_id)
        .unwrap_or_else(|| panic!("gone"));
    assert!(decided
        .decision
        .as_ref()
        .is_some_and(|d| d.category.as_deref() == Some("judgement call")));
    let gold = must(p.design_gold(&lead, &req)).unwrap_or_else(|| panic!("no design"));
    assert_eq!(gold.lines.len(), 1, "the decided item; the other waits");
    assert_eq!(
        gold.lines[0].answers["relation"].value,
        Some(Given::One("different".into()))
    );
}
