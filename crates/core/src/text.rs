//! Sentence splitting and tokenization shared by every feature.
//!
//! (Being written: see the helper's task.)

/// A byte range into the text it was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// Splits `text` into sentences, returning trimmed byte spans in order.
pub fn sentences(text: &str) -> Vec<Span> {
    let t = text.trim();
    if t.is_empty() {
        return Vec::new();
    }
    let start = text.len() - text.trim_start().len();
    vec![Span { start, end: start + t.len() }]
}

/// A word or number in a text, with its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
}

/// Splits `text` into word and number tokens.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    text.split_whitespace()
        .map(|w| {
            let start = w.as_ptr() as usize - text.as_ptr() as usize;
            Token { text: w, start, end: start + w.len() }
        })
        .collect()
}
