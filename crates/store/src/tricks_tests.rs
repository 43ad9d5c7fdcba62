//! Tests of the `task_tricks` reads and writes.

use super::*;
use crate::tasks::{insert_new, insert_new_many, NewTask};
use crate::Read;
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
                placed_by: 0,
            })
            .collect();
        must(crate::candidates::replace(&tx, id, &rows));
        ids.push(id);
    }
    must(tx.commit());
    (store, ids, sentences.concat())
}

/// The documents of a claim's family, read on their own: the test's reference.
fn family_documents(conn: &Read, claim_id: i64) -> Vec<i64> {
    let mut stmt = must(conn.prepare(
        "SELECT DISTINCT cd.document_id FROM claim_documents cd JOIN claims k ON k.id = cd.claim_id
         WHERE k.id = ?1 OR k.parent_id = ?1
            OR k.id = (SELECT parent_id FROM claims WHERE id = ?1)
         ORDER BY cd.document_id",
    ));
    let rows = must(stmt.query_map([claim_id], |r| r.get(0)));
    must(rows.collect::<crate::db::Result<_>>())
}

/// `sql`'s texts (column 0) for the value `id`.
fn texts(conn: &Read, sql: &str, id: i64) -> Vec<String> {
    let mut stmt = must(conn.prepare(sql));
    let rows = must(stmt.query_map([id], |r| r.get(0)));
    must(rows.collect::<crate::db::Result<_>>())
}

/// A run's corpus gives each claim the facts that reading them claim by claim gives.
#[test]
fn facts_from_the_corpus_are_the_facts_read_claim_by_claim() {
    let dir = must(tempfile::tempdir());
    let (store, claims, _) = project(dir.path());
    let conn = store.read();
    let donors = must(donors(conn));
    let ranked = must(candidates(conn, true));
    let families = must(Families::read(conn));
    let corpus = Corpus::new(&donors, &ranked, &families);
    let facts = must(facts(conn, "evidence", &claims, Some(&corpus)));
    for id in &claims {
        let f = &facts[id];
        let family = family_documents(conn, *id);
        let family_texts: HashSet<u64> = family
            .iter()
            .flat_map(|d| {
                texts(
                    conn,
                    "SELECT text FROM sentences WHERE document_id = ?1",
                    *d,
                )
            })
            .map(|t| text_hash(&t))
            .collect();
        let mut lengths: Vec<usize> = texts(
            conn,
            "SELECT s.text FROM candidates k JOIN sentences s ON s.id = k.sentence_id WHERE k.claim_id = ?1",
            *id,
        )
        .iter()
        .map(|t| t.chars().count())
        .collect();
        lengths.sort_unstable();
        let mut got = f.candidate_lengths.clone();
        got.sort_unstable();
        assert_eq!((&f.family, &f.family_texts), (&family, &family_texts));
        assert_eq!((f.candidates, got), (lengths.len() as u64, lengths));
    }
    // Claim 2's family holds claim 4's document, and the reverse.
    assert_eq!(facts[&claims[2]].family.len(), 2);
    assert_eq!(facts[&claims[4]].family, facts[&claims[2]].family);
    // "Shared." is in two documents: one hash for both.
    assert_eq!(facts[&claims[2]].family_texts.len(), 7);
    // Without a corpus, only the tasks are read.
    let bare = must(super::facts(conn, "evidence", &claims, None));
    assert!(bare
        .values()
        .all(|f| f.family.is_empty() && f.candidates == 0));
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
        let mut stmt = must(s.read().prepare("SELECT id, kind, claim_id, overlap, trick_slot, shuffle_key, created_at FROM tasks ORDER BY id"));
        let rows = must(stmt.query_map([], |r| {
            Ok((0..7)
                .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).ok()))
                .collect::<Vec<_>>())
        }));
        must(rows.collect::<crate::db::Result<Vec<_>>>())
    };
    assert_eq!(rows(&one), rows(&many));
    // An earlier trick is kept.
    let trick = must(many.read().query_row(
        "SELECT sentence_id FROM task_tricks WHERE task_id = ?1",
        [at_once[0]],
        |r| r.get::<_, i64>(0),
    ));
    assert_eq!(trick, 1);
}
