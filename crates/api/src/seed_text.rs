//! A seed as text wherever it leaves Rust. A project's seed is drawn from 64 bits, and
//! JavaScript holds whole numbers exactly only up to 2^53: the settings screen read a
//! rounded seed, sent it back as the settings its change was made from, and every save
//! was refused as a conflict (sixteenth hostile pass); before that check, each save
//! silently changed the seed. Read back, a number is taken as well as text, so settings
//! stored or written before keep working.

use serde::{de, Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(seed)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Number(u64),
        Text(String),
    }
    match Written::deserialize(d) {
        Ok(Written::Number(n)) => Ok(n),
        // Digits alone: no sign, space or underscore (u64's own parsing takes a `+`).
        Ok(Written::Text(t)) => t
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| t.parse().ok())
            .flatten()
            .ok_or_else(|| {
                let shown: String = t.chars().take(40).collect();
                let cut = if shown.len() < t.len() { "…" } else { "" };
                de::Error::custom(format!(
                    "a seed is a whole number from 0 to {}, written in digits alone, not {shown:?}{cut}",
                    u64::MAX
                ))
            }),
        Err(_) => Err(de::Error::custom(format!(
            "a seed is a whole number from 0 to {}, as a number or as text",
            u64::MAX
        ))),
    }
}

/// A seed that may be absent (`null`), as text.
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(seed: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match seed {
            Some(seed) => s.collect_str(seed),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        #[derive(Deserialize)]
        struct Seed(#[serde(with = "super")] u64);
        Ok(Option::<Seed>::deserialize(d)?.map(|Seed(n)| n))
    }
}
