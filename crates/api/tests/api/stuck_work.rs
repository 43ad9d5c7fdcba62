//! Work that could wait on someone for good (hostile pass 21, F6, F9, F8): a disabled
//! person's open items go back to the pool, so they no longer hold the evidence stance
//! (and the refusal says how to free items); a study is refused when the people outside
//! its group cannot fill its items' overlap, and a group of one says its Fleiss' kappa
//! is undefined; a trick template that leaves the claim as it is is refused.

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotators::Role;
use factdesk_api::settings::EvidenceStance;
use factdesk_api::study::StudyRequest;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};

use crate::common;
use common::{must, project, set_stance, Acting};

const MINUTE: i64 = 60_000;

/// A lead (maria) and annotators, evidence tasks of `overlap` over `claims` claims.
fn team(
    dir: &std::path::Path,
    clock: &ManualClock,
    claims: usize,
    overlap: u32,
    people: &[&str],
) -> Project {
    let mut p = project(dir, claims, clock);
    must(p.add_annotator(&p.lead(), "maria", Role::Lead));
    for n in people {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(overlap)));
    p
}

fn served(p: &mut Project, who: &str) -> i64 {
    must(p.next_item(&p.who(who), TaskKind::Evidence))
        .item
        .map(|i| i.task_id)
        .unwrap_or_else(|| panic!("nothing served to {who}"))
}

#[test]
fn disabling_a_person_gives_back_their_open_items_and_frees_the_stance() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    // One claim of overlap 1: ana's open item is the only one, full while she holds it.
    let mut p = team(dir.path(), &clock, 1, 1, &["ana", "ivy"]);
    let task = served(&mut p, "ana");
    assert!(must(p.next_item(&p.who("ivy"), TaskKind::Evidence))
        .item
        .is_none());
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under a served item"));
    // The refusal says how the lead frees it.
    assert!(
        refused.contains("ana was served 1 and has neither answered nor skipped them")
            && refused.contains("answers or skips")
            && refused.contains("annotators P disable NAME"),
        "{refused}"
    );
    must(p.set_disabled(&p.lead(), "ana", true));
    // The item is back in the pool, and nothing holds the stance any more, also once ana
    // is enabled again.
    assert_eq!(served(&mut p, "ivy"), task);
    must(p.skip_item(&p.who("ivy"), task));
    must(p.set_disabled(&p.lead(), "ana", false));
    assert_eq!(set_stance(&mut p, EvidenceStance::SupportsOrRefutes), None);
}

#[test]
fn a_lapsed_hold_still_holds_the_stance_until_its_holder_is_disabled() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock, 3, 2, &["ana", "ivy"]);
    served(&mut p, "ana");
    // docs/annotation.md: a lapsed hold still holds it (a screen left open sends its
    // answer), and says how to free it.
    clock.advance_ms(120 * MINUTE);
    let refused = set_stance(&mut p, EvidenceStance::SupportsOrRefutes)
        .unwrap_or_else(|| panic!("the stance changed under a lapsed hold"));
    assert!(refused.contains("disable"), "{refused}");
    must(p.set_disabled(&p.lead(), "ana", true));
    assert_eq!(set_stance(&mut p, EvidenceStance::SupportsOrRefutes), None);
    assert_eq!(
        must(p.settings()).stance(),
        EvidenceStance::SupportsOrRefutes
    );
}

fn study(p: &mut Project, members: &[&str]) -> factdesk_api::Result<factdesk_api::study::Study> {
    p.create_study(
        &p.lead(),
        &StudyRequest {
            kind: TaskKind::Evidence,
            sample: 2,
            members: members.iter().map(|m| m.to_string()).collect(),
            seed: Some(1),
            strata: None,
        },
    )
}

#[test]
fn a_study_whose_group_leaves_too_few_outside_it_is_refused() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock, 6, 3, &["ana", "ben", "cy"]);
    // Two outside the group for three places: the items could never settle.
    let refused = study(&mut p, &["cy"])
        .err()
        .unwrap_or_else(|| panic!("drawn"));
    assert_eq!(refused.code, ErrorCode::InvalidInput, "{refused}");
    assert!(
        refused
            .message
            .contains("2 of the 2 sampled evidence items could never be filled")
            && refused.message.contains("needs 3 answers")
            && refused.message.contains("at most 2 can come")
            && refused.message.contains("ana, ben"),
        "{}",
        refused.message
    );
    assert!(must(p.studies(&p.lead())).is_empty());
    // A fourth annotator fills the third place; disabled, they do not.
    must(p.add_annotator(&p.lead(), "dan", Role::Annotator));
    must(p.set_disabled(&p.lead(), "dan", true));
    assert!(study(&mut p, &["cy"]).is_err());
    must(p.set_disabled(&p.lead(), "dan", false));
    let drawn = must(study(&mut p, &["cy"]));
    assert_eq!(drawn.members, ["cy"]);
    // A group of one is kept: its majority kappa is defined, its Fleiss' kappa is not,
    // and the study says why.
    let req = AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    };
    let figures = must(p.study_agreements(&p.lead(), Some(TaskKind::Evidence), &req));
    let reason = figures[0].fleiss_b.reason.clone().unwrap_or_default();
    assert!(
        figures[0].fleiss_b.value.is_none() && reason.contains("group of one"),
        "{reason}"
    );
}

#[test]
fn a_lead_who_annotates_counts_outside_the_group() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = team(dir.path(), &clock, 6, 3, &["ana", "ben", "cy"]);
    assert!(study(&mut p, &["cy"]).is_err());
    // maria works on evidence items too: ana, ben and maria fill three places.
    served(&mut p, "maria");
    must(study(&mut p, &["cy"]));
}

#[test]
fn a_trick_template_that_leaves_the_claim_as_it_is_is_refused() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 1, &clock);
    for template in ["{claim}", " {claim}. ", "«{claim}»!"] {
        let mut s = must(p.settings());
        s.trick_template = template.into();
        let refused = p
            .set_settings(&p.lead(), &s)
            .err()
            .unwrap_or_else(|| panic!("{template:?} accepted"));
        assert_eq!(refused.code, ErrorCode::InvalidInput, "{refused}");
        let field = refused.location.and_then(|l| l.field);
        assert_eq!(
            field.as_deref(),
            Some("trick_template"),
            "{}",
            refused.message
        );
        assert!(
            refused.message.contains("the claim itself"),
            "{}",
            refused.message
        );
    }
    let mut s = must(p.settings());
    s.trick_template = "It is not true that {claim}".into();
    must(p.set_settings(&p.lead(), &s));
}
