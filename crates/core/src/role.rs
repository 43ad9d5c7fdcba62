//! Who a person is on a project: a lead, who runs it, or an annotator, who answers items.

use serde::{Deserialize, Serialize};
use std::fmt;
use ts_rs::TS;

/// A person's role. Its one spelling ("lead", "annotator") is the stored text, the JSON
/// and the command line's.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    TS,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = UnknownRole,
    parse_err_fn = UnknownRole::of
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Role {
    Lead,
    Annotator,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A role string that is neither "lead" nor "annotator".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(pub String);

impl UnknownRole {
    fn of(s: &str) -> UnknownRole {
        UnknownRole(s.to_string())
    }
}

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown role {:?}: use lead or annotator", self.0)
    }
}

impl std::error::Error for UnknownRole {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_has_one_spelling_everywhere() {
        for (role, text) in [(Role::Lead, "lead"), (Role::Annotator, "annotator")] {
            assert_eq!(role.as_str(), text);
            assert_eq!(role.to_string(), text);
            assert_eq!(text.parse::<Role>(), Ok(role));
            assert_eq!(
                serde_json::to_string(&role).ok(),
                Some(format!("\"{text}\""))
            );
        }
        // Stored text is read as written: no case folding, no guessing.
        assert_eq!("Lead".parse::<Role>(), Err(UnknownRole("Lead".into())));
        assert_eq!(
            "owner".parse::<Role>().map_err(|e| e.to_string()),
            Err("unknown role \"owner\": use lead or annotator".to_string())
        );
    }
}
