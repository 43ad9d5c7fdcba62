//! Enums a user names in words: a CLI argument, a setting, a field of a request. Serde,
//! strum and clap spell the cases alike, and an unknown word is an `InvalidInput` error
//! that lists the choices, so the desktop app, the CLI and the server refuse it alike.

/// Declares such an enum: `choice! { "kebab-case", "method"; pub enum GoldMethod { .. } }`
/// derives the traits and spells every case in `kebab-case`; the error for an unknown
/// word names it a "method".
macro_rules! choice {
    (
        $case:literal, $what:literal;
        $(#[$meta:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Default,
            ::serde::Serialize,
            ::serde::Deserialize,
            ::ts_rs::TS,
            ::strum::EnumString,
            ::strum::IntoStaticStr,
            ::strum::VariantNames,
        )]
        #[serde(rename_all = $case)]
        #[strum(serialize_all = $case, parse_err_ty = $crate::Error, parse_err_fn = Self::unknown)]
        #[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
        $vis enum $name { $($body)* }

        impl $name {
            fn unknown(word: &str) -> $crate::Error {
                $crate::Error::new(
                    $crate::ErrorCode::InvalidInput,
                    format!(
                        "unknown {} {word:?}: use {}",
                        $what,
                        $crate::choice::one_of(<Self as ::strum::VariantNames>::VARIANTS),
                    ),
                )
            }
        }
    };
}

/// "a, b or c".
pub(crate) fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::one_of;

    #[test]
    fn lists_the_choices_as_a_sentence() {
        assert_eq!(
            one_of(&["jsonl", "csv", "parquet"]),
            "jsonl, csv or parquet"
        );
        assert_eq!(
            one_of(&["majority", "dawid-skene"]),
            "majority or dawid-skene"
        );
        assert_eq!(one_of(&["only"]), "only");
    }
}
