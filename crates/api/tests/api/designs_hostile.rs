//! The hostile pass on designs (session 29): each finding's regression test. A control
//! that fits no design wedged every later save of the settings; a span question over a
//! second text made a claim alone unanswerable; the questions changed under an item on
//! someone's screen; the gold read the settings' overlap, not the task's, and called one
//! answer of three "unanimous"; a kept sample closed the control items; labels matched
//! case only in ASCII and let invisible characters make look-alikes.

use crate::common::{self, must, Acting};
use crate::designs::{by_question, design, project_of};
use factdesk_api::annotate::Given;
use factdesk_api::gold::GoldRequest;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::study::Strata;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Project};
use serde_json::json;

fn pair(i: usize) -> serde_json::Value {
    json!({"id": format!("p{i}"), "text_a": format!("Bread rose by {i} percent"), "text_b": format!("Bread fell by {i} percent")})
}

/// Answers every design item `who` is served with `answers`.
fn answer_all(p: &mut Project, who: &str, answers: &[(&str, Given)]) -> usize {
    let mut n = 0;
    while let Some(item) = must(p.next_item(&p.who(who), TaskKind::Design)).item {
        must(p.submit(&p.who(who), &by_question(item.task_id, answers)));
        n += 1;
    }
    n
}

#[test]
fn a_control_that_fits_no_design_is_refused_at_import_and_settings_still_save() {
    let dir = must(tempfile::tempdir());
    let mut p = project_of(dir.path(), &[pair(0)], 2, &["ana"]);
    let lead = p.lead();
    let file = dir.path().join("more.jsonl");
    let mut bad = pair(1);
    bad["control"] = json!({"relation": "smae"});
    must(std::fs::write(&file, format!("{}\n{bad}\n", pair(2))));
    let req = ImportRequest {
        claims: vec![file],
        ..Default::default()
    };
    let err = import(&mut p, &lead, &req, &mut NoProgress)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    let said = err.to_string();
    assert!(
        said.contains("more.jsonl:2: field \"control\"") && said.contains("no label \"smae\""),
        "{said}"
    );
    assert!(must(p.store().all_control_answers()).is_empty());
    assert!(
        must(p.store().claim_by_ext_id("p2")).is_none(),
        "nothing of the file imported"
    );
    // A save that leaves the design's questions alone is never refused for controls.
    let mut settings = must(p.settings());
    settings.overlap = 2;
    must(p.set_settings(&lead, &settings));
    // Without a design, a control cannot be checked, so it is not taken.
    let dir2 = must(tempfile::tempdir());
    let mut bare = must(Project::create(
        &common::location(dir2.path(), "p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let file = dir2.path().join("c.jsonl");
    let mut control = pair(3);
    control["control"] = json!({"relation": "same"});
    must(std::fs::write(&file, format!("{control}\n")));
    let req = ImportRequest {
        claims: vec![file],
        ..Default::default()
    };
    let owner = bare.lead();
    let err = import(&mut bare, &owner, &req, &mut NoProgress)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    assert!(
        err.to_string().contains("declare the design before"),
        "{err}"
    );
}

#[test]
fn a_span_over_the_second_text_is_not_asked_of_a_claim_alone() {
    let dir = must(tempfile::tempdir());
    let claim = json!({"id": "c0", "claim": "Masks cut spread by half"});
    let mut p = project_of(dir.path(), &[claim], 1, &["ana"]);
    let lead = p.lead();
    let mut settings = must(p.settings());
    if let Some(d) = settings.design.as_mut() {
        d.questions[2].required = true; // "words", a span over text_b
    }
    must(p.set_settings(&lead, &settings));
    let item = must(p.next_item(&p.who("ana"), TaskKind::Design))
        .item
        .unwrap_or_else(|| panic!("nothing"));
    assert!(
        item.questions.iter().all(|q| q.id != "words"),
        "{:?}",
        item.questions
    );
    let words = by_question(
        item.task_id,
        &[
            ("relation", Given::One("same".into())),
            (
                "words",
                Given::Spans {
                    spans: vec![[0, 3]],
                },
            ),
        ],
    );
    let err = p
        .submit(&p.who("ana"), &words)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    assert!(err.message.contains("not asked here"), "{}", err.message);
    must(p.submit(
        &p.who("ana"),
        &by_question(item.task_id, &[("relation", Given::One("same".into()))]),
    ));
    let gold =
        must(p.design_gold(&lead, &GoldRequest::default())).unwrap_or_else(|| panic!("no design"));
    assert_eq!(gold.lines.len(), 1, "held back: {:?}", gold.held_back);
    assert!(!gold.lines[0].answers.contains_key("words"));
}

#[test]
fn the_questions_do_not_change_under_an_item_on_someones_screen() {
    let dir = must(tempfile::tempdir());
    let mut p = project_of(dir.path(), &[pair(0), pair(1)], 2, &["ana"]);
    let lead = p.lead();
    assert!(must(p.next_item(&p.who("ana"), TaskKind::Design))
        .item
        .is_some());
    let mut renamed = must(p.settings());
    if let Some(d) = renamed.design.as_mut() {
        d.questions[0].id = "differ".into();
    }
    let err = p
        .set_settings(&lead, &renamed)
        .err()
        .unwrap_or_else(|| panic!("changed"));
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("open on annotators' screens"),
        "{}",
        err.message
    );
}

#[test]
fn the_gold_counts_the_tasks_overlap_and_a_majority_of_every_counted_answer() {
    let dir = must(tempfile::tempdir());
    // Tasks of overlap 3 while the setting says 3 too; ana, ben and cy answer.
    let mut p = project_of(dir.path(), &[pair(0)], 3, &["ana", "ben", "cy"]);
    let lead = p.lead();
    answer_all(
        &mut p,
        "ana",
        &[
            ("relation", Given::One("same".into())),
            ("topics", Given::Many(vec!["health".into()])),
        ],
    );
    for who in ["ben", "cy"] {
        answer_all(&mut p, who, &[("relation", Given::One("same".into()))]);
    }
    let gold =
        must(p.design_gold(&lead, &GoldRequest::default())).unwrap_or_else(|| panic!("no design"));
    let topics = &gold.lines[0].answers["topics"];
    // One of three answers chose "health": no majority of the counted answers.
    assert_eq!(topics.value, Some(Given::Many(vec![])), "{topics:?}");
    assert_ne!(format!("{:?}", topics.settled), "Unanimous");
    assert_eq!(
        format!("{:?}", gold.lines[0].answers["relation"].settled),
        "Unanimous"
    );
    // An overlap of 2 given to the tasks, the setting left at 3: two answers are enough.
    let dir = must(tempfile::tempdir());
    let mut p = project_of(dir.path(), &[pair(0)], 2, &["ana", "ben"]);
    for who in ["ana", "ben"] {
        answer_all(&mut p, who, &[("relation", Given::One("same".into()))]);
    }
    assert_eq!(must(p.settings()).overlap, 3);
    let gold = must(p.design_gold(&p.lead(), &GoldRequest::default()))
        .unwrap_or_else(|| panic!("no design"));
    assert_eq!(gold.lines.len(), 1, "held back: {:?}", gold.held_back);
}

#[test]
fn a_kept_sample_leaves_the_control_items_open_and_out_of_the_draw() {
    let dir = must(tempfile::tempdir());
    let rows: Vec<serde_json::Value> = (0..8)
        .map(|i| {
            let mut row = pair(i);
            if i < 3 {
                row["control"] = json!({"relation": "different"});
            }
            row
        })
        .collect();
    let mut p = project_of(dir.path(), &rows, 1, &["ana"]);
    let lead = p.lead();
    let (sample, closed) = must(p.keep_sample(
        &lead,
        TaskKind::Design,
        &Strata::JaccardBins { bins: 1 },
        2,
        Some(1),
    ));
    assert_eq!(sample.items.len(), 2);
    assert!(
        sample
            .items
            .iter()
            .all(|i| !["p0", "p1", "p2"].contains(&i.claim.as_str())),
        "{:?}",
        sample.items
    );
    assert_eq!(closed, 3, "the 5 data items less the 2 drawn");
    // ana is served the 2 drawn items and the 3 controls.
    assert_eq!(
        answer_all(
            &mut p,
            "ana",
            &[("relation", Given::One("different".into()))]
        ),
        5
    );
}

#[test]
fn labels_match_in_any_case_and_unicode_form_and_invisible_characters_are_refused() {
    let dir = must(tempfile::tempdir());
    let mut p = project_of(dir.path(), &[pair(0)], 1, &["ana"]);
    let lead = p.lead();
    let mut settings = must(p.settings());
    if let Some(d) = settings.design.as_mut() {
        d.questions[0].labels = Some(vec!["café".into(), "thé".into()]);
    }
    must(p.set_settings(&lead, &settings));
    let item = must(p.next_item(&p.who("ana"), TaskKind::Design))
        .item
        .unwrap_or_else(|| panic!("nothing"));
    // Upper case, and the accent written as its own character (NFD).
    must(p.submit(
        &p.who("ana"),
        &by_question(
            item.task_id,
            &[("relation", Given::One("CAFE\u{301}".into()))],
        ),
    ));
    let back =
        must(p.previous_item(&p.who("ana"), TaskKind::Design, None)).and_then(|i| i.previous);
    assert_eq!(
        back.and_then(|b| b.answers).map(|a| a["relation"].clone()),
        Some(Given::One("café".into()))
    );
    let mut invisible = design();
    invisible.questions[0].labels = Some(vec!["yes".into(), "y\u{200b}es".into()]);
    let mut bad = must(p.settings());
    bad.design = Some(invisible);
    let err = p
        .set_settings(&lead, &bad)
        .err()
        .unwrap_or_else(|| panic!("taken"));
    assert!(err.to_string().contains("invisible"), "{err}");
}

#[test]
fn a_missed_control_can_be_answered_again_without_a_tell_and_stays_missed() {
    let dir = must(tempfile::tempdir());
    let mut control = pair(0);
    control["control"] = json!({"relation": "different"});
    let mut p = project_of(dir.path(), &[control], 1, &["ana"]);
    let item = must(p.next_item(&p.who("ana"), TaskKind::Design))
        .item
        .unwrap_or_else(|| panic!("nothing"));
    must(p.submit(
        &p.who("ana"),
        &by_question(item.task_id, &[("relation", Given::One("same".into()))]),
    ));
    // The correction is taken like any other (a refusal would name the item a control)...
    must(p.submit(
        &p.who("ana"),
        &by_question(
            item.task_id,
            &[("relation", Given::One("different".into()))],
        ),
    ));
    // ...and the miss stays on the record, counted once.
    let ana = must(p.annotators(&p.lead()))
        .into_iter()
        .find(|a| a.name == "ana")
        .unwrap_or_else(|| panic!("no ana"));
    assert_eq!((ana.tricks_seen, ana.tricks_failed), (1, 1));
    let rows: Vec<bool> = must(
        p.store()
            .read()
            .prepare("SELECT trick_failed FROM annotations ORDER BY id")
            .and_then(|mut s| {
                s.query_map([], |r| r.get(0))
                    .and_then(|rows| rows.collect::<Result<Vec<bool>, _>>())
            }),
    );
    assert_eq!(rows, vec![true, true]);
}
