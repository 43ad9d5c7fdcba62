//! Rankers by string similarity between the claim and each sentence.

use super::edit_distance::{ClaimPattern, Scratch};
use super::{normalized_word, rank_order, Candidate, Scored};
use crate::stopwords::is_stopword;
use crate::text;
use std::borrow::Cow;

/// The characters of a text lower-cased one by one (`char::to_lowercase`), streamed so
/// no sentence is copied. ASCII takes a shortcut: the general conversion is an opaque
/// call per character and dominated the cost of the edit distance.
struct LowerChars<'a> {
    chars: std::str::Chars<'a>,
    /// The rest of a character whose lower case is several characters ("İ").
    pending: Option<std::char::ToLowercase>,
}

impl Iterator for LowerChars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        if let Some(rest) = &mut self.pending {
            match rest.next() {
                Some(c) => return Some(c),
                None => self.pending = None,
            }
        }
        let c = self.chars.next()?;
        if c.is_ascii() {
            return Some(c.to_ascii_lowercase());
        }
        let mut lower = c.to_lowercase();
        let first = lower.next();
        self.pending = Some(lower);
        first
    }
}

fn lower_chars(s: &str) -> LowerChars<'_> {
    LowerChars { chars: s.chars(), pending: None }
}

/// Normalised Levenshtein similarity of the lower-cased claim and each sentence, best
/// first: `1 - distance / max(length)` in characters, 1 for identical texts (and for two
/// empty ones), as `strsim::normalized_levenshtein` defines it.
pub fn levenshtein(claim: &str, sentences: &[Candidate]) -> Vec<Scored> {
    let pattern = ClaimPattern::new(lower_chars(claim));
    let mut scratch = Scratch::default();
    let mut scored: Vec<Scored> = sentences
        .iter()
        .map(|c| {
            // Most sentences are ASCII: lower-casing bytes gives the same characters and
            // lets the compiler keep the per-character loop tight.
            let (distance, len) = if c.text.is_ascii() {
                let ascii = c.text.bytes().map(|b| char::from(b.to_ascii_lowercase()));
                pattern.distance(ascii, &mut scratch)
            } else {
                pattern.distance(lower_chars(c.text), &mut scratch)
            };
            let longest = len.max(pattern.len());
            let score = if longest == 0 { 1.0 } else { 1.0 - distance as f64 / longest as f64 };
            Scored { sentence_id: c.sentence_id, score }
        })
        .collect();
    rank_order(&mut scored);
    scored
}

/// A word keyed by its hash: sorting and searching then compare integers and look at the
/// strings only when hashes are equal, which keeps results exact.
type Keyed<'a> = (u64, Cow<'a, str>);

/// FNV-1a: fixed, so the order of equal-hash words never varies between runs.
fn word_hash(word: &str) -> u64 {
    word.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The distinct normalised words of `text` that are not stop words, sorted, in `out`.
fn content_words<'a>(text: &'a str, out: &mut Vec<Keyed<'a>>) {
    out.clear();
    out.extend(
        text::tokens(text)
            .into_iter()
            .map(|t| normalized_word(t.text))
            .filter(|w| !is_stopword(w))
            .map(|w| (word_hash(&w), w)),
    );
    out.sort_unstable();
    out.dedup();
}

/// Jaccard similarity of the claim's and each sentence's content words (normalised,
/// stop words removed), best first: shared words / all words. A pair with no content
/// words at all scores 0.
pub fn jaccard(claim: &str, sentences: &[Candidate]) -> Vec<Scored> {
    let mut claim_words = Vec::new();
    content_words(claim, &mut claim_words);
    let mut words = Vec::new();
    let mut scored: Vec<Scored> = sentences
        .iter()
        .map(|c| {
            content_words(c.text, &mut words);
            let shared = words.iter().filter(|w| claim_words.binary_search(w).is_ok()).count();
            let all = claim_words.len() + words.len() - shared;
            let score = if all == 0 { 0.0 } else { shared as f64 / all as f64 };
            Scored { sentence_id: c.sentence_id, score }
        })
        .collect();
    rank_order(&mut scored);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates<'a>(texts: &[&'a str]) -> Vec<Candidate<'a>> {
        texts
            .iter()
            .zip(1..)
            .map(|(&text, sentence_id)| Candidate { sentence_id, text })
            .collect()
    }

    fn score_of(scored: &[Scored], id: i64) -> f64 {
        scored.iter().find(|s| s.sentence_id == id).map_or(f64::NAN, |s| s.score)
    }

    #[test]
    fn levenshtein_small_example() {
        // "kitten" → "sitting" is 3 edits over 7 characters; case is ignored.
        let got = levenshtein("Kitten", &candidates(&["SITTING", "kitten", "", "kitchen"]));
        let ids: Vec<i64> = got.iter().map(|s| s.sentence_id).collect();
        assert_eq!(ids, [2, 4, 1, 3]);
        assert_eq!(score_of(&got, 2), 1.0);
        assert!((score_of(&got, 4) - (1.0 - 2.0 / 7.0)).abs() < 1e-12);
        assert!((score_of(&got, 1) - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
        assert_eq!(score_of(&got, 3), 0.0);
    }

    #[test]
    fn levenshtein_equals_strsim_on_lower_cased_text() {
        let claim = "The COVID-19 vaccine reduces hospitalisation among adults over sixty-five years";
        let texts = [
            "Vaccination reduced hospitalisations among adults over 65 by 80%, the study found.",
            "Über 90 % der Erwachsenen sind GEIMPFT.",
            "the covid-19 vaccine reduces hospitalisation among adults over sixty-five years",
            "",
        ];
        for s in levenshtein(claim, &candidates(&texts)) {
            let text = texts[(s.sentence_id - 1) as usize];
            let want = strsim::normalized_levenshtein(&claim.to_lowercase(), &text.to_lowercase());
            assert!((s.score - want).abs() < 1e-12, "{text}: {} vs {want}", s.score);
        }
    }

    #[test]
    fn lower_chars_matches_char_to_lowercase() {
        // "İ" lower-cases to two characters; "Σ" and "É" to one non-ASCII character.
        let text = "AİB ΣÉ straße";
        let want: String = text.chars().flat_map(char::to_lowercase).collect();
        assert_eq!(lower_chars(text).collect::<String>(), want);
        assert_eq!(want.chars().count(), 14);
    }

    #[test]
    fn levenshtein_of_empty_claim() {
        let got = levenshtein("", &candidates(&["", "abc"]));
        assert_eq!(got, [Scored { sentence_id: 1, score: 1.0 }, Scored { sentence_id: 2, score: 0.0 }]);
    }

    #[test]
    fn jaccard_small_example() {
        // Claim content words: {cats, chase, mice}. Sentence 1: {cats, chase, dogs}, sharing
        // 2 of 4. Sentence 2: {mice, run} after "The" and "from" go, sharing 1 of 4.
        let claim = "Cats chase the mice.";
        let got = jaccard(claim, &candidates(&["CATS chase dogs!", "The mice run from", "a the of"]));
        assert_eq!(
            got,
            [
                Scored { sentence_id: 1, score: 0.5 },
                Scored { sentence_id: 2, score: 0.25 },
                Scored { sentence_id: 3, score: 0.0 },
            ]
        );
    }

    #[test]
    fn jaccard_counts_repeated_words_once_and_folds_apostrophes() {
        let got = jaccard("Vaccines don’t cause autism", &candidates(&["Vaccines vaccines DON'T cause autism."]));
        // "don't" is a stop word in either apostrophe; {vaccines, cause, autism} on both sides.
        assert_eq!(got, [Scored { sentence_id: 1, score: 1.0 }]);
    }

    #[test]
    fn jaccard_with_only_stop_words_scores_zero() {
        assert_eq!(jaccard("it is", &candidates(&["it is"])), [Scored { sentence_id: 1, score: 0.0 }]);
    }

    #[test]
    fn no_candidates_give_no_scores() {
        assert!(levenshtein("claim", &[]).is_empty());
        assert!(jaccard("claim", &[]).is_empty());
    }
}
