//! wikifactcheck: refutations written and reviewed, then verified.

use super::{add, answer_all, close, export, fleiss, init, json_of, metric, s, strict_majority};
use crate::{data, ok};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// The claim with its first digit changed: false if the original is true, the same
/// subject and length, so it passes the writing checks.
fn with_a_digit_changed(claim: &str) -> Option<String> {
    let at = claim.find(|c: char| c.is_ascii_digit())?;
    let digit = claim[at..].chars().next()?.to_digit(10)?;
    let other = char::from_digit((digit + 3) % 10, 10)?;
    Some(format!("{}{other}{}", &claim[..at], &claim[at + 1..]))
}

/// One verifier's verdict on their `i`th item, with slips on some.
fn verdict(who: &str, i: usize) -> &'static str {
    match who {
        "cy" if i.is_multiple_of(3) => "does_not_contradict",
        "dee" if i.is_multiple_of(4) => "malformed",
        _ => "contradicts",
    }
}

#[test]
fn wikifactcheck_from_the_recipe_to_gold_with_its_figures_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Twelve claims of at most 14 words holding a digit, with their context and the
    // dataset's refuted claim, in the dev split's own TSV form.
    let text = std::fs::read_to_string(data("wikifactcheck_dev.tsv")).unwrap_or_default();
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default();
    let columns: Vec<&str> = header.split('\t').collect();
    let claim_at = columns.iter().position(|c| *c == "claim").unwrap_or(0);
    let kept: Vec<&str> = lines
        .filter(|l| {
            let claim = l.split('\t').nth(claim_at).unwrap_or_default();
            claim.split_whitespace().count() <= 14 && claim.chars().any(|c| c.is_ascii_digit())
        })
        .take(12)
        .collect();
    assert_eq!(kept.len(), 12);
    let tsv = dir.path().join("wfc.tsv");
    std::fs::write(&tsv, format!("{header}\n{}\n", kept.join("\n")))
        .unwrap_or_else(|e| panic!("{e}"));

    let p = init(dir.path(), "wikifactcheck");
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["refute_max_tokens"], 15);
    assert!(settings["guidelines"]["refute"]
        .as_str()
        .unwrap_or_default()
        .contains("Do not only add"));
    ok(["import", &s(&p), &s(&tsv), "--preset", "wikifactcheck"]);
    add(&p, &["ana", "ben", "cy", "dee"]);

    // ana writes a refutation of each claim; the lead reviews a new writer's first ones,
    // and accepting them qualifies her for the rest.
    ok(["tasks", &s(&p), "--kind", "refute", "--overlap", "1"]);
    let mut written = 0;
    loop {
        let round = answer_all(&p, "ana", "refute", |item| {
            assert_eq!(item["questions"][0]["id"], "refutation");
            let claim = item["claim"].as_str().unwrap_or_default();
            json!({"refutation": with_a_digit_changed(claim)})
        });
        written += round.len();
        let pending = json_of(&["review", &s(&p), "--json"]);
        let ids: Vec<String> = pending
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["annotation_id"].as_i64().map(|i| i.to_string()))
            .collect();
        if round.is_empty() && ids.is_empty() {
            break;
        }
        for id in ids {
            ok(["review", &s(&p), "--accept", &id]);
        }
    }
    assert_eq!(written, 12);

    // Three verify every refutation: the 12 written and the 12 imported.
    ok(["tasks", &s(&p), "--kind", "verify", "--overlap", "3"]);
    let mut verdicts: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    for who in ["ben", "cy", "dee"] {
        let mut i = 0;
        for (item, answers) in answer_all(&p, who, "verify", |item| {
            assert_eq!(item["shows"], "pair");
            i += 1;
            json!({"verdict": verdict(who, i)})
        }) {
            let pair = (
                item["claim"].as_str().unwrap_or_default().to_string(),
                item["counter_claim"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
            let given = answers["verdict"].as_str().unwrap_or_default().to_string();
            verdicts
                .entry(pair)
                .or_default()
                .insert(who.to_string(), given);
        }
    }
    assert_eq!(verdicts.len(), 24);
    let units: Vec<Vec<String>> = verdicts
        .values()
        .map(|by| by.values().cloned().collect())
        .collect();
    let report = json_of(&["agreement", &s(&p), "--kind", "verify", "--json"]);
    let kappa = fleiss(&units);
    assert!(kappa.is_finite() && kappa < 1.0, "{kappa}");
    close(kappa, metric(&report, "fleiss_kappa"), "Fleiss' kappa");

    // A refutation is a REFUTED line when a strict majority says it contradicts.
    let expected: BTreeSet<String> = verdicts
        .iter()
        .filter(|(_, by)| {
            strict_majority(&by.values().cloned().collect::<Vec<_>>()).as_deref()
                == Some("contradicts")
        })
        .map(|((_, refutation), _)| refutation.clone())
        .collect();
    let lines = export(dir.path(), &p, "wikifactcheck");
    let exported: BTreeSet<String> = lines
        .iter()
        .filter(|l| !l["parent_id"].is_null())
        .filter_map(|l| {
            assert_eq!(l["label"], "REFUTED", "{l}");
            l["claim"].as_str().map(str::to_string)
        })
        .collect();
    assert!(!expected.is_empty() && expected.len() < 24, "{expected:?}");
    assert_eq!(exported, expected);
}
