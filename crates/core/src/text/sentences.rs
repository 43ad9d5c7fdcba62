//! Sentence splitting in one forward pass over the bytes.
//!
//! Almost every byte is a letter or a space, so the loop looks only for the few bytes
//! that can end a sentence (`.`, `!`, `?`, a newline, and the first byte of the
//! multi-byte marks `…`, `。`, `।`, `؟`) and does all other work there, a few bytes around
//! each candidate. Nothing backtracks beyond the word before a period, and nothing is
//! allocated but the output.

use super::abbreviations::{classify, is_sentence_starter, Abbreviation};
use super::{is_combining, Span};

/// Splits `text` into sentences, returning trimmed byte spans in order (no empty ones).
///
/// A sentence ends at `.`, `!`, `?` or a run of them ("?!", "..."), together with the
/// closing quotes, brackets and citation marks (`[19]`, `[3][4]`) right after it, when
/// whitespace and then a capital, a digit, an opening quote or bracket, or the end of the
/// text follow. It also ends at a blank line, and at a line break after such punctuation;
/// a line break elsewhere is a wrapped line and joins. A period after an abbreviation or
/// an initial ("Dr. Hale", "J. K. Rowling", "No. 4") does not end a sentence. One after an
/// abbreviation that may end a sentence ("etc.", "U.S.") ends it only at a line break,
/// before a citation mark, or before a word such as "The" that starts sentences and is
/// no name ("in the U.S. The"); one after an initial, only before such a word.
pub fn sentences(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let len = bytes.len();
    // About one sentence per 120 bytes in prose; a close guess saves regrowing.
    let mut out = Vec::with_capacity(len / 120 + 1);
    let mut start = 0;
    let mut i = 0;
    while i < len {
        match bytes[i] {
            b'\n' => {
                match blank_line_end(bytes, i) {
                    Some(after) => {
                        push_trimmed(text, start, i, &mut out);
                        start = after;
                        i = after;
                    }
                    None => i += 1,
                }
                continue;
            }
            b'.' | b'!' | b'?' | 0xD8 | 0xE0 | 0xE2 | 0xE3 | 0xEF => {}
            _ => {
                i += 1;
                continue;
            }
        }
        let Some((mark, n)) = terminal_at(text, i) else {
            i += 1;
            continue;
        };
        let ending = Ending::read(text, i, mark, n);
        if ending.is_boundary(text) {
            push_trimmed(text, start, ending.end, &mut out);
            start = ending.end;
            i = ending.next;
        } else {
            i = ending.end;
        }
    }
    push_trimmed(text, start, len, &mut out);
    out
}

/// A sentence-ending mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Period,
    /// `!`, `?`, `…` and the danda and Arabic question mark of scripts written with spaces.
    Other,
    /// The ideographic full stop and full-width marks, which no space follows.
    Wide,
}

/// The sentence-ending mark at byte `i` and its length in bytes.
fn terminal_at(text: &str, i: usize) -> Option<(Mark, usize)> {
    match *text.as_bytes().get(i)? {
        b'.' => Some((Mark::Period, 1)),
        b'!' | b'?' => Some((Mark::Other, 1)),
        b if b >= 0x80 => {
            let c = text.get(i..)?.chars().next()?;
            let mark = match c {
                '…' | '।' | '॥' | '؟' => Mark::Other,
                '。' | '！' | '？' | '｡' => Mark::Wide,
                _ => return None,
            };
            Some((mark, c.len_utf8()))
        }
        _ => None,
    }
}

/// The text around a run of sentence-ending marks.
#[derive(Debug)]
struct Ending {
    /// The first mark of the run.
    first: usize,
    /// Whether the run is one period, the only mark an abbreviation can end in.
    lone_period: bool,
    wide: bool,
    /// After the marks and any closing quotes, brackets and citation marks.
    end: usize,
    cited: bool,
    /// After the whitespace that follows `end`.
    next: usize,
    newlines: usize,
}

impl Ending {
    fn read(text: &str, first: usize, mark: Mark, n: usize) -> Ending {
        let mut end = first + n;
        let mut lone_period = mark == Mark::Period;
        let mut wide = mark == Mark::Wide;
        while let Some((mark, n)) = terminal_at(text, end) {
            end += n;
            lone_period = false;
            wide |= mark == Mark::Wide;
        }
        let (end, cited) = skip_closers(text, end);
        let (next, newlines) = skip_space(text, end);
        Ending {
            first,
            lone_period,
            wide,
            end,
            cited,
            next,
            newlines,
        }
    }

    fn is_boundary(&self, text: &str) -> bool {
        if self.next >= text.len() || self.newlines >= 2 || self.wide {
            return true;
        }
        if self.next == self.end {
            // "2.8", "U.S.-based", "e.g.,": no space, so no sentence ends here.
            return false;
        }
        let next_char = text.get(self.next..).and_then(|s| s.chars().next());
        let Some(next_char) = next_char else {
            return true;
        };
        let abbreviation = if self.lone_period {
            classify(word_before(text, self.first), next_char.is_numeric())
        } else {
            Abbreviation::Plain
        };
        let line_break = self.newlines == 1;
        match abbreviation {
            Abbreviation::Leading => false,
            Abbreviation::Initial => starter_at(text, self.next),
            // "Martin Luther King Jr.\nwas born" is a wrapped line; "… etc.\nThe" is not.
            Abbreviation::Ambiguous if line_break => !next_char.is_lowercase(),
            Abbreviation::Ambiguous => {
                (self.cited && opens_sentence(text, self.next)) || starter_at(text, self.next)
            }
            // Punctuation at the end of a line ends the sentence whatever comes next.
            Abbreviation::Plain => line_break || opens_sentence(text, self.next),
        }
    }
}

/// Skips closing quotes and brackets and citation marks (`[19]`, `[3][4]`,
/// `[citation needed]`) after a sentence's last mark; tells whether there was a citation.
fn skip_closers(text: &str, mut end: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let mut cited = false;
    while let Some(&b) = bytes.get(end) {
        match b {
            b'"' | b'\'' | b')' | b']' | b'}' => end += 1,
            b'[' => match citation_len(&bytes[end..]) {
                Some(n) => {
                    end += n;
                    cited = true;
                }
                None => break,
            },
            0x80.. => match text.get(end..).and_then(|s| s.chars().next()) {
                Some(c @ ('”' | '’' | '»' | '›' | '」' | '』' | '）')) => {
                    end += c.len_utf8()
                }
                _ => break,
            },
            _ => break,
        }
    }
    (end, cited)
}

/// The length of a citation mark at the start of `s`: a short bracketed note with no
/// line break, such as `[19]`, `[a]` or `[citation needed]`.
fn citation_len(s: &[u8]) -> Option<usize> {
    const MAX_NOTE: usize = 40;
    let body = s.get(1..)?;
    let close = body
        .iter()
        .take(MAX_NOTE + 1)
        .position(|&b| matches!(b, b']' | b'[' | b'\n'))?;
    (body[close] == b']' && close > 0).then_some(close + 2)
}

/// Skips whitespace from `i`; returns where it stops and how many line breaks it saw.
fn skip_space(text: &str, mut i: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let mut newlines = 0;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_whitespace() || b == 0x0B {
            newlines += usize::from(b == b'\n');
            i += 1;
        } else if b >= 0x80 {
            // No-break and other Unicode spaces, common in text copied from the web.
            match text.get(i..).and_then(|s| s.chars().next()) {
                Some(c) if c.is_whitespace() => i += c.len_utf8(),
                _ => break,
            }
        } else {
            break;
        }
    }
    (i, newlines)
}

/// The run of letters, digits and periods that ends at the period at byte `dot`, such
/// as "Dr", "U.S" or "e.g"; empty when it is longer than any abbreviation.
fn word_before(text: &str, dot: usize) -> &str {
    const MAX_WORD: usize = 24;
    let Some(before) = text.get(..dot) else {
        return "";
    };
    let mut start = dot;
    for (j, c) in before.char_indices().rev() {
        if !(c.is_alphanumeric() || c == '.' || is_combining(c)) {
            break;
        }
        if dot - j > MAX_WORD {
            return "";
        }
        start = j;
    }
    &before[start..]
}

/// Whether a sentence can start at byte `i`: a capital or a letter of a script without
/// case, a digit, an opening quote or bracket, or a word like "mRNA" or "iPhone" that is
/// written in lower case but has capitals inside.
fn opens_sentence(text: &str, i: usize) -> bool {
    let Some(rest) = text.get(i..) else {
        return true;
    };
    let mut chars = rest.chars();
    let Some(c) = chars.next() else {
        return true;
    };
    if c.is_numeric()
        || matches!(
            c,
            '"' | '\'' | '(' | '[' | '{' | '“' | '‘' | '«' | '‹' | '„' | '¿' | '¡'
        )
    {
        return true;
    }
    if !c.is_alphabetic() {
        return false;
    }
    if !c.is_lowercase() {
        return true;
    }
    chars
        .take_while(|c| c.is_alphanumeric())
        .take(16)
        .any(char::is_uppercase)
}

/// Whether the word at byte `i` is one that starts sentences ("The", "However").
fn starter_at(text: &str, i: usize) -> bool {
    let Some(rest) = text.get(i..) else {
        return false;
    };
    // Every listed word is a capital and up to eleven more letters.
    if !rest.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
        return false;
    }
    let len = rest
        .bytes()
        .take(12)
        .take_while(u8::is_ascii_alphabetic)
        .count();
    // The whole word: "Theodore" is not "The".
    let whole = !rest
        .as_bytes()
        .get(len)
        .is_some_and(u8::is_ascii_alphanumeric);
    whole && is_sentence_starter(&rest[..len])
}

/// If a blank line (only spaces between two line breaks) starts at the line break at
/// byte `nl`, the byte after its second line break.
fn blank_line_end(bytes: &[u8], nl: usize) -> Option<usize> {
    let mut j = nl + 1;
    while let Some(&b) = bytes.get(j) {
        match b {
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => j += 1,
            b'\n' => return Some(j + 1),
            _ => return None,
        }
    }
    None
}

/// Adds the trimmed `start..end` as a sentence. A piece without a letter or digit, such
/// as a stray closing quote after "he added.", is no sentence of its own: it joins the
/// sentence before it unless a blank line separates them.
fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<Span>) {
    let Some(piece) = text.get(start..end) else {
        return;
    };
    let trimmed = piece.trim_start();
    let s = start + (piece.len() - trimmed.len());
    let trimmed = trimmed.trim_end();
    let e = s + trimmed.len();
    if e == s {
        return;
    }
    if !trimmed.chars().any(char::is_alphanumeric) {
        if let Some(last) = out.last_mut() {
            let gap = text.get(last.end..s).unwrap_or("");
            if gap.bytes().filter(|&b| b == b'\n').count() < 2 {
                last.end = e;
                return;
            }
        }
    }
    let mut s = s;
    while e - s > MAX_SENTENCE_BYTES {
        let cut = long_sentence_cut(text, s);
        out.push(Span { start: s, end: cut });
        s = cut + (text[cut..e].len() - text[cut..e].trim_start().len());
    }
    out.push(Span { start: s, end: e });
}

/// The longest sentence kept whole. Prose sentences are far shorter; text without
/// punctuation (a table dump, a transcript) would otherwise become one candidate too long
/// to read, so it is cut into pieces of about this size.
pub const MAX_SENTENCE_BYTES: usize = 4096;

/// Where to end a piece of an over-long sentence starting at `s`: after the last space
/// in the second half of the allowed length, else at the last character boundary.
fn long_sentence_cut(text: &str, s: usize) -> usize {
    let mut limit = s + MAX_SENTENCE_BYTES;
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    let mut half = s + MAX_SENTENCE_BYTES / 2;
    while !text.is_char_boundary(half) {
        half += 1;
    }
    match text[half..limit].rfind(char::is_whitespace) {
        Some(at) => {
            let cut = half + at;
            cut - (text[s..cut].len() - text[s..cut].trim_end().len())
        }
        // No space: cut at a character boundary, not before an accent or a joiner that
        // belongs to the character before it.
        None => {
            let mut cut = limit;
            while cut > half {
                let next = text[cut..].chars().next();
                let prev = text[..cut].chars().next_back();
                let joined = next.is_some_and(|c| {
                    is_combining(c) || matches!(c, '\u{200D}' | '\u{FE00}'..='\u{FE0F}')
                }) || prev == Some('\u{200D}');
                if !joined {
                    break;
                }
                cut -= prev.map_or(1, char::len_utf8);
            }
            cut
        }
    }
}
