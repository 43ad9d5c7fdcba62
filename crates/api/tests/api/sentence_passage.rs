//! "Show in document" for the lead adjudicating: a candidate among its neighbours by its
//! sentence id, for leads only.

use factdesk_api::annotators::Role;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock};

use crate::common;
use common::project;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_lead_sees_a_candidate_marked_among_its_neighbours_and_an_annotator_is_refused() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 2, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(1)));
    let candidates = ok(p.store().candidates(1));
    let candidate = candidates
        .iter()
        .find(|c| c.sentence_index >= 3)
        .unwrap_or_else(|| panic!("a candidate inside the document: {candidates:?}"));

    let passage = ok(p.sentence_passage(&p.lead_named("lead"), candidate.sentence_id));
    let hits = common::marked(&passage);
    assert_eq!(hits, vec![candidate.text.as_str()]);
    assert!(passage.sentences.len() > 3, "neighbours on both sides");
    let at = passage.sentences.iter().position(|s| s.hit).unwrap_or(0);
    assert_eq!(at, 3, "three sentences before it");

    let refused = p
        .as_lead(&p.who("ana"), "read any sentence's passage")
        .err();
    assert_eq!(refused.map(|e| e.code), Some(ErrorCode::Forbidden));
    let missing = p.sentence_passage(&p.lead_named("lead"), 999_999).err();
    assert_eq!(missing.map(|e| e.code), Some(ErrorCode::NotFound));
}
