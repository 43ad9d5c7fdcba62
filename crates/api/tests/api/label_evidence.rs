//! A label item shows the evidence the evidence step settled, as the gold line would carry
//! it, and says where it came from: the lead's decision, a strict majority of the counted
//! answers, or the import; while nothing is settled it shows the candidates and says so.
//! A pack carries the same.

use factdesk_api::annotate::{Answer, EvidenceState, Item};
use factdesk_api::annotators::Role;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::Ruling;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};
use factdesk_core::answer::{Response, Selection};
use std::io::Write;

use crate::common::{self, must, trick_option, Acting};

/// One claim of the shared test project with evidence tasks answered by two (ana, ben)
/// and a label task for lia, who never answers evidence.
fn project_with_label(dir: &std::path::Path) -> Project {
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir, 1, &clock);
    must(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben", "lia"] {
        must(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    p
}

/// The candidates of the only claim, in rank order: (sentence id, text).
fn candidates(p: &Project) -> Vec<(i64, String)> {
    let claim = must(p.store().root_claims())[0].id;
    must(p.store().candidates(claim))
        .into_iter()
        .map(|c| (c.sentence_id, c.text))
        .collect()
}

/// `name` answers the evidence item selecting the candidates at `picks` (rank order).
fn select(p: &mut Project, name: &str, picks: &[usize]) {
    let item = must(p.next_item(&p.who(name), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no evidence item for {name}"));
    let trick = trick_option(p, &item).unwrap_or_default();
    let wanted: Vec<String> = picks.iter().map(|&i| candidates(p)[i].1.clone()).collect();
    let selected: Vec<String> = item
        .options
        .iter()
        .filter(|o| o.id != trick && wanted.contains(&o.text))
        .map(|o| o.id.clone())
        .collect();
    assert_eq!(selected.len(), picks.len(), "{name} finds every pick");
    let answer = Answer {
        task_id: item.task_id,
        selected,
        ..Default::default()
    };
    must(p.submit(&p.who(name), &answer));
}

/// lia's label item, as served now (her reservation brings the same item back, built
/// afresh).
fn label_item(p: &mut Project) -> Item {
    must(p.next_item(&p.who("lia"), TaskKind::Label))
        .item
        .unwrap_or_else(|| panic!("no label item for lia"))
}

fn texts(p: &Project, picks: &[usize]) -> Vec<String> {
    picks.iter().map(|&i| candidates(p)[i].1.clone()).collect()
}

#[test]
fn a_label_item_shows_exactly_the_sentences_the_evidence_answers_settled() {
    let dir = must(tempfile::tempdir());
    let mut p = project_with_label(dir.path());
    let all: Vec<String> = candidates(&p).into_iter().map(|(_, t)| t).collect();
    assert!(all.len() >= 3, "{all:?}");

    // One answer of the two asked for settles nothing: the gold holds the claim back.
    select(&mut p, "ana", &[0, 2]);
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::NotSettled));
    assert_eq!(
        item.evidence, all,
        "unsettled: the candidates, marked as such"
    );

    // ben agrees on one of ana's two: only that one has a strict majority.
    select(&mut p, "ben", &[2]);
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::Majority));
    assert_eq!(item.evidence, texts(&p, &[2]));
    // The same evidence the gold line would carry.
    let gold = must(p.aggregate(&p.lead(), &Default::default()));
    let evidence = gold.tasks.iter().find(|t| t.kind == TaskKind::Evidence);
    assert_eq!(
        evidence.map(|t| t.outcome.clone()),
        Some(factdesk_api::gold::Outcome::Evidence {
            sentences: vec![candidates(&p)[2].0]
        })
    );
    // Nothing on the item names the annotators or their votes.
    let json = must(serde_json::to_string(&item));
    for name in ["ana", "ben"] {
        assert!(!json.contains(name), "{json}");
    }
}

#[test]
fn the_leads_decision_changes_what_a_label_item_shows() {
    let dir = must(tempfile::tempdir());
    let mut p = project_with_label(dir.path());
    let all: Vec<String> = candidates(&p).into_iter().map(|(_, t)| t).collect();
    // Two answers that share no sentence: no strict majority, nothing settled.
    select(&mut p, "ana", &[0]);
    select(&mut p, "ben", &[1]);
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::NotSettled));
    assert_eq!(item.evidence, all);

    let task = must(p.store().read().query_row(
        "SELECT id FROM tasks WHERE kind = 'evidence'",
        [],
        |r| r.get::<_, i64>(0),
    ));
    must(p.decide(
        &p.lead(),
        task,
        Ruling::Take("ben".into()),
        &DecisionNote::reason("ben is right"),
    ));
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::Adjudicated));
    assert_eq!(item.evidence, texts(&p, &[1]));

    // A decision for other sentences shows those.
    let ids: Vec<i64> = candidates(&p)[3..5].iter().map(|(id, _)| *id).collect();
    let answer = Response::Evidence {
        selection: Selection::sentences(ids),
    };
    must(p.decide(
        &p.lead(),
        task,
        Ruling::Answer(answer),
        &DecisionNote::default(),
    ));
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::Adjudicated));
    assert_eq!(item.evidence, texts(&p, &[3, 4]));

    // "No evidence" settles on none: the item shows no sentence and says it is settled.
    let none = Response::Evidence {
        selection: Selection::NoEvidence,
    };
    must(p.decide(
        &p.lead(),
        task,
        Ruling::Answer(none),
        &DecisionNote::default(),
    ));
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::Adjudicated));
    assert!(item.evidence.is_empty(), "{:?}", item.evidence);

    // Undone, the answers stand again, and they settle nothing.
    must(p.undo_decision(&p.lead(), task, None));
    let item = label_item(&mut p);
    assert_eq!(item.evidence_state, Some(EvidenceState::NotSettled));
    assert_eq!(item.evidence, all);
}

/// A project of two claims without evidence tasks: `given` was imported with two
/// evidence sentences, `bare` with a document only; both have label tasks.
fn imported_project(dir: &std::path::Path) -> Project {
    let docs = dir.join("docs.jsonl");
    let claims = dir.join("claims.jsonl");
    let text = "The bridge at Kell opened in 1932. It carried trams until 1961. The river below it froze in 1947. A toll was charged until 1950. The bridge was painted green in 1988. Its lamps were replaced in 2004.";
    let mut d = must(std::fs::File::create(&docs));
    must(writeln!(
        d,
        "{}",
        serde_json::json!({"id": "kell", "text": text})
    ));
    let mut c = must(std::fs::File::create(&claims));
    let given = serde_json::json!({
        "id": "given",
        "claim": "The bridge at Kell opened in 1932",
        "doc_ids": ["kell"],
        "evidence": ["Kell's bridge was opened by the mayor in 1932.", "The first tram crossed it that spring."],
    });
    let bare = serde_json::json!({
        "id": "bare",
        "claim": "Trams crossed the Kell bridge until 1961",
        "doc_ids": ["kell"],
    });
    must(writeln!(c, "{given}\n{bare}"));
    let clock = ManualClock::new(1_000_000);
    let mut p = must(Project::create(
        &common::location(dir, "p.fdesk"),
        Box::new(clock),
    ));
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    let owner = p.lead();
    must(import(&mut p, &owner, &req, &mut NoProgress));
    must(p.add_annotator(&p.lead(), "lia", Role::Annotator));
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    p
}

#[test]
fn an_imported_claim_shows_the_evidence_it_came_with_and_a_bare_one_says_none_will_settle() {
    let dir = must(tempfile::tempdir());
    let mut p = imported_project(dir.path());
    let mut seen = Vec::new();
    while let Some(item) = must(p.next_item(&p.who("lia"), TaskKind::Label)).item {
        let answer = Answer {
            task_id: item.task_id,
            label: Some("SUPPORTED".into()),
            ..Default::default()
        };
        must(p.submit(&p.who("lia"), &answer));
        seen.push(item);
    }
    assert_eq!(seen.len(), 2);
    let given = seen.iter().find(|i| i.claim.ends_with("opened in 1932"));
    let given = given.unwrap_or_else(|| panic!("no item for the claim given with evidence"));
    assert_eq!(given.evidence_state, Some(EvidenceState::Imported));
    assert_eq!(
        given.evidence,
        vec![
            "Kell's bridge was opened by the mayor in 1932.".to_string(),
            "The first tram crossed it that spring.".to_string(),
        ],
        "exactly the imported sentences, not the candidates ranked from its documents"
    );
    let bare = seen.iter().find(|i| i.claim.starts_with("Trams"));
    let bare = bare.unwrap_or_else(|| panic!("no item for the bare claim"));
    assert_eq!(bare.evidence_state, Some(EvidenceState::NoEvidenceStep));
    assert!(!bare.evidence.is_empty(), "it shows its candidates");
}

#[test]
fn an_unsettled_claim_says_so_and_a_pack_carries_the_settled_evidence() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 2, &clock);
    for name in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    must(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    // Both answer the first evidence item the same way; the second has no answer.
    let mut first = None;
    for name in ["ana", "ben"] {
        let item = must(p.next_item(&p.who(name), TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("no evidence item for {name}"));
        let trick = trick_option(&p, &item).unwrap_or_default();
        let real = item.options.iter().find(|o| o.id != trick);
        let real = real.unwrap_or_else(|| panic!("no real option"));
        first = Some((item.claim.clone(), real.text.clone()));
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![real.id.clone()],
            ..Default::default()
        };
        must(p.submit(&p.who(name), &answer));
    }
    let (settled_claim, sentence) = first.unwrap_or_else(|| panic!("nothing answered"));
    let path = crate::attack::pack_for_holder(&mut p, dir.path(), TaskKind::Label, 10);
    let items: Vec<Item> = crate::attack::pack_contents(&path)
        .into_iter()
        .map(|(item, _)| item)
        .collect();
    assert_eq!(items.len(), 2);
    for item in items {
        if item.claim == settled_claim {
            assert_eq!(item.evidence_state, Some(EvidenceState::Majority));
            assert_eq!(item.evidence, vec![sentence.clone()]);
        } else {
            assert_eq!(item.evidence_state, Some(EvidenceState::NotSettled));
            assert_eq!(
                item.evidence.len(),
                5,
                "the candidates: {:?}",
                item.evidence
            );
        }
    }
}
