//! The original claim's subject, found without a part-of-speech tagger.
//!
//! Heuristic: a claim opens with its subject ("Hydroxychloroquine | fails to prevent
//! covid-19", "The new vaccine | is effective", "Covid vaccines | cause infertility"). After
//! any "it is not true that" frame, leading function words and bare numbers are skipped;
//! the first content word is a subject word, and up to two more follow while the noun
//! phrase seems to go on. It ends at a function word (auxiliary, preposition, pronoun,
//! negation), at a verb-like word (a common claim verb in a simple inflection, or any word
//! ending in "-ed"), and after a plural ("vaccines"), which is normally the head noun with
//! the verb next. The rewrite keeps the subject when it mentions any one of these words,
//! so letting the phrase run on into the verb ("fails") would let "Remdesivir fails ..."
//! pass; the rules stop early instead. Numbers are skipped because changing one ("Over 50%
//! of ..." -> "Over 20% of ...") is exactly the edit refutations should make.

use super::negation;

/// Function words that are never subject words, sorted: determiners, quantifiers,
/// auxiliaries, pronouns, prepositions, conjunctions and negations. Contractions ending
/// in "n't" are caught separately.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "between", "both", "but", "by", "can", "cannot",
    "could", "did", "do", "does", "during", "each", "every", "few", "for", "from", "had", "has",
    "have", "he", "her", "his", "i", "if", "in", "into", "is", "it", "it's", "its", "many", "may",
    "might", "more", "most", "much", "must", "my", "neither", "never", "new", "no", "nobody",
    "none", "nor", "not", "nothing", "now", "of", "on", "only", "or", "other", "our", "over",
    "several", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "there", "these", "they", "this", "those", "through", "to", "under", "up", "very", "was", "we",
    "were", "what", "when", "which", "who", "will", "with", "without", "would", "you", "your",
];

/// Verbs common in health and news claims, as base forms, sorted. Words that are as often
/// nouns in a subject ("test", "report", "plan", "ban") are left out.
const VERBS: &[&str] = &[
    "affect", "allow", "alter", "approve", "become", "boost", "cause", "confirm", "contain",
    "create", "cure", "decrease", "deny", "destroy", "die", "fail", "find", "give", "help",
    "improve", "increase", "infect", "kill", "lead", "lower", "make", "offer", "prevent",
    "produce", "protect", "provide", "raise", "receive", "reduce", "remain", "require", "reveal",
    "say", "show", "spread", "stop", "survive", "take", "transmit", "treat", "trigger", "want",
    "weaken", "worsen",
];

/// Irregular past forms of [`VERBS`], sorted.
const IRREGULAR_VERBS: &[&str] = &[
    "became", "found", "gave", "given", "led", "made", "said", "shown", "spread", "taken", "took",
];

/// How many words the subject phrase may have.
const MAX_SUBJECT_WORDS: usize = 3;

/// Indices into `original` (normalised tokens) of its subject words; empty when the claim
/// has no content word to hold on to.
pub(super) fn subject_words(original: &[String]) -> Vec<usize> {
    let start = negation::claim_start(original);
    let mut out = Vec::with_capacity(MAX_SUBJECT_WORDS);
    for (i, w) in original.iter().enumerate().skip(start) {
        let w = w.as_str();
        if out.is_empty() {
            if !is_function_word(w) && !is_number(w) {
                out.push(i);
            }
            continue;
        }
        let after_plural = out.last().is_some_and(|&j| looks_plural(&original[j]));
        if after_plural || is_function_word(w) || is_verb_like(w) || out.len() == MAX_SUBJECT_WORDS
        {
            break;
        }
        out.push(i);
    }
    out
}

/// Whether `written` (normalised tokens) mentions `word`, allowing a possessive and a
/// plural "s"/"es" on either side ("vaccine" / "vaccines" / "vaccine's").
pub(super) fn mentions(written: &[String], word: &str) -> bool {
    let word = bare(word);
    written.iter().any(|w| {
        let w = bare(w);
        w == word || plural_of(w, word) || plural_of(word, w)
    })
}

fn plural_of(plural: &str, singular: &str) -> bool {
    plural
        .strip_prefix(singular)
        .is_some_and(|rest| rest == "s" || rest == "es")
}

/// The word without a possessive ending.
fn bare(w: &str) -> &str {
    w.strip_suffix("'s")
        .or_else(|| w.strip_suffix('\''))
        .unwrap_or(w)
}

fn is_function_word(w: &str) -> bool {
    STOPWORDS.binary_search(&w).is_ok() || negation::contraction_base(w).is_some()
}

/// A bare number ("50", "3,000", "2.8"); "5g" and "covid-19" are words.
fn is_number(w: &str) -> bool {
    w.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

fn looks_plural(w: &str) -> bool {
    let w = bare(w);
    w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
}

fn is_verb_like(w: &str) -> bool {
    if IRREGULAR_VERBS.binary_search(&w).is_ok() || (w.len() > 4 && w.ends_with("ed")) {
        return true;
    }
    // Base form, third person ("causes", "cures", "dies") or past ("cured", "died").
    [
        w,
        strip(w, "s"),
        strip(w, "es"),
        strip(w, "d"),
        strip(w, "ed"),
    ]
    .iter()
    .any(|base| VERBS.binary_search(base).is_ok())
        || ["ies", "ied"]
            .iter()
            .any(|s| w.strip_suffix(s).is_some_and(is_y_verb))
}

fn strip<'a>(w: &'a str, suffix: &str) -> &'a str {
    w.strip_suffix(suffix).unwrap_or(w)
}

/// Whether `stem` + "y" is a listed verb ("den" -> "deny", for "denies"/"denied").
fn is_y_verb(stem: &str) -> bool {
    VERBS.iter().any(|v| v.strip_suffix('y') == Some(stem))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        crate::text::tokens(text)
            .iter()
            .map(|t| crate::text::normalize_token(t.text))
            .collect()
    }

    fn subject(text: &str) -> Vec<String> {
        let w = words(text);
        subject_words(&w)
            .into_iter()
            .map(|i| w[i].clone())
            .collect()
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|p| p[0] < p[1]));
        assert!(VERBS.windows(2).all(|p| p[0] < p[1]));
        assert!(IRREGULAR_VERBS.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn finds_the_subject_of_real_claims() {
        assert_eq!(
            subject("Hydroxychloroquine fails to prevent covid-19"),
            ["hydroxychloroquine"]
        );
        assert_eq!(subject("The vaccine is effective"), ["vaccine"]);
        assert_eq!(
            subject("Covid vaccines cause infertility"),
            ["covid", "vaccines"]
        );
        assert_eq!(
            subject("Bill Gates wants to microchip people"),
            ["bill", "gates"]
        );
        assert_eq!(
            subject("Vitamin D deficiency increases covid risk"),
            ["vitamin", "d", "deficiency"]
        );
        assert_eq!(subject("Ivermectin cured 99% of patients"), ["ivermectin"]);
        assert_eq!(subject("Trump said masks don't work"), ["trump"]);
        assert_eq!(
            subject("Over 50% of Americans are vaccinated"),
            ["americans"]
        );
        assert_eq!(
            subject("It is not true that garlic cures covid"),
            ["garlic"]
        );
        assert!(subject("It is what it is").is_empty());
    }

    #[test]
    fn verb_forms_are_recognised() {
        for w in [
            "cause", "causes", "caused", "cures", "dies", "died", "denies", "said", "stopped",
        ] {
            assert!(is_verb_like(w), "{w}");
        }
        for w in ["vaccine", "masks", "d", "deficiency", "covid"] {
            assert!(!is_verb_like(w), "{w}");
        }
    }

    #[test]
    fn mentions_allow_plurals_and_possessives() {
        let w = words("Masks and the vaccine's side effects");
        assert!(mentions(&w, "mask"));
        assert!(mentions(&w, "vaccines"));
        assert!(mentions(&w, "effect"));
        assert!(!mentions(&w, "mass"));
    }
}
