//! Text as a reader sees it, for deciding whether two claims say the same: compatibility
//! forms folded (full-width digits, ligatures), invisible format characters dropped
//! (zero-width spaces, soft hyphens, direction marks), and Cyrillic or Greek letters that
//! look like Latin ones read as Latin. Without this a zero-width space inside a word would
//! let a copy of a claim pass as a new one.

use unicode_normalization::UnicodeNormalization;

/// `text` lower-cased, with what a reader cannot see folded away; for comparisons only,
/// never stored or shown.
pub fn as_seen(text: &str) -> String {
    // ASCII is its own NFKC form and holds no invisible or look-alike character: only the
    // case changes. Most claims are ASCII, and NFKC was most of an export's text work.
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    folded(text)
}

/// [`as_seen`] of any text.
fn folded(text: &str) -> String {
    text.nfkc()
        .filter(|&c| !invisible(c))
        .flat_map(char::to_lowercase)
        .map(latin_twin)
        .collect()
}

/// Characters that change no glyph: Unicode's format characters (category Cf), variation
/// selectors, the combining grapheme joiner, and the fillers drawn as nothing (Hangul,
/// the blank Braille pattern).
pub fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// The Latin letter a lower-case Cyrillic or Greek letter is drawn like (in one case or
/// the other); text is lower-cased first, so a claim and its upper-case copy agree.
fn latin_twin(c: char) -> char {
    match c {
        'а' => 'a',
        'в' | 'β' => 'b',
        'е' | 'ё' | 'ε' => 'e',
        'к' | 'κ' => 'k',
        'м' | 'μ' => 'm',
        'н' | 'η' => 'h',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'т' | 'τ' => 't',
        'у' | 'υ' => 'y',
        'х' | 'χ' => 'x',
        'і' | 'ι' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'α' => 'a',
        'ζ' => 'z',
        'ν' => 'n',
        _ => c,
    }
}

/// Whether `text` shows nothing to a reader: no character in it [`draws`].
pub fn shows_nothing(text: &str) -> bool {
    !text.chars().any(draws)
}

/// Whether `c` puts something on the page: a letter, digit, punctuation mark or symbol,
/// by its Unicode category, that is not drawn as nothing. Spaces, format and unassigned
/// characters, and marks (which need a letter to sit on) do not; a list of format
/// characters missed some (the Egyptian hieroglyph controls, sixteenth hostile pass).
pub fn draws(c: char) -> bool {
    use unicode_properties::{GeneralCategoryGroup as Group, UnicodeGeneralCategory};
    matches!(
        c.general_category_group(),
        Group::Letter | Group::Number | Group::Punctuation | Group::Symbol
    ) && !invisible(c)
        // The musical null notehead is a symbol whose glyph is empty.
        && c != '\u{1D159}'
}

#[cfg(test)]
mod tests {
    use super::{as_seen, folded};

    #[test]
    fn ascii_text_is_seen_as_the_full_folding_sees_it() {
        let every: String = (0u8..128).map(char::from).collect();
        for text in [
            every.as_str(),
            "The Harrowmouth lighthouse tower was first lit in October 1861.",
            "  MiXeD   case, punctuation!? and digits 0-9 \t\n",
            "",
        ] {
            assert_eq!(as_seen(text), folded(text), "{text:?}");
        }
    }

    #[test]
    fn what_a_reader_cannot_see_is_folded_away() {
        let plain = as_seen("The tower was first lit in October 1911.");
        for trick in [
            "The tower was first lit in October 19\u{200b}11.",
            "The tower was first lit in Octo\u{ad}ber 1911.",
            "The tower was first lit in October \u{ff11}\u{ff19}\u{ff11}\u{ff11}.",
            "The t\u{43e}wer was first lit in October 1911.",
            "\u{feff}THE TOWER WAS FIRST LIT IN OCTOBER 1911.",
        ] {
            assert_eq!(as_seen(trick), plain, "{trick:?}");
        }
        assert_ne!(as_seen("The tower was first lit in October 1912."), plain);
        // Two texts in one script stay apart.
        assert_ne!(as_seen("сад"), as_seen("сон"));
    }

    #[test]
    fn text_of_spaces_and_invisible_characters_shows_nothing() {
        assert!(super::shows_nothing(" \u{200B}\u{2800}\u{3164}\u{FEFF}\n"));
        assert!(!super::shows_nothing("\u{200B}cut\u{2800}"));
    }

    /// Sixteenth hostile pass: reports of characters a fixed list missed were taken.
    #[test]
    fn format_controls_bare_marks_and_unassigned_characters_show_nothing() {
        for text in [
            "\u{13430}\u{13431}\u{13432}",
            "\u{13440}",
            "\u{1D159}\u{1D159}",
            "\u{0301}\u{0301}\u{0301}",
            "\u{0600}",
            "\u{1CBB}",
            "\u{2028}\u{2029}",
        ] {
            assert!(super::shows_nothing(text), "{text:?}");
        }
        for text in ["?", "\u{1F642}", "क्षि", "ไม่", "e\u{0301}", "٣", "—"] {
            assert!(!super::shows_nothing(text), "{text:?}");
        }
    }
}
