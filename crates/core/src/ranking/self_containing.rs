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
struct ClaimWords<'c>(Vec<Cow<'c, str>>);

impl<'c> ClaimWords<'c> {
    fn new(claim: &'c str) -> Self {
        ClaimWords(words(claim).collect())
    }

    /// Whether the claim's tokens occur contiguously in `sentence`'s. `buffer` holds the
    /// sentence's tokens and is reused across sentences.
    fn found_in<'s>(&self, sentence: &'s str, buffer: &mut Vec<Cow<'s, str>>) -> bool {
        let claim = &self.0;
        if claim.is_empty() {
            // A claim with no words is contained in nothing, not in everything.
            return false;
        }
        buffer.clear();
        buffer.extend(words(sentence));
        buffer.windows(claim.len()).any(|window| window == claim.as_slice())
    }
}

fn words(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    text::tokens(text).into_iter().map(|t| normalized_word(t.text))
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
        assert!(contains_claim("Studies show that covid-19 vaccines, reduce hospitalisation!", claim));
        assert!(contains_claim(claim, claim));
        assert!(contains_claim("“Covid-19 Vaccines reduce — hospitalisation”", claim));
    }

    #[test]
    fn needs_the_whole_claim_in_order_and_whole_words() {
        let claim = "vaccines reduce hospitalisation";
        assert!(!contains_claim("vaccines reduce deaths and hospitalisation", claim));
        assert!(!contains_claim("hospitalisation vaccines reduce", claim));
        assert!(!contains_claim("vaccines reduce hospitalisations", claim));
        assert!(!contains_claim("vaccines reduce", claim));
    }

    #[test]
    fn folds_curly_apostrophes() {
        assert!(contains_claim("He said the vaccine doesn’t work.", "The vaccine doesn't work"));
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
            Candidate { sentence_id: 7, text: "Built in 1889, the Eiffel Tower is in Paris." },
            Candidate { sentence_id: 3, text: "The tower is 330 metres tall." },
            Candidate { sentence_id: 9, text: "THE EIFFEL TOWER IS IN PARIS" },
            Candidate { sentence_id: 1, text: "Paris is the capital of France." },
        ];
        let kept = drop_self_containing(claim, &sentences);
        assert_eq!(kept, [sentences[1], sentences[3]]);
        assert!(drop_self_containing(claim, &[]).is_empty());
    }
}
