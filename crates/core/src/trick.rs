//! The trick sentence shown among a claim's candidates to catch careless work.
//!
//! A trick is only fair when it is wrong under the guideline the annotator is given and
//! looks like the sentences around it. Under a *supports* guideline the negation of the
//! claim is wrong (it refutes); under *supports or refutes* it would be right, so there the
//! trick is a real sentence about something else: one that shares no content word with
//! the claim and has nothing the claim-word highlighting would mark.

use crate::highlight::{highlight, HighlightOptions};
use crate::language;
use crate::stopwords::is_stopword;
use crate::text;
use std::collections::HashSet;

mod jaro;

/// The template a project has until its lead writes another. It stands for the same
/// negation in the claim's own language ([`language::negation_template`]), so that the
/// trick reads like the sentences around it in an Arabic or French project too.
pub const DEFAULT_TEMPLATE: &str = "It is not true that {claim}";

/// Characters that end a sentence, in the scripts [`language`] knows.
const SENTENCE_ENDS: [char; 9] = ['.', '!', '?', '\u{2026}', '。', '！', '？', '؟', '।'];

/// The negation trick for `claim`: `template` with `{claim}` replaced (the default
/// template in the claim's language), written like a sentence of a document (first letter
/// upper-case, a final full stop of its script when it has no final punctuation, single
/// spaces), so its form tells nothing. Inside the template the claim's first letter is
/// lower-cased unless its first word looks like a name or the template puts it after a
/// colon; a claim that the template continues after loses its final punctuation.
pub fn negation(template: &str, claim: &str) -> String {
    let lang = language::guess(claim);
    let template = if template == DEFAULT_TEMPLATE {
        language::negation_template(lang)
    } else {
        template
    };
    let (before, after) = template.split_once("{claim}").unwrap_or((template, ""));
    let mut claim = claim.split_whitespace().collect::<Vec<_>>().join(" ");
    if !after.trim().is_empty() {
        claim = claim.trim_end_matches(SENTENCE_ENDS).to_string();
    }
    let inner = if starts_with_name(&claim) || before.trim_end().ends_with(':') {
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
        text.push(match lang {
            language::Language::Chinese | language::Language::Japanese => '。',
            language::Language::Hindi => '।',
            _ => '.',
        });
    }
    text
}

/// Whether `text` ends as a sentence does (`.`, `!`, `?`, `…`, or their forms in other
/// scripts), possibly inside closing quotes or brackets.
fn ends_a_sentence(text: &str) -> bool {
    text.trim_end_matches(['"', '\'', '\u{201D}', '\u{2019}', ')', ']', '」', '»'])
        .ends_with(SENTENCE_ENDS)
}

/// Whether the claim's first word should keep its capital: an acronym or a word with
/// digits or inner capitals ("COVID-19", "iPhone"), the start of a run of capitalised
/// words ("Velmont Cycle Share"), or a word the claim capitalises again later. Without a
/// lexicon a lone name such as "Pfizer" followed by lower-case words is lower-cased. A
/// first word that is a stop word ("The", "A", "This") is never a name, even before one:
/// "…that The Fresnel lens…" showed the trick by its form (issue 36).
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
    if is_stopword(&first.to_lowercase()) {
        return false;
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

/// [`content_words`] sorted, each once: the form the trick search keeps of every
/// sentence it may draw, computed once per run rather than once per look.
pub fn content_word_list(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text::tokens(text)
        .into_iter()
        .map(|t| text::normalize_token(t.text))
        .filter(|w| !is_stopword(w))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// Calls `f` with each content word of `text`, in order, repeats included: the words of
/// [`content_words`] without a string for each (a word already lower-case is lent).
pub fn each_content_word(text: &str, mut f: impl FnMut(&str)) {
    for t in text::tokens(text) {
        let word = crate::ranking::normalized_word(t.text);
        if !is_stopword(&word) {
            f(&word);
        }
    }
}

/// Whether the claim-word highlighting weighs content word `word` at all, on either
/// side: it is longer than the shortest word it marks.
pub fn markable(word: &str) -> bool {
    word.chars().count() > HighlightOptions::default().min_len
}

/// Whether the highlighting would mark sentence word `word` for claim word
/// `claim_word`, both [`markable`] content words: their Jaro-Winkler similarity reaches
/// its threshold.
pub fn resembles(word: &str, claim_word: &str) -> bool {
    jaro::jaro_winkler(word, claim_word) >= HighlightOptions::default().threshold
}

/// A claim's [`markable`] words, read once for comparing with many sentences' words.
#[derive(Debug, Clone, Default)]
pub struct ClaimMarks {
    words: Vec<(jaro::Prepared, jaro::Letters)>,
}

impl ClaimMarks {
    /// The marks of a claim's content words (any order).
    pub fn new(content_words: impl IntoIterator<Item = String>) -> ClaimMarks {
        ClaimMarks {
            words: content_words
                .into_iter()
                .filter(|w| markable(w))
                .map(|w| (jaro::Prepared::of(&w), jaro::Letters::of(&w)))
                .collect(),
        }
    }

    /// Whether the highlighting marks none of a sentence's content `words` for the
    /// claim. Most pairs of words are told apart by their letters alone (too few in
    /// common for the similarity to reach the threshold); only the rest are compared.
    pub fn none_in<'a>(&self, words: impl Iterator<Item = &'a str>) -> bool {
        if self.words.is_empty() {
            return true;
        }
        let threshold = HighlightOptions::default().threshold;
        words.filter(|w| markable(w)).all(|w| {
            let letters = jaro::Letters::of(w);
            self.words.iter().all(|(c, c_letters)| {
                !letters.may_reach(c_letters, threshold) || c.winkler_from(w) < threshold
            })
        })
    }
}

/// [`unrelated`] from the two texts' [`content_word_list`]s, so that a claim's words are
/// read once for all the sentences it is compared with. The same rule: the sentence has a
/// content word, shares none with the claim, and has none the highlighting would mark.
pub fn unrelated_words(sentence: &[String], claim: &[String]) -> bool {
    if sentence.is_empty() {
        return false;
    }
    // Both lists are sorted: one merge finds a shared word.
    let (mut i, mut j) = (0, 0);
    while i < sentence.len() && j < claim.len() {
        match sentence[i].cmp(&claim[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return false,
        }
    }
    ClaimMarks::new(claim.iter().cloned()).none_in(sentence.iter().map(String::as_str))
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
            (
                "The Fresnel lens was invented in 1822.",
                "the Fresnel lens was invented in 1822.",
            ),
            ("A Velmont bus caught fire.", "a Velmont bus caught fire."),
            ("US exports fell.", "US exports fell."),
        ];
        for (claim, inside) in cases {
            assert_eq!(negation(T, claim), format!("It is not true that {inside}"));
        }
        assert_eq!(negation(T, ""), "It is not true that.");
    }

    #[test]
    fn the_default_trick_is_written_in_the_claims_language() {
        let cases = [
            (
                "لقاحات كورونا تقلل خطر دخول المستشفى",
                "من غير الصحيح القول إنه لقاحات كورونا تقلل خطر دخول المستشفى.",
            ),
            (
                "Le vaccin réduit le risque d'hospitalisation.",
                "Il est faux de dire que le vaccin réduit le risque d'hospitalisation.",
            ),
            (
                "Die Impfung senkt das Risiko einer Einweisung.",
                "Es ist falsch zu behaupten: Die Impfung senkt das Risiko einer Einweisung.",
            ),
            ("疫苗降低了住院风险。", "说疫苗降低了住院风险是不对的。"),
            (
                "Vaccines reduce deaths.",
                "It is not true that vaccines reduce deaths.",
            ),
        ];
        for (claim, trick) in cases {
            assert_eq!(negation(DEFAULT_TEMPLATE, claim), trick, "{claim}");
        }
        // A template the lead wrote is used as written, whatever the claim's language.
        assert_eq!(
            negation("Faux : {claim}", "Le vaccin marche"),
            "Faux : Le vaccin marche."
        );
        assert!(ends_a_sentence("هل هذا صحيح؟"));
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

    proptest::proptest! {
        /// The rule on word lists is the rule on texts, highlighting included.
        #[test]
        fn unrelated_words_is_unrelated(
            s in proptest::collection::vec(0..WORDS.len(), 0..8),
            c in proptest::collection::vec(0..WORDS.len(), 0..6),
        ) {
            let text = |ix: &[usize]| ix.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
            let (sentence, claim) = (text(&s), text(&c));
            proptest::prop_assert_eq!(
                unrelated_words(&content_word_list(&sentence), &content_word_list(&claim)),
                unrelated(&sentence, &claim),
                "{:?} / {:?}", sentence, claim
            );
        }
    }

    /// Words with inflections, spelling variants, stop words that look like content
    /// words to Jaro-Winkler, short words, capitals, apostrophes and accents.
    const WORDS: [&str; 26] = [
        "Vaccine",
        "vaccines",
        "mask",
        "Masks",
        "the",
        "that",
        "theft",
        "school,",
        "Schools.",
        "hospitalisation",
        "hospitalizations",
        "river",
        "flooded",
        "1890",
        "it's",
        "don\u{2019}t",
        "Été",
        "ete",
        "ka",
        "terlo",
        "tersel",
        "domvel",
        "velmont",
        "COVID-19",
        "covid",
        "of",
    ];

    #[test]
    fn word_lists_are_sorted_content_words_once() {
        assert_eq!(
            content_word_list("Masks, masks and the MASKS of Été"),
            vec!["masks".to_owned(), "été".to_owned()]
        );
        assert!(markable("mask") && !markable("ska") && markable("été!"));
        let mut each = Vec::new();
        each_content_word("Masks, masks and the MASKS of Été", |w| {
            each.push(w.to_owned())
        });
        assert_eq!(each, ["masks", "masks", "masks", "été"]);
        assert!(resembles("vaccine", "vaccines") && !resembles("river", "vaccines"));
        let marks = ClaimMarks::new(["vaccines".to_owned(), "ska".to_owned()]);
        assert!(!marks.none_in(["river", "vaccine"].into_iter()));
        assert!(marks.none_in(["river", "ska", "the"].into_iter()));
        assert!(ClaimMarks::new(["ska".to_owned()]).none_in(["skaa"].into_iter()));
    }
}
