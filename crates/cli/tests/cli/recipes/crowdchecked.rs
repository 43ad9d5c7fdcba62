//! crowdchecked: claim–text pairs built from COVID-Fact's claims (a claim beside one of
//! its evidence sentences, or beside a shortened copy of itself, so that every band of
//! word overlap holds pairs), 150 drawn from 10 bins of stemmed Jaccard as the task set,
//! two yes/no questions answered by 3 annotators, and the gold.

use super::{add, answer_all, close, cohen, fleiss, init, json_of, read_jsonl, s, write_jsonl};
use crate::{data, ok};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Pairs from COVID-Fact's first claims: by turns a claim with its first evidence
/// sentence, and a claim with its first words only (from a tenth of them to all).
fn pairs() -> Vec<Value> {
    let claims = read_jsonl(&data("covidfact.jsonl"));
    let mut out = Vec::new();
    for (i, c) in claims.iter().take(800).enumerate() {
        let claim = c["claim"].as_str().unwrap_or_default();
        let text_b = if i % 3 == 0 {
            c["evidence"][0].as_str().unwrap_or_default().to_string()
        } else {
            let words: Vec<&str> = claim.split_whitespace().collect();
            let keep = (words.len() * (1 + (i / 3) % 10)).div_ceil(10).max(1);
            words[..keep.min(words.len())].join(" ")
        };
        if claim.is_empty() || text_b.is_empty() {
            continue;
        }
        out.push(json!({"id": format!("pair-{i}"), "text_a": claim, "text_b": text_b}));
    }
    out
}

/// An annotator's answers on a pair: yes to both when the texts overlap much, with each
/// annotator's own slips.
fn answers(who: &str, item: &Value) -> Value {
    let task = item["task_id"].as_i64().unwrap_or(0);
    let a = item["claim"].as_str().unwrap_or_default();
    let b = item["text_b"].as_str().unwrap_or_default();
    let same = b.len() * 2 > a.len();
    let flip = |v: bool, slip: bool| if v != slip { "yes" } else { "no" };
    let (s1, s2) = match who {
        "ana" => (task % 9 == 0, false),
        "ben" => (task % 5 == 0, task % 7 == 0),
        _ => (false, task % 4 == 0),
    };
    json!({"same_claim": flip(same, s1), "verdict_applies": flip(same, s2)})
}

#[test]
fn crowdchecked_from_the_recipe_to_gold_with_its_figures_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("pairs.jsonl");
    write_jsonl(&file, &pairs());
    let p = init(dir.path(), "crowdchecked");
    ok(["import", &s(&p), &s(&file)]);
    ok(["tasks", &s(&p), "--kind", "design", "--overlap", "3"]);
    add(&p, &["ana", "ben", "cy"]);

    // 15 pairs from each of 10 bins, the same for the same seed, each in the bin of its
    // stemmed Jaccard, which Python computes alike.
    let args = [
        "sample",
        &s(&p),
        "--kind",
        "design",
        "--by",
        "jaccard-bins",
        "--bins",
        "10",
        "--per-bin",
        "15",
        "--seed",
        "11",
        "--json",
    ];
    let shown = json_of(&args);
    assert_eq!(json_of(&args), shown);
    let mut keep = args.to_vec();
    keep.insert(keep.len() - 1, "--keep-only");
    let kept = json_of(&keep);
    assert_eq!(kept["items"], shown["items"]);
    let items = kept["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 150);
    let mut per_bin: BTreeMap<String, usize> = BTreeMap::new();
    for item in &items {
        *per_bin
            .entry(item["stratum"].as_str().unwrap_or_default().into())
            .or_default() += 1;
        let j = item["jaccard"].as_f64().unwrap_or(-1.0);
        let bin = ((j * 10.0).floor() as usize).min(9);
        assert_eq!(
            item["stratum"], kept["drawn"][bin]["name"],
            "{item}: Jaccard {j} belongs in bin {bin}"
        );
    }
    assert_eq!(per_bin.len(), 10);
    assert!(per_bin.values().all(|&n| n == 15), "{per_bin:?}");
    let compared: Value = items.iter().map(|i| i["compared"].clone()).collect();
    if let Some(python) = crate::sample::python_jaccard(&compared) {
        for (item, py) in items.iter().zip(python) {
            let ours = item["jaccard"].as_f64().unwrap_or(-1.0);
            assert!((ours - py).abs() < 1e-12, "{item}: Python says {py}");
        }
    }

    // Only the draw is served: each annotator gets its 150 pairs and no other.
    let drawn: Vec<i64> = items.iter().filter_map(|i| i["task_id"].as_i64()).collect();
    let mut given: BTreeMap<i64, BTreeMap<&str, Value>> = BTreeMap::new();
    for who in ["ana", "ben", "cy"] {
        let done = answer_all(&p, who, "design", |item| answers(who, item));
        assert_eq!(done.len(), 150, "{who}");
        for (item, a) in done {
            let task = item["task_id"].as_i64().unwrap_or(0);
            assert!(drawn.contains(&task), "task {task} was not drawn");
            given.entry(task).or_default().insert(who, a);
        }
    }

    // Fleiss' kappa and each pair's Cohen's kappa per question, computed again.
    let agreement = super::design_agreement(&p);
    for (i, q) in ["same_claim", "verdict_applies"].iter().enumerate() {
        let report = &agreement["questions"][i]["report"];
        let label = |g: &BTreeMap<&str, Value>, who: &str| {
            g[who][q].as_str().unwrap_or_default().to_string()
        };
        let units: Vec<Vec<String>> = given
            .values()
            .map(|g| ["ana", "ben", "cy"].iter().map(|w| label(g, w)).collect())
            .collect();
        close(
            fleiss(&units),
            report["metrics"]["fleiss_kappa"]["value"]
                .as_f64()
                .unwrap_or(f64::NAN),
            q,
        );
        for pair in report["cohen_kappa_pairs"].as_array().into_iter().flatten() {
            let (a, b) = (
                pair["a"].as_str().unwrap_or_default(),
                pair["b"].as_str().unwrap_or_default(),
            );
            let labels: Vec<(String, String)> =
                given.values().map(|g| (label(g, a), label(g, b))).collect();
            close(
                cohen(&labels),
                pair["value"].as_f64().unwrap_or(f64::NAN),
                &format!("{q} {a}–{b}"),
            );
        }
        assert_eq!(
            report["cohen_kappa_pairs"].as_array().map(Vec::len),
            Some(3)
        );
    }

    // Gold: each question's strict majority of three, which always exists for yes/no.
    let out = dir.path().join("gold.jsonl");
    ok(["export", &s(&p), "--design", "--out", &s(&out)]);
    let gold = read_jsonl(&out);
    assert_eq!(gold.len(), 150);
    let task_of: BTreeMap<&str, i64> = items
        .iter()
        .filter_map(|i| Some((i["claim"].as_str()?, i["task_id"].as_i64()?)))
        .collect();
    for line in &gold {
        let task = task_of[line["id"].as_str().unwrap_or_default()];
        for q in ["same_claim", "verdict_applies"] {
            let yes = given[&task].values().filter(|a| a[q] == "yes").count();
            let want = if yes >= 2 { "yes" } else { "no" };
            assert_eq!(line["answers"][q]["value"], want, "{line}");
            let agreeing = if yes >= 2 { yes } else { 3 - yes };
            assert_eq!(line["answers"][q]["agreeing"], agreeing, "{line}");
        }
    }
    let card = std::fs::read_to_string(dir.path().join("gold.card.md")).unwrap_or_default();
    for wanted in [
        "Set up by the recipe `crowdchecked`",
        "## Sample",
        "grouped by `jaccard-bins:10`, 15 drawn from each group with seed 11",
        "| 0.90–1.00 | 15 |",
    ] {
        assert!(card.contains(wanted), "{wanted:?} not in the card:\n{card}");
    }
}
