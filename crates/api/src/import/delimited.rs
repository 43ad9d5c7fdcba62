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

pub(super) fn read(
    name: &str,
    bytes: &[u8],
    delimiter: u8,
) -> Result<Vec<std::result::Result<Row, BadRow>>> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(false)
        .from_reader(bytes);
    let headers = reader
        .byte_headers()
        .map_err(|e| Error::input(name, 1, None, format!("cannot read the header row: {e}")))?
        .clone();
    let header_names = header_names(name, &headers)?;
    if let Some(bad) = check_quotes(bytes, 0, 1, delimiter) {
        let column = header_names
            .get(bad.field)
            .map_or_else(|| format!("column {}", bad.field + 1), |h| format!("{h:?}"));
        return Err(Error::input(
            name,
            1,
            None,
            format!("header row, {column}: {}", bad.message),
        ));
    }
    let mut rows = Vec::new();
    let mut record = csv::ByteRecord::new();
    loop {
        let line = reader.position().line();
        let start = reader.position().byte();
        let result = reader.read_byte_record(&mut record);
        // A quoting mistake explains a wrong field count better than the count does.
        if !matches!(result, Ok(false)) {
            let start = match &result {
                Err(e) => e.position().map_or(start, csv::Position::byte),
                Ok(_) => record.position().map_or(start, csv::Position::byte),
            };
            let line = match &result {
                Err(e) => e.position().map_or(line, csv::Position::line),
                Ok(_) => record.position().map_or(line, csv::Position::line),
            };
            if let Some(bad) = check_quotes(bytes, start as usize, line, delimiter) {
                let field = header_names.get(bad.field).map(String::as_str);
                rows.push(Err(BadRow {
                    error: Error::input(name, line, field, bad.message),
                    raw: String::from_utf8_lossy(record_bytes(bytes, start as usize, &reader))
                        .into_owned(),
                }));
                continue;
            }
        }
        match result {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                // The error knows where its record starts, even after multi-line fields.
                let line = e.position().map_or(line, csv::Position::line);
                let message = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!(
                        "the row has {} but the header has {}",
                        fields(*len),
                        fields(*expected_len)
                    ),
                    _ => format!("malformed row: {e}"),
                };
                rows.push(Err(BadRow {
                    error: Error::input(name, line, None, message),
                    raw: String::new(),
                }));
                continue;
            }
        }
        let line = record.position().map_or(line, |p| p.line());
        rows.push(row(name, line, &header_names, &record));
    }
    Ok(rows)
}

/// The record's own bytes, from its start to where the reader stopped, for the rejects
/// file.
fn record_bytes<'a>(bytes: &'a [u8], start: usize, reader: &csv::Reader<&[u8]>) -> &'a [u8] {
    let end = (reader.position().byte() as usize).clamp(start, bytes.len());
    let record = &bytes[start.min(end)..end];
    let mut trimmed = record.len();
    while trimmed > 0 && matches!(record[trimmed - 1], b'\n' | b'\r') {
        trimmed -= 1;
    }
    &record[..trimmed]
}

/// The header's column names; two columns of one name would leave one of them unread.
fn header_names(name: &str, headers: &csv::ByteRecord) -> Result<Vec<String>> {
    let mut names = Vec::with_capacity(headers.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, h) in headers.iter().enumerate() {
        let h = std::str::from_utf8(h).map_err(|_| {
            Error::input(
                name,
                1,
                None,
                format!("column {} of the header row is not valid UTF-8", i + 1),
            )
        })?;
        let h = h.trim_start_matches('\u{FEFF}').trim().to_string();
        // Unnamed columns (an index column, trailing separators) are dropped anyway.
        if !h.is_empty() {
            if let Some(first) = seen.insert(h.clone(), i) {
                return Err(Error::input(
                    name,
                    1,
                    Some(&h),
                    format!(
                        "the header names this column twice (columns {} and {}); give each \
                         column its own name",
                        first + 1,
                        i + 1
                    ),
                ));
            }
        }
        names.push(h);
    }
    Ok(names)
}

fn fields(n: u64) -> String {
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
) -> std::result::Result<Row, BadRow> {
    let raw = || String::from_utf8_lossy(record.as_slice()).into_owned();
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
                raw: raw(),
            });
        };
        if value.contains('\0') {
            return Err(BadRow {
                error: nul_error(name, line, header),
                raw: raw(),
            });
        }
        fields.insert(header.clone(), Value::String(value.to_string()));
    }
    Ok(Row {
        line,
        fields,
        raw: raw(),
        typed: false,
        exact: HashMap::new(),
    })
}

/// A quoting mistake in one record: the field it is in (0-based) and what is wrong.
#[derive(Debug, PartialEq, Eq)]
struct QuoteError {
    field: usize,
    message: String,
}

/// Checks the record that starts at `start` (on line `line`) against the quoting rules:
/// a field that starts with a quote ends with one, followed by a separator or the end of
/// the line, and a quote inside it is doubled. A quote inside a field that does not start
/// with one is read as written.
fn check_quotes(bytes: &[u8], start: usize, line: u64, delimiter: u8) -> Option<QuoteError> {
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
        i += 1;
        loop {
            match bytes.get(i) {
                None => {
                    return Some(QuoteError {
                        field,
                        message: format!(
                            "the quote that opens this field on line {open_line} never closes, \
                             so the field would run to the end of the file; is a closing \
                             quote missing?"
                        ),
                    })
                }
                Some(b'"') if bytes.get(i + 1) == Some(&b'"') => i += 2,
                Some(b'"') => break,
                Some(b'\n') => {
                    line += 1;
                    i += 1;
                }
                Some(_) => i += 1,
            }
        }
        let closing = i;
        i += 1;
        match bytes.get(i) {
            None | Some(b'\n' | b'\r') => return None,
            Some(&b) if b == delimiter => {
                i += 1;
                field += 1;
            }
            Some(_) => {
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
                return Some(QuoteError { field, message });
            }
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
        check_quotes(text.as_bytes(), 0, 1, b',')
    }

    #[test]
    fn well_quoted_records_pass() {
        assert_eq!(check("1,\"a, b\",c\n"), None);
        assert_eq!(check("1,\"He said \"\"yes\"\"\",c\r\n"), None);
        assert_eq!(check("1,\"two\nlines\",c"), None);
        assert_eq!(check("1,5\" screen,c\n"), None);
        assert_eq!(check("1,\"\",c"), None);
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
        let bad = check("1,\"Open,S\n2,b,R\n").unwrap_or_else(|| panic!("not refused"));
        assert!(bad.message.contains("never closes"), "{}", bad.message);
    }
}
