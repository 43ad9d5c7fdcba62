//! Numbers as a JSON reader holds them, and the ones it would hold as another value.
//!
//! serde_json holds a number that is not a 64-bit integer as the nearest 64-bit float, and
//! writes it back in the shortest form that reads as that float. A number written with as
//! many digits as the float has to that precision (`2.50`, `0.1`, `%.17g`'s
//! `0.10000000000000001`) is that float, whatever form it comes back in. Others are not:
//! `1e-400` is held as 0, `3e-324` as 5e-324, `0.12345678901234567890` and
//! `9007199254740993.0` as their nearest floats. Ids keep their text as written
//! ([`exact`]); anything else kept as a value (a claim's `metadata`) refuses such a
//! number ([`changed`]) rather than store another.

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

/// What is said of a number held as another value.
pub(super) fn changed_message(number: &str) -> String {
    let back = held_as(number).unwrap_or_default();
    format!(
        "holds the number {}, which a JSON reader holds as {back}, another value (it reads \
         numbers as 64-bit floats); write it as text, in quotes, to keep it exactly",
        shortened(number)
    )
}

/// A number as it is echoed in a message: a number of a million digits is not.
fn shortened(number: &str) -> String {
    const SHOWN: usize = 40;
    match number.len() > SHOWN {
        true => format!("{}… ({} characters)", &number[..SHOWN], number.len()),
        false => number.to_string(),
    }
}

/// Whether two JSON values are the same, a number being the same whichever form it was
/// written in (`1` and `1.0`, `100000` and `1e5`).
pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            // Exactly, so that 2^53 + 1 is not the float 2^53.
            let whole = |n: &serde_json::Number| match n.as_i64() {
                Some(i) => Some(i128::from(i)),
                None => match n.as_u64() {
                    Some(u) => Some(i128::from(u)),
                    // -0.0 is no integer: its sign would be lost.
                    None => n
                        .as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 1e38)
                        .filter(|f| *f != 0.0 || f.is_sign_positive())
                        .map(|f| f as i128),
                },
            };
            let float = |n: &serde_json::Number| n.as_f64().map(f64::to_bits);
            match x.is_f64() && y.is_f64() {
                true => float(x) == float(y),
                false => whole(x).is_some() && whole(x) == whole(y),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
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
                if held_otherwise(number) {
                    return Some(number);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The float serde_json holds `number` as, written in the shortest form: `None` when it
/// holds it exactly, as a 64-bit integer.
fn held_as(number: &str) -> Option<String> {
    let value = as_float(number)?;
    serde_json::Number::from_f64(value).map(|n| n.to_string())
}

fn as_float(number: &str) -> Option<f64> {
    let integer = !number.contains(['.', 'e', 'E']);
    if integer && (number.parse::<i64>().is_ok() || number.parse::<u64>().is_ok()) {
        return None;
    }
    number.parse().ok()
}

/// Whether `number` is held as a float that, written with as many significant digits as
/// `number` has (correctly rounded, a tie either way), is another value. The digits of an
/// integer count to its last, zeros included: `100000000000000000000000` is exact, and
/// no float is.
fn held_otherwise(number: &str) -> bool {
    let Some(value) = as_float(number) else {
        return false;
    };
    let text = decimal(number);
    let (_, digits, power) = &text;
    if digits.is_empty() {
        return false;
    }
    let precision = match number.contains(['.', 'e', 'E']) {
        true => digits.len(),
        false => digits
            .len()
            .saturating_add(usize::try_from(*power).unwrap_or(0)),
    };
    // A float's exact value has at most 767 significant digits.
    if precision > 800 {
        return true;
    }
    if decimal(&format!("{:.*e}", precision - 1, value)) == text {
        return false;
    }
    !tie_rounded_the_other_way(value, precision, &text)
}

/// Whether the float `value` lies exactly halfway between two numbers of `precision`
/// significant digits and `text` is the one Rust's rounding (half to even) did not pick:
/// both are correctly rounded, and JavaScript picks the one above.
fn tie_rounded_the_other_way(value: f64, precision: usize, text: &(bool, String, i64)) -> bool {
    let (negative, exact, power) = decimal(&format!("{value:.800e}"));
    if exact.len() != precision + 1 || !exact.ends_with('5') {
        return false;
    }
    let below = exact[..precision].to_string();
    let mut above = below.clone().into_bytes();
    let mut carry = true;
    for digit in above.iter_mut().rev() {
        if !carry {
            break;
        }
        carry = *digit == b'9';
        *digit = if carry { b'0' } else { *digit + 1 };
    }
    if carry {
        above.insert(0, b'1');
    }
    let above = String::from_utf8(above).unwrap_or_default();
    let at = |digits: &str| {
        decimal(&format!(
            "{}{digits}e{}",
            if negative { "-" } else { "" },
            power + 1
        ))
    };
    *text == at(&below) || *text == at(&above)
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
            rest[at + 1..]
                .parse::<i64>()
                .unwrap_or(match rest[at + 1..].starts_with('-') {
                    true => i64::MIN,
                    false => i64::MAX,
                }),
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
            "1e23",
            "0.30000000000000004",
            // As many digits as the float has to that precision (printf's %.17g).
            "0.10000000000000001",
            "6.5528859239813104e-22",
            "4.9406564584124654e-324",
            "0.1000000000000000055511151231257827021181583404541015625",
            // A tie (the float is ...682.25), rounded either way.
            "1996273954943682.2",
            "1996273954943682.3",
            "1180591620717411303424",
            "0.10000000000000000000",
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
            "9007199254740993.0",
            "3e-324",
            "1e-99999999999999999999",
            "1996273954943682.4",
            "100000000000000000000000",
            "1000000000000000000000000000000000000000000000",
        ] {
            assert_eq!(first_changed(changed), Some(changed), "{changed}");
        }
    }

    #[test]
    fn a_number_is_the_same_value_in_any_form() {
        let v = |t: &str| serde_json::from_str::<Value>(t).unwrap_or_default();
        assert!(same_value(
            &v("[1, 100000, {\"b\": 2.50}]"),
            &v("[1.0, 1e5, {\"b\": 2.5}]")
        ));
        assert!(!same_value(&v("[1, 2]"), &v("[1, 2.5]")));
        assert!(!same_value(
            &v("9007199254740993"),
            &v("9007199254740992.0")
        ));
        assert!(same_value(&v("9007199254740992"), &v("9007199254740992.0")));
        assert!(!same_value(&v("0.0"), &v("-0.0")));
        assert!(!same_value(&v("0"), &v("-0.0")));
        assert!(!same_value(&v("{\"a\": 1}"), &v("{\"b\": 1}")));
        assert!(!same_value(&v("1"), &v("\"1\"")));
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
        assert!(changed_message("1e-400").contains("holds as 0.0, another value"));
        let long = format!("1.{}1", "0".repeat(1000));
        assert_eq!(first_changed(&long), Some(long.as_str()));
        assert!(changed_message(&long).contains("(1003 characters)"));
    }
}
