//! The evidence stance stays while items shown under it can still be answered (issue 30,
//! the hostile pass's MEDIUM-1): a served item, even lapsed, and an item in a pack not
//! yet merged hold it, and the refusal names who holds what; a skip, or a pack that can
//! no longer merge, lets it go.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::packs::{PackRequest, PackSession, Unanswered};
use factdesk_api::settings::EvidenceStance;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ManualClock, Project};

use crate::common;
use common::{project, set_stance, Acting};

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const MINUTE: i64 = 60_000;

fn team(dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, 6, clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for n in ["ana", "ivy"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    p
}

#[test]
fn a_served_item_holds_the_stance_until_it_is_skipped() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let item = must(p.next_item(&p.who("ana"), TaskKind::Evidence)).item;
    let task = item.map(|i| i.task_id).unwrap_or_else(|| panic!("no item"));
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under a served item"));
    assert!(
        refused.contains("from supports to supports_or_refutes")
            && refused.contains("shown under the supports guideline")
            && refused.contains("ana was served 1 and has neither answered nor skipped them"),
        "{refused}"
    );
    // Lapsed, the reservation still has a screen that can send its answer.
    clock.advance_ms(120 * MINUTE);
    assert!(set_stance(&mut p, EvidenceStance::SupportsOrRefutes).is_some());
    assert_eq!(must(p.settings()).stance(), EvidenceStance::Supports);
    must(p.skip_item(&p.who("ana"), task));
    assert_eq!(set_stance(&mut p, EvidenceStance::SupportsOrRefutes), None);
    assert_eq!(set_stance(&mut p, EvidenceStance::Supports), None);
}

/// Three evidence items for ivy, for a week.
fn ivys_pack() -> PackRequest {
    PackRequest {
        annotator: "ivy".into(),
        count: 3,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    }
}

#[test]
fn a_pack_holds_the_stance_until_it_can_no_longer_merge() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let req = ivys_pack();
    let issued = must(p.issue_pack(&p.lead(), &req, &dir.path().join("ivy.fdpack")));
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under a pack"));
    let holds = format!("ivy holds 3 in pack {}, not merged yet", issued.pack_id);
    assert!(refused.contains(&holds), "{refused}");
    // Expired and never returned, the pack is refused at merge: nothing can come back.
    clock.advance_ms(8 * 24 * 60 * MINUTE);
    assert_eq!(set_stance(&mut p, EvidenceStance::SupportsOrRefutes), None);
}

#[test]
fn answers_lock_the_stance_and_the_refusal_says_under_which_guideline() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let item = must(p.next_item(&p.who("ana"), TaskKind::Evidence)).item;
    let item = item.unwrap_or_else(|| panic!("no item"));
    let answer = factdesk_api::annotate::Answer {
        task_id: item.task_id,
        no_evidence: true,
        ..Default::default()
    };
    must(p.submit(&p.who("ana"), &answer));
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under an answer"));
    assert!(
        refused.contains("holds 1 evidence answers, taken under the supports guideline"),
        "{refused}"
    );
}

/// Suspected: a pack merged with its items unanswered (the lead took the work back) held
/// the stance for good once it expired, its merge then refused. It is not refused: the
/// expiry ends a pack still out, and a returned pack merges again whenever its holder
/// sends their copy, answering what it gave back, so those items rightly hold the stance.
#[test]
fn items_a_pack_gave_back_hold_the_stance_past_its_expiry_as_they_still_merge() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock);
    let req = ivys_pack();
    let issued_at = dir.path().join("ivy.fdpack");
    let issued = must(p.issue_pack(&p.lead(), &req, &issued_at));
    let copy = dir.path().join("ivy-copy.fdpack");
    must(std::fs::copy(&issued_at, &copy));
    let back = must(p.merge_pack_with(&p.lead(), &issued_at, Unanswered::GiveBack));
    assert_eq!((back.added, back.released), (0, 3));
    // Ivy answers her copy meanwhile and sends it after the pack's expiry.
    let mut work = must(PackSession::open(&copy, Box::new(clock.clone())));
    while let Some(item) = must(work.next_item(&work.who("ivy"), TaskKind::Evidence)).item {
        let answer = Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        };
        must(work.submit(&work.who("ivy"), &answer));
    }
    drop(work);
    clock.advance_ms(8 * 24 * 60 * MINUTE);
    assert_eq!(must(p.packs(&p.lead()))[0].state, "returned");
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under items a merge still answers"));
    let held = format!(
        "3 of ivy's pack {} came back unanswered, and merging that pack again still answers them",
        issued.pack_id
    );
    assert!(refused.contains(&held), "{refused}");
    let late = must(p.merge_pack(&p.lead(), &copy));
    assert_eq!((late.added, late.late, late.refused.len()), (3, 0, 0));
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under answers"));
    assert!(refused.contains("holds 3 evidence answers"), "{refused}");
}
