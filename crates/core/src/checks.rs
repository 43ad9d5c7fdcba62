//! Live checks on a written refutation, run on every keystroke.
//!
//! A refutation must be definitely false if the original is true, keep its subject and
//! topic, and stay within a couple of words of its length. These checks catch the
//! mechanical failures (empty, unchanged, a bare "not" inserted, subject swapped, length
//! drift); whether the new claim really contradicts the old is for the verifiers.

use crate::text::{normalize_token, tokens};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Empty,
    Identical,
    Length,
    NegationOnly,
    Subject,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    pub kind: CheckKind,
    pub passed: bool,
    /// Why it fails, or what was checked.
    pub message: String,
}

/// Which checks run; the lead can relax each in the project settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckSettings {
    pub empty: bool,
    pub identical: bool,
    pub length: bool,
    pub negation_only: bool,
    pub subject: bool,
    pub max_length_difference: usize,
}

impl Default for CheckSettings {
    fn default() -> CheckSettings {
        CheckSettings {
            empty: true,
            identical: true,
            length: true,
            negation_only: true,
            subject: true,
            max_length_difference: 2,
        }
    }
}

/// Words that only negate. Removing them from both claims shows whether the edit was a
/// negation and nothing else.
const NEGATIONS: &[&str] = &[
    "false", "neither", "never", "no", "nobody", "none", "nor", "not", "nothing", "without",
];

/// Words skipped when looking for the subject: determiners and auxiliaries.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "are", "be", "been", "can", "could", "did", "do", "does", "had", "has", "have",
    "in", "is", "it", "its", "may", "might", "must", "of", "on", "should", "that", "the", "these",
    "this", "those", "was", "were", "will", "would",
];

fn words(text: &str) -> Vec<String> {
    tokens(text)
        .iter()
        .map(|t| normalize_token(t.text))
        .collect()
}

/// A word with its negation taken out: "isn't" -> "is", "cannot" -> "can", "won't" ->
/// "will"; `None` for a word that only negates.
fn without_negation(word: &str) -> Option<String> {
    if NEGATIONS.binary_search(&word).is_ok() {
        return None;
    }
    match word {
        "cannot" | "can't" => return Some("can".into()),
        "won't" => return Some("will".into()),
        "shan't" => return Some("shall".into()),
        _ => {}
    }
    Some(word.strip_suffix("n't").unwrap_or(word).to_string())
}

/// Auxiliaries, which usually end the subject ("The new vaccine | is effective").
const AUXILIARIES: &[&str] = &[
    "are", "be", "been", "can", "could", "did", "do", "does", "had", "has", "have", "is", "may",
    "might", "must", "should", "was", "were", "will", "would",
];

/// The original's subject, as well as can be told without a parser: its content words
/// before an auxiliary among the first words ("The new vaccine is ..." -> new, vaccine),
/// or else its first content word ("Hydroxychloroquine fails ..." -> hydroxychloroquine).
fn subject_words(original: &[String]) -> Vec<&str> {
    let content =
        |w: &&str| FUNCTION_WORDS.binary_search(w).is_err() && NEGATIONS.binary_search(w).is_err();
    let aux = original
        .iter()
        .take(5)
        .position(|w| AUXILIARIES.binary_search(&w.as_str()).is_ok());
    let words = original.iter().map(String::as_str);
    match aux {
        Some(end) if end > 0 => words.take(end).filter(content).collect(),
        _ => words.filter(content).take(1).collect(),
    }
}

/// A crude stem: enough to equate "fails" and "fail", "prevents" and "prevent".
fn stem(w: &str) -> &str {
    match w.strip_suffix('s') {
        Some(base) if base.len() >= 3 && !base.ends_with('s') => base,
        _ => w,
    }
}

fn same_word(a: &str, b: &str) -> bool {
    a == b || a.strip_suffix('s') == Some(b) || b.strip_suffix('s') == Some(a)
}

/// Runs the enabled checks, in a fixed order, on a refutation `written` of `original`.
pub fn check_refutation(
    original: &str,
    written: &str,
    settings: &CheckSettings,
) -> Vec<CheckResult> {
    let (orig, new) = (words(original), words(written));
    let mut out = Vec::new();
    let mut push = |kind, passed, message: String| {
        out.push(CheckResult {
            kind,
            passed,
            message,
        })
    };
    if settings.empty {
        push(
            CheckKind::Empty,
            !new.is_empty(),
            if new.is_empty() {
                "Write a claim.".into()
            } else {
                "Not empty.".into()
            },
        );
    }
    if settings.identical {
        let same = !new.is_empty() && new == orig;
        push(
            CheckKind::Identical,
            !same,
            if same {
                "This is the original claim; change a fact in it.".into()
            } else {
                "Differs from the original.".into()
            },
        );
    }
    if settings.length {
        let diff = new.len().abs_diff(orig.len());
        let ok = diff <= settings.max_length_difference;
        push(
            CheckKind::Length,
            ok,
            format!(
                "{} words; the original has {}{}",
                new.len(),
                orig.len(),
                if ok {
                    String::new()
                } else {
                    format!(": stay within {}", settings.max_length_difference)
                }
            ),
        );
    }
    if settings.negation_only {
        // "fails" -> "does not fail": the auxiliary and the verb's ending go with the
        // negation, so compare without do-support and with a crude stem.
        let strip = |ws: &[String]| {
            ws.iter()
                .filter_map(|w| without_negation(w))
                .filter(|w| !matches!(w.as_str(), "do" | "does" | "did"))
                .map(|w| stem(&w).to_string())
                .collect::<Vec<_>>()
        };
        let only = !new.is_empty() && new != orig && strip(&new) == strip(&orig);
        push(
            CheckKind::NegationOnly,
            !only,
            if only {
                "Only a negation was added or removed; change the facts instead (a number, a name, a place).".into()
            } else {
                "More than a negation changed.".into()
            },
        );
    }
    if settings.subject {
        let subject = subject_words(&orig);
        let kept =
            subject.is_empty() || subject.iter().any(|s| new.iter().any(|w| same_word(w, s)));
        push(
            CheckKind::Subject,
            kept,
            if kept {
                format!("Keeps the subject ({}).", subject.join(" "))
            } else {
                format!(
                    "Keep the subject: the claim should still be about \"{}\".",
                    subject.join(" ")
                )
            },
        );
    }
    out
}

/// The first failing check, which blocks submitting.
pub fn blocking(results: &[CheckResult]) -> Option<&CheckResult> {
    results.iter().find(|r| !r.passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str = "Hydroxychloroquine fails to prevent covid-19";

    fn failing(written: &str) -> Vec<CheckKind> {
        check_refutation(ORIGINAL, written, &CheckSettings::default())
            .into_iter()
            .filter(|r| !r.passed)
            .map(|r| r.kind)
            .collect()
    }

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        assert!(NEGATIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(FUNCTION_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(AUXILIARIES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_real_refutation_passes() {
        assert!(failing("Hydroxychloroquine succeeds in preventing covid-19").is_empty());
    }

    #[test]
    fn each_failure_is_caught() {
        assert_eq!(
            failing("Hydroxychloroquine does not fail to prevent covid-19"),
            vec![CheckKind::NegationOnly]
        );
        assert_eq!(
            failing("Remdesivir fails to prevent covid-19"),
            vec![CheckKind::Subject]
        );
        assert!(failing("").contains(&CheckKind::Empty));
        assert!(failing("hydroxychloroquine fails to prevent COVID-19!")
            .contains(&CheckKind::Identical));
        let long = "Hydroxychloroquine taken daily for many weeks by healthy adults fails to prevent covid-19 infection in every single trial";
        assert_eq!(failing(long), vec![CheckKind::Length]);
    }

    #[test]
    fn the_subject_ends_at_an_auxiliary() {
        let orig = words("The new vaccine is effective against the variant");
        assert_eq!(subject_words(&orig), vec!["new", "vaccine"]);
        let r = check_refutation(
            "The new vaccine is effective",
            "The old drug is effective",
            &CheckSettings::default(),
        );
        assert_eq!(blocking(&r).map(|r| r.kind), Some(CheckKind::Subject));
    }

    #[test]
    fn contractions_count_as_negation() {
        let r = check_refutation(
            "The vaccine is effective",
            "The vaccine isn't effective",
            &CheckSettings::default(),
        );
        assert_eq!(blocking(&r).map(|r| r.kind), Some(CheckKind::NegationOnly));
        let r = check_refutation(
            "The vaccine is effective",
            "The vaccine is ineffective",
            &CheckSettings::default(),
        );
        assert_eq!(blocking(&r), None);
    }

    #[test]
    fn disabled_checks_are_not_run() {
        let settings = CheckSettings {
            negation_only: false,
            subject: false,
            ..CheckSettings::default()
        };
        let r = check_refutation(
            ORIGINAL,
            "Hydroxychloroquine does not fail to prevent covid-19",
            &settings,
        );
        assert_eq!(r.len(), 3);
        assert_eq!(blocking(&r), None);
    }
}
