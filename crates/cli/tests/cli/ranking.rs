//! Candidate ranking: the evaluation on COVID-Fact, and the edge cases of `candidates`.

use crate::{new_project, ok};
use serde_json::Value;
use std::path::Path;

fn candidates(p: &Path, claim: &str) -> Vec<Value> {
    let out = ok([
        Path::new("candidates"),
        p,
        Path::new("--claim"),
        Path::new(claim),
        Path::new("--json"),
    ]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("candidates --json is not JSON: {e}"))
}

#[test]
fn fused_recall_at_5_is_at_least_the_best_single_rankers_on_covid_fact() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (set, p) = crate::eval_set_project(dir.path(), &[]);
    let out = ok([
        Path::new("eval-ranking"),
        &p,
        Path::new("--gold"),
        &set.join("gold.jsonl"),
        Path::new("--json"),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["claims"], 1296);
    let recall = |name: &str| -> f64 {
        report["rankers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["ranker"] == name)
            .and_then(|r| r["recall@5"].as_f64())
            .unwrap_or_else(|| panic!("no {name} in {report}"))
    };
    let best_single = recall("bm25")
        .max(recall("levenshtein"))
        .max(recall("jaccard"));
    assert!(
        recall("fused") >= best_single,
        "fused {} < best single {best_single}: {report}",
        recall("fused")
    );
    assert!(recall("fused") > 0.8, "{report}");
    // At least one gold sentence found is never rarer than the share of gold found.
    for r in report["rankers"].as_array().into_iter().flatten() {
        for k in [1, 3, 5] {
            let (hit, recall) = (&r[format!("hit@{k}")], &r[format!("recall@{k}")]);
            assert!(hit.as_f64() >= recall.as_f64(), "{r}");
        }
    }
}

/// Two sentences, both gold: every ranker puts them in its top 2 in some order, so every
/// figure can be worked by hand (docs/ranking.md gives the formulas). k = 1: one of the two
/// gold found; k = 2: both. k = 3 and 5: both found, the rest of the k places empty.
#[test]
fn eval_ranking_reports_hit_recall_precision_f1_mrr_and_map_at_1_3_5() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let sentences = [
        "The harbour bridge was reopened in late May after repairs.",
        "Ferries crossed the harbour while the bridge was shut.",
    ];
    let p = one_claim(
        dir.path(),
        "The harbour bridge reopened in May",
        &sentences.join(" "),
    );
    let gold = dir.path().join("gold.jsonl");
    let line = serde_json::json!({"claim": "c", "evidence": sentences});
    std::fs::write(&gold, line.to_string() + "\n").unwrap_or_else(|e| panic!("{e}"));
    let out = ok([
        Path::new("eval-ranking"),
        &p,
        Path::new("--gold"),
        &gold,
        Path::new("--json"),
    ]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["claims"], 1, "{report}");
    let want = [
        ("hit@1", 1.0),
        ("recall@1", 0.5),
        ("precision@1", 1.0),
        ("f1@1", 2.0 / 3.0),
        ("mrr@1", 1.0),
        ("map@1", 1.0),
        // k = 2, the multilingual pipeline's MRR@2 and P@2: both gold in the top 2.
        ("hit@2", 1.0),
        ("recall@2", 1.0),
        ("precision@2", 1.0),
        ("f1@2", 1.0),
        ("mrr@2", 1.0),
        ("map@2", 1.0),
        ("hit@3", 1.0),
        ("recall@3", 1.0),
        ("precision@3", 2.0 / 3.0),
        ("f1@3", 0.8),
        ("mrr@3", 1.0),
        ("map@3", 1.0),
        ("hit@5", 1.0),
        ("recall@5", 1.0),
        ("precision@5", 0.4),
        ("f1@5", 2.0 * 0.4 / 1.4),
        ("mrr@5", 1.0),
        ("map@5", 1.0),
    ];
    let rankers = report["rankers"].as_array().cloned().unwrap_or_default();
    assert_eq!(rankers.len(), 4, "{report}");
    for r in &rankers {
        for (key, value) in want {
            let got = r[key].as_f64().unwrap_or_else(|| panic!("no {key} in {r}"));
            assert!((got - value).abs() < 1e-9, "{key}: {got} != {value} in {r}");
        }
        // The capped recall once reported under this name is gone.
        assert!(r.get("recall_at_1").is_none(), "{r}");
    }
    let text = String::from_utf8_lossy(
        &ok([Path::new("eval-ranking"), &p, Path::new("--gold"), &gold]).stdout,
    )
    .into_owned();
    assert!(text.contains("ranker"), "{text}");
    assert!(text.contains("MAP"), "{text}");
}

/// A project with one document of the given sentences and one claim on it.
fn one_claim(dir: &Path, claim: &str, doc: &str) -> std::path::PathBuf {
    let p = new_project(dir);
    let docs = dir.join("docs.jsonl");
    std::fs::write(
        &docs,
        serde_json::json!({"id": "d", "text": doc}).to_string() + "\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let claims = dir.join("claims.jsonl");
    let row = serde_json::json!({"id": "c", "claim": claim, "doc_ids": ["d"]});
    std::fs::write(&claims, row.to_string() + "\n").unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &claims, Path::new("--docs"), &docs]);
    p
}

#[test]
fn a_sentence_containing_the_claim_itself_is_dropped() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let doc = "Officials said the harbour bridge reopened in May. The harbour bridge reopened in May, officials said. Ferries kept running. The bridge was built in 1932.";
    let p = one_claim(dir.path(), "The harbour bridge reopened in May", doc);
    let c = candidates(&p, "c");
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(
        c.iter().all(|x| !x["text"]
            .as_str()
            .unwrap_or("")
            .contains("bridge reopened in May")),
        "{c:?}"
    );
    for (i, x) in c.iter().enumerate() {
        assert_eq!(x["rank"], i as u64 + 1);
        for key in ["sentence_id", "document_id", "text", "score"] {
            assert!(!x[key].is_null(), "{key} missing in {x}");
        }
    }
}

#[test]
fn ties_break_the_same_way_every_time() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let doc = "The ferry runs daily. The ferry runs daily. The ferry runs daily. Boats are blue. Boats are red. Boats are green.";
    let p = one_claim(dir.path(), "A ferry runs every day", doc);
    let first = candidates(&p, "c");
    assert_eq!(first.len(), 5);
    ok([Path::new("rank"), &p]);
    assert_eq!(candidates(&p, "c"), first);
    // Identical sentences tie; the earlier sentence wins.
    let ids: Vec<i64> = first
        .iter()
        .take(3)
        .filter_map(|x| x["sentence_id"].as_i64())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);
}

#[test]
fn short_documents_give_fewer_candidates_without_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = one_claim(
        dir.path(),
        "The museum opened in 1901",
        "The museum opened its doors to the public.",
    );
    assert_eq!(candidates(&p, "c").len(), 1);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let claims = dir.path().join("claims.jsonl");
    std::fs::write(
        &claims,
        "{\"id\": \"lonely\", \"claim\": \"Nothing backs this claim.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &claims]);
    assert!(candidates(&p, "lonely").is_empty());
}

#[test]
fn candidates_name_the_rankers_that_placed_each_and_rank_takes_bm25_settings() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let doc = "The harbour bridge was closed for repairs. Officials reopened the harbour bridge in May. Ferries kept running all year.";
    let p = one_claim(dir.path(), "Officials reopened the bridge", doc);
    let c = candidates(&p, "c");
    let top = &c[0];
    assert_eq!(top["text"], "Officials reopened the harbour bridge in May.");
    let placed: Vec<&str> = top["placed_by"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(placed, ["bm25", "levenshtein", "jaccard"], "{top}");
    let out = ok([
        Path::new("candidates"),
        &p,
        Path::new("--claim"),
        Path::new("c"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains("(bm25, levenshtein, jaccard)")),
        "{text}"
    );
    // BM25's parameters for one run: the ranking is redone with them, and nonsense is refused.
    let out = ok([
        Path::new("rank"),
        &p,
        Path::new("--ranker"),
        Path::new("bm25"),
        Path::new("--bm25-k1"),
        Path::new("0.9"),
        Path::new("--bm25-b"),
        Path::new("0.9"),
        Path::new("--jaccard-stemming"),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("with bm25"));
    let bad = crate::factdesk([Path::new("rank"), &p, Path::new("--bm25-b"), Path::new("2")]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("b must be between 0 and 1"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
