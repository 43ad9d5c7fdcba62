//! The negation-only check on COVID-Fact's own refutations: they were written by changing
//! a word, so nearly all must pass, while the same claims with only "not" inserted fail.

use factdesk_core::checks::{check_refutation, is_negation_cue, CheckKind, CheckSettings};
use factdesk_core::trick::content_words;
use std::collections::HashMap;
use std::path::Path;

#[derive(serde::Deserialize)]
struct Row {
    claim: String,
    label: String,
    evidence: Vec<String>,
}

fn negation_only_fails(original: &str, written: &str) -> bool {
    check_refutation(original, written, &CheckSettings::default())
        .iter()
        .any(|r| r.kind == CheckKind::NegationOnly && !r.passed)
}

/// (supported claim, refuted claim) pairs: same evidence, most shared content words.
fn pairs() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/covidfact.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("COVID-Fact data missing at {}: {e}", path.display()));
    let rows: Vec<Row> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let mut supported: HashMap<&[String], Vec<&str>> = HashMap::new();
    for r in rows.iter().filter(|r| r.label == "SUPPORTED") {
        supported.entry(&r.evidence).or_default().push(&r.claim);
    }
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| r.label == "REFUTED") {
        let words = content_words(&r.claim);
        let best = supported.get(r.evidence.as_slice()).and_then(|c| {
            c.iter()
                .max_by_key(|s| content_words(s).intersection(&words).count())
        });
        if let Some(s) = best {
            out.push((s.to_string(), r.claim.clone()));
        }
    }
    out
}

#[test]
fn covid_fact_refutations_pass_and_their_negations_fail() {
    let pairs = pairs();
    assert!(pairs.len() > 1000, "only {} pairs", pairs.len());
    let refused: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(s, r)| negation_only_fails(s, r))
        .collect();
    // Those refused are negation-only in the data too ("can" -> "cannot").
    let cues = |t: &str| {
        factdesk_core::text::tokens(t)
            .iter()
            .filter(|w| is_negation_cue(&factdesk_core::text::normalize_token(w.text)))
            .count()
    };
    for (s, r) in &refused {
        assert_ne!(cues(s), cues(r), "{s} -> {r}");
    }
    // COVID-Fact's generated counter-claims include negation swaps that also drop a
    // modifier ("exhibits potent activity" -> "exhibits no activity", "could help fight"
    // -> "could not fight"): about 6% of pairs, each changing the number of negations
    // (checked above). A real substitution is never refused.
    assert!(
        refused.len() * 100 <= pairs.len() * 7,
        "{} of {} real refutations refused",
        refused.len(),
        pairs.len()
    );
    // The same claims negated with an auxiliary, as a writer in a hurry would.
    let negated = pairs
        .iter()
        .filter(|(s, _)| {
            let words: Vec<&str> = s.split_whitespace().collect();
            let written = format!("{} are not {}", words[..2].join(" "), words[2..].join(" "));
            words.len() > 3 && negation_only_fails(s, &written)
        })
        .count();
    assert!(
        negated * 100 >= pairs.len() * 95,
        "only {negated} of {} auxiliary negations refused",
        pairs.len()
    );
}
