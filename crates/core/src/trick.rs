//! The trick sentence shown among a claim's candidates to catch careless work.
//!
//! A trick is only fair when it is wrong under the guideline the annotator is given and
//! looks like the sentences around it. Under a *supports* guideline the negation of the
//! claim is wrong (it refutes); under *supports or refutes* it would be right, so there the
//! trick is a real sentence about something else: one that shares no content word with
//! the claim and has nothing the claim-word highlighting would mark.

use crate::highlight::{highlight, HighlightOptions};
use crate::stopwords::is_stopword;
use crate::text;
use std::collections::HashSet;

/// The negation trick for `claim`: `template` with `{claim}` replaced, written like a
/// sentence of a document (first letter upper-case, a final full stop when the claim has
/// no final punctuation, single spaces), so its form tells nothing. Inside the template the
/// claim's first letter is lower-cased unless its first word looks like a name.
pub fn negation(template: &str, claim: &str) -> String {
    let claim = claim.split_whitespace().collect::<Vec<_>>().join(" ");
    let inner = if starts_with_name(&claim) {
        claim
    } else {
        let mut chars = claim.chars();
        match chars.next() {
            Some(first) => first.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    };
    let text = template.replace("{claim}", &inner);
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return text;
    }
    let mut chars = text.chars();
    if let Some(first) = chars.next() {
        text = first.to_uppercase().chain(chars).collect();
    }
    if !ends_a_sentence(&text) {
        // A claim written as a headline ends without a full stop; sentences of documents do not.
        text = text.trim_end_matches([',', ';', ':', '-']).to_string();
        text.push('.');
    }
    text
}

/// Whether `text` ends as a sentence does: `.`, `!`, `?` or `…`, possibly inside closing
/// quotes or brackets.
fn ends_a_sentence(text: &str) -> bool {
    text.trim_end_matches(['"', '\'', '\u{201D}', '\u{2019}', ')', ']'])
        .ends_with(['.', '!', '?', '\u{2026}'])
}

/// Whether the claim's first word should keep its capital: an acronym or a word with
/// digits or inner capitals ("COVID-19", "iPhone"), the start of a run of capitalised
/// words ("Velmont Cycle Share"), or a word the claim capitalises again later. Without a
/// lexicon a lone name such as "Pfizer" followed by lower-case words is lower-cased.
fn starts_with_name(claim: &str) -> bool {
    let mut words = claim.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let first = first.trim_matches(|c: char| !c.is_alphanumeric());
    let mut letters = first.chars();
    if !letters.next().is_some_and(char::is_uppercase) {
        return false;
    }
    if letters.any(|c| c.is_uppercase() || c.is_ascii_digit()) {
        return true;
    }
    let rest: Vec<&str> = words
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let capitalised = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    rest.first().is_some_and(capitalised) || rest.contains(&first)
}

/// The content words of `text`: normalised tokens that are not stop words.
pub fn content_words(text: &str) -> HashSet<String> {
    text::tokens(text)
        .into_iter()
        .map(|t| text::normalize_token(t.text))
        .filter(|w| !is_stopword(w))
        .collect()
}

/// Whether `sentence` can stand as a trick for `claim` under a *supports or refutes*
/// guideline: it has at least one content word, shares none with the claim, and has no
/// word the claim-word highlighting would mark (which also rules out inflections such as
/// "vaccine" for "vaccines").
pub fn unrelated(sentence: &str, claim: &str) -> bool {
    let words = content_words(sentence);
    if words.is_empty() {
        return false;
    }
    let claim_words = content_words(claim);
    words.is_disjoint(&claim_words)
        && highlight(sentence, claim, &HighlightOptions::default()).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "It is not true that {claim}";

    #[test]
    fn the_negation_is_written_like_a_sentence() {
        assert_eq!(
            negation(T, "Vaccines reduce deaths."),
            "It is not true that vaccines reduce deaths."
        );
        // A headline claim gets the full stop every document sentence has.
        assert_eq!(
            negation(T, "Fewer coronavirus deaths seen in countries that mandate tuberculosis vaccine"),
            "It is not true that fewer coronavirus deaths seen in countries that mandate tuberculosis vaccine."
        );
        assert_eq!(
            negation(T, "Is it  safe?"),
            "It is not true that is it safe?"
        );
        assert_eq!(
            negation("{claim}, they say", "masks work"),
            "Masks work, they say."
        );
        assert_eq!(
            negation(T, "\"Masks work.\""),
            "It is not true that \"Masks work.\""
        );
    }

    #[test]
    fn the_negation_keeps_names_and_acronyms() {
        let cases = [
            (
                "Velmont Cycle Share lost bikes.",
                "Velmont Cycle Share lost bikes.",
            ),
            (
                "COVID-19 spreads in the air.",
                "COVID-19 spreads in the air.",
            ),
            ("Paris says Paris is safe.", "Paris says Paris is safe."),
            ("The mayor resigned.", "the mayor resigned."),
        ];
        for (claim, inside) in cases {
            assert_eq!(negation(T, claim), format!("It is not true that {inside}"));
        }
        assert_eq!(negation(T, ""), "It is not true that.");
    }

    #[test]
    fn an_unrelated_sentence_shares_no_content_word_and_no_highlight() {
        let claim = "Masks reduce covid transmission in schools";
        assert!(unrelated("The river flooded twice in 1890.", claim));
        assert!(!unrelated("Schools reopened in May.", claim));
        assert!(
            !unrelated("A mask was found.", claim),
            "an inflection is related"
        );
        assert!(
            !unrelated("It is what it is.", claim),
            "stop words alone say nothing"
        );
        assert!(!unrelated("", claim));
    }
}
