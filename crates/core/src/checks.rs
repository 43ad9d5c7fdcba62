//! Live checks on a written refutation, run as the annotator types.
//!
//! In refutation writing (DESIGN.md, task kind 2) an annotator rewrites a short claim into
//! one that is definitely false if the original is true, with the same subject and topic
//! and about the same length. These checks catch the mechanical failures before the
//! annotator submits: nothing written, the original retyped, the length drifting, a bare
//! negation inserted, the subject swapped. Whether the new claim really contradicts the
//! old one is for the verifiers (task kind 3).
//!
//! The UI calls [`check_refutation`] over IPC on every keystroke, so each check is a pass
//! or two over a few dozen words and the whole call takes microseconds. All word handling
//! goes through the shared tokenizer in [`crate::text`]; the length rule counts words as
//! the 15-token limit does ([`crate::text::token_count`]: whitespace-separated, as
//! WikiFactCheck-English counted), so a claim that may be refuted and its refutation are
//! measured alike.

mod negation;
mod subject;

use crate::text::{normalize_token, token_count, tokens};
use serde::{Deserialize, Serialize};

/// A live check; results are always reported in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Empty,
    Identical,
    Length,
    NegationOnly,
    Subject,
}

/// The outcome of one check on the current text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    pub kind: CheckKind,
    pub passed: bool,
    /// Human-readable: why it fails, or what it checked.
    pub message: String,
}

/// Which checks run, so a project can relax them. Missing JSON fields take the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct CheckSettings {
    pub empty: bool,
    pub identical: bool,
    pub length: bool,
    pub negation_only: bool,
    pub subject: bool,
    /// The most the written claim's token count may differ from the original's.
    pub max_length_difference: usize,
}

impl Default for CheckSettings {
    fn default() -> Self {
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

/// Whether a normalised token (see [`normalize_token`]) negates: a cue such as "not",
/// "never" or "without", or a negative contraction such as "isn't". The agreement report
/// counts these, since a negation-heavy refuted class is an artefact models exploit.
pub fn is_negation_cue(word: &str) -> bool {
    negation::negates(word)
}

/// A claim's tokens as typed (for messages) and normalised (for comparing), and its
/// length as the refutation rules count it.
struct Words<'a> {
    raw: Vec<&'a str>,
    norm: Vec<String>,
    length: usize,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Self {
        let raw: Vec<&str> = tokens(text).iter().map(|t| t.text).collect();
        let norm = raw.iter().map(|t| normalize_token(t)).collect();
        Words {
            raw,
            norm,
            length: token_count(text),
        }
    }
}

/// A claim's words as the [`CheckKind::Identical`] check compares them (case, spacing and
/// punctuation aside), joined by single spaces: two claims with the same key say the same.
/// What a reader cannot see (zero-width characters, look-alike letters, full-width
/// digits) is folded away first.
pub fn same_words_key(text: &str) -> String {
    Words::new(&crate::text::as_seen(text)).norm.join(" ")
}

/// Runs every enabled check on `written`, a refutation of `original`: one result per
/// enabled check, in [`CheckKind`] order.
pub fn check_refutation(
    original: &str,
    written: &str,
    settings: &CheckSettings,
) -> Vec<CheckResult> {
    // The empty and identical checks read text as a reader sees it: a zero-width space or
    // a look-alike letter changes nothing. The others read the words as written.
    let (original_seen, written_seen) = (
        crate::text::as_seen(original),
        crate::text::as_seen(written),
    );
    let seen = (Words::new(&original_seen), Words::new(&written_seen));
    let original = Words::new(original);
    let written = Words::new(written);
    let mut out = Vec::with_capacity(5);
    if settings.empty {
        out.push(check_empty(&seen.1));
    }
    if settings.identical {
        out.push(check_identical(&seen.0, &seen.1));
    }
    if settings.length {
        out.push(check_length(
            &original,
            &written,
            settings.max_length_difference,
        ));
    }
    if settings.negation_only {
        out.push(check_negation_only(&original, &written));
    }
    if settings.subject {
        out.push(check_subject(&original, &written));
    }
    out
}

/// The first failing check: the one the UI shows and that blocks submitting.
pub fn blocking(results: &[CheckResult]) -> Option<&CheckResult> {
    results.iter().find(|r| !r.passed)
}

fn result(kind: CheckKind, passed: bool, message: String) -> CheckResult {
    CheckResult {
        kind,
        passed,
        message,
    }
}

fn count_words(n: usize) -> String {
    if n == 1 {
        "1 word".to_string()
    } else {
        format!("{n} words")
    }
}

fn check_empty(written: &Words) -> CheckResult {
    let n = written.norm.len();
    if n == 0 {
        result(CheckKind::Empty, false, "Write a claim".to_string())
    } else {
        result(
            CheckKind::Empty,
            true,
            format!("{} written", count_words(n)),
        )
    }
}

fn check_identical(original: &Words, written: &Words) -> CheckResult {
    // An empty claim is not a copy; the Empty check reports it.
    if !written.norm.is_empty() && written.norm == original.norm {
        result(
            CheckKind::Identical,
            false,
            "Same words as the original; change the facts, not just case or punctuation"
                .to_string(),
        )
    } else {
        result(
            CheckKind::Identical,
            true,
            "Differs from the original".to_string(),
        )
    }
}

fn check_length(original: &Words, written: &Words, max_difference: usize) -> CheckResult {
    let (n, m) = (written.length, original.length);
    let passed = n.abs_diff(m) <= max_difference;
    let message = if passed {
        format!(
            "{}; the original has {m} (within {max_difference})",
            count_words(n)
        )
    } else {
        format!(
            "{}; the original has {m}: stay within {max_difference}",
            count_words(n)
        )
    };
    result(CheckKind::Length, passed, message)
}

fn check_negation_only(original: &Words, written: &Words) -> CheckResult {
    // Nothing written, or the original's words: no change yet, so not "more than a
    // negation" either (a tick there contradicted the identical check, issue 36).
    if written.norm.is_empty() || written.norm == original.norm {
        return result(
            CheckKind::NegationOnly,
            false,
            "Nothing changed yet; change the facts (e.g. a number, a name, a place)".to_string(),
        );
    }
    let edit = negation::negation_edit(&original.norm, &written.norm);
    let what = match edit {
        None => {
            return result(
                CheckKind::NegationOnly,
                true,
                "More than a negation changed".to_string(),
            )
        }
        Some(negation::NegationEdit::Added) => "Only a negation was added",
        Some(negation::NegationEdit::Removed) => "Only a negation was removed",
        Some(negation::NegationEdit::Changed) => "Only the negation changed",
    };
    result(
        CheckKind::NegationOnly,
        false,
        format!("{what}; change the facts instead (e.g. a number, a name, a place)"),
    )
}

fn check_subject(original: &Words, written: &Words) -> CheckResult {
    let subject = subject::subject_words(&original.norm);
    if subject.is_empty() {
        return result(
            CheckKind::Subject,
            true,
            "No subject words found in the original; nothing to check".to_string(),
        );
    }
    let quoted = |sep: &str| {
        subject
            .iter()
            .map(|&i| format!("\"{}\"", original.raw[i]))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let kept = subject
        .iter()
        .any(|&i| subject::mentions(&written.norm, &original.norm[i]));
    if kept {
        result(
            CheckKind::Subject,
            true,
            format!("Keeps the subject ({})", quoted(", ")),
        )
    } else {
        result(
            CheckKind::Subject,
            false,
            format!(
                "The subject is missing: keep {} from the original",
                quoted(" or ")
            ),
        )
    }
}

#[cfg(test)]
mod length_tests;
#[cfg(test)]
mod tests;
