//! Small rules a hostile pass on issue 30 found loose (its LOW items): a name with a comma
//! could never be named in a study's group; agreement on refutations printed a table of
//! nothing; `include_flagged` also brought back people the lead excluded by name; the
//! report described the 15-word rule as a limit on what annotators write.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::GoldRequest;
use factdesk_api::settings::EvidenceStance;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock};

use crate::common;
use common::{project, trick_option, Acting};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_name_with_a_comma_is_refused_as_lists_of_names_use_commas() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 1, &clock);
    let refused = p.add_annotator(&p.lead(), "x,y", Role::Annotator).err();
    let refused = refused.unwrap_or_else(|| panic!("a name with a comma was taken"));
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(refused.message.contains("comma"), "{}", refused.message);
    must(p.add_annotator(&p.lead(), "x;y", Role::Annotator));
}

#[test]
fn agreement_on_refutations_is_refused_naming_the_kinds_that_have_it() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = project(dir.path(), 1, &clock);
    let refused = p
        .agreement(&p.lead(), TaskKind::Refute, &AgreementRequest::default())
        .err()
        .unwrap_or_else(|| panic!("agreement on free text was computed"));
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(
        refused.message.contains("evidence, verify or label"),
        "{}",
        refused.message
    );
}

/// ana is flagged by the rule (three tricks in three items); ben answers carefully and
/// the lead excludes him by name. `include_flagged` brings ana back, not ben.
#[test]
fn include_flagged_brings_back_the_flagged_not_the_excluded() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 4, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    for (who, trick) in [("ana", true), ("ben", false)] {
        for _ in 0..4 {
            let item = must(p.next_item(&p.who(who), TaskKind::Evidence)).item;
            let item = item.unwrap_or_else(|| panic!("{who} got nothing"));
            let picked = trick_option(&p, &item).unwrap_or_default();
            let other = (item.options.iter()).find(|o| o.id != picked);
            let chosen = if trick && item.task_id != 4 {
                picked
            } else {
                other.map(|o| o.id.clone()).unwrap_or_default()
            };
            let answer = Answer {
                task_id: item.task_id,
                selected: vec![chosen],
                ..Default::default()
            };
            must(p.submit(&p.who(who), &answer));
        }
    }
    must(p.set_flag_override(&p.lead(), "ben", Some(false)));
    let ana = must(p.annotator(&p.lead(), "ana"));
    assert!(ana.flagged && !ana.counted, "{ana:?}");
    let names = |include_flagged: bool| {
        let (ratings, _) = must(p.ratings(&p.lead(), TaskKind::Evidence, include_flagged));
        let names: std::collections::BTreeSet<String> =
            ratings.into_iter().map(|r| r.annotator).collect();
        names.into_iter().collect::<Vec<_>>()
    };
    assert!(names(false).is_empty(), "{:?}", names(false));
    assert_eq!(names(true), ["ana"], "an explicit exclusion came back");
    let req = factdesk_api::gold::GoldRequest {
        include_flagged: true,
        ..Default::default()
    };
    let aggregation = must(p.aggregate(&p.lead(), &req));
    assert_eq!(aggregation.counted_annotators, ["ana"]);
    assert_eq!(aggregation.excluded_annotators, ["ben"]);
}

#[test]
fn the_report_says_the_word_limit_is_on_which_claims_get_a_refutation_task() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = project(dir.path(), 1, &clock);
    let req = AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    };
    let page = factdesk_api::report::html::render(&must(p.report(&p.lead(), &req)));
    assert!(
        page.contains("Claims of at most 15 words get a refutation-writing task"),
        "the Methodology section does not say what the rule decides"
    );
    assert!(
        page.contains("with at least one letter or digit"),
        "the Methodology section does not say how words are counted"
    );
    assert!(!page.contains("Written refutations have at most"));
}

/// Issue 36, item 2: under `supports` the trick is the claim's negation, which can be told
/// by its form; the report and the dataset card say what each stance's trick checks.
#[test]
fn the_report_and_the_card_say_what_the_trick_checks_under_the_stance() {
    for (stance, says) in [
        (EvidenceStance::Supports, "recognised by its form"),
        (EvidenceStance::SupportsOrRefutes, "from another document"),
    ] {
        let dir = must(tempfile::tempdir());
        let clock = ManualClock::new(1_000_000);
        let mut p = project(dir.path(), 2, &clock);
        assert_eq!(common::set_stance(&mut p, stance), None);
        let req = AgreementRequest {
            bootstrap_reps: 0,
            ..Default::default()
        };
        let page = factdesk_api::report::html::render(&must(p.report(&p.lead(), &req)));
        let line = format!(
            "<code>evidence_stance</code> <code>{}</code>",
            stance.as_str()
        );
        assert!(
            page.contains(&line),
            "{stance:?}: the report names no stance"
        );
        assert!(
            page.contains(says),
            "{stance:?}: the report says no {says:?}"
        );
        let out = dir.path().join("gold.jsonl");
        let gold = GoldRequest::default();
        let report = must(p.export_gold(&p.lead(), &gold, &out, Default::default(), false));
        let card = must(std::fs::read_to_string(&report.card));
        let line = format!("(setting `evidence_stance` `{}`)", stance.as_str());
        assert!(card.contains(&line), "{stance:?}: {card}");
        assert!(card.contains(says), "{stance:?}: {card}");
    }
}
