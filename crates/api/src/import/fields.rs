//! Typed access to the fields of an input row, with errors that name the field.

use super::rows::{json_kind, Row};
use crate::{Error, Result};
use serde_json::Value;

/// A row being read, with the file name for error messages.
#[derive(Debug)]
pub struct Fields<'a> {
    pub file: &'a std::sync::Arc<str>,
    pub row: &'a Row,
}

impl Fields<'_> {
    pub fn err(&self, field: &str, msg: impl Into<String>) -> Error {
        Error::input(self.file, self.row.line, Some(field), msg)
    }

    pub fn get(&self, column: &str) -> Option<&Value> {
        match self.row.fields.get(column) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(v) => Some(v),
        }
    }

    /// A required, non-blank string.
    pub fn required_str(&self, column: &str) -> Result<String> {
        self.required(column)?;
        self.opt_str(column).map(|s| s.unwrap_or_default())
    }

    /// A required id: text, or a number kept exactly as written.
    pub fn required_id(&self, column: &str) -> Result<String> {
        self.required(column)?;
        self.opt_id(column).map(|s| s.unwrap_or_default())
    }

    fn required(&self, column: &str) -> Result<()> {
        match self.row.fields.get(column) {
            None => {
                // "Claim" for "claim": names are exact, and a near miss deserves a hint.
                let near = self
                    .row
                    .fields
                    .keys()
                    .find(|k| k.trim().eq_ignore_ascii_case(column));
                Err(self.err(
                    column,
                    match near {
                        Some(k) => format!(
                            "missing: every row needs this field (the row has {k:?}, but \
                             field names are case-sensitive: name it {column:?})"
                        ),
                        None => "missing: every row needs this field".to_string(),
                    },
                ))
            }
            Some(Value::String(s)) if s.trim().is_empty() => Err(self.err(column, "is empty")),
            Some(_) => Ok(()),
        }
    }

    /// An optional string. A number is refused: only ids may be numbers.
    pub fn opt_str(&self, column: &str) -> Result<Option<String>> {
        match self.get(column) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(v) => Err(self.err(column, format!("expected text, found {}", json_kind(v)))),
        }
    }

    /// An optional id: text, or a number kept exactly as written (ids often are numbers,
    /// and one beyond a float's precision must not collide with its neighbour).
    pub fn opt_id(&self, column: &str) -> Result<Option<String>> {
        match self.get(column) {
            Some(Value::Number(n)) => Ok(Some(self.number_text(column, n))),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            None => Ok(None),
            Some(v) => Err(self.err(
                column,
                format!("expected text or a number, found {}", json_kind(v)),
            )),
        }
    }

    fn number_text(&self, key: &str, n: &serde_json::Number) -> String {
        self.row
            .exact
            .get(key)
            .cloned()
            .unwrap_or_else(|| n.to_string())
    }

    /// A list of strings (of ids, which may be numbers, with `ids`): a JSON array, or in
    /// CSV/TSV a cell holding a JSON array or values separated by `|`.
    pub fn str_list(&self, column: &str, split_bars: bool, ids: bool) -> Result<Vec<String>> {
        let value = match self.get(column) {
            None => return Ok(Vec::new()),
            Some(v @ Value::String(_)) if self.row.typed => {
                return Err(self.err(
                    column,
                    format!("expected a list of text, found {}", json_kind(v)),
                ))
            }
            Some(Value::String(s)) if s.trim_start().starts_with('[') => {
                serde_json::from_str::<Value>(s)
                    .map_err(|e| self.err(column, format!("holds an invalid JSON list: {e}")))?
            }
            Some(Value::String(s)) => {
                let parts: Vec<String> = if split_bars {
                    s.split('|')
                        .map(|p| p.trim().to_string())
                        .filter(|p| !p.is_empty())
                        .collect()
                } else {
                    vec![s.trim().to_string()]
                };
                return Ok(parts);
            }
            Some(v) => v.clone(),
        };
        let Value::Array(items) = value else {
            return Err(self.err(
                column,
                format!("expected a list, found {}", json_kind(&value)),
            ));
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.trim().to_string()),
                Value::Number(n) if ids => Ok(self.number_text(&format!("{column}[{i}]"), &n)),
                other => Err(self.err(
                    column,
                    format!("item {} should be text, found {}", i + 1, json_kind(&other)),
                )),
            })
            .filter(|r| !matches!(r, Ok(s) if s.is_empty()))
            .collect()
    }

    /// A JSON object; in CSV/TSV a cell holding one.
    pub fn object(&self, column: &str) -> Result<serde_json::Map<String, Value>> {
        let value = match self.get(column) {
            None => return Ok(serde_json::Map::new()),
            Some(Value::String(s)) if !self.row.typed => match super::json_row::parse_checked(s) {
                Ok((value, None)) => match super::numbers::first_changed(s) {
                    None => value,
                    Some(n) => return Err(self.err(column, super::numbers::changed_message(n))),
                },
                Ok((_, Some(key))) => {
                    return Err(self.err(column, super::json_row::named_twice(&key)))
                }
                Err(e) => return Err(self.err(column, format!("holds invalid JSON: {e}"))),
            },
            Some(v) => {
                self.kept_as_written(column)?;
                v.clone()
            }
        };
        match value {
            Value::Object(m) => Ok(m),
            other => Err(self.err(
                column,
                format!("expected an object, found {}", json_kind(&other)),
            )),
        }
    }

    /// Refuses a field holding a number that would be kept as another value, for a value
    /// kept as it is (`metadata`, a column the format does not know).
    pub fn kept_as_written(&self, column: &str) -> Result<()> {
        match self.row.changed.get(column) {
            Some(n) => Err(self.err(column, super::numbers::changed_message(n))),
            None => Ok(()),
        }
    }

    pub fn label(&self, column: &str) -> Result<Option<factdesk_core::claim::Label>> {
        match self.opt_str(column)? {
            None => Ok(None),
            Some(s) => s
                .parse::<factdesk_core::claim::Label>()
                .map(Some)
                .map_err(|e| self.err(column, e.to_string())),
        }
    }
}
