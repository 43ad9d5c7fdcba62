//! Re-annotation studies and the gold data: the study's answers stay out of the gold
//! unless the project pools them, and only those whose answers make the gold are listed
//! as counted.

use crate::common;
use crate::study::{must, no_bootstrap};
use common::Acting;
use common::{project, trick_option};
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

/// One claim of overlap 3, a1 to a3 and b1 to b3 to answer it, and a study drawing it
/// for b1 to b3.
fn one_claim_and_a_study(dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, 1, clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in ["a1", "a2", "a3", "b1", "b2", "b3"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let study = StudyRequest {
        kind: TaskKind::Evidence,
        sample: 1,
        members: vec!["b1".into(), "b2".into(), "b3".into()],
        seed: Some(1),
        strata: None,
    };
    must(p.create_study(&p.lead_named("maria"), &study));
    p
}
/// COVID-Fact's procedure (issue 30, item 3): the gold comes from the first group; a
/// study's group answers the sample again only to measure agreement. Here the first
/// group gives one sentence 2 of 3 votes, gold under the strict majority; the study's
/// three votes for another sentence, pooled, would make it 4 of 6 and leave the first
/// out. A setting pools them; the card and the report say which was done.
#[test]
fn study_answers_stay_out_of_the_gold_unless_the_project_pools_them() {
    use factdesk_api::gold::GoldRequest;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = one_claim_and_a_study(dir.path(), &clock);
    let (lighthouse, port) = (
        "Its lighthouse was built in 1800.",
        "The mayor of town 0 opened a museum.",
    );
    for (who, pick) in [
        ("a1", lighthouse),
        ("a2", lighthouse),
        ("a3", port),
        ("b1", port),
        ("b2", port),
        ("b3", port),
    ] {
        let item = must(p.next_item(&p.who(who), TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("{who} was served nothing"));
        let option = (item.options.iter())
            .find(|o| o.text == pick)
            .unwrap_or_else(|| panic!("no option {pick:?} in {:?}", item.options));
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![option.id.clone()],
            ..Default::default()
        };
        must(p.submit(&p.who(who), &answer));
    }
    let gold = |p: &Project| {
        let (lines, preview) = must(p.gold(&p.lead(), &GoldRequest::default()));
        assert_eq!(lines.len(), 1, "{preview:?}");
        let texts: Vec<String> = lines[0].evidence.iter().map(|e| e.text.clone()).collect();
        (texts, lines[0].agreement.answers, preview)
    };
    let (evidence, answers, preview) = gold(&p);
    assert_eq!((evidence, answers), (vec![lighthouse.to_string()], 3));
    assert!(!preview.study_answers_in_gold);
    assert_eq!(preview.study_answers_apart, 3);
    assert!(preview.under_annotated.is_empty(), "{preview:?}");
    // The study still measures agreement on every answer.
    let figures = must(p.study_agreements(&p.lead(), None, &no_bootstrap()));
    assert_eq!(
        (figures[0].group_a.len(), figures[0].items_answered),
        (3, 1)
    );
    let out = dir.path().join("gold.jsonl");
    let written = must(p.export_gold(
        &p.lead(),
        &GoldRequest::default(),
        &out,
        Default::default(),
        false,
    ));
    let card = must(std::fs::read_to_string(&written.card));
    assert!(
        card.contains("Re-annotation study answers: kept apart from the gold"),
        "{card}"
    );
    // The card prints every methodology choice the gold rests on, with its value.
    for line in [
        "- Gold rule: strict majority of the counted answers",
        "- Flagged annotators: after at least 3 trick sentences (`trick_min_seen`), a person whose trick-failure rate has a Wilson 95% lower bound above 0.2",
        "- Claims with fewer counted answers than the overlap:",
    ] {
        assert!(card.contains(line), "the card lacks {line:?}: {card}");
    }
    let report = must(p.report(&p.lead(), &no_bootstrap()));
    assert!(!report.methodology.study_answers_in_gold);
    assert!(factdesk_api::report::html::render(&report).contains("kept apart from the gold"));

    let mut settings = must(p.settings());
    settings.study_answers_in_gold = true;
    must(p.set_settings(&p.lead(), &settings));
    let (evidence, answers, preview) = gold(&p);
    assert_eq!((evidence, answers), (vec![port.to_string()], 6));
    assert!(preview.study_answers_in_gold);
    assert_eq!(preview.study_answers_apart, 0);
    let written = must(p.export_gold(
        &p.lead(),
        &GoldRequest::default(),
        &out,
        Default::default(),
        true,
    ));
    let card = must(std::fs::read_to_string(&written.card));
    assert!(card.contains("pooled with the first group's"), "{card}");
    let report = must(p.report(&p.lead(), &no_bootstrap()));
    assert!(report.methodology.study_answers_in_gold);
}

/// Issue 30: the card and the report list as counted the annotators the gold is made
/// from. A study's group whose answers are kept apart (b1 to b3 answered only its
/// sample) and someone whose every answer picked the trick (a3, too few tricks seen to be
/// flagged) made none of it; pooling the study counts its group. Before, anyone who
/// answered anything was listed.
#[test]
fn only_annotators_whose_answers_make_the_gold_are_listed_as_counted() {
    use factdesk_api::gold::GoldRequest;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = one_claim_and_a_study(dir.path(), &clock);
    for who in ["a1", "a2", "a3", "b1", "b2", "b3"] {
        let item = must(p.next_item(&p.who(who), TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("{who} was served nothing"));
        let trick = trick_option(&p, &item).unwrap_or_else(|| panic!("no trick in {item:?}"));
        let sentence = item.options.iter().map(|o| &o.id).find(|id| **id != trick);
        let sentence = sentence.unwrap_or_else(|| panic!("no sentence in {item:?}"));
        let pick = if who == "a3" { &trick } else { sentence };
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![pick.clone()],
            ..Default::default()
        };
        must(p.submit(&p.who(who), &answer));
    }
    let counted = |p: &Project| {
        let aggregation = must(p.aggregate(&p.lead(), &GoldRequest::default()));
        let (_, preview) = must(p.gold(&p.lead(), &GoldRequest::default()));
        assert_eq!(preview.counted_annotators, aggregation.counted_annotators);
        (aggregation.rejected_answers, preview.counted_annotators)
    };
    assert_eq!(counted(&p), (1, vec!["a1".to_string(), "a2".to_string()]));
    let out = dir.path().join("gold.jsonl");
    let written = must(p.export_gold(
        &p.lead(),
        &GoldRequest::default(),
        &out,
        Default::default(),
        false,
    ));
    let card = must(std::fs::read_to_string(&written.card));
    assert!(
        card.contains("- Annotators counted: 2 (annotator 1, annotator 2)\n"),
        "{card}"
    );

    let mut settings = must(p.settings());
    settings.study_answers_in_gold = true;
    must(p.set_settings(&p.lead(), &settings));
    let pooled: Vec<String> = ["a1", "a2", "b1", "b2", "b3"].map(String::from).to_vec();
    assert_eq!(counted(&p), (1, pooled));
}
