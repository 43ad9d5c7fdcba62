//! WikiFactCheck refutations written, reviewed, replaced and verified: the export holds
//! exactly the accepted current ones, each with its parent.

use super::{imported, ok};
use crate::common;
use common::Acting;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::{GoldRequest, Ruling};
use factdesk_api::import::Preset;
use factdesk_api::tasks::{SkipReason, TaskKind};
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, Project};
use factdesk_core::answer::{Response, Verdict};
use std::collections::{BTreeMap, BTreeSet, HashMap};
/// Candidate refutations for a WikiFactCheck claim, best first: the published one, then a
/// changed number, then a changed place or colour.
fn refutations_of(claim: &str, published: Option<&String>) -> Vec<String> {
    let mut out: Vec<String> = published.into_iter().cloned().collect();
    let words: Vec<&str> = claim.split(' ').collect();
    if let Some(i) = words
        .iter()
        .position(|w| w.chars().any(|c| c.is_ascii_digit()))
    {
        let mut changed = words.clone();
        let bumped: String = words[i]
            .chars()
            .map(|c| match c.to_digit(10) {
                Some(d) => char::from_digit((d + 3) % 10, 10).unwrap_or(c),
                None => c,
            })
            .collect();
        changed[i] = &bumped;
        out.push(changed.join(" "));
    }
    for (from, to) in [("first", "last"), ("north", "south"), ("larger", "smaller")] {
        if claim.contains(from) {
            out.push(claim.replacen(from, to, 1));
        }
    }
    // Last resort: another place or object at the end.
    if let Some((head, last)) = claim.trim_end_matches('.').rsplit_once(' ') {
        for other in ["Atlantis", "Antarctica"] {
            if last != other {
                out.push(format!("{head} {other}."));
            }
        }
    }
    out
}

/// The writer writes up to `n` refutations; returns the answer ids, in order.
fn write(p: &mut Project, writer: &str, n: usize, published: &HashMap<String, String>) -> Vec<i64> {
    let mut written = Vec::new();
    while written.len() < n {
        let Some(item) = ok(p.next_item(&p.who(writer), TaskKind::Refute)).item else {
            break;
        };
        let mut taken = false;
        for text in refutations_of(&item.claim, published.get(&item.claim)) {
            let answer = Answer {
                task_id: item.task_id,
                text: Some(text),
                ..Default::default()
            };
            match p.submit(&p.who(writer), &answer) {
                Ok(_) => {
                    taken = true;
                    break;
                }
                Err(e) if e.code == ErrorCode::CheckFailed => continue,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(taken, "no refutation of {:?} passes the checks", item.claim);
        written.push(ok(p.store().read().query_row(
            "SELECT max(id) FROM annotations WHERE task_id = ?1",
            [item.task_id],
            |r| r.get(0),
        )));
    }
    written
}

fn state_of(p: &Project, annotation: i64) -> String {
    ok(p.store().read().query_row(
        "SELECT refutation_state FROM claims WHERE written_in = ?1",
        [annotation],
        |r| r.get(0),
    ))
}

#[test]
fn wikifactcheck_exports_exactly_the_accepted_current_refutations_with_their_parents() {
    let dir = ok(tempfile::tempdir());
    let mut p = imported(
        dir.path(),
        "wikifactcheck_dev.tsv",
        36,
        true,
        Preset::WikiFactCheck,
    );
    let mut published: HashMap<String, String> = HashMap::new();
    {
        let conn = p.store().read();
        let mut stmt = ok(
            conn.prepare("SELECT p.text, c.text FROM claims c JOIN claims p ON p.id = c.parent_id")
        );
        let rows = ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))));
        for row in rows {
            let (parent, child): (String, String) = ok(row);
            published.insert(parent, child);
        }
    }
    assert_eq!(published.len(), 36);
    for (name, role) in [
        ("lead", Role::Lead),
        ("wren", Role::Annotator),
        ("v1", Role::Annotator),
        ("v2", Role::Annotator),
        ("v3", Role::Annotator),
    ] {
        ok(p.add_annotator(&p.lead(), name, role));
    }

    // No documents: evidence and label tasks are impossible, and the lead is told why.
    let evidence = ok(p.create_tasks(&p.lead(), TaskKind::Evidence, None));
    assert_eq!(evidence.created, 0);
    let reasons: BTreeMap<SkipReason, u64> = evidence
        .skipped
        .iter()
        .map(|s| (s.reason, s.count))
        .collect();
    assert_eq!(
        reasons,
        BTreeMap::from([
            (SkipReason::NoDocuments, 36),
            (SkipReason::EvidenceFromParent, 36)
        ])
    );
    assert_eq!(evidence.skipped[0].message, "no documents");

    // Refutations written: the first five reviewed (four accepted, one rejected), four
    // more needing no review, and the last of them rewritten (superseded).
    ok(p.create_tasks(&p.lead(), TaskKind::Refute, Some(1)));
    let first = write(&mut p, "wren", 5, &published);
    assert_eq!(first.len(), 5);
    for a in &first[..4] {
        ok(p.review(&p.lead_named("lead"), *a, true, None));
    }
    ok(p.review(
        &p.lead_named("lead"),
        first[4],
        false,
        Some("same as the original"),
    ));
    let more = write(&mut p, "wren", 4, &published);
    assert_eq!(more.len(), 4);
    let last = more[3];
    let item = ok(p.previous_item(&p.who("wren"), TaskKind::Refute, None))
        .unwrap_or_else(|| panic!("nothing to go back to"));
    // A rewrite says something else: the same text again is the answer already stored.
    let written = item.previous.as_ref().and_then(|a| a.text.clone());
    let rewritten_text = refutations_of(&item.claim, None)
        .into_iter()
        .chain(published.get(&item.claim).map(|t| format!("{t} ")))
        .filter(|t| Some(t) != written.as_ref())
        .find(|t| {
            p.submit(
                &p.who("wren"),
                &Answer {
                    task_id: item.task_id,
                    text: Some(t.clone()),
                    ..Default::default()
                },
            )
            .is_ok()
        });
    assert!(
        rewritten_text.is_some(),
        "could not rewrite {:?}",
        item.claim
    );
    assert_eq!(state_of(&p, last), "superseded");
    assert_eq!(state_of(&p, first[4]), "rejected");

    // Every refutation is verified: the imported ones and the live written ones. One
    // imported refutation is judged not to contradict, one malformed.
    let verify = ok(p.create_tasks(&p.lead(), TaskKind::Verify, Some(3)));
    let skipped: BTreeMap<SkipReason, u64> =
        verify.skipped.iter().map(|s| (s.reason, s.count)).collect();
    assert_eq!(
        skipped,
        BTreeMap::from([(SkipReason::Rejected, 1), (SkipReason::Superseded, 1)])
    );
    // Each verify task's label, given by whoever sees it first and repeated by the others.
    // The labels other than "contradicts" go to imported refutations only: which tasks
    // come first depends on the serving order (it differs between the engines), and the
    // written ones must reach the export whatever it is.
    let mut judged: BTreeMap<i64, &str> = BTreeMap::new();
    let mut imported_judged = 0;
    let mut overruled = None;
    for v in ["v1", "v2", "v3"] {
        while let Some(item) = ok(p.next_item(&p.who(v), TaskKind::Verify)).item {
            let ext_id: String = ok(p.store().read().query_row(
                "SELECT c.ext_id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
                [item.task_id],
                |r| r.get(0),
            ));
            let imported = !ext_id.contains("/written/");
            let fresh = match (imported, imported_judged) {
                (true, 0 | 2) => "does_not_contradict",
                (true, 1) => "malformed",
                _ => "contradicts",
            };
            if !judged.contains_key(&item.task_id) && imported {
                if imported_judged == 2 {
                    overruled = Some(item.task_id);
                }
                imported_judged += 1;
            }
            let label = *judged.entry(item.task_id).or_insert(fresh);
            ok(p.submit(
                &p.who(v),
                &Answer {
                    task_id: item.task_id,
                    label: Some(label.into()),
                    ..Default::default()
                },
            ));
        }
    }
    // The lead overrules the verifiers on one refutation: it contradicts after all.
    let overruled = overruled.unwrap_or_else(|| panic!("too few refutations"));
    ok(p.decide(
        &p.lead_named("lead"),
        overruled,
        Ruling::Answer(Response::Verify {
            verdict: Verdict::Contradicts,
        }),
        &DecisionNote::reason("the dates differ"),
    ));
    judged.insert(overruled, "contradicts");

    // The export: each root with its refutations verified as contradicting, in its split.
    let req = GoldRequest::default();
    let (lines, preview) = ok(p.gold(&p.lead(), &req));
    let conn = p.store().read();
    let expected: BTreeSet<String> = {
        let mut stmt = ok(conn.prepare(
            "SELECT c.ext_id, t.id FROM claims c JOIN tasks t ON t.claim_id = c.id AND t.kind = 'verify'
             WHERE coalesce(c.refutation_state IN ('accepted', 'no_review_needed'), TRUE)",
        ));
        let rows = ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))));
        rows.map(ok)
            .filter(|(_, task): &(String, i64)| judged.get(task) == Some(&"contradicts"))
            .map(|(id, _)| id)
            .collect()
    };
    let refutations: BTreeSet<String> = lines
        .iter()
        .filter(|l| l.parent_id.is_some())
        .map(|l| l.id.clone())
        .collect();
    // A written refutation that repeats the imported one (case, spacing and punctuation
    // aside) is exported once, as the imported one.
    let repeats: BTreeSet<String> = preview
        .dropped
        .iter()
        .filter(|d| expected.contains(&d.id))
        .map(|d| {
            let first = d
                .reason
                .strip_prefix("the same claim as ")
                .and_then(|r| r.strip_suffix(" (case, spacing and punctuation aside)"))
                .unwrap_or_else(|| panic!("{d:?}"));
            assert!(refutations.contains(first), "{d:?}");
            d.id.clone()
        })
        .collect();
    assert!(!repeats.is_empty() && repeats.len() < 10, "{repeats:?}");
    let expected: BTreeSet<String> = expected.difference(&repeats).cloned().collect();
    assert_eq!(refutations, expected);
    let overruled_claim: String = ok(conn.query_row(
        "SELECT c.ext_id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE t.id = ?1",
        [overruled],
        |r| r.get(0),
    ));
    match lines.iter().find(|l| l.task_id == overruled) {
        Some(decided) => {
            assert_eq!(decided.provenance.method, "lead-decision");
            assert_eq!(
                decided.provenance.reason.as_deref(),
                Some("the dates differ")
            );
        }
        None => assert!(
            repeats.contains(&overruled_claim),
            "the overruled refutation is not exported"
        ),
    }
    // Of the written ones, only live refutations judged as contradicting are exported.
    let written_exported = lines.iter().filter(|l| l.id.contains("/written/")).count();
    let written_expected = expected
        .iter()
        .filter(|id| id.contains("/written/"))
        .count();
    assert_eq!(written_exported, written_expected);
    // Some are exported, the rest repeat the imported refutation.
    let written_repeats = repeats.iter().filter(|id| id.contains("/written/")).count();
    assert!(written_exported >= 1, "{written_exported}");
    assert!(
        written_exported + written_repeats >= 5,
        "{written_exported} + {written_repeats}"
    );
    for l in &lines {
        match &l.parent_id {
            Some(parent) => {
                let parent = lines
                    .iter()
                    .find(|x| &x.id == parent)
                    .unwrap_or_else(|| panic!("{} exported without its parent", l.id));
                assert_eq!(l.split, parent.split, "{}", l.id);
                assert_eq!(l.label.as_str(), "REFUTED");
                assert!(l.evidence.is_empty());
                assert_eq!(l.agreement.answers, 3);
            }
            None => {
                assert_eq!(l.label.as_str(), "SUPPORTED");
                assert!(lines.iter().any(|c| c.parent_id.as_ref() == Some(&l.id)));
            }
        }
    }
    // A root is exported when at least one refutation of it is; the others are dropped
    // with the reason.
    let parents: BTreeSet<&String> = lines.iter().filter_map(|l| l.parent_id.as_ref()).collect();
    let roots = lines.iter().filter(|l| l.parent_id.is_none()).count();
    assert_eq!(roots, parents.len());
    let unrefuted = preview
        .dropped
        .iter()
        .filter(|d| d.reason == "no refutation of it verified as contradicting it")
        .count();
    assert_eq!(roots + unrefuted, 36);
    // Every reason, not one per claim: a root and its refutation can both be dropped.
    let reasons: BTreeSet<&str> = preview.dropped.iter().map(|d| d.reason.as_str()).collect();
    for reason in [
        "verified as not contradicting its original claim",
        "verified as malformed",
        "a written refutation the lead rejected",
        "a written refutation its writer replaced",
    ] {
        assert!(reasons.contains(reason), "{reason}: {reasons:?}");
    }
    assert_eq!(preview.refutations["superseded"], 1);
    assert_eq!(preview.refutations["rejected"], 1);
    assert_eq!(
        (
            preview.refutations["accepted"],
            preview.refutations["no_review_needed"]
        ),
        (4, 4)
    );

    // Forty-odd families cannot fill sixty splits: the empty ones are warned about, in the
    // preview and on the card.
    let many = GoldRequest {
        splits: vec![1; 60],
        ..GoldRequest::default()
    };
    let out = dir.path().join("gold.jsonl");
    let report = ok(p.export_gold(&p.lead(), &many, &out, Default::default(), false));
    let empty = report
        .preview
        .per_split
        .values()
        .filter(|n| **n == 0)
        .count();
    assert!(empty >= 24, "{empty}");
    assert!(report.preview.split_warnings.len() >= empty);
    let card = ok(std::fs::read_to_string(&report.card));
    assert!(card.contains("**Warning:** split split"), "{card}");
    assert!(card.contains("| superseded | 1 |"), "{card}");
}
