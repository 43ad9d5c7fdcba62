//! Tests of the `task_tricks` reads and writes.

use super::*;
use crate::tasks::{insert_new, insert_new_many, NewTask};
use crate::{claims, documents, NewCandidate, NewClaim, Store};
use factdesk_core::task::TaskKind;

fn must<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Three documents of four sentences (one text in two of them) and six claims: claim
/// `k` links document `k % 3` and has its first `k % 4` sentences as candidates; claim
/// 4's parent is claim 2.
fn project(dir: &std::path::Path) -> (Store, Vec<i64>, Vec<i64>) {
    let mut store = must(Store::create(&dir.join("p.fdesk"), "p", 0));
    let tx = must(store.transaction());
    let mut documents = Vec::new();
    let mut sentences = Vec::new();
    for d in 0..3 {
        let texts = [
            format!("First of {d}."),
            "Shared.".into(),
            format!("Third of {d}."),
            format!("Last sentence of document {d}."),
        ];
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (id, ids) = must(documents::insert_bare(&tx, &format!("d{d}"), &texts));
        documents.push(id);
        sentences.push(ids);
    }
    let mut ids: Vec<i64> = Vec::new();
    for k in 0..6 {
        let ext_id = format!("c{k}");
        let claim = NewClaim {
            ext_id: &ext_id,
            text: "A claim.",
            context: None,
            label: None,
            source_url: None,
            parent_id: (k == 4).then(|| ids[2]),
            metadata: "{}",
            hash: &ext_id,
            import_id: None,
            created_at: 0,
        };
        let id = must(claims::insert(&tx, &claim));
        must(claims::link_document(&tx, id, documents[k % 3]));
        let rows: Vec<NewCandidate<'_>> = sentences[k % 3][..k % 4]
            .iter()
            .enumerate()
            .map(|(i, &sentence_id)| NewCandidate {
                rank: i as u32 + 1,
                sentence_id,
                ranker: "bm25",
                score: 1.0,
                scores: Default::default(),
                placed_by: String::new(),
            })
            .collect();
        must(crate::candidates::replace(&tx, id, &rows));
        ids.push(id);
    }
    must(tx.commit());
    (store, ids, sentences.concat())
}

/// What is taken from known sentences is what reading them gives: with every other
/// sentence known, and with none.
#[test]
fn facts_from_known_sentences_are_the_facts_read_whole() {
    let dir = must(tempfile::tempdir());
    let (store, claims, sentences) = project(dir.path());
    let donors: Vec<Donor> = must(donors(store.conn()))
        .into_iter()
        .filter(|d| {
            sentences
                .iter()
                .position(|&s| s == d.sentence_id)
                .is_some_and(|i| i % 2 == 0)
        })
        .collect();
    assert!(!donors.is_empty());
    let known = KnownSentences::of(&donors);
    let some = must(facts(store.conn(), "evidence", &claims, Some(&known)));
    let none = must(facts(
        store.conn(),
        "evidence",
        &claims,
        Some(&KnownSentences::default()),
    ));
    for id in &claims {
        let (a, b) = (&some[id], &none[id]);
        assert_eq!(
            (a.candidates, &a.family, &a.family_texts),
            (b.candidates, &b.family, &b.family_texts)
        );
        let sorted = |v: &[usize]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v
        };
        assert_eq!(sorted(&a.candidate_lengths), sorted(&b.candidate_lengths));
    }
    // Claim 2's family holds claim 4's document, and the reverse.
    assert_eq!(some[&claims[2]].family.len(), 2);
    assert_eq!(some[&claims[4]].family, some[&claims[2]].family);
    // "Shared." is in two documents: one hash for both.
    assert_eq!(some[&claims[2]].family_texts.len(), 7);
}

/// Many tasks written at once get the ids, and the rows, that one at a time gives.
#[test]
fn many_tasks_at_once_are_the_tasks_one_at_a_time() {
    let (one, many) = (must(tempfile::tempdir()), must(tempfile::tempdir()));
    let (mut one, claims, _) = project(one.path());
    let (mut many, _, _) = project(many.path());
    let tasks: Vec<NewTask> = claims
        .iter()
        .map(|&claim_id| NewTask {
            kind: TaskKind::Evidence,
            claim_id,
            overlap: 2,
            trick_slot: Some(claim_id as u32 % 3),
            shuffle_key: (claim_id * 7919) % 101,
            created_at: 5,
        })
        .collect();
    let tx = must(one.transaction());
    let each: Vec<i64> = tasks.iter().map(|t| must(insert_new(&tx, t))).collect();
    must(tx.commit());
    let tx = must(many.transaction());
    let at_once = must(insert_new_many(&tx, &tasks));
    let trick = |task_id, sentence_id| NewTrick {
        task_id,
        sentence_id,
        text_hash: 7,
        left_out: true,
        unlike: false,
    };
    must(set_many(&tx, &[trick(at_once[0], 1), trick(at_once[1], 2)]));
    must(set_many(&tx, &[trick(at_once[0], 3)]));
    must(tx.commit());
    assert_eq!(each, at_once);
    let rows = |s: &Store| {
        let mut stmt = must(s.conn().prepare("SELECT id, kind, claim_id, overlap, trick_slot, shuffle_key, created_at FROM tasks ORDER BY id"));
        let rows = must(stmt.query_map([], |r| {
            Ok((0..7)
                .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).ok()))
                .collect::<Vec<_>>())
        }));
        must(rows.collect::<crate::db::Result<Vec<_>>>())
    };
    assert_eq!(rows(&one), rows(&many));
    // An earlier trick is kept.
    let trick = must(many.conn().query_row(
        "SELECT sentence_id FROM task_tricks WHERE task_id = ?1",
        [at_once[0]],
        |r| r.get::<_, i64>(0),
    ));
    assert_eq!(trick, 1);
}
