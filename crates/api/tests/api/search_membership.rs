//! Issue 31, item 2: search must not tell an annotator what an item is before they answer
//! it. Search found original claims but not refutations, so a label item's claim that a
//! quoted search could not find was a refutation, hence REFUTED: right 100 of 100 times.
//! Now an annotator finds the claims they have worked on, and only those, alike.
//! (The attack ran on WikiFactCheck's imported refutations; model counter-claims
//! are refutations the same way and need no documents of their own here.)

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::dto::SearchHitKind;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};

use crate::common;
use common::{must, Acting};

/// Whether `who` finds the claim `text` by searching it as a quoted phrase (an annotator's
/// hits carry no claim number: `claim_refs`).
fn found(p: &Project, who: &str, text: &str) -> bool {
    let phrase: String = text.chars().filter(|c| *c != '"').collect();
    must(p.search(&p.who(who), &format!("\"{phrase}\""), 50))
        .iter()
        .any(|h| h.kind == SearchHitKind::Claim && h.text == text)
}

#[test]
fn search_finds_a_refutation_and_an_original_alike_before_and_after_answering() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 24, &clock);
    // Half the claims get a model's counter-claim: refutations, so REFUTED.
    common::import_model_refutations(&mut p, dir.path(), 1..=12);
    must(p.create_tasks_with(&p.lead(), TaskKind::Label, Some(1), true, &mut NoProgress));
    must(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    must(p.reindex(&p.lead()));
    let mut seen = Vec::new();
    // (is a refutation, found before answering, found after)
    let mut outcomes: Vec<(bool, bool, bool)> = Vec::new();
    while let Some(item) = must(p.next_item(&p.who("ana"), TaskKind::Label)).item {
        let claim = must(p.store().read().query_row(
            "SELECT c.id, c.parent_id IS NOT NULL FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
            [item.task_id],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, bool>(1)?)),
        ));
        let before = found(&p, "ana", &item.claim);
        must(p.submit(
            &p.who("ana"),
            &Answer {
                task_id: item.task_id,
                label: Some("SUPPORTED".to_string()),
                ..Default::default()
            },
        ));
        let after = found(&p, "ana", &item.claim);
        outcomes.push((claim.1, before, after));
        seen.push(claim.0);
    }
    let refutations = outcomes.iter().filter(|o| o.0).count();
    assert!(
        refutations >= 10 && outcomes.len() - refutations >= 10,
        "the label items mix originals and refutations: {outcomes:?}"
    );
    // Before answering nothing is found, original or refutation; after, everything is.
    assert!(
        outcomes.iter().all(|&(_, before, after)| !before && after),
        "search told items apart: {outcomes:?}"
    );
    // The claim view answers alike too: a claim not worked on is not found, whatever it is.
    must(p.add_annotator(&p.lead(), "ben", Role::Annotator));
    for id in seen {
        let anas = common::reference_of(&p, "ana", id).unwrap_or_default();
        for asked in [anas, format!("#{id}")] {
            let err = p.claim_view(&p.who("ben"), &asked).err().map(|e| e.code);
            assert_eq!(err, Some(factdesk_api::ErrorCode::NotFound), "claim {id}");
        }
    }
}
