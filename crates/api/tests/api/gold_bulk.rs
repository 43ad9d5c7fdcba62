//! The gold export reads refutations and evidence sentences in bulk (one query per
//! table). On 150 COVID-Fact claims answered by three annotators, every gold line must
//! carry exactly the sentences the per-sentence reads give for its task's outcome, and
//! the lines must come in the order of the per-claim reads: each root claim, then its
//! refutations.

use crate::common;
use common::{covid_fact_head, imported, trick_option, Acting};
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::{GoldEvidence, GoldRequest, Outcome};
use factdesk_api::import::Preset;
use factdesk_api::tasks::TaskKind;
use factdesk_api::ManualClock;
use std::collections::{HashMap, HashSet};

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn bulk_gold_lines_equal_the_per_row_reads_on_covid_fact() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = imported(
        dir.path(),
        "covid.fdesk",
        &clock,
        covid_fact_head(dir.path(), 150),
        None,
        Preset::CovidFact,
    );
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    let names = ["ana", "ben", "caro"];
    for name in names {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    // Each annotator picks one or two sentences, or none, varying with the task, so
    // some claims get gold evidence, some none and some no majority.
    for (who, name) in names.iter().enumerate() {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
            let trick = trick_option(&p, &item);
            let shown: Vec<String> = item
                .options
                .iter()
                .map(|o| o.id.clone())
                .filter(|id| Some(id) != trick.as_ref())
                .collect();
            let take = (item.task_id as usize + who) % 3;
            let selected: Vec<String> = shown.iter().take(take).cloned().collect();
            let answer = Answer {
                task_id: item.task_id,
                no_evidence: selected.is_empty(),
                selected,
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
        }
    }

    let req = GoldRequest::default();
    let (lines, _) = ok(p.gold(&p.lead(), &req));
    let aggregation = ok(p.aggregate(&p.lead(), &req));
    let outcome: HashMap<i64, &Outcome> = aggregation
        .tasks
        .iter()
        .filter(|t| t.kind == TaskKind::Evidence)
        .map(|t| (t.claim_id, &t.outcome))
        .collect();
    let store = p.store();
    let mut with_evidence = 0;
    for line in lines.iter().filter(|l| l.parent_id.is_none()) {
        let expected: Vec<GoldEvidence> = match outcome.get(&line.row_id) {
            Some(Outcome::Evidence { sentences }) => sentences
                .iter()
                .filter_map(|&id| ok(store.sentence(id)))
                .map(|s| GoldEvidence {
                    document_id: s.document_ext_id,
                    sentence_index: s.idx,
                    text: s.text,
                })
                .collect(),
            _ => Vec::new(),
        };
        with_evidence += usize::from(!expected.is_empty());
        assert_eq!(line.evidence, expected, "claim {}", line.id);
    }
    assert!(
        with_evidence >= 20,
        "only {with_evidence} lines with evidence"
    );

    let exported: HashSet<&str> = lines.iter().map(|l| l.id.as_str()).collect();
    let mut per_row = Vec::new();
    for root in ok(store.root_claims()) {
        per_row.push(root.ext_id.clone());
        for child in ok(store.claim_children(root.id)) {
            per_row.push(child.ext_id);
        }
    }
    per_row.retain(|id| exported.contains(id.as_str()));
    let order: Vec<&str> = lines.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(order, per_row);
}
