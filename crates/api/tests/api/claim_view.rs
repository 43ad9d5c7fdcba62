//! The data manager's claim: a lead sees every answer, the label, the candidates and the
//! documents; an annotator sees the claim, its tasks and their own answers only. The list
//! of claims filters by words and by where the claim's tasks stand, and is the lead's.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::claim_view::ClaimStanding;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::Acting;
use common::{project, reference_of, trick_option};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Four claims with evidence tasks of overlap 2: ana and ben answer the first item they
/// are served (the same one), ben with the trick and a comment.
fn answered(dir: &std::path::Path) -> (Project, i64, String) {
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir, 4, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let mut task = 0;
    let mut trick_text = String::new();
    for name in ["ana", "ben"] {
        let item = must(p.next_item(&p.who(name), TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("an item"));
        task = item.task_id;
        let trick = trick_option(&p, &item).unwrap_or_default();
        trick_text = (item.options.iter())
            .find(|o| o.id == trick)
            .map(|o| o.text.clone())
            .unwrap_or_default();
        let chosen = if name == "ben" {
            trick
        } else {
            item.options[usize::from(item.options[0].id == trick)]
                .id
                .clone()
        };
        must(p.submit(
            &p.who(name),
            &Answer {
                task_id: item.task_id,
                selected: vec![chosen],
                comment: Some(format!("{name} was here")),
                ..Default::default()
            },
        ));
    }
    let claim: i64 = must(p.store().read().query_row(
        "SELECT claim_id FROM tasks WHERE id = ?1",
        [task],
        |r| r.get(0),
    ));
    (p, claim, trick_text)
}

#[test]
fn a_lead_sees_every_answer_the_label_and_the_candidates() {
    let dir = must(tempfile::tempdir());
    let (p, claim, _) = answered(dir.path());
    let view = must(p.claim_view(&p.lead(), &format!("#{claim}")));
    assert!(view.full);
    assert!(
        view.ext_id.starts_with('c'),
        "the import's own id: {}",
        view.ext_id
    );
    assert_eq!(view.label.as_deref(), Some("SUPPORTED"));
    assert_eq!(view.documents.len(), 1);
    assert!(!view.candidates.is_empty());
    assert_eq!(view.tasks.len(), 1);
    let task = &view.tasks[0];
    assert_eq!(
        (task.kind, task.overlap, task.answered),
        (TaskKind::Evidence, 2, 1)
    );
    let who: Vec<&str> = task.answers.iter().map(|a| a.annotator.as_str()).collect();
    assert_eq!(who, ["ana", "ben"]);
    assert!(
        task.answers[0].summary.starts_with("sentence "),
        "{:?}",
        task.answers[0]
    );
    assert!(task.answers[1].trick_failed);
}

#[test]
fn an_annotator_sees_only_their_own_answer_and_nothing_that_tells_the_trick() {
    let dir = must(tempfile::tempdir());
    let (p, claim, trick) = answered(dir.path());
    let anas = reference_of(&p, "ana", claim).unwrap_or_default();
    let view = must(p.claim_view(&p.who("ana"), &anas));
    assert!(!view.full);
    assert_eq!(view.label, None);
    assert!(view.documents.is_empty() && view.candidates.is_empty());
    let answers = &view.tasks[0].answers;
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].annotator, "ana");
    assert_eq!(answers[0].comment.as_deref(), Some("ana was here"));
    // Nothing of ben's, nor the trick, nor the label, anywhere in what crosses to the UI.
    let json = must(serde_json::to_string(&view));
    for secret in ["ben", "SUPPORTED", trick.as_str()] {
        assert!(!secret.is_empty());
        assert!(!json.contains(secret), "{secret:?} in {json}");
    }
    // Ben, who picked the trick, is not told so either.
    let bens = reference_of(&p, "ben", claim).unwrap_or_default();
    let bens = must(p.claim_view(&p.who("ben"), &bens));
    let json = must(serde_json::to_string(&bens));
    assert!(!json.contains("\"trick_failed\":true"), "{json}");
    assert!(!json.contains("ana"), "{json}");
}

#[test]
fn the_list_filters_by_words_and_standing_and_is_the_leads() {
    let dir = must(tempfile::tempdir());
    let (p, claim, _) = answered(dir.path());
    let lead = p.lead();
    let all = must(p.claims_list(&lead, None, ClaimStanding::Any, 0, 100));
    assert_eq!((all.total, all.lines.len()), (4, 4));
    // Words match the own id or the text, in any case; % and _ are plain characters.
    let town2 = must(p.claims_list(&lead, Some("TOWN 2 "), ClaimStanding::Any, 0, 100));
    assert_eq!(
        town2
            .lines
            .iter()
            .map(|l| l.ext_id.as_str())
            .collect::<Vec<_>>(),
        ["c2"]
    );
    let by_id = must(p.claims_list(&lead, Some("c3"), ClaimStanding::Any, 0, 100));
    assert_eq!(by_id.total, 1);
    assert_eq!(
        must(p.claims_list(&lead, Some("%"), ClaimStanding::Any, 0, 100)).total,
        0
    );
    // Every task wants two answers: none is complete, all are open.
    assert_eq!(
        must(p.claims_list(&lead, None, ClaimStanding::Open, 0, 100)).total,
        4
    );
    assert_eq!(
        must(p.claims_list(&lead, None, ClaimStanding::Complete, 0, 100)).total,
        0
    );
    assert_eq!(
        must(p.claims_list(&lead, None, ClaimStanding::NoTasks, 0, 100)).total,
        0
    );
    let line = all
        .lines
        .iter()
        .find(|l| l.id == claim)
        .unwrap_or_else(|| panic!("the answered claim"));
    assert_eq!((line.tasks, line.answered, line.wanted), (1, 1, 2));
    // Paging.
    let page = must(p.claims_list(&lead, None, ClaimStanding::Any, 3, 2));
    assert_eq!((page.total, page.lines.len()), (4, 1));
    let refused = p
        .as_lead(&p.who("ana"), "list the claims")
        .err()
        .unwrap_or_else(|| panic!("a lead's list"));
    assert_eq!(refused.code, ErrorCode::Forbidden);
}

/// Which rankers placed a candidate is the lead's: an annotator's item and claim screen
/// carry nothing of it (knowing it would bias the choice, and the trick, placed by no
/// ranker, would stand out).
#[test]
fn which_rankers_placed_a_candidate_is_shown_to_the_lead_only() {
    let dir = must(tempfile::tempdir());
    let (mut p, claim, _) = answered(dir.path());
    let lead_view = must(p.claim_view(&p.lead(), &claim.to_string()));
    assert!(
        !lead_view.candidate_rankers.is_empty()
            && lead_view.candidate_rankers.iter().all(|r| !r.is_empty()),
        "{:?}",
        lead_view.candidate_rankers
    );
    let anas = reference_of(&p, "ana", claim).unwrap_or_default();
    let ana_view = must(p.claim_view(&p.who("ana"), &anas));
    assert!(ana_view.candidate_rankers.is_empty());
    let item = must(p.next_item(&p.who("ana"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("another item for ana"));
    for shown in [
        must(serde_json::to_string(&ana_view)),
        must(serde_json::to_string(&item)),
    ] {
        for word in [
            "placed_by",
            "bm25",
            "levenshtein",
            "jaccard",
            "semantic",
            "fused",
        ] {
            assert!(!shown.contains(word), "{word} in {shown}");
        }
    }
}
