//! Sentence splitting and tokenization shared by every feature.
//!
//! One tokenizer serves ranking, search, highlighting and the refutation checks, so a
//! word means the same thing everywhere. Both functions work on byte offsets in one pass
//! over the text and allocate only their output.

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

/// Words that end in a period without ending a sentence, compared lower-cased and
/// without the final period.
const ABBREVIATIONS: &[&str] = &[
    "al", "approx", "apr", "aug", "ave", "capt", "cf", "co", "col", "corp", "dec", "dept", "dr",
    "e.g", "eq", "est", "etc", "feb", "fig", "figs", "gen", "gov", "hon", "i.e", "inc", "jan",
    "jr", "jul", "jun", "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nos", "nov", "oct",
    "p", "ph.d", "pp", "prof", "rep", "rev", "sen", "sep", "sept", "sgt", "sr", "st", "vol", "vs",
];

fn is_abbreviation(word: &str) -> bool {
    let w = word.trim_start_matches(|c: char| !c.is_alphanumeric());
    let lower = w.to_lowercase();
    if ABBREVIATIONS.binary_search(&lower.as_str()).is_ok() {
        return true;
    }
    // Initials ("J.") and dotted acronyms ("U.S", "a.m"): letters each followed by a dot.
    let mut letters = 0;
    for part in w.split('.') {
        let n = part.chars().count();
        if n != 1 || !part.chars().all(char::is_alphabetic) {
            return false;
        }
        letters += 1;
    }
    letters >= 1
}

fn is_closing(c: char) -> bool {
    matches!(
        c,
        '"' | '\'' | ')' | ']' | '}' | '»' | '\u{201D}' | '\u{2019}'
    )
}

fn opens_sentence(c: char) -> bool {
    c.is_uppercase()
        || c.is_numeric()
        || matches!(c, '"' | '\'' | '(' | '[' | '«' | '\u{201C}' | '\u{2018}')
}

/// Splits `text` into sentences, returning trimmed byte spans in order.
///
/// A sentence ends at `.`, `!` or `?` (with any closing quotes, brackets and citation
/// marks like `[19]` that follow) when whitespace and then a capital, digit or opening
/// quote come next; at a blank line; and at a line break after such punctuation. A period
/// after an abbreviation (Dr., e.g., U.S., No.) or an initial does not end one.
pub fn sentences(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' && blank_line_follows(bytes, i) {
            push_trimmed(text, start, i, &mut out);
            start = i + 1;
            i += 1;
            continue;
        }
        if !matches!(b, b'.' | b'!' | b'?') {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < bytes.len() && matches!(bytes[end], b'.' | b'!' | b'?') {
            end += 1;
        }
        end = skip_closers(text, end);
        let rest = &text[end..];
        let ws = rest.len() - rest.trim_start().len();
        let next = rest.trim_start().chars().next();
        let at_end = next.is_none();
        let line_break = rest[..ws].contains('\n');
        let boundary = at_end || line_break || (ws > 0 && next.is_some_and(opens_sentence));
        // "Dr. Smith", "U.S. Army", "No. 4": a lone period after an abbreviation or an
        // initial, with nothing closing after it, continues the sentence.
        let abbreviation = b == b'.' && end == i + 1 && ends_abbreviation(text, start, i);
        if boundary && (at_end || line_break || !abbreviation) {
            push_trimmed(text, start, end, &mut out);
            start = end;
        }
        i = end.max(i + 1);
    }
    push_trimmed(text, start, text.len(), &mut out);
    out
}

/// Skips closing quotes and brackets, and citation marks such as `[19]` or `[3][4]`.
fn skip_closers(text: &str, mut end: usize) -> usize {
    loop {
        let rest = &text[end..];
        if let Some(c) = rest.chars().next().filter(|&c| is_closing(c) && c != ']') {
            end += c.len_utf8();
            continue;
        }
        if let Some(n) = citation_len(rest) {
            end += n;
            continue;
        }
        return end;
    }
}

/// The length of a citation mark `[digits]` at the start of `s`.
fn citation_len(s: &str) -> Option<usize> {
    let inner = s.strip_prefix('[')?;
    let close = inner.find(']')?;
    let body = &inner[..close];
    (!body.is_empty()
        && body.len() <= 6
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '-'))
    .then_some(close + 2)
}

/// Whether the word ending at the period at byte `dot` is an abbreviation.
fn ends_abbreviation(text: &str, start: usize, dot: usize) -> bool {
    let before = &text[start..dot];
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    !word.is_empty() && is_abbreviation(word)
}

fn blank_line_follows(bytes: &[u8], nl: usize) -> bool {
    let mut j = nl + 1;
    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r') {
        j += 1;
    }
    j < bytes.len() && bytes[j] == b'\n'
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<Span>) {
    let piece = &text[start..end];
    let s = start + (piece.len() - piece.trim_start().len());
    let e = start + piece.trim_end().len();
    if e > s {
        out.push(Span { start: s, end: e });
    }
}

/// Splits `text` into word and number tokens; punctuation is dropped. Apostrophes and
/// hyphens inside a word ("don't", "SARS-CoV-2") and separators inside a number ("2.8",
/// "3,000") keep the token whole.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let len = text.len();
    let mut out = Vec::with_capacity(len / 6);
    let mut i = 0;
    while i < len {
        let (c, n) = char_at(text, i);
        i += n;
        if !c.is_alphanumeric() {
            continue;
        }
        let start = i - n;
        let mut prev = c;
        while i < len {
            let (d, m) = char_at(text, i);
            if d.is_alphanumeric() {
                i += m;
                prev = d;
                continue;
            }
            let joins_word = matches!(d, '\'' | '\u{2019}' | '-') && prev.is_alphanumeric();
            let joins_number = matches!(d, '.' | ',') && prev.is_ascii_digit();
            let next_ok = (joins_word || joins_number) && i + m < len && {
                let (next, _) = char_at(text, i + m);
                if joins_number {
                    next.is_ascii_digit()
                } else {
                    next.is_alphanumeric()
                }
            };
            if !next_ok {
                break;
            }
            i += m;
        }
        out.push(Token {
            text: &text[start..i],
            start,
            end: i,
        });
    }
    out
}

/// The character starting at byte `i` and its length; ASCII without decoding, since
/// nearly all text is.
#[inline]
fn char_at(text: &str, i: usize) -> (char, usize) {
    let b = text.as_bytes()[i];
    if b < 0x80 {
        return (char::from(b), 1);
    }
    let c = text[i..].chars().next().unwrap_or(' ');
    (c, c.len_utf8())
}

/// The form in which words are compared: lower-cased, with curly apostrophes folded.
pub fn normalize_token(t: &str) -> String {
    t.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == '\u{2019}' { '\'' } else { c })
        .collect()
}

/// The number of tokens in `text`.
pub fn token_count(text: &str) -> usize {
    tokens(text).len()
}

/// Converts a byte span to character (Unicode scalar) offsets.
pub fn char_offsets(text: &str, span: Span) -> (usize, usize) {
    let start = text[..span.start].chars().count();
    (start, start + text[span.start..span.end].chars().count())
}

#[cfg(test)]
mod tests;
