//! covid-fact's salient words: 3 annotators mark the words of each claim a counter-claim
//! would replace; agreement per word and each claim's gold words, computed again here.

use super::{add, answer_all, close, fleiss, init, json_of, read_jsonl, s};
use crate::ok;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The words of `text` as character offsets, as docs/designs.md defines them: letters and
/// digits, an apostrophe or hyphen between two of them joining a word, a period or comma
/// between two digits joining a number (COVID-Fact's claims hold "SARS-CoV-2", "COVID-19").
fn words(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let word = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric());
    let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !word(i) {
            i += 1;
            continue;
        }
        let start = i;
        loop {
            while word(i) {
                i += 1;
            }
            let joins = match chars.get(i) {
                Some('\'' | '\u{2019}' | '-' | '\u{2010}' | '\u{2011}') => word(i + 1),
                Some('.' | ',') => digit(i - 1) && digit(i + 1),
                _ => false,
            };
            if !joins {
                break;
            }
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// Which words an annotator marks: those with a capital or a digit, and words longer than
/// 8 letters; ben skips the first such word, cy also marks the claim's last word.
fn marked(who: &str, text: &str) -> Vec<bool> {
    let chars: Vec<char> = text.chars().collect();
    let ws = words(text);
    let mut out: Vec<bool> = ws
        .iter()
        .map(|&(a, b)| {
            let w: String = chars[a..b].iter().collect();
            w.chars().any(|c| c.is_uppercase() || c.is_ascii_digit()) || w.chars().count() > 8
        })
        .collect();
    match who {
        "ben" => {
            if let Some(first) = out.iter().position(|&m| m) {
                out[first] = false;
            }
        }
        "cy" => {
            if let Some(last) = out.last_mut() {
                *last = true;
            }
        }
        _ => {}
    }
    out
}

/// Marked words as spans, each word its own span (Factdesk joins touching ones).
fn spans(text: &str, marks: &[bool]) -> Value {
    let ws = words(text);
    let list: Vec<Value> = ws
        .iter()
        .zip(marks)
        .filter(|(_, &m)| m)
        .map(|(&(a, b), _)| json!([a, b]))
        .collect();
    json!({ "spans": list })
}

#[test]
fn covid_fact_salient_words_with_agreement_per_word_and_gold_computed_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (set, _, few) = super::first_claims(dir.path(), 20);
    let p = init(dir.path(), "covid-fact");
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["design"]["questions"][0]["type"], "span");
    ok([
        "import",
        &s(&p),
        &s(&few),
        "--docs",
        &s(&set.join("documents.jsonl")),
    ]);
    add(&p, &["ana", "ben", "cy"]);
    ok(["tasks", &s(&p), "--kind", "design", "--overlap", "3"]);

    let mut marks: BTreeMap<String, BTreeMap<&str, Vec<bool>>> = BTreeMap::new();
    for who in ["ana", "ben", "cy"] {
        let done = answer_all(&p, who, "design", |item| {
            assert_eq!(item["shows"], "claim");
            let text = item["claim"].as_str().unwrap_or_default();
            json!({"salient": spans(text, &marked(who, text))})
        });
        assert_eq!(done.len(), 20, "{who}");
        for (item, _) in done {
            let text = item["claim"].as_str().unwrap_or_default().to_string();
            let m = marked(who, &text);
            marks.entry(text).or_default().insert(who, m);
        }
    }

    // Fleiss' kappa with each word of each claim a unit, marked or not.
    let mut units = Vec::new();
    for by in marks.values() {
        let n = by["ana"].len();
        for w in 0..n {
            units.push(
                by.values()
                    .map(|m| if m[w] { "marked" } else { "unmarked" }.to_string())
                    .collect::<Vec<_>>(),
            );
        }
    }
    let agreement = super::design_agreement(&p);
    let q = &agreement["questions"][0];
    assert_eq!(
        (q["question"].as_str(), q["unit"].as_str()),
        (Some("salient"), Some("token"))
    );
    assert_eq!(q["report"]["units"], units.len());
    close(
        fleiss(&units),
        q["report"]["metrics"]["fleiss_kappa"]["value"]
            .as_f64()
            .unwrap_or(f64::NAN),
        "Fleiss' kappa per word",
    );

    // The claims' own gold file names the design whose gold it does not hold.
    let lines = super::export(dir.path(), &p, "covid-fact");
    assert!(lines.is_empty(), "no evidence or label answers yet");
    let card = std::fs::read_to_string(dir.path().join("gold.card.md")).unwrap_or_default();
    assert!(
        card.contains("also declares the design `salient-words`"),
        "{card}"
    );

    // Each claim's gold: the words at least 2 of 3 marked, touching ones joined.
    let out = dir.path().join("salient.jsonl");
    ok(["export", &s(&p), "--design", "--out", &s(&out)]);
    let gold = read_jsonl(&out);
    assert_eq!(gold.len(), 20);
    for line in gold {
        let text = line["text_a"].as_str().unwrap_or_default();
        let by = &marks[text];
        let ws = words(text);
        let mut want: Vec<Value> = Vec::new();
        let mut run: Option<(usize, usize)> = None;
        for (w, &(a, b)) in ws.iter().enumerate() {
            let votes = by.values().filter(|m| m[w]).count();
            run = match (votes >= 2, run) {
                (true, Some((s, _))) => Some((s, b)),
                (true, None) => Some((a, b)),
                (false, Some((s, e))) => {
                    want.push(json!([s, e]));
                    None
                }
                (false, None) => None,
            };
        }
        if let Some((s, e)) = run {
            want.push(json!([s, e]));
        }
        assert_eq!(
            line["answers"]["salient"]["value"]["spans"],
            json!(want),
            "{line}"
        );
    }
}
