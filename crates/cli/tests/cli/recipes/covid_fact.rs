//! covid-fact: evidence selection with the trick, a second group's study, the gold.

use super::{
    add, answer_all, close, cohen, export, fleiss, init, json_of, metric, read_jsonl, s,
    strict_majority,
};
use crate::ok;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What one annotator selects on a COVID-Fact item: the options holding the claim's
/// published evidence, with a slip on some items. `i` numbers the annotator's items.
fn covid_choice(who: &str, i: usize, item: &Value, gold: &BTreeSet<String>) -> Vec<Value> {
    let options: Vec<&Value> = item["options"].as_array().into_iter().flatten().collect();
    let is_trick = |o: &&Value| {
        o["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("It is not true that"))
    };
    let real: Vec<&Value> = options.iter().copied().filter(|o| !is_trick(o)).collect();
    let chosen: Vec<&Value> = real
        .iter()
        .copied()
        .filter(|o| o["text"].as_str().is_some_and(|t| gold.contains(t)))
        .collect();
    let extra = real.iter().copied().find(|o| !chosen.contains(o));
    let picked: Vec<&Value> = match who {
        "ben" if i.is_multiple_of(3) => chosen.into_iter().take(1).collect(),
        "cy" if i % 4 == 1 => chosen.into_iter().chain(extra).collect(),
        "fay" if i.is_multiple_of(2) => Vec::new(),
        _ => chosen,
    };
    picked.iter().map(|o| o["id"].clone()).collect()
}

#[test]
fn covid_fact_from_the_recipe_to_gold_with_its_figures_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (set, claims, few) = super::first_claims(dir.path(), 24);
    let text_of: BTreeMap<&str, &str> = claims
        .iter()
        .filter_map(|c| Some((c["id"].as_str()?, c["claim"].as_str()?)))
        .collect();
    let gold: BTreeMap<String, BTreeSet<String>> = read_jsonl(&set.join("gold.jsonl"))
        .into_iter()
        .filter_map(|g| {
            let claim = text_of.get(g["claim"].as_str()?)?;
            let evidence = g["evidence"].as_array()?.iter();
            Some((
                claim.to_string(),
                evidence
                    .filter_map(|e| e.as_str().map(str::to_string))
                    .collect(),
            ))
        })
        .collect();

    let p = init(dir.path(), "covid-fact");
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["evidence_stance"], "supports");
    assert_eq!(settings["overlap"], 3);
    ok([
        "import",
        &s(&p),
        &s(&few),
        "--docs",
        &s(&set.join("documents.jsonl")),
    ]);
    add(&p, &["ana", "ben", "cy", "dee", "eve", "fay"]);
    ok(["tasks", &s(&p), "--kind", "evidence", "--overlap", "3"]);
    ok([
        "study",
        &s(&p),
        "--kind",
        "evidence",
        "--sample",
        "6",
        "--group",
        "dee,eve,fay",
        "--seed",
        "3",
    ]);

    // Per claim: its candidates (the trick is never a unit) and each person's selection.
    let mut candidates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut selected: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for who in ["ana", "ben", "cy", "dee", "eve", "fay"] {
        let mut i = 0;
        let answered = answer_all(&p, who, "evidence", |item| {
            let claim = item["claim"].as_str().unwrap_or_default().to_string();
            i += 1;
            json!({"evidence": covid_choice(who, i, item, &gold[&claim])})
        });
        for (item, answers) in answered {
            let claim = item["claim"].as_str().unwrap_or_default().to_string();
            let text = |id: &Value| {
                item["options"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|o| &o["id"] == id)
                    .and_then(|o| o["text"].as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            let shown = item["options"].as_array().into_iter().flatten();
            candidates.entry(claim.clone()).or_default().extend(
                shown
                    .filter_map(|o| o["text"].as_str())
                    .filter(|t| !t.starts_with("It is not true that"))
                    .map(str::to_string),
            );
            let chosen = answers["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .map(text);
            selected
                .entry(claim)
                .or_default()
                .insert(who.to_string(), chosen.collect());
        }
    }
    assert_eq!(selected.len(), 24);
    let group_b: BTreeSet<&String> = selected
        .iter()
        .filter(|(_, by)| by.contains_key("dee"))
        .map(|(c, _)| c)
        .collect();
    assert_eq!(group_b.len(), 6, "the study's sample");

    // Fleiss' kappa per candidate sentence, over every counted answer.
    let rating =
        |set: &BTreeSet<String>, c: &String| if set.contains(c) { "1" } else { "0" }.to_string();
    let mut units = Vec::new();
    for (claim, by) in &selected {
        for c in &candidates[claim] {
            units.push(by.values().map(|set| rating(set, c)).collect::<Vec<_>>());
        }
    }
    let report = json_of(&["agreement", &s(&p), "--kind", "evidence", "--json"]);
    close(
        fleiss(&units),
        metric(&report, "setsel_pooled_fleiss_kappa"),
        "Fleiss' kappa",
    );

    // Cohen's kappa between the groups' majority votes on the sampled claims.
    let majority = |by: &BTreeMap<String, BTreeSet<String>>, names: &[&str], c: &String| {
        let votes: Vec<String> = names.iter().map(|n| rating(&by[*n], c)).collect();
        strict_majority(&votes).unwrap_or_default()
    };
    let mut pairs = Vec::new();
    for claim in &group_b {
        let by = &selected[*claim];
        for c in &candidates[*claim] {
            pairs.push((
                majority(by, &["ana", "ben", "cy"], c),
                majority(by, &["dee", "eve", "fay"], c),
            ));
        }
    }
    let study = &report["studies"][0];
    assert_eq!(study["majority_units"], pairs.len());
    let theirs = study["majority_kappa"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    close(cohen(&pairs), theirs, "the groups' Cohen's kappa");

    // Each gold line's evidence: the first group's strict majority per candidate.
    let lines = export(dir.path(), &p, "covid-fact");
    assert!(lines.len() >= 20, "{} lines", lines.len());
    for line in lines {
        let claim = line["claim"].as_str().unwrap_or_default().to_string();
        let by = &selected[&claim];
        let expected: BTreeSet<String> = candidates[&claim]
            .iter()
            .filter(|c| majority(by, &["ana", "ben", "cy"], c) == "1")
            .cloned()
            .collect();
        let exported: BTreeSet<String> = line["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["text"].as_str().map(str::to_string))
            .collect();
        assert_eq!(exported, expected, "{claim}");
    }
}
