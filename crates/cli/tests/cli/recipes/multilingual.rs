//! multilingual: paragraph evidence, labels with FAILED, a label-stratified study.

use super::{
    add, answer_all, close, cohen, eval_set, export, fleiss, init, json_of, metric, read_jsonl, s,
    strict_majority, write_jsonl,
};
use crate::ok;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What one annotator labels a claim imported as `imported`, with slips on some items.
fn multilingual_label(who: &str, i: usize, imported: &str) -> &'static str {
    let own = if imported == "REFUTED" {
        "REFUTED"
    } else {
        "SUPPORTED"
    };
    let other = if own == "REFUTED" {
        "SUPPORTED"
    } else {
        "REFUTED"
    };
    match who {
        "ben" if i.is_multiple_of(3) => "NOT ENOUGH INFO",
        "cy" if i.is_multiple_of(5) => "FAILED",
        "fay" if i.is_multiple_of(2) => other,
        _ => own,
    }
}

#[test]
fn multilingual_from_the_recipe_to_gold_with_its_figures_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let set = eval_set(dir.path());
    let gold: BTreeMap<String, Value> = read_jsonl(&set.join("gold.jsonl"))
        .into_iter()
        .filter_map(|g| Some((g["claim"].as_str()?.to_string(), g["evidence"].clone())))
        .collect();
    // Thirty claims, every third made REFUTED here so the sample has two classes, each
    // with its published evidence sentences as the evidence it comes with.
    let mut label_of: BTreeMap<String, String> = BTreeMap::new();
    let claims: Vec<Value> = read_jsonl(&set.join("claims.jsonl"))
        .into_iter()
        .take(30)
        .enumerate()
        .map(|(i, mut c)| {
            let label = if i.is_multiple_of(3) {
                "REFUTED"
            } else {
                "SUPPORTED"
            };
            c["label"] = json!(label);
            c["evidence"] = gold[c["id"].as_str().unwrap_or_default()].clone();
            label_of.insert(
                c["claim"].as_str().unwrap_or_default().to_string(),
                label.into(),
            );
            c
        })
        .collect();
    let few = dir.path().join("claims.jsonl");
    write_jsonl(&few, &claims);

    let p = init(dir.path(), "multilingual");
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["evidence_stance"], "supports_or_refutes");
    assert_eq!(settings["highlight_claim_words"], true);
    assert!(settings["guidelines"]["label"]
        .as_str()
        .unwrap_or_default()
        .contains("FAILED"));
    let docs = set.join("documents.jsonl");
    ok([
        "import",
        &s(&p),
        &s(&few),
        "--docs",
        &s(&docs),
        "--paragraphs",
        "1000",
    ]);
    // The candidates are paragraphs of more than 1,000 characters.
    let candidates = json_of(&["candidates", &s(&p), "--claim", "eval-1", "--json"]);
    let long = candidates
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["text"].as_str().is_some_and(|t| t.chars().count() > 1000))
        .count();
    assert!(long >= 2, "{candidates}");

    add(&p, &["ana", "ben", "cy", "dee", "eve", "fay"]);
    // The evidence step: each of three picks the paragraphs holding the claim's published
    // evidence. The trick is the one option not among the claim's candidates.
    let ids: BTreeMap<&str, &str> = claims
        .iter()
        .filter_map(|c| Some((c["claim"].as_str()?, c["id"].as_str()?)))
        .collect();
    ok(["tasks", &s(&p), "--kind", "evidence", "--overlap", "3"]);
    for who in ["ana", "ben", "cy"] {
        answer_all(&p, who, "evidence", |item| {
            let claim = item["claim"].as_str().unwrap_or_default();
            let id = ids[claim];
            let ranked = json_of(&["candidates", &s(&p), "--claim", id, "--json"]);
            let ranked: BTreeSet<&str> = ranked
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["text"].as_str())
                .collect();
            let published = gold[id].as_array().cloned().unwrap_or_default();
            let holds_evidence = |text: &str| {
                published
                    .iter()
                    .filter_map(Value::as_str)
                    .any(|e| text.contains(e))
            };
            let picked: Vec<Value> = item["options"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|o| {
                    o["text"]
                        .as_str()
                        .is_some_and(|t| ranked.contains(t) && holds_evidence(t))
                })
                .map(|o| o["id"].clone())
                .collect();
            json!({"evidence": picked})
        });
    }
    ok(["tasks", &s(&p), "--kind", "label", "--overlap", "3"]);
    ok([
        "sample",
        &s(&p),
        "--kind",
        "label",
        "--by",
        "label",
        "--per-label",
        "3",
        "--group",
        "dee,eve,fay",
        "--seed",
        "2",
    ]);
    let mut given: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for who in ["ana", "ben", "cy", "dee", "eve", "fay"] {
        let mut i = 0;
        let answered = answer_all(&p, who, "label", |item| {
            assert_eq!(item["questions"][0]["id"], "label");
            let claim = item["claim"].as_str().unwrap_or_default();
            i += 1;
            json!({"label": multilingual_label(who, i, &label_of[claim])})
        });
        for (item, answers) in answered {
            let claim = item["claim"].as_str().unwrap_or_default().to_string();
            let label = answers["label"].as_str().unwrap_or_default().to_string();
            given
                .entry(claim)
                .or_default()
                .insert(who.to_string(), label);
        }
    }
    assert_eq!(given.len(), 30);
    let sampled: Vec<&String> = given
        .iter()
        .filter(|(_, by)| by.contains_key("dee"))
        .map(|(c, _)| c)
        .collect();
    assert_eq!(sampled.len(), 6, "3 a label");
    assert_eq!(
        sampled
            .iter()
            .filter(|c| label_of[**c] == "REFUTED")
            .count(),
        3
    );

    let units: Vec<Vec<String>> = given
        .values()
        .map(|by| by.values().cloned().collect())
        .collect();
    let report = json_of(&["agreement", &s(&p), "--kind", "label", "--json"]);
    let kappa = fleiss(&units);
    assert!(kappa > 0.3 && kappa < 1.0, "{kappa}");
    close(kappa, metric(&report, "fleiss_kappa"), "Fleiss' kappa");
    let majority = |by: &BTreeMap<String, String>, names: &[&str]| {
        strict_majority(&names.iter().map(|n| by[*n].clone()).collect::<Vec<_>>())
    };
    let pairs: Vec<(String, String)> = sampled
        .iter()
        .filter_map(|c| {
            let by = &given[*c];
            Some((
                majority(by, &["ana", "ben", "cy"])?,
                majority(by, &["dee", "eve", "fay"])?,
            ))
        })
        .collect();
    let study = &report["studies"][0];
    assert_eq!(study["majority_units"], pairs.len());
    match study["majority_kappa"]["value"].as_f64() {
        Some(theirs) => close(cohen(&pairs), theirs, "the groups' Cohen's kappa"),
        // One label on both sides: no variation, so no kappa; said, not made up.
        None => assert!(study["majority_kappa"]["reason"].is_string(), "{study}"),
    }

    let lines = export(dir.path(), &p, "multilingual");
    assert!(lines.len() >= 20, "{} lines", lines.len());
    for line in lines {
        let claim = line["claim"].as_str().unwrap_or_default();
        let expected = majority(&given[claim], &["ana", "ben", "cy"]);
        assert_eq!(line["label"].as_str(), expected.as_deref(), "{claim}");
    }
}
