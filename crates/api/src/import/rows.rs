//! Reading input files into rows: JSON Lines, CSV and TSV, with every problem located by
//! file, line and field.

pub(crate) use super::row::{nul_error, too_long};
pub use super::row::{BadRow, Row, MAX_ROW_BYTES};

use super::input_file;
use super::json_row::TopLevel;
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Rows read, parsed and converted at a time: enough to keep every core busy, few enough
/// that a large file's rows are never all held at once.
pub const BATCH_ROWS: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    JsonLines,
    Delimited(u8),
}

fn format_of(path: &Path) -> Format {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" => Format::Delimited(b','),
        "tsv" | "tab" => Format::Delimited(b'\t'),
        _ => Format::JsonLines,
    }
}

/// One line of a JSON Lines file, read but not yet parsed.
#[derive(Debug)]
pub enum RawLine {
    Line(u64, Vec<u8>),
    /// A line over [`MAX_ROW_BYTES`], already refused.
    Refused(BadRow),
}

impl RawLine {
    pub fn parse(&self, name: &str) -> std::result::Result<Row, BadRow> {
        match self {
            RawLine::Line(line, bytes) => parse_json_row(name, *line, bytes),
            RawLine::Refused(bad) => Err(bad.clone()),
        }
    }
}

/// A batch of an input file's rows as read: JSON Lines lines not yet parsed (parsing
/// runs on every core), or CSV/TSV rows, which are located and checked in file order.
#[derive(Debug)]
pub enum Batch {
    Lines(Vec<RawLine>),
    Rows(Vec<std::result::Result<Row, BadRow>>),
}

impl Batch {
    /// `f` on every row, parsed where needed, on every core, in the rows' order.
    pub fn map<U: Send>(
        self,
        name: &str,
        f: impl Fn(std::result::Result<Row, BadRow>) -> U + Sync,
    ) -> Vec<U> {
        match self {
            Batch::Lines(lines) => super::parallel::map_ordered(&lines, |l| f(l.parse(name))),
            Batch::Rows(rows) => super::parallel::map_owned(rows, f),
        }
    }

    /// The first `n` rows that could be read, for a preset to judge the file by.
    pub fn readable(&self, name: &str, n: usize) -> Vec<Row> {
        match self {
            Batch::Lines(lines) => lines
                .iter()
                .take(n)
                .filter_map(|l| l.parse(name).ok())
                .collect(),
            Batch::Rows(rows) => rows
                .iter()
                .take(n)
                .filter_map(|r| r.as_ref().ok())
                .cloned()
                .collect(),
        }
    }
}

/// Reads `path` [`BATCH_ROWS`] rows at a time and hands each batch to `f`, so that a large
/// file's rows are never all held at once beside what they become. A file-level problem
/// (unreadable, empty) is an `Err`; row-level problems come in the batches, so that
/// `--skip-invalid` can set them aside.
pub fn batches(path: &Path, mut f: impl FnMut(Batch) -> Result<()>) -> Result<()> {
    let name = path.display().to_string();
    let file = input_file::open(path)?;
    let watch = input_file::Unchanged::watch(&file);
    let read = match format_of(path) {
        Format::JsonLines => json_lines(&name, file, BATCH_ROWS, |lines| f(Batch::Lines(lines))),
        Format::Delimited(d) => delimited_beside(&name, file, d, BATCH_ROWS, f),
    };
    // Checked before any error of the reading is said too: a file cut short midway reads
    // as a broken last row.
    watch.check(&name)?;
    let count = read?;
    if count == 0 {
        return Err(Error::input(
            &name,
            1,
            None,
            "the file has no rows, only blank lines or a header",
        ));
    }
    Ok(())
}

/// Reads a CSV or TSV file on a thread of its own, a batch ahead of `f`: reading and
/// checking records is serial, and `f` (converting the rows on every core) would leave a
/// core idle while it ran. Returns how many rows there were.
fn delimited_beside(
    name: &str,
    file: File,
    delimiter: u8,
    chunk: usize,
    mut f: impl FnMut(Batch) -> Result<()>,
) -> Result<u64> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let reader = s.spawn(move || {
            super::delimited::read(name, file, delimiter, chunk, |rows| {
                // The receiver only goes when `f` failed, whose error is the one returned.
                tx.send(rows)
                    .map_err(|_| Error::input(name, 0, None, "reading stopped"))
            })
        });
        let mut done = Ok(());
        for rows in rx.iter() {
            done = f(Batch::Rows(rows));
            if done.is_err() {
                break;
            }
        }
        drop(rx);
        let read = match reader.join() {
            Ok(read) => read,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        done.and(read)
    })
}

/// Reads lines in batches of `chunk`; returns how many non-blank lines there were.
fn json_lines(
    name: &str,
    file: File,
    chunk: usize,
    mut f: impl FnMut(Vec<RawLine>) -> Result<()>,
) -> Result<u64> {
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    let mut line = 0u64;
    let mut count = 0u64;
    loop {
        buf.clear();
        line += 1;
        let n = (&mut reader)
            .take(MAX_ROW_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::input(name, line, None, format!("cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        if buf.len() > MAX_ROW_BYTES && buf.last() != Some(&b'\n') {
            let skipped = skip_rest_of_line(&mut reader)
                .map_err(|e| Error::input(name, line, None, format!("cannot read: {e}")))?;
            let total = buf.len() + skipped;
            lines.push(RawLine::Refused(too_long(name, line, total)));
        } else {
            let bytes = trim_line_end(&buf);
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            lines.push(RawLine::Line(line, bytes.to_vec()));
        }
        count += 1;
        if lines.len() >= chunk {
            f(std::mem::take(&mut lines))?;
        }
    }
    if !lines.is_empty() {
        f(lines)?;
    }
    Ok(count)
}

fn skip_rest_of_line(reader: &mut impl BufRead) -> std::io::Result<usize> {
    let mut skipped = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(skipped);
        }
        if let Some(pos) = chunk.iter().position(|&b| b == b'\n') {
            reader.consume(pos + 1);
            return Ok(skipped + pos);
        }
        let n = chunk.len();
        reader.consume(n);
        skipped += n;
    }
}

fn trim_line_end(buf: &[u8]) -> &[u8] {
    let mut end = buf.len();
    while end > 0 && (buf[end - 1] == b'\n' || buf[end - 1] == b'\r') {
        end -= 1;
    }
    // A UTF-8 byte order mark at the start of a file is not part of the data.
    buf[..end]
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(&buf[..end])
}

fn parse_json_row(name: &str, line: u64, bytes: &[u8]) -> std::result::Result<Row, BadRow> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let field = field_with_replacement_char(&lossy);
            return Err(BadRow {
                error: Error::input(
                    name,
                    line,
                    field.as_deref(),
                    format!(
                        "invalid UTF-8 at byte {} of the row; save the file as UTF-8",
                        e.valid_up_to() + 1
                    ),
                ),
                raw: lossy,
            });
        }
    };
    match serde_json::from_str::<TopLevel>(text) {
        Ok(TopLevel::Object {
            twice: Some(twice), ..
        }) => Err(BadRow {
            error: Error::input(
                name,
                line,
                Some(&twice.field),
                match &twice.key {
                    None => "the row names this field twice; keep one (JSON readers disagree \
                             on which one counts)"
                        .to_string(),
                    Some(key) => super::json_row::named_twice(key),
                },
            ),
            raw: text.to_string(),
        }),
        Ok(TopLevel::Object {
            fields,
            twice: None,
        }) => {
            let row = Row {
                line,
                exact: super::numbers::exact(text, &fields),
                changed: super::numbers::changed(text, &fields),
                fields,
                raw: text.to_string(),
                typed: true,
            };
            match field_with_nul(&row.fields) {
                Some(field) => Err(BadRow {
                    error: nul_error(name, line, &field),
                    raw: row.raw,
                }),
                None => Ok(row),
            }
        }
        Ok(TopLevel::Other(kind)) => Err(BadRow {
            error: Error::input(
                name,
                line,
                None,
                format!("expected a JSON object per line, found {kind}"),
            ),
            raw: text.to_string(),
        }),
        Err(e) => {
            // Text after the object belongs to no field.
            let field = if e.to_string().starts_with("trailing characters") {
                None
            } else {
                last_key_before(text, e.column())
            };
            let error = if text.contains('\0') {
                // A raw NUL is refused like an escaped one, with the same words.
                nul_error(name, line, field.as_deref().unwrap_or("?"))
            } else {
                Error::input(
                    name,
                    line,
                    field.as_deref(),
                    format!(
                        "invalid JSON at column {}: {}",
                        e.column(),
                        explain(strip_position(&e.to_string()))
                    ),
                )
            };
            Err(BadRow {
                error,
                raw: text.to_string(),
            })
        }
    }
}

/// serde_json's words for two mistakes that real files make, said as the user meets them.
fn explain(msg: &str) -> String {
    if msg.contains("hex escape") || msg.contains("surrogate") {
        format!(
            "{msg} (an escape between \\ud800 and \\udfff must be half of a surrogate pair; \
             alone it is no character)"
        )
    } else if msg == "number out of range" {
        "the number is too large to read; write it as text, in quotes".to_string()
    } else {
        msg.to_string()
    }
}

/// The top-level field holding a NUL character anywhere in its value (or a key).
fn field_with_nul(fields: &Map<String, Value>) -> Option<String> {
    fn has_nul(v: &Value) -> bool {
        match v {
            Value::String(s) => s.contains('\0'),
            Value::Array(items) => items.iter().any(has_nul),
            Value::Object(m) => m.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
            _ => false,
        }
    }
    fields
        .iter()
        .find(|(k, v)| k.contains('\0') || has_nul(v))
        .map(|(k, _)| k.replace('\0', "\\u0000"))
}

/// serde_json appends " at line 1 column 17"; we report the position ourselves.
fn strip_position(msg: &str) -> &str {
    msg.find(" at line ").map_or(msg, |i| &msg[..i])
}

pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The object key whose value was being read when a JSON parse failed at `column`
/// (1-based, in characters), so the error can name the field.
fn last_key_before(text: &str, column: usize) -> Option<String> {
    let prefix: String = text.chars().take(column).collect();
    let mut key = None;
    let mut chars = prefix.char_indices().peekable();
    let mut depth = 0i32;
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            '"' => {
                let start = i + 1;
                let mut end = None;
                while let Some((j, d)) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        end = Some(j);
                        break;
                    }
                }
                let Some(end) = end else { break };
                let rest = prefix[end + 1..].trim_start();
                if depth == 1 && rest.starts_with(':') {
                    key = Some(prefix[start..end].to_string());
                }
            }
            _ => {}
        }
    }
    key
}

/// After lossy decoding, the first top-level string field holding U+FFFD.
fn field_with_replacement_char(lossy: &str) -> Option<String> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(lossy) else {
        return None;
    };
    map.iter()
        .find(|(_, v)| v.to_string().contains('\u{FFFD}'))
        .map(|(k, _)| k.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_key_being_read_when_json_breaks() {
        let text = r#"{"id": "a1", "claim": "unterminated"#;
        let err = serde_json::from_str::<Value>(text)
            .err()
            .map(|e| e.column())
            .unwrap_or(0);
        assert_eq!(last_key_before(text, err).as_deref(), Some("claim"));
    }

    #[test]
    fn nested_keys_do_not_hide_the_top_level_field() {
        let text = r#"{"metadata": {"a": 1, "b": }"#;
        let col = serde_json::from_str::<Value>(text)
            .err()
            .map(|e| e.column())
            .unwrap_or(0);
        assert_eq!(last_key_before(text, col).as_deref(), Some("metadata"));
    }
}
