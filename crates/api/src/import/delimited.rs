//! Reading CSV and TSV files into rows.
//!
//! The csv crate reads leniently: text after a closing quote is glued onto the field
//! (`"Yes we can" was his slogan` loses its quotes) and a quote that never closes
//! swallows the rows after it into one field. Either would become a wrong claim with no
//! error, so every record is also checked against the quoting rules before it is used.

use super::rows::{nul_error, too_long, BadRow, Row, MAX_ROW_BYTES};
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Reads `bytes` (the whole file) and hands the rows to `f` about `chunk` at a time;
/// returns how many rows there were.
pub(super) fn read(
    name: &str,
    bytes: &[u8],
    delimiter: u8,
    chunk: usize,
    mut f: impl FnMut(Vec<std::result::Result<Row, BadRow>>) -> Result<()>,
) -> Result<u64> {
    refuse_long_lines(name, bytes)?;
    let builder = || {
        let mut b = csv::ReaderBuilder::new();
        b.delimiter(delimiter).has_headers(false).flexible(true);
        b
    };
    let mut reader = builder().from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    reader
        .read_byte_record(&mut record)
        .map_err(|e| Error::input(name, 1, None, format!("cannot read the header row: {e}")))?;
    let header_names = header_names(name, &record)?;
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if let Some(bad) = check_quotes(bytes, bom, 1, delimiter, None) {
        return Err(Error::input(
            name,
            1,
            None,
            format!(
                "header row, {}: {}",
                column_name(&header_names, bad.field),
                bad.message
            ),
        ));
    }
    let mut lines = Lines::new(bytes);
    let mut rows = Vec::new();
    let mut count = 0;
    let mut base = reader.position().byte() as usize;
    // A quoting mistake ends a segment: the rows after the line where the quote opened are
    // read again from a new reader, so that under --skip-invalid only that line is lost.
    'segments: loop {
        let mut reader = builder().from_reader(&bytes[base..]);
        loop {
            if rows.len() >= chunk {
                count += rows.len() as u64;
                f(std::mem::take(&mut rows))?;
            }
            match reader.read_byte_record(&mut record) {
                Ok(true) => {}
                Ok(false) => break 'segments,
                Err(e) => {
                    let (_, line) = lines.locate(base);
                    rows.push(Err(BadRow {
                        error: Error::input(name, line, None, format!("malformed row: {e}")),
                        raw: String::new(),
                    }));
                    break 'segments;
                }
            }
            let at = base + record.position().map_or(0, |p| p.byte() as usize);
            let (start, line) = lines.locate(at);
            let end = (base + reader.position().byte() as usize).clamp(start, bytes.len());
            let raw = || String::from_utf8_lossy(trim_end(&bytes[start..end])).into_owned();
            let shape = Shape {
                columns: header_names.len(),
                first: first_field(bytes, start, delimiter),
            };
            if let Some(bad) = check_quotes(bytes, start, line, delimiter, Some(&shape)) {
                let field = header_names.get(bad.field).map(String::as_str);
                let next = line_end(bytes, bad.opened);
                rows.push(Err(BadRow {
                    error: Error::input(name, line, field, bad.message),
                    raw: String::from_utf8_lossy(trim_end(&bytes[start..next])).into_owned(),
                }));
                if next >= bytes.len() {
                    break 'segments;
                }
                base = next;
                continue 'segments;
            }
            if record.len() != header_names.len() {
                let message = format!(
                    "the row has {} but the header has {}",
                    fields(record.len()),
                    fields(header_names.len())
                );
                rows.push(Err(BadRow {
                    error: Error::input(name, line, None, message),
                    raw: raw(),
                }));
                continue;
            }
            rows.push(row(name, line, &header_names, &record, raw()));
        }
    }
    if !rows.is_empty() {
        count += rows.len() as u64;
        f(rows)?;
    }
    Ok(count)
}

/// A file with a line over the row limit is refused whole, before the CSV reader holds
/// it: a NUL-filled or binary file would otherwise grow one record without end.
fn refuse_long_lines(name: &str, bytes: &[u8]) -> Result<()> {
    let mut line = 1u64;
    let mut from = 0usize;
    for i in 0..bytes.len() {
        if is_line_break(bytes, i) {
            line += 1;
            from = i + 1;
        } else if i - from > MAX_ROW_BYTES {
            return Err(Error::input(
                name,
                line,
                None,
                format!(
                    "the line is over the {} MB limit for one row; is this a CSV or TSV file?",
                    MAX_ROW_BYTES / (1024 * 1024)
                ),
            ));
        }
    }
    Ok(())
}

/// Line numbers of byte offsets, counted once from the start (a line ends at LF, CRLF or
/// a lone CR, as the CSV reader reads them).
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u64,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            bytes,
            at: 0,
            line: 1,
        }
    }

    /// The first byte of the record that the reader says starts at `offset` (past any
    /// line ends before it) and its line.
    fn locate(&mut self, offset: usize) -> (usize, u64) {
        let mut start = offset.min(self.bytes.len());
        while start < self.bytes.len() && matches!(self.bytes[start], b'\n' | b'\r') {
            start += 1;
        }
        if start < self.at {
            self.at = 0;
            self.line = 1;
        }
        for i in self.at..start {
            if is_line_break(self.bytes, i) {
                self.line += 1;
            }
        }
        self.at = start;
        (start, self.line)
    }
}

fn is_line_break(bytes: &[u8], i: usize) -> bool {
    bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// The offset just past the line that holds byte `i`.
fn line_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < bytes.len() && !is_line_break(bytes, j) {
        j += 1;
    }
    (j + 1).min(bytes.len())
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let mut end = bytes.len();
    while end > 0 && matches!(bytes[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &bytes[..end]
}

/// The record's first field as written, when it is not quoted.
fn first_field(bytes: &[u8], start: usize, delimiter: u8) -> Option<&[u8]> {
    if bytes.get(start) == Some(&b'"') {
        return None;
    }
    let rest = &bytes[start..];
    let end = rest
        .iter()
        .position(|&b| b == delimiter || b == b'\n' || b == b'\r')
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

fn column_name(headers: &[String], i: usize) -> String {
    headers.get(i).map_or_else(
        || format!("column {}", i + 1),
        |h| match h.char_indices().nth(60) {
            // An unclosed quote in the header holds the rest of the file.
            Some((cut, _)) => format!("{:?}…", &h[..cut]),
            None => format!("{h:?}"),
        },
    )
}

/// The header's column names; two columns of one name would leave one of them unread,
/// and a column without a name is called by its number (`column 3`) so that its values
/// are kept rather than dropped.
fn header_names(name: &str, headers: &csv::ByteRecord) -> Result<Vec<String>> {
    let mut names = Vec::with_capacity(headers.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, h) in headers.iter().enumerate() {
        let h = std::str::from_utf8(h).map_err(|_| {
            Error::input(
                name,
                1,
                None,
                format!(
                    "column {} of the header row is not valid UTF-8; save the file as UTF-8",
                    i + 1
                ),
            )
        })?;
        let mut h = h.trim_start_matches('\u{FEFF}').trim().to_string();
        if h.is_empty() {
            h = format!("column {}", i + 1);
        }
        if let Some(first) = seen.insert(h.clone(), i) {
            return Err(Error::input(
                name,
                1,
                Some(&h),
                format!(
                    "the header names this column twice (columns {} and {}); give each column \
                     its own name",
                    first + 1,
                    i + 1
                ),
            ));
        }
        names.push(h);
    }
    Ok(names)
}

fn fields(n: usize) -> String {
    if n == 1 {
        "1 field".to_string()
    } else {
        format!("{n} fields")
    }
}

fn row(
    name: &str,
    line: u64,
    headers: &[String],
    record: &csv::ByteRecord,
    raw: String,
) -> std::result::Result<Row, BadRow> {
    if record.as_slice().len() > MAX_ROW_BYTES {
        return Err(too_long(name, line, record.as_slice().len()));
    }
    let mut fields = Map::new();
    for (header, value) in headers.iter().zip(record.iter()) {
        let Ok(value) = std::str::from_utf8(value) else {
            return Err(BadRow {
                error: Error::input(
                    name,
                    line,
                    Some(header),
                    "invalid UTF-8; save the file as UTF-8",
                ),
                raw,
            });
        };
        if value.contains('\0') {
            return Err(BadRow {
                error: nul_error(name, line, header),
                raw,
            });
        }
        fields.insert(header.clone(), Value::String(value.to_string()));
    }
    Ok(Row {
        line,
        fields,
        raw,
        typed: false,
        exact: HashMap::new(),
    })
}

/// A quoting mistake in one record: the field it is in (0-based), where its quote opened,
/// and what is wrong.
#[derive(Debug, PartialEq, Eq)]
struct QuoteError {
    field: usize,
    opened: usize,
    message: String,
}

/// What rows of the file look like: how many fields, and the record's own first field.
/// A quoted field holding a line of that shape swallowed a row.
struct Shape<'a> {
    columns: usize,
    first: Option<&'a [u8]>,
}

impl Shape<'_> {
    /// Whether `line`, the `k`-th line inside a quoted field, reads like a row of its own:
    /// the header's number of fields, and a first field that is an id of the same kind as
    /// the record's (one word holding a digit: `2`, `c-12`) and falls between the
    /// record's and the next record's (`2` inside row `1` followed by row `4`), a number at
    /// most `k` past the record's. Prose is never taken for a row: a first field with a
    /// space (a claim, a wrapped line) is no id, and a year opening a line is far from
    /// the row's id. Without a next row nothing is taken for a row.
    fn is_row(&self, line: &[u8], k: u64, next: Option<&[u8]>, delimiter: u8) -> bool {
        let (Some(first), Some(next)) = (self.first, next) else {
            return false;
        };
        let cells = line.split(|&b| b == delimiter).count();
        let its_first = line.split(|&b| b == delimiter).next().unwrap_or_default();
        let id_kind = kind(first);
        let id_like = id_kind.contains(&b'9') && !id_kind.contains(&b' ');
        if self.columns < 2
            || cells != self.columns
            || !id_like
            || kind(its_first) != id_kind
            || kind(next) != id_kind
        {
            return false;
        }
        match (number(first), number(its_first), number(next)) {
            (Some(a), Some(b), Some(n)) => a < b && b < n && b - a <= k,
            _ => {
                let (a, b, n) = (
                    first.trim_ascii(),
                    its_first.trim_ascii(),
                    next.trim_ascii(),
                );
                a < b && b < n
            }
        }
    }
}

fn number(v: &[u8]) -> Option<u64> {
    std::str::from_utf8(v.trim_ascii()).ok()?.parse().ok()
}

/// A value's kind: runs of digits, of letters and of anything else, as `9a-9`.
fn kind(value: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    for &b in value.trim_ascii() {
        let class = if b.is_ascii_digit() {
            b'9'
        } else if b.is_ascii_alphabetic() || b >= 0x80 {
            b'a'
        } else {
            b
        };
        if out.last() != Some(&class) || !matches!(class, b'9' | b'a') {
            out.push(class);
        }
    }
    out
}

/// Checks the record that starts at `start` (on line `line`) against the quoting rules:
/// a field that starts with a quote ends with one, followed by a separator or the end of
/// the line, and a quote inside it is doubled. A quote inside a field that does not start
/// with one is read as written. A quoted field over several lines that holds a line
/// shaped like a row (`rows`) is taken for a missing closing quote.
fn check_quotes(
    bytes: &[u8],
    start: usize,
    line: u64,
    delimiter: u8,
    rows: Option<&Shape<'_>>,
) -> Option<QuoteError> {
    let mut i = start;
    let mut line = line;
    let mut field = 0;
    loop {
        if bytes.get(i) != Some(&b'"') {
            while i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r') && bytes[i] != delimiter {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] != delimiter {
                return None;
            }
            i += 1;
            field += 1;
            continue;
        }
        let (opened, open_line) = (i, line);
        let mut inner_lines = Vec::new();
        i += 1;
        loop {
            match bytes.get(i) {
                None => {
                    return Some(QuoteError {
                        field,
                        opened,
                        message: format!(
                            "the quote that opens this field on line {open_line} never closes, \
                             so the field would run to the end of the file; is a closing \
                             quote missing?"
                        ),
                    })
                }
                Some(b'"') if bytes.get(i + 1) == Some(&b'"') => i += 2,
                Some(b'"') => break,
                Some(_) if is_line_break(bytes, i) => {
                    line += 1;
                    i += 1;
                    let rest = &bytes[i..];
                    let end = rest
                        .iter()
                        .position(|&b| matches!(b, b'\n' | b'\r' | b'"'))
                        .unwrap_or(rest.len());
                    inner_lines.push((line, &rest[..end]));
                }
                Some(_) => i += 1,
            }
        }
        let closing = i;
        i += 1;
        let ends_field = match bytes.get(i) {
            None | Some(b'\n' | b'\r') => true,
            Some(&b) => b == delimiter,
        };
        if !ends_field {
            let at = snippet(bytes, opened, closing);
            let message = if line == open_line {
                format!(
                    "text follows the quote that closes this field ({at}); to keep quotes \
                     in a field, quote the whole field and double each quote inside it, \
                     as in \"He said \"\"yes\"\" twice\""
                )
            } else {
                format!(
                    "the quote that opens this field on line {open_line} closes on line \
                     {line} with text after it ({at}); a closing quote is probably \
                     missing, and the field would swallow the rows in between"
                )
            };
            return Some(QuoteError {
                field,
                opened,
                message,
            });
        }
        let row_inside = rows.filter(|_| !inner_lines.is_empty()).and_then(|r| {
            // The next record's first field, taken as starting on the line after this one.
            let next =
                first_field(bytes, line_end(bytes, closing), delimiter).filter(|f| !f.is_empty());
            inner_lines
                .iter()
                .find(|(at, text)| r.is_row(text, at - open_line, next, delimiter))
        });
        if let Some(&(at, text)) = row_inside {
            let text = String::from_utf8_lossy(&text[..text.len().min(60)]).into_owned();
            return Some(QuoteError {
                field,
                opened,
                message: format!(
                    "the quote that opens this field on line {open_line} closes on line \
                     {line}, and line {at} inside it reads like a row of its own \
                     ({text:?}); a closing quote is probably missing. A field that truly \
                     spans lines must not hold a line shaped like a row"
                ),
            });
        }
        match bytes.get(i) {
            Some(&b) if b == delimiter => {
                i += 1;
                field += 1;
            }
            _ => return None,
        }
    }
}

/// A short excerpt around a closing quote, on one line, for an error message.
fn snippet(bytes: &[u8], opened: usize, closing: usize) -> String {
    let from = opened.max(closing.saturating_sub(24));
    let to = (closing + 12).min(bytes.len());
    let text = String::from_utf8_lossy(&bytes[from..to]);
    let text: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let lead = if from > opened { "…" } else { "" };
    format!("{lead}{}…", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Option<QuoteError> {
        let shape = Shape {
            columns: 3,
            first: first_field(text.as_bytes(), 0, b','),
        };
        check_quotes(text.as_bytes(), 0, 1, b',', Some(&shape))
    }

    #[test]
    fn well_quoted_records_pass() {
        assert_eq!(check("1,\"a, b\",c\n"), None);
        assert_eq!(check("1,\"He said \"\"yes\"\"\",c\r\n"), None);
        assert_eq!(check("1,\"two\nlines\",c"), None);
        assert_eq!(check("1,5\" screen,c\n"), None);
        assert_eq!(check("1,\"\",c"), None);
    }

    /// A year opening a line of prose is no row: it does not fall between the record's
    /// id and the next record's (a false refusal found by generating real-shaped files).
    #[test]
    fn a_paragraph_line_starting_with_a_number_is_not_a_row() {
        let text = "130,\"First line.\n140, a year and a comma,x.\",c\n131,b,c\n";
        assert_eq!(check(text), None);
        let text = "130,\"First line.\n131, a year and a comma,x.\",c\n131,b,c\n";
        assert_eq!(check(text), None);
        let swallowed = "130,\"Open.\n131,Row,S\n132,Five 5\",R\n133,b,c\n";
        assert!(check(swallowed).is_some());
    }

    /// Found by the hostile pass: hard-wrapped prose after a claim, a year in the last
    /// row, and ids with gaps are no rows.
    #[test]
    fn prose_lines_are_not_rows() {
        let wrapped = "Masks cut flu spread,\"A large trial, run in 2020,\nfound masks cut infections, and\nthe effect held.\",x\nNext claim here,b,c\n";
        assert_eq!(check(wrapped), None);
        assert_eq!(
            check("1,\"Official tally\n1990, the band formed,x\nend\",c\n"),
            None
        );
        assert_eq!(
            check("1000,\"Tally\n1990, the band formed,x\",c\n2000,b,c\n"),
            None
        );
    }

    #[test]
    fn text_after_a_closing_quote_is_refused() {
        let bad =
            check("1,\"Yes we can\" was his slogan,S\n").unwrap_or_else(|| panic!("not refused"));
        assert_eq!(bad.field, 1);
        assert!(
            bad.message.contains("\"Yes we can\" was"),
            "{}",
            bad.message
        );
    }

    #[test]
    fn an_unbalanced_quote_names_where_it_opened() {
        let bad = check("1,\"Open,S\n2,b,R\n3,\"c\",S\n").unwrap_or_else(|| panic!("not refused"));
        assert_eq!(bad.field, 1);
        assert!(bad
            .message
            .contains("opens this field on line 1 closes on line 3"));
        let bad = check("1,\"Vaccines work,S\n2,Masks fail,R\n3,Screens are 5\",R\n4,x,S\n")
            .unwrap_or_else(|| panic!("not refused"));
        assert!(
            bad.message.contains("line 2 inside it reads like a row"),
            "{}",
            bad.message
        );
        let bad = check("1,\"Open,S\n2,b,R\n").unwrap_or_else(|| panic!("not refused"));
        assert!(bad.message.contains("never closes"), "{}", bad.message);
    }
}
