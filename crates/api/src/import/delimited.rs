//! Reading CSV and TSV files into rows.
//!
//! The csv crate reads leniently: text after a closing quote is glued onto the field
//! (`"Yes we can" was his slogan` loses its quotes) and a quote that never closes
//! swallows the rows after it into one field. Either would become a wrong claim with no
//! error, so every record is also checked against the quoting rules before it is used.

use super::row::{nul_error, too_long, BadRow, Row, MAX_ROW_BYTES};
use super::window::{is_line_break, line_end, refuse_long_lines, Window, WINDOW_BYTES};
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};

/// Reads a CSV or TSV file and hands its rows to `f` about `chunk` at a time; returns
/// how many rows there were.
pub(super) fn read<R: Read + Seek>(
    name: &str,
    src: R,
    delimiter: u8,
    chunk: usize,
    f: impl FnMut(Vec<std::result::Result<Row, BadRow>>) -> Result<()>,
) -> Result<u64> {
    read_in(name, src, delimiter, chunk, WINDOW_BYTES, f)
}

fn read_in<R: Read + Seek>(
    name: &str,
    mut src: R,
    delimiter: u8,
    chunk: usize,
    window: usize,
    mut f: impl FnMut(Vec<std::result::Result<Row, BadRow>>) -> Result<()>,
) -> Result<u64> {
    refuse_long_lines(name, &mut src)?;
    src.seek(SeekFrom::Start(0))
        .map_err(|e| Error::input(name, 0, None, format!("cannot read: {e}")))?;
    let mut w = Window::new(name, src, window)?;
    let builder = || reader_builder(delimiter);
    let mut record = csv::ByteRecord::new();
    let (mut base, header_names) = read_header(name, &mut w, delimiter, &mut record)?;
    let mut rows = Vec::new();
    let mut count = 0;
    // A quoting mistake ends a segment: the rows after the line where the quote opened are
    // read again from a new reader, so that under --skip-invalid only that line is lost.
    // So does the end of the window: the record is read again once the window starts at
    // it and holds it whole.
    'segments: loop {
        let bytes = w.bytes.as_slice();
        let mut reader = builder().from_reader(&bytes[base..]);
        loop {
            if rows.len() >= chunk {
                count += rows.len() as u64;
                f(std::mem::take(&mut rows))?;
            }
            match reader.read_byte_record(&mut record) {
                Ok(true) => {}
                Ok(false) if w.at_end() => break 'segments,
                Ok(false) => {
                    // Only line ends were left in the window: move past them, keeping a
                    // last CR, which may be the start of a CRLF.
                    let keep = usize::from(bytes.last() == Some(&b'\r'));
                    w.move_to(name, bytes.len() - keep)?;
                    base = 0;
                    continue 'segments;
                }
                Err(e) => {
                    let (_, line) = w.lines.locate(bytes, base);
                    rows.push(Err(BadRow {
                        error: Error::input(name, line, None, format!("malformed row: {e}")),
                        raw: String::new(),
                    }));
                    break 'segments;
                }
            }
            let at = base + record.position().map_or(0, |p| p.byte() as usize);
            let (start, line) = w.lines.locate(bytes, at);
            let end = (base + reader.position().byte() as usize).clamp(start, bytes.len());
            if !w.holds(end) {
                w.move_to(name, start)?;
                base = 0;
                continue 'segments;
            }
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

/// A CSV reader of `delimiter`-separated rows of any width, without a header of its own.
fn reader_builder(delimiter: u8) -> csv::ReaderBuilder {
    let mut b = csv::ReaderBuilder::new();
    b.delimiter(delimiter).has_headers(false).flexible(true);
    b
}

/// Reads the header row from the window's start (moving the window until it holds it
/// whole) and checks its quotes; returns where the rows begin and the column names.
fn read_header<R: Read + Seek>(
    name: &str,
    w: &mut Window<R>,
    delimiter: u8,
    record: &mut csv::ByteRecord,
) -> Result<(usize, Vec<String>)> {
    let base = loop {
        let mut reader = reader_builder(delimiter).from_reader(w.bytes.as_slice());
        reader
            .read_byte_record(record)
            .map_err(|e| Error::input(name, 1, None, format!("cannot read the header row: {e}")))?;
        let end = reader.position().byte() as usize;
        if w.holds(end) {
            break end;
        }
        w.move_to(name, 0)?;
    };
    let header_names = header_names(name, record)?;
    let bom = if w.bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    if let Some(bad) = check_quotes(&w.bytes, bom, 1, delimiter, None) {
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
    Ok((base, header_names))
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
        changed: HashMap::new(),
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
        let (closing, close_line, inner_lines) = match scan_quoted(bytes, opened, open_line) {
            Ok(found) => found,
            Err(message) => {
                return Some(QuoteError {
                    field,
                    opened,
                    message,
                })
            }
        };
        line = close_line;
        i = closing + 1;
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

/// The lines inside a quoted field, numbered, as `(line, text up to a line end or quote)`.
type InnerLines<'b> = Vec<(u64, &'b [u8])>;

/// Reads a quoted field from its opening quote at `opened` (on `open_line`): where its
/// closing quote is, the line it closes on, and the lines inside it; the message when it
/// never closes.
fn scan_quoted(
    bytes: &[u8],
    opened: usize,
    open_line: u64,
) -> std::result::Result<(usize, u64, InnerLines<'_>), String> {
    let mut inner_lines = Vec::new();
    let mut line = open_line;
    let mut i = opened + 1;
    loop {
        match bytes.get(i) {
            None => {
                return Err(format!(
                    "the quote that opens this field on line {open_line} never closes, \
                     so the field would run to the end of the file; is a closing \
                     quote missing?"
                ))
            }
            Some(b'"') if bytes.get(i + 1) == Some(&b'"') => i += 2,
            Some(b'"') => return Ok((i, line, inner_lines)),
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
#[path = "delimited_tests.rs"]
mod tests;
