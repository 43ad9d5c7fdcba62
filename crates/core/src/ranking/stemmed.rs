//! Jaccard's words in the form CrowdChecked compared them: web addresses and numbers each
//! folded into one placeholder word, the rest reduced to their stems (the Snowball English
//! stemmer, "Porter 2", from rust-stemmers), stop words removed before stemming. So
//! "vaccines" meets "vaccine", and "12.5%" meets "40%".

use super::similarity::{word_hash, SentenceWords};
use crate::stopwords::is_stopword;
use crate::text;
use rust_stemmers::{Algorithm, Stemmer};

/// Every web address becomes this word, and every number the other; neither can be a
/// token of real text (tokens are alphanumeric).
const URL_WORD: &str = "<url>";
const NUMBER_WORD: &str = "<number>";

/// Whether a whitespace-separated piece of text is a web address, ignoring the
/// punctuation around it ("(see https://x.org/a)." ).
fn is_url(piece: &str) -> bool {
    let piece = piece.trim_start_matches(|c: char| !c.is_alphanumeric());
    let lower = piece.get(..8).unwrap_or(piece).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.")
}

/// Whether a token is a number: digits, with the decimal and thousands marks the
/// tokeniser keeps inside them ("12.5", "1,024").
fn is_number(token: &str) -> bool {
    token.starts_with(|c: char| c.is_numeric())
        && token
            .chars()
            .all(|c| c.is_numeric() || c == '.' || c == ',')
}

/// The distinct word hashes of `text` in this form, sorted.
pub fn stemmed_hashes(text: &str) -> Vec<u64> {
    let stemmer = Stemmer::create(Algorithm::English);
    let mut hashes = Vec::new();
    for piece in text.split_whitespace() {
        if is_url(piece) {
            hashes.push(word_hash(URL_WORD));
            continue;
        }
        for token in text::tokens(piece) {
            if is_number(token.text) {
                hashes.push(word_hash(NUMBER_WORD));
                continue;
            }
            let word = text::normalize_token(token.text);
            if !is_stopword(&word) {
                hashes.push(word_hash(&stemmer.stem(&word)));
            }
        }
    }
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

impl SentenceWords {
    /// One sentence prepared for Jaccard with stemming ([`stemmed_hashes`]).
    pub fn stemmed(sentence_id: i64, text: &str) -> SentenceWords {
        SentenceWords::from_hashes(sentence_id, stemmed_hashes(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::{jaccard_of_hashes, Scored};

    #[test]
    fn stems_meet_and_addresses_and_numbers_fold() {
        assert_eq!(
            stemmed_hashes("Vaccines reduced infections"),
            stemmed_hashes("vaccine reduces the infection")
        );
        assert_eq!(
            stemmed_hashes("Cases rose 12.5% (https://example.org/a?b=1)."),
            stemmed_hashes("case rose 40 www.other.net")
        );
        assert_eq!(stemmed_hashes("the of and"), Vec::<u64>::new());
        assert_ne!(stemmed_hashes("masks"), stemmed_hashes("tasks"));
    }

    #[test]
    fn stemmed_jaccard_scores_shared_stems() {
        let sentences = [
            SentenceWords::stemmed(1, "Vaccination lowers hospital admissions."),
            SentenceWords::stemmed(2, "A cat sat on the mat."),
        ];
        let got = jaccard_of_hashes(
            &stemmed_hashes("Vaccinations lowered admissions"),
            &sentences,
        );
        // {vaccin, lower, admiss} against {vaccin, lower, hospit, admiss}: 3 / 4.
        assert_eq!(
            got,
            vec![
                Scored {
                    sentence_id: 1,
                    score: 0.75
                },
                Scored {
                    sentence_id: 2,
                    score: 0.0
                }
            ]
        );
    }
}
