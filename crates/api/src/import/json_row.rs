//! One JSON Lines row as an object, refusing a key named twice at any depth: a plain map
//! keeps the last silently, and JSON readers disagree on which one counts, so the row
//! would mean one thing here and another in the tools that read it next.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A key named twice: the row's field it is in, and the key when it is nested inside
/// that field (`None`: the field itself is named twice).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Twice {
    pub field: String,
    pub key: Option<String>,
}

/// One line's JSON value: an object with the first key it names twice, if any, or the
/// kind of anything else.
pub(super) enum TopLevel {
    Object {
        fields: Map<String, Value>,
        twice: Option<Twice>,
    },
    Other(&'static str),
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

impl<'de> Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut fields = Map::new();
        let mut twice = None;
        while let Some((field, value)) = map.next_entry::<String, Checked>()? {
            if twice.is_none() {
                if fields.contains_key(&field) {
                    twice = Some(Twice {
                        field: field.clone(),
                        key: None,
                    });
                } else if let Some(key) = value.twice {
                    twice = Some(Twice {
                        field: field.clone(),
                        key: Some(key),
                    });
                }
            }
            fields.insert(field, value.value);
        }
        Ok(TopLevel::Object { fields, twice })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(TopLevel::Other("an array"))
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a string"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a number"))
    }

    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("null"))
    }
}

/// What is said of a key named twice inside a field.
pub(super) fn named_twice(key: &str) -> String {
    format!(
        "the key {key:?} is named twice inside this field; keep one (JSON readers disagree \
         on which one counts)"
    )
}

/// A JSON text as serde_json reads it, with the first key named twice in any object
/// inside it (a CSV cell holding JSON).
pub(super) fn parse_checked(text: &str) -> serde_json::Result<(Value, Option<String>)> {
    let checked: Checked = serde_json::from_str(text)?;
    Ok((checked.value, checked.twice))
}

/// A JSON value as serde_json reads it, with the first key named twice in any object
/// inside it.
struct Checked {
    value: Value,
    twice: Option<String>,
}

impl From<Value> for Checked {
    fn from(value: Value) -> Checked {
        Checked { value, twice: None }
    }
}

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Checked, E> {
        Ok(Value::Bool(v).into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Checked, E> {
        Ok(Value::Number(v.into()).into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Checked, E> {
        Ok(Value::Number(v.into()).into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Checked, E> {
        Ok(Number::from_f64(v)
            .map_or(Value::Null, Value::Number)
            .into())
    }

    fn visit_str<E>(self, v: &str) -> Result<Checked, E> {
        Ok(Value::String(v.to_string()).into())
    }

    fn visit_string<E>(self, v: String) -> Result<Checked, E> {
        Ok(Value::String(v).into())
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Value::Null.into())
    }

    fn visit_none<E>(self) -> Result<Checked, E> {
        Ok(Value::Null.into())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Checked, D::Error> {
        Checked::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut twice = None;
        while let Some(item) = seq.next_element::<Checked>()? {
            twice = twice.or(item.twice);
            items.push(item.value);
        }
        Ok(Checked {
            value: Value::Array(items),
            twice,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut object = Map::new();
        let mut twice = None;
        while let Some((key, value)) = map.next_entry::<String, Checked>()? {
            if twice.is_none() && object.contains_key(&key) {
                twice = Some(key.clone());
            }
            twice = twice.or(value.twice);
            object.insert(key, value.value);
        }
        Ok(Checked {
            value: Value::Object(object),
            twice,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twice(text: &str) -> Option<Twice> {
        match serde_json::from_str::<TopLevel>(text) {
            Ok(TopLevel::Object { twice, .. }) => twice,
            _ => panic!("not an object: {text}"),
        }
    }

    #[test]
    fn a_key_named_twice_is_found_at_any_depth() {
        assert_eq!(
            twice(r#"{"claim": "a", "metadata": {"x": 1, "y": [2]}}"#),
            None
        );
        let at = |field: &str, key: Option<&str>| {
            Some(Twice {
                field: field.to_string(),
                key: key.map(str::to_string),
            })
        };
        assert_eq!(twice(r#"{"claim": "a", "claim": "b"}"#), at("claim", None));
        assert_eq!(
            twice(r#"{"metadata": {"src": "a", "src": "b"}}"#),
            at("metadata", Some("src"))
        );
        assert_eq!(
            twice(r#"{"metadata": {"list": [{"k": 1}, {"k": 1, "k": 2}]}}"#),
            at("metadata", Some("k"))
        );
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, 1e300, true, null, "s\u00e9"], "b": {"c": {"d": 18446744073709551615}}}"#;
        let Ok(TopLevel::Object { fields, .. }) = serde_json::from_str::<TopLevel>(text) else {
            panic!("not read");
        };
        let plain: Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(fields, plain);
    }
}
