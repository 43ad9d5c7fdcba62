use super::*;
use crate::documents;

/// Candidate rows of `claims` claims over one document of eight sentences: claim 1
/// with five, 2 with three, 3 with none, 4 with two.
fn with_candidates(dir: &std::path::Path, claims: usize) -> crate::Store {
    let mut store =
        crate::Store::create(&dir.join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
    let tx = store.transaction().unwrap_or_else(|e| panic!("{e}"));
    let texts = [
        "One.", "Two.", "Three.", "Four.", "Five.", "Six.", "Seven.", "Eight.",
    ];
    let (_, sentences) = documents::insert_bare(&tx, "d", &texts).unwrap_or_else(|e| panic!("{e}"));
    for c in 1..=claims {
        let ext_id = format!("c{c}");
        let claim = crate::NewClaim {
            ext_id: &ext_id,
            text: "A claim.",
            context: None,
            label: None,
            source_url: None,
            parent_id: None,
            metadata: "{}",
            hash: &ext_id,
            import_id: None,
            created_at: 0,
        };
        let id = crate::claims::insert(&tx, &claim).unwrap_or_else(|e| panic!("{e}"));
        let n = [5, 3, 0, 2][(c - 1) % 4];
        let rows = new_rows(&sentences[..n], "bm25", 1.0);
        replace(&tx, id, &rows).unwrap_or_else(|e| panic!("{e}"));
    }
    tx.commit().unwrap_or_else(|e| panic!("{e}"));
    store
}

fn new_rows(sentences: &[i64], ranker: &'static str, base: f64) -> Vec<NewCandidate<'static>> {
    sentences
        .iter()
        .enumerate()
        .map(|(i, &sentence_id)| NewCandidate {
            rank: i as u32 + 1,
            sentence_id,
            ranker,
            score: base - i as f64 / 8.0,
            scores: RankerScores {
                bm25: Some(base * 3.0),
                levenshtein: (i % 2 == 0).then_some(0.25),
                jaccard: None,
                fused: Some(base),
                semantic: None,
            },
            placed_by: [5, 0, 2][i % 3],
        })
        .collect()
}

fn every_row(store: &crate::Store) -> Vec<String> {
    let mut stmt = store
        .read()
        .prepare("SELECT * FROM candidates ORDER BY claim_id, rank")
        .unwrap_or_else(|e| panic!("{e}"));
    let rows = stmt
        .query_map([], |r| {
            Ok((0..r.column_count())
                .map(|i| format!("{:?}", r.get::<_, rusqlite::types::Value>(i).ok()))
                .collect::<Vec<_>>()
                .join("|"))
        })
        .unwrap_or_else(|e| panic!("{e}"));
    rows.collect::<crate::db::Result<_>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Replacing many claims at once leaves every row as replacing them one by one does:
/// claims with more, fewer or no candidates than before, and claims left alone.
#[test]
fn replacing_many_claims_equals_replacing_each() {
    let claims = DELETE_CHUNK + 7;
    let (one, many) = (tempfile::tempdir(), tempfile::tempdir());
    let (one, many) = (
        one.unwrap_or_else(|e| panic!("{e}")),
        many.unwrap_or_else(|e| panic!("{e}")),
    );
    let (mut one, mut many) = (
        with_candidates(one.path(), claims),
        with_candidates(many.path(), claims),
    );
    assert_eq!(every_row(&one), every_row(&many));
    // Every claim but each fifth, with 1 to 6 new rows (each third with none).
    let sentences: Vec<i64> = (1..=8).collect();
    let new: Vec<(i64, Vec<NewCandidate<'static>>)> = (1..=claims as i64)
        .filter(|c| c % 5 != 0)
        .map(|c| {
            let n = [1, 4, 0, 6, 5, 2][c as usize % 6];
            (c, new_rows(&sentences[8 - n..], "fused", c as f64))
        })
        .collect();
    let tx = one.transaction().unwrap_or_else(|e| panic!("{e}"));
    for (claim_id, rows) in &new {
        replace(&tx, *claim_id, rows).unwrap_or_else(|e| panic!("{e}"));
    }
    tx.commit().unwrap_or_else(|e| panic!("{e}"));
    let tx = many.transaction().unwrap_or_else(|e| panic!("{e}"));
    replace_many(&tx, &new).unwrap_or_else(|e| panic!("{e}"));
    tx.commit().unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (every_row(&one), every_row(&many));
    assert_eq!(a, b);
    assert!(a.len() > claims * 2, "{}", a.len());
    assert!(a.iter().any(|r| r.contains("\"bm25\"")) && a.iter().any(|r| r.contains("fused")));
}

/// The batch read gives each document's sentences once, in document order, whatever
/// order or repetition the ids come in: the same as reading them one by one.
#[test]
fn sentences_of_documents_equal_reading_each_document() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut store =
        crate::Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
    let texts = [vec!["One.", "Two.", "Three."], vec![], vec!["Alone."]];
    let mut ids = Vec::new();
    let tx = store.transaction().unwrap_or_else(|e| panic!("{e}"));
    for (i, sentences) in texts.iter().enumerate() {
        let (id, _) = documents::insert_bare(&tx, &format!("d{i}"), sentences)
            .unwrap_or_else(|e| panic!("{e}"));
        ids.push(id);
    }
    tx.commit().unwrap_or_else(|e| panic!("{e}"));
    let asked = [ids[2], ids[0], ids[1], ids[0], 9999];
    let read = sentences_of_documents(store.read(), &asked).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read.len(), 2, "{read:?}");
    for &id in &ids {
        let one = document_sentences(store.read(), &[id]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.get(&id).cloned().unwrap_or_default(), one);
    }
    assert_eq!(read[&ids[0]].len(), 3);
}
