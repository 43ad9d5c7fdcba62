//! Numbers as a JSON reader holds them, and the ones that would not come back as written.
//!
//! serde_json holds a number that is not a 64-bit integer as a float, and writes it back
//! in the shortest form that reads as the same float. For almost every number that is the
//! same value (`2.50` comes back as `2.5`); for some it is another one: `1e-400` reads as
//! 0, `0.12345678901234567890` loses its last digits, `123456789012345678901234` its low
//! ones. Ids keep their text as written ([`exact`]); anything else kept as a value (a
//! claim's `metadata`) refuses such a number ([`changed`]) rather than store another.

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Numbers as written, where a float could not hold them exactly (an id beyond 2^64),
/// keyed by field, or `field[i]` for an item of a list.
pub(super) fn exact(text: &str, fields: &Map<String, Value>) -> HashMap<String, String> {
    let any = fields.values().any(|v| match v {
        Value::Array(items) => items.iter().any(is_float),
        v => is_float(v),
    });
    let mut out = HashMap::new();
    if !any {
        return out;
    }
    let Ok(raw) = serde_json::from_str::<HashMap<String, &RawValue>>(text) else {
        return out;
    };
    for (key, value) in raw {
        match fields.get(&key) {
            Some(v) if is_float(v) => {
                out.insert(key, value.get().trim().to_string());
            }
            Some(Value::Array(items)) if items.iter().any(is_float) => {
                if let Ok(list) = serde_json::from_str::<Vec<&RawValue>>(value.get()) {
                    for (i, item) in list.iter().enumerate() {
                        out.insert(format!("{key}[{i}]"), item.get().trim().to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Per top-level field, the first number in it that would come back as another value.
/// Rows holding no float anywhere (nearly all) are not scanned.
pub(super) fn changed(text: &str, fields: &Map<String, Value>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    if !fields.values().any(holds_float) || first_changed(text).is_none() {
        return out;
    }
    let Ok(raw) = serde_json::from_str::<HashMap<String, &RawValue>>(text) else {
        return out;
    };
    for (key, value) in raw {
        if let Some(number) = first_changed(value.get()) {
            out.insert(key, number.to_string());
        }
    }
    out
}

/// What is said of a number that would not come back as written.
pub(super) fn changed_message(number: &str) -> String {
    let back = read_back(number).unwrap_or_default();
    format!(
        "holds the number {number}, which would be kept as {back} (a JSON number keeps about \
         17 significant digits, between 1e-308 and 1e308); write it as text, in quotes, to \
         keep it exactly"
    )
}

fn is_float(v: &Value) -> bool {
    matches!(v, Value::Number(n) if n.is_f64())
}

fn holds_float(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.iter().any(holds_float),
        Value::Object(m) => m.values().any(holds_float),
        v => is_float(v),
    }
}

/// The first number in the JSON text `json` (read whole already) that would come back as
/// another value.
pub(super) fn first_changed(json: &str) -> Option<&str> {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    // An escape takes the byte after it, which may be a quote.
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let number = &json[start..i];
                if read_back(number).is_some_and(|back| !same_value(number, &back)) {
                    return Some(number);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// How serde_json writes `number` back once read: `None` when it holds it exactly, as a
/// 64-bit integer.
fn read_back(number: &str) -> Option<String> {
    let integer = !number.contains(['.', 'e', 'E']);
    if integer && (number.parse::<i64>().is_ok() || number.parse::<u64>().is_ok()) {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    serde_json::Number::from_f64(value).map(|n| n.to_string())
}

/// Whether two JSON numbers are the same decimal value.
fn same_value(a: &str, b: &str) -> bool {
    decimal(a) == decimal(b)
}

/// A number as (negative, significant digits, power of ten of the last digit); zero as
/// (false, empty, 0), whatever its sign.
fn decimal(number: &str) -> (bool, String, i64) {
    let (negative, rest) = match number.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, number),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (
            &rest[..at],
            rest[at + 1..].parse::<i64>().unwrap_or(i64::MAX),
        ),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    let mut power = exponent.saturating_sub(fraction.len() as i64);
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    power = power.saturating_add((digits.len() - trimmed.len()) as i64);
    match trimmed.is_empty() {
        true => (false, String::new(), 0),
        false => (negative, trimmed.to_string(), power),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_that_come_back_as_another_value_are_found() {
        for same in [
            "0",
            "-0",
            "-0.0",
            "1",
            "2.50",
            "0.1",
            "1e5",
            "1E+5",
            "-3.25e-2",
            "5e-324",
            "1.7976931348623157e308",
            "18446744073709551615",
            "-9223372036854775808",
            "100000000000000000000000",
            "0.30000000000000004",
        ] {
            assert_eq!(first_changed(same), None, "{same}");
        }
        for changed in [
            "1e-400",
            "-1e-330",
            "0.12345678901234567890",
            "123456789012345678901234",
            "18446744073709551617",
            "-9223372036854775809",
        ] {
            assert_eq!(first_changed(changed), Some(changed), "{changed}");
        }
    }

    #[test]
    fn numbers_inside_strings_are_text() {
        let json = r#"{"a\"1e-400": "1e-400 \\", "b": [1, 2.5, {"c": 1e-400}]}"#;
        assert_eq!(first_changed(json), Some("1e-400"));
        assert_eq!(first_changed(r#"{"a\"1e-400": "1e-400 \\", "b": 2}"#), None);
    }

    #[test]
    fn the_field_holding_the_number_is_named() {
        let text = r#"{"id": 12345678901234567890123, "metadata": {"p": [0.5, 1e-400]}, "x": 2.5}"#;
        let fields: Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
        let changed = changed(text, &fields);
        assert_eq!(changed.get("metadata").map(String::as_str), Some("1e-400"));
        assert_eq!(
            changed.get("id").map(String::as_str),
            Some("12345678901234567890123")
        );
        assert_eq!(changed.get("x"), None);
        assert!(changed_message("1e-400").contains("kept as 0.0"));
    }
}
