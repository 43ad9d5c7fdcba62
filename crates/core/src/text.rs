//! Sentence splitting and tokenization shared by every feature.
//!
//! One tokenizer serves ranking, search, highlighting and the refutation checks, so a
//! word means the same thing everywhere; one sentence splitter serves import, so a
//! sentence index means the same thing in the store, the index and the exports.
//!
//! Everything works on byte offsets in a single forward pass and allocates only its
//! output: import splits hundreds of megabytes of text. The store keeps character
//! offsets, which [`char_offsets`] converts to.

mod abbreviations;
mod lookalike;
pub(crate) mod sentences;
mod tokens;

pub use lookalike::{as_seen, shows_nothing};
pub use sentences::sentences;
pub use tokens::{normalize_token, token_count, tokens};

/// A byte range into the text it was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A word or number in a text, with its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

/// Converts a byte span of `text` to character (Unicode scalar) offsets.
///
/// Offsets past the end are clamped to the text, and an offset inside a multi-byte
/// character counts that character as begun, so a bad span gives wrong numbers rather
/// than a crash in the middle of an import.
pub fn char_offsets(text: &str, span: Span) -> (usize, usize) {
    let bytes = text.as_bytes();
    let end = span.end.min(bytes.len());
    let start = span.start.min(end);
    // A character starts at every byte that is not a UTF-8 continuation byte.
    let count = |b: &[u8]| b.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    let chars_before = count(&bytes[..start]);
    (chars_before, chars_before + count(&bytes[start..end]))
}

/// Combining marks (accents written as a second character, as in text normalised to
/// NFD) belong to the letter before them.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

#[cfg(test)]
mod tests;
