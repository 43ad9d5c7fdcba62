//! Words that end in a period without ending a sentence.
//!
//! The period after "Dr", "e.g" or an initial is part of the word. Such words differ in
//! whether they can also close a sentence: "Dr." and "e.g." always lead into more words;
//! "etc.", "Inc." and "U.S." often end one. After those the splitter cuts only where the
//! layout or the next word settles it: a line break, a citation mark, or a word that
//! starts sentences and never names ("The", "In", "However"), since "the U.S. Army" and
//! "in the U.S. The" look alike but for that word. Measured on WikiFactCheck contexts,
//! "etc.", "Inc." and "Ltd." before a capital ended the sentence every time, and "U.S."
//! did so about one time in twenty, always before such a word.

use super::is_combining;

/// What the word before a period is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Abbreviation {
    /// An ordinary word: the period may end the sentence.
    Plain,
    /// A title, a reference word or a Latin abbreviation: more words must follow.
    Leading,
    /// A capital letter alone: an initial ("J. K. Rowling") or, before a word that
    /// starts sentences, a Roman numeral or a name's end ("World War I. The").
    Initial,
    /// An abbreviation that can also be the last word of a sentence.
    Ambiguous,
}

/// The longest listed abbreviation, in bytes, without its final period.
const MAX_LISTED: usize = 6;

/// Titles and reference words, which precede a name or a number. Several are also
/// ordinary lower-case words ("fig", "sec") or all-capital acronyms ("SEC"), so they
/// count only written with one capital ("Fig."), or in any case before a number.
fn is_leading_word(lower: &[u8]) -> bool {
    matches!(
        lower,
        // Titles and ranks.
        b"dr" | b"drs" | b"mr" | b"mrs" | b"ms" | b"messrs" | b"mme" | b"prof" | b"st"
            | b"ste" | b"mt" | b"gen" | b"sen" | b"rep" | b"gov" | b"pres" | b"lt" | b"col"
            | b"maj" | b"sgt" | b"cpl" | b"pvt" | b"capt" | b"adm" | b"brig" | b"rev" | b"hon"
            | b"supt" | b"fr"
            // References into a document, and words that precede a name or a year.
            | b"vol" | b"vols" | b"fig" | b"figs" | b"eq" | b"eqs" | b"ref" | b"refs"
            | b"ch" | b"sec" | b"dept" | b"univ" | b"est" | b"ft" | b"hwy" | b"rs"
            // Months, which precede a day or a year.
            | b"jan" | b"feb" | b"mar" | b"apr" | b"jun" | b"jul" | b"aug" | b"sep"
            | b"sept" | b"oct" | b"nov" | b"dec"
    )
}

/// Company and name suffixes, street types and US state abbreviations ("Louisville,
/// Ky."), which end a name and so often a sentence; like the leading words, they count
/// written with one capital. Sorted, for binary search.
#[rustfmt::skip]
const AMBIGUOUS_WORDS: &[&[u8]] = &[
    b"ala", b"ariz", b"ark", b"ave", b"blvd", b"bros", b"calif", b"co", b"colo", b"conn",
    b"corp", b"del", b"fla", b"ga", b"ill", b"inc", b"ind", b"jr", b"kan", b"kans", b"ky",
    b"la", b"ltd", b"mass", b"md", b"mich", b"minn", b"miss", b"mo", b"mont", b"neb",
    b"nev", b"okla", b"ore", b"pa", b"penn", b"plc", b"sr", b"tenn", b"tex", b"va", b"vt",
    b"wash", b"wis", b"wyo",
];

/// Classifies `word`, the run of letters, digits and periods just before a period.
/// `digit_follows` tells whether the next word after the period starts with a digit.
pub(super) fn classify(word: &str, digit_follows: bool) -> Abbreviation {
    let word = word.trim_start_matches('.');
    let mut letters = word.chars().filter(|&c| !is_combining(c));
    let Some(first) = letters.next() else {
        return Abbreviation::Plain;
    };
    if letters.next().is_none() {
        return match first {
            // "v." is "versus" ("U.S. v. Peterson"); other lower-case letters abbreviate
            // only before a number ("p. 4", "c. 1900", "b. 1950"), and otherwise are
            // the last letter of something, as in "motor s." in text split by a tool.
            'v' => Abbreviation::Leading,
            _ if first.is_lowercase() && digit_follows => Abbreviation::Leading,
            _ if first.is_alphabetic() && !first.is_lowercase() => Abbreviation::Initial,
            _ => Abbreviation::Plain,
        };
    }
    if word.len() <= MAX_LISTED && word.is_ascii() {
        let mut buf = [0u8; MAX_LISTED];
        let lower = &mut buf[..word.len()];
        lower.copy_from_slice(word.as_bytes());
        lower.make_ascii_lowercase();
        let lower = &*lower;
        // "Fig" or "Inc", not "FIG" or "INC", which are more often acronyms.
        let one_capital =
            first.is_ascii_uppercase() && !word.bytes().skip(1).any(|b| b.is_ascii_uppercase());
        match lower {
            b"e.g" | b"i.e" | b"cf" | b"vs" | b"viz" | b"approx" | b"ca" | b"pp" => {
                return Abbreviation::Leading
            }
            // "No." is a number sign only before a number: "The answer was No." ends.
            b"no" | b"nos" => {
                return if digit_follows {
                    Abbreviation::Leading
                } else {
                    Abbreviation::Plain
                };
            }
            b"etc" | b"al" | b"a.m" | b"p.m" | b"ph.d" => return Abbreviation::Ambiguous,
            _ if is_leading_word(lower) && (one_capital || digit_follows) => {
                return Abbreviation::Leading
            }
            _ if one_capital && AMBIGUOUS_WORDS.binary_search(&lower).is_ok() => {
                return Abbreviation::Ambiguous
            }
            _ => {}
        }
    }
    // A dotted acronym such as "U.S", "U.S.A" or "D.C": single letters between periods.
    let mut parts = 0;
    for part in word.split('.') {
        let mut cs = part.chars().filter(|&c| !is_combining(c));
        match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_alphabetic() => parts += 1,
            _ => return Abbreviation::Plain,
        }
    }
    if parts >= 2 {
        Abbreviation::Ambiguous
    } else {
        Abbreviation::Plain
    }
}

/// Words that often start a sentence and are never part of a name, so that after
/// "U.S.", "etc." or "I." they show that a new sentence has begun. "A" and "I" are left
/// out: they are also initials ("J. A. Harvey"). Sorted, for binary search.
#[rustfmt::skip]
const SENTENCE_STARTERS: &[&str] = &[
    "According", "After", "Afterwards", "Also", "Although", "Among", "An", "And",
    "Another", "Any", "As", "At", "Because", "Before", "Both", "But", "By", "Despite",
    "During", "Each", "Every", "For", "From", "Furthermore", "He", "Her", "Here", "His",
    "How", "However", "If", "In", "Instead", "It", "Its", "Later", "Many", "Meanwhile",
    "Moreover", "Most", "My", "Not", "Now", "On", "Once", "Only", "Our", "Several", "She",
    "Since", "Some", "Such", "That", "The", "Their", "Then", "There", "These", "They",
    "This", "Those", "Though", "Thus", "To", "Today", "Under", "Unlike", "Until", "We",
    "What", "When", "Where", "Whereas", "Whether", "Which", "While", "Why", "With",
    "Within", "Without", "Yet", "You",
];

/// Whether `word` is one of [`SENTENCE_STARTERS`]; a binary search, since text dense
/// with initials asks at every period.
pub(super) fn is_sentence_starter(word: &str) -> bool {
    SENTENCE_STARTERS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::{
        classify, is_sentence_starter, Abbreviation::*, AMBIGUOUS_WORDS, SENTENCE_STARTERS,
    };

    #[test]
    fn classifies_listed_words_initials_and_acronyms() {
        for w in [
            "Dr", "Mrs", "Prof", "St", "Gen", "Capt", "Hon", "Sept", "Fig", "Vol",
        ] {
            assert_eq!(classify(w, false), Leading, "{w}");
        }
        for w in ["e.g", "i.e", "vs", "cf", "approx", "pp", "v"] {
            assert_eq!(classify(w, false), Leading, "{w}");
        }
        for w in ["J", "F", "Ö", "S\u{30C}"] {
            assert_eq!(classify(w, false), Initial, "{w}");
        }
        for w in [
            "etc", "al", "Inc", "Ltd", "Co", "Corp", "Jr", "Ky", "Calif", "U.S", "U.K",
        ] {
            assert_eq!(classify(w, false), Ambiguous, "{w}");
        }
        for w in ["U.N", "U.S.A", "D.C", "a.m", "p.m", "Ph.D"] {
            assert_eq!(classify(w, false), Ambiguous, "{w}");
        }
    }

    #[test]
    fn ordinary_words_numbers_and_acronyms_are_not_abbreviations() {
        for w in [
            "reported", "fig", "no", "No", "SEC", "CO", "DR", "2019", "3", "s", "",
        ] {
            assert_eq!(classify(w, false), Plain, "{w}");
        }
        for w in ["www.example.com", "..."] {
            assert_eq!(classify(w, false), Plain, "{w}");
        }
    }

    #[test]
    fn some_words_abbreviate_only_before_a_number() {
        for w in ["No", "no", "fig", "vol", "c", "p"] {
            assert_eq!(classify(w, true), Leading, "{w}");
        }
    }

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        assert!(AMBIGUOUS_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(SENTENCE_STARTERS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn sentence_starters_exclude_initials() {
        assert!(is_sentence_starter("The"));
        assert!(is_sentence_starter("However"));
        assert!(!is_sentence_starter("the"));
        assert!(!is_sentence_starter("A"));
        assert!(!is_sentence_starter("Army"));
    }
}
