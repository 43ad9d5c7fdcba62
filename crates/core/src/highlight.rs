//! Claim-word highlighting in evidence text.
//!
//! Annotators judge candidate sentences faster when the words they share with the claim
//! stand out. Following the multilingual fact-checking pipeline, a word is highlighted
//! when it is longer than 3 characters and its Jaro-Winkler similarity to some claim word
//! of that length is at least 0.8, so inflections ("vaccine"/"vaccines") and spelling
//! variants ("hospitalisation"/"hospitalizations") count while short function words don't.
//! Highlights are returned as character offsets, or as ready-made segments that the UI
//! renders as text, so no byte offsets cross the IPC boundary.

use crate::ranking::normalized_word;
use crate::stopwords::is_stopword;
use crate::text::{self, Span};
use serde::{Deserialize, Serialize};

/// Which words count as claim words.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HighlightOptions {
    /// Words must be longer than this many characters, on both sides.
    pub min_len: usize,
    /// The least Jaro-Winkler similarity to a claim word.
    pub threshold: f64,
    /// Function words ("that", "with", "from") neither count as claim words nor get
    /// marked: they look like content words to Jaro-Winkler ("that" and "theft").
    #[serde(default = "skip_stop_words_default")]
    pub skip_stop_words: bool,
}

fn skip_stop_words_default() -> bool {
    true
}

impl Default for HighlightOptions {
    fn default() -> Self {
        HighlightOptions {
            min_len: 3,
            threshold: 0.8,
            skip_stop_words: true,
        }
    }
}

/// A highlighted stretch of text in characters (Unicode scalar values), end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Range {
    pub start: usize,
    pub end: usize,
}

/// A piece of text, highlighted or not; consecutive segments alternate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub text: String,
    pub hit: bool,
}

/// Clitics an Arabic word may be written with before its stem: the article and the
/// one-letter conjunctions and prepositions joined to it, longest first.
const ARABIC_PREFIXES: [&str; 9] = ["وال", "بال", "فال", "كال", "لل", "ال", "و", "ف", "ب"];

/// A word as highlighting compares it. An Arabic word is read without its short vowels
/// and tatweel, with its alef, yaa and taa marbuta forms made one, and without a joined
/// article or conjunction, so "المنارة" in a claim marks "ومنارة" in a sentence: Jaro–
/// Winkler weighs the first letters most, and "ال" against "و" missed them. Other words
/// are as ranking reads them.
fn highlight_key(token: &str) -> String {
    let word = normalized_word(token);
    if !word.chars().any(|c| ('\u{0621}'..='\u{064A}').contains(&c)) {
        return word.into_owned();
    }
    let plain: String = word
        .chars()
        .filter(|c| !('\u{064B}'..='\u{065F}').contains(c) && *c != '\u{0640}')
        .map(|c| match c {
            'أ' | 'إ' | 'آ' => 'ا',
            'ى' => 'ي',
            'ة' => 'ه',
            c => c,
        })
        .collect();
    for prefix in ARABIC_PREFIXES {
        if let Some(stem) = plain.strip_prefix(prefix) {
            if stem.chars().count() >= 3 {
                return stem.to_string();
            }
        }
    }
    plain
}

/// Byte spans of the words of `text` similar to a claim word, sorted and disjoint.
fn hit_spans(text: &str, claim: &str, opts: &HighlightOptions) -> Vec<Span> {
    let long_enough =
        |w: &str| w.chars().count() > opts.min_len && !(opts.skip_stop_words && is_stopword(w));
    let mut claim_words: Vec<String> = text::tokens(claim)
        .into_iter()
        .filter(|t| long_enough(&normalized_word(t.text)))
        .map(|t| highlight_key(t.text))
        .collect();
    claim_words.sort_unstable();
    claim_words.dedup();
    let mut spans: Vec<Span> = Vec::new();
    if claim_words.is_empty() {
        return spans;
    }
    for token in text::tokens(text) {
        let similar = long_enough(&normalized_word(token.text)) && {
            let word = highlight_key(token.text);
            claim_words
                .iter()
                .any(|c| strsim::jaro_winkler(&word, c) >= opts.threshold)
        };
        if !similar {
            continue;
        }
        match spans.last_mut() {
            // Tokens never overlap; merging touching ones just keeps ranges disjoint.
            Some(last) if last.end >= token.start => last.end = last.end.max(token.end),
            _ => spans.push(Span {
                start: token.start,
                end: token.end,
            }),
        }
    }
    spans
}

/// Character ranges of the words in `text` that resemble a claim word: both longer than
/// `opts.min_len` characters and with Jaro-Winkler similarity of their normalised forms
/// at least `opts.threshold`. Sorted and non-overlapping.
pub fn highlight(text: &str, claim: &str, opts: &HighlightOptions) -> Vec<Range> {
    // Spans come in order, so one pass converts byte offsets to character offsets.
    let mut byte = 0;
    let mut chars = 0;
    let mut to_chars = |offset: usize| {
        chars += text[byte..offset].chars().count();
        byte = offset;
        chars
    };
    hit_spans(text, claim, opts)
        .into_iter()
        .map(|span| Range {
            start: to_chars(span.start),
            end: to_chars(span.end),
        })
        .collect()
}

/// `text` cut into alternating plain and highlighted segments that concatenate back to
/// it exactly; empty text gives no segments.
pub fn segments(text: &str, claim: &str, opts: &HighlightOptions) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut at = 0;
    for span in hit_spans(text, claim, opts) {
        if span.start > at {
            out.push(Segment {
                text: text[at..span.start].to_string(),
                hit: false,
            });
        }
        out.push(Segment {
            text: text[span.start..span.end].to_string(),
            hit: true,
        });
        at = span.end;
    }
    if at < text.len() {
        out.push(Segment {
            text: text[at..].to_string(),
            hit: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, ranges: &[Range]) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        ranges
            .iter()
            .map(|r| chars[r.start..r.end].iter().collect())
            .collect()
    }

    const CLAIM: &str = "Vaccines reduce hospitalisation";
    const TEXT: &str = "The vaccine reduced hospitalizations sharply";

    #[test]
    fn highlights_inflections_and_spelling_variants() {
        // The similarities behind the expected ranges, all on lower-cased words.
        let jw = strsim::jaro_winkler;
        assert!((jw("vaccine", "vaccines") - 0.975).abs() < 1e-12);
        assert!((jw("reduced", "reduce") - 0.971_428_571_4).abs() < 1e-9);
        assert!((jw("hospitalizations", "hospitalisation") - 0.9475).abs() < 1e-12);
        // "sharply" is closest to "hospitalisation", far below 0.8; "The" is too short.
        assert!((jw("sharply", "hospitalisation") - 0.549_206_349_2).abs() < 1e-9);
        assert!(jw("sharply", "vaccines") < 0.43 && jw("sharply", "reduce") == 0.0);

        let ranges = highlight(TEXT, CLAIM, &HighlightOptions::default());
        assert_eq!(
            ranges,
            [
                Range { start: 4, end: 11 },
                Range { start: 12, end: 19 },
                Range { start: 20, end: 36 }
            ]
        );
        assert_eq!(
            words(TEXT, &ranges),
            ["vaccine", "reduced", "hospitalizations"]
        );
    }

    #[test]
    fn words_must_be_longer_than_min_len_on_both_sides() {
        let opts = HighlightOptions::default();
        // "The" and "flu" match exactly but have only 3 characters.
        assert!(highlight("The flu", "the flu", &opts).is_empty());
        assert_eq!(
            highlight("The flu season", "the flu seasons", &opts),
            [Range { start: 8, end: 14 }]
        );
        // With a longer minimum, "reduce" (6) is no longer a claim word.
        let ranges = highlight(TEXT, CLAIM, &HighlightOptions { min_len: 6, ..opts });
        assert_eq!(words(TEXT, &ranges), ["vaccine", "hospitalizations"]);
    }

    #[test]
    fn arabic_words_match_without_their_article_conjunction_or_vowels() {
        // Written with its short vowels in the claim, without them (and with another
        // alef and taa marbuta) in the sentence: both missed before, at 0.77.
        let claim = "أُنشِئَت المَكتبة في المدينة الساحلية عام 1860.";
        let text = "انشئت مكتبه المدينة على الساحل، وبالمدينة سوق قديم.";
        let hits = words(text, &highlight(text, claim, &HighlightOptions::default()));
        assert_eq!(hits, ["انشئت", "مكتبه", "المدينة", "الساحل", "وبالمدينة"]);
    }

    #[test]
    fn threshold_is_inclusive_and_configurable() {
        let at = |threshold| {
            let ranges = highlight(
                TEXT,
                CLAIM,
                &HighlightOptions {
                    threshold,
                    ..Default::default()
                },
            );
            words(TEXT, &ranges)
        };
        assert_eq!(at(0.975), ["vaccine"]);
        assert_eq!(at(0.95), ["vaccine", "reduced"]);
        assert!(at(0.99).is_empty());
    }

    #[test]
    fn offsets_are_in_characters_not_bytes() {
        // "Éric’s café: " is 13 characters but 17 bytes.
        let text = "Éric’s café: vaccinés rapidement";
        let ranges = highlight(text, "VACCINÉS", &HighlightOptions::default());
        assert_eq!(ranges, [Range { start: 13, end: 21 }]);
        assert_eq!(words(text, &ranges), ["vaccinés"]);
        assert_eq!(text.find("vaccinés"), Some(17));
    }

    #[test]
    fn segments_alternate_and_rebuild_the_text() {
        let segs = segments(TEXT, CLAIM, &HighlightOptions::default());
        let expected = [
            ("The ", false),
            ("vaccine", true),
            (" ", false),
            ("reduced", true),
            (" ", false),
            ("hospitalizations", true),
            (" sharply", false),
        ];
        let got: Vec<(&str, bool)> = segs.iter().map(|s| (s.text.as_str(), s.hit)).collect();
        assert_eq!(got, expected);
        let text = "Vaccines! vaccines…";
        let segs = segments(text, "vaccines", &HighlightOptions::default());
        assert_eq!(
            segs.iter().map(|s| s.text.as_str()).collect::<String>(),
            text
        );
        assert_eq!(
            segs.iter().map(|s| s.hit).collect::<Vec<_>>(),
            [true, false, true, false]
        );
    }

    #[test]
    fn function_words_are_never_claim_words() {
        // Regression: "that" in a claim marked "theft" (Jaro-Winkler 0.83).
        let opts = HighlightOptions::default();
        assert!(strsim::jaro_winkler("that", "theft") >= 0.8);
        let text = "Police say that theft rose.";
        assert_eq!(
            words(
                text,
                &highlight(text, "They said that bikes vanished", &opts)
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            words(text, &highlight(text, "a theft wave", &opts)),
            ["theft"]
        );
        let all = HighlightOptions {
            skip_stop_words: false,
            ..opts
        };
        assert_eq!(
            words(
                text,
                &highlight(text, "They said that bikes vanished", &all)
            ),
            ["that", "theft"]
        );
    }

    #[test]
    fn nothing_to_highlight() {
        let opts = HighlightOptions::default();
        assert!(highlight(TEXT, "", &opts).is_empty());
        assert!(highlight("", CLAIM, &opts).is_empty());
        assert!(segments("", CLAIM, &opts).is_empty());
        assert_eq!(
            segments("Nothing alike here.", CLAIM, &opts),
            [Segment {
                text: "Nothing alike here.".to_string(),
                hit: false
            }]
        );
    }
}
