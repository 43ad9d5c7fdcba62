//! Claims are named by a short number in their project ("#3"): it runs in import order
//! (written refutations after), and the lead's list and search find a claim by it. An
//! annotator sees no number (it would tell a refutation: `claim_refs`): their own
//! reference names a claim, and finds nobody else's written refutation.

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::claim_view::ClaimStanding;
use factdesk_api::dto::SearchHitKind;
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, Project};

use crate::common;
use common::project;
use common::Acting;

fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// The claim numbers of `query`'s claim hits, in order.
fn claim_hits(p: &Project, who: &str, query: &str) -> Vec<i64> {
    let actor = if who == "lead" {
        (*p.lead()).clone()
    } else {
        p.who(who)
    };
    must(p.search(&actor, query, 10))
        .into_iter()
        .filter(|h| h.kind == SearchHitKind::Claim)
        .map(|h| h.id)
        .collect()
}

#[test]
fn claims_are_numbered_in_import_order_and_found_by_number() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 5, &clock);
    let lead = p.lead();
    let all = must(p.claims_list(&lead, None, ClaimStanding::Any, 0, 100));
    let numbered: Vec<(i64, &str)> = (all.lines.iter())
        .map(|l| (l.id, l.ext_id.as_str()))
        .collect();
    assert_eq!(
        numbered,
        [(1, "c0"), (2, "c1"), (3, "c2"), (4, "c3"), (5, "c4")]
    );

    // The list: "#3" is claim 3 alone; a bare 3 is words (here no claim has a "3" in its
    // id or text but c3's "town 3" and its year 1803).
    let three = must(p.claims_list(&lead, Some(" #3 "), ClaimStanding::Any, 0, 100));
    assert_eq!(three.lines.iter().map(|l| l.id).collect::<Vec<_>>(), [3]);
    assert_eq!(
        must(p.claims_list(&lead, Some("#99"), ClaimStanding::Any, 0, 100)).total,
        0
    );
    let bare = must(p.claims_list(&lead, Some("3"), ClaimStanding::Any, 0, 100));
    assert_eq!(bare.lines.iter().map(|l| l.id).collect::<Vec<_>>(), [4]);

    // Search: "#2" puts claim 2 first for the lead; an annotator finds only the claims
    // they have worked on (search_membership), by number as by words.
    must(p.add_annotator(&lead, "ana", Role::Annotator));
    assert_eq!(claim_hits(&p, "lead", "#2").first(), Some(&2));
    assert!(claim_hits(&p, "ana", "#2").is_empty());
    assert!(claim_hits(&p, "lead", "#99").is_empty());
    // Once, even when its words find it too.
    let hits = claim_hits(&p, "lead", "#2");
    assert_eq!(hits.iter().filter(|&&id| id == 2).count(), 1, "{hits:?}");
}

#[test]
fn a_written_refutation_is_numbered_after_the_imports_and_kept_from_other_annotators() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 3, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    for n in ["ana", "ben"] {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let item = must(p.next_item(&p.who("ana"), TaskKind::Refute))
        .item
        .unwrap_or_else(|| panic!("a refute item"));
    must(p.submit(
        &p.who("ana"),
        &Answer {
            task_id: item.task_id,
            text: Some(item.claim.replace("lighthouse", "windmill")),
            ..Default::default()
        },
    ));
    must(p.reindex(&p.lead()));
    // Three imported claims are 1–3; the written one is 4.
    assert_eq!(claim_hits(&p, "lead", "#4").first(), Some(&4));
    // Ana finds hers by its words, named by her own reference, which finds it too; the
    // page names its parent by her reference of it, never by number.
    let hers = must(p.search(&p.who("ana"), "windmill", 10));
    let hers = (hers.into_iter())
        .find(|h| h.kind == SearchHitKind::Claim && h.text.contains("windmill"))
        .unwrap_or_else(|| panic!("ana finds the refutation she wrote"));
    assert_eq!(hers.id, 0);
    assert!(
        claim_hits(&p, "ana", "#4").is_empty(),
        "a number names nothing for ana"
    );
    let again = must(p.search(&p.who("ana"), &hers.reference, 10));
    assert_eq!(again.first().map(|h| &h.text), Some(&hers.text));
    let page = must(p.claim_view(&p.who("ana"), &hers.reference));
    assert_eq!((page.id, page.parent_number), (0, None));
    let parent = page.parent_reference.unwrap_or_default();
    let parents_page = must(p.claim_view(&p.who("ana"), &parent));
    assert_eq!(
        parents_page.text, item.claim,
        "her reference of the parent opens it"
    );
    let found = must(p.search(&p.who("ben"), &hers.reference, 10));
    assert!(
        found.iter().all(|h| h.text != hers.text),
        "ben found ana's refutation by her reference"
    );
    assert!(
        !claim_hits(&p, "ben", "#4").contains(&4),
        "ben found ana's refutation by its number"
    );
    let leads = must(p.claim_view(&p.lead(), "#4"));
    assert_eq!((leads.id, leads.parent_number), (4, Some(parent_of(&p, 4))));
    assert_eq!(leads.reference, "#4");
}

/// The parent of claim `id`, as stored.
fn parent_of(p: &Project, id: i64) -> i64 {
    must(
        p.store()
            .read()
            .query_row("SELECT parent_id FROM claims WHERE id = ?1", [id], |r| {
                r.get(0)
            }),
    )
}

/// Regression: `factdesk candidates --claim "#3"` named no claim, though every screen names
/// claims by that number.
#[test]
fn a_claims_candidates_are_found_by_its_number_or_its_imported_id() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = project(dir.path(), 5, &clock);
    let lead = p.lead();
    let by_number = must(p.candidates(&lead, "#3"));
    assert!(!by_number.is_empty());
    assert_eq!(by_number, must(p.candidates(&lead, "c2")));
    assert_ne!(by_number, must(p.candidates(&lead, "c3")));
    for unknown in ["#99", "3", "#", "#-1"] {
        match p.candidates(&lead, unknown) {
            Ok(found) => panic!("{unknown} named a claim: {found:?}"),
            Err(e) => assert!(e.to_string().contains("no claim"), "{unknown}: {e}"),
        }
    }
}

/// Regression (second hostile pass): the claims list's words are bounded as a search is.
#[test]
fn the_claims_lists_words_are_bounded() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let p = project(dir.path(), 3, &clock);
    let lead = p.lead();
    let long = "town ".repeat(65);
    match p.claims_list(&lead, Some(&long), ClaimStanding::Any, 0, 10) {
        Ok(page) => panic!("65 words listed {} claims", page.total),
        Err(e) => assert!(e.to_string().starts_with("words:"), "{e}"),
    }
    let fine = "town ".repeat(64);
    must(p.claims_list(&lead, Some(&fine), ClaimStanding::Any, 0, 10));
}
