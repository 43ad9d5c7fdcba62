//! Sentences that contain the claim itself.
//!
//! Claims are often taken from the very documents searched for evidence, and the
//! sentence a claim was copied from would top every ranking while proving nothing.
//! Containment is judged on normalised token sequences, so a difference in case or
//! punctuation ("covid-19 vaccines, reduce…") does not hide the copy.

use super::{normalized_word, Candidate};
use crate::text;
use std::borrow::Cow;

/// The claim's normalised tokens, computed once for many sentences.
struct ClaimWords<'c> {
    words: Vec<Cow<'c, str>>,
    /// The claim's longest ASCII words: an ASCII sentence can only contain the claim if
    /// it contains each of them ignoring ASCII case, a check much cheaper than tokenizing
    /// that lets most sentences of a document skip tokenization.
    needles: Vec<String>,
}

/// How many of the claim's words the shortcut looks for; each rules out more sentences.
const NEEDLES: usize = 3;

impl<'c> ClaimWords<'c> {
    fn new(claim: &'c str) -> Self {
        let words: Vec<Cow<'c, str>> = words(claim).collect();
        let mut needles: Vec<String> = words
            .iter()
            .filter(|w| w.is_ascii())
            .map(|w| w.to_string())
            .collect();
        needles.sort_unstable_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        needles.truncate(NEEDLES);
        ClaimWords { words, needles }
    }

    /// Whether the claim's tokens occur contiguously in `sentence`'s. `buffer` holds the
    /// sentence's tokens and is reused across sentences.
    fn found_in<'s>(&self, sentence: &'s str, buffer: &mut Vec<Cow<'s, str>>) -> bool {
        let claim = &self.words;
        if claim.is_empty() {
            // A claim with no words is contained in nothing, not in everything.
            return false;
        }
        // For an ASCII token normalising is ASCII lower-casing, so each needle's token
        // would appear in the sentence's text ignoring ASCII case.
        if !self.needles.is_empty()
            && sentence.is_ascii()
            && !self
                .needles
                .iter()
                .all(|n| contains_ignore_ascii_case(sentence, n))
        {
            return false;
        }
        buffer.clear();
        buffer.extend(words(sentence));
        buffer
            .windows(claim.len())
            .any(|window| window == claim.as_slice())
    }
}

/// Whether `haystack` contains `needle` ignoring ASCII case; `needle` is lower-case.
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    let Some(last_start) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    let matches_at = |i: usize| hay[i..i + needle.len()].eq_ignore_ascii_case(needle);
    // Candidates are bytes equal to the needle's first one after `| 0x20`, which folds
    // ASCII capitals to small letters (and a few other bytes onto letters; the full
    // comparison rejects those). Marking candidates a block at a time, without branches,
    // lets the compiler vectorise the scan.
    const BLOCK: usize = 32;
    let folded = first | 0x20;
    let starts = &hay[..=last_start];
    let mut blocks = starts.chunks_exact(BLOCK);
    for (n, block) in blocks.by_ref().enumerate() {
        let mut candidates = block.iter().enumerate().fold(0u32, |mask, (j, &b)| {
            mask | (u32::from(b | 0x20 == folded) << j)
        });
        while candidates != 0 {
            if matches_at(n * BLOCK + candidates.trailing_zeros() as usize) {
                return true;
            }
            candidates &= candidates - 1;
        }
    }
    let tail = starts.len() - blocks.remainder().len();
    (tail..starts.len()).any(|i| hay[i] | 0x20 == folded && matches_at(i))
}

fn words(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    text::tokens(text)
        .into_iter()
        .map(|t| normalized_word(t.text))
}

/// Whether `sentence` contains `claim`: the claim's normalised token sequence appears
/// contiguously in the sentence's. A claim without words is contained in nothing.
pub fn contains_claim(sentence: &str, claim: &str) -> bool {
    ClaimWords::new(claim).found_in(sentence, &mut Vec::new())
}

/// The candidates that do not contain the claim, in their original order.
pub fn drop_self_containing<'a>(claim: &str, sentences: &[Candidate<'a>]) -> Vec<Candidate<'a>> {
    let claim = ClaimWords::new(claim);
    let mut buffer = Vec::new();
    sentences
        .iter()
        .filter(|c| !claim.found_in(c.text, &mut buffer))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_claim_despite_case_and_punctuation() {
        let claim = "COVID-19 vaccines reduce hospitalisation.";
        assert!(contains_claim(
            "Studies show that covid-19 vaccines, reduce hospitalisation!",
            claim
        ));
        assert!(contains_claim(claim, claim));
        assert!(contains_claim(
            "“Covid-19 Vaccines reduce — hospitalisation”",
            claim
        ));
    }

    #[test]
    fn needs_the_whole_claim_in_order_and_whole_words() {
        let claim = "vaccines reduce hospitalisation";
        assert!(!contains_claim(
            "vaccines reduce deaths and hospitalisation",
            claim
        ));
        assert!(!contains_claim("hospitalisation vaccines reduce", claim));
        assert!(!contains_claim("vaccines reduce hospitalisations", claim));
        assert!(!contains_claim("vaccines reduce", claim));
    }

    #[test]
    fn ascii_shortcut_agrees_with_tokens() {
        // The claim's longest word appears only inside other words or in other case.
        let claim = "Vaccines reduce HOSPITALISATION";
        assert!(contains_claim("vaccines reduce hospitalisation", claim));
        assert!(!contains_claim(
            "nonhospitalisation rates: vaccines reduce",
            claim
        ));
        assert!(!contains_claim("vaccines reduced hospitalisation", claim));
        // A non-ASCII sentence takes the full path: the Kelvin sign lower-cases to "k".
        assert!(contains_claim(
            "The \u{212A}ELVIN scale",
            "the kelvin scale"
        ));
        assert!(!contains_ignore_ascii_case("abc", "abcd"));
        assert!(contains_ignore_ascii_case("xxABcD", "abcd"));
        assert!(contains_ignore_ascii_case("abc", ""));
        // Matches in the vectorised blocks, across a block edge, and in the tail.
        let long = format!("{}Needle{}", "x".repeat(29), "y".repeat(40));
        assert!(contains_ignore_ascii_case(&long, "needle"));
        assert!(contains_ignore_ascii_case(
            &format!("{}NEEDLE", "x".repeat(70)),
            "needle"
        ));
        assert!(contains_ignore_ascii_case(
            &format!("NEEDLE{}", "x".repeat(70)),
            "needle"
        ));
        // "@" folds onto the same byte as a back-quote but is no letter.
        assert!(!contains_ignore_ascii_case(&"@x".repeat(40), "`x"));
        assert!(!contains_ignore_ascii_case(&"needl".repeat(20), "needle"));
    }

    #[test]
    fn folds_curly_apostrophes() {
        assert!(contains_claim(
            "He said the vaccine doesn’t work.",
            "The vaccine doesn't work"
        ));
    }

    #[test]
    fn empty_claim_is_contained_in_nothing() {
        assert!(!contains_claim("anything", ""));
        assert!(!contains_claim("anything", " ... "));
        assert!(!contains_claim("", ""));
    }

    #[test]
    fn drops_only_self_containing_sentences_keeping_order() {
        let claim = "The Eiffel Tower is in Paris";
        let sentences = [
            Candidate {
                sentence_id: 7,
                text: "Built in 1889, the Eiffel Tower is in Paris.",
            },
            Candidate {
                sentence_id: 3,
                text: "The tower is 330 metres tall.",
            },
            Candidate {
                sentence_id: 9,
                text: "THE EIFFEL TOWER IS IN PARIS",
            },
            Candidate {
                sentence_id: 1,
                text: "Paris is the capital of France.",
            },
        ];
        let kept = drop_self_containing(claim, &sentences);
        assert_eq!(kept, [sentences[1], sentences[3]]);
        assert!(drop_self_containing(claim, &[]).is_empty());
    }
}
