//! The kinds of work an annotator does.

use serde::{Deserialize, Serialize};
use std::fmt;
use ts_rs::TS;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    TS,
    strum::EnumString,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(
    serialize_all = "lowercase",
    parse_err_ty = UnknownTaskKind,
    parse_err_fn = UnknownTaskKind::of
)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TaskKind {
    /// Pick the evidence among a claim's candidates (and a hidden trick).
    Evidence,
    /// Write a refuted version of a short claim.
    Refute,
    /// Judge whether a counter-claim contradicts its original.
    Verify,
    /// Label a claim against its evidence.
    Label,
    /// Answer the project's own questions (its declared design) about an item: a pair of
    /// texts or a claim's words.
    Design,
}

impl TaskKind {
    pub const ALL: [TaskKind; 5] = [
        TaskKind::Evidence,
        TaskKind::Refute,
        TaskKind::Verify,
        TaskKind::Label,
        TaskKind::Design,
    ];

    /// The spelling used in the project file, on the command line and across IPC.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl TaskKind {
    /// The kind with its indefinite article, for messages: "an evidence", "a label".
    pub fn with_article(self) -> &'static str {
        match self {
            TaskKind::Evidence => "an evidence",
            TaskKind::Refute => "a refute",
            TaskKind::Verify => "a verify",
            TaskKind::Label => "a label",
            TaskKind::Design => "a design",
        }
    }
}

impl fmt::Display for TaskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task kind string that is none of the four.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTaskKind(pub String);

impl fmt::Display for UnknownTaskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown task kind {:?}: use evidence, refute, verify, label or design",
            self.0
        )
    }
}

impl UnknownTaskKind {
    fn of(s: &str) -> UnknownTaskKind {
        UnknownTaskKind(s.to_string())
    }
}

impl std::error::Error for UnknownTaskKind {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_and_nothing_else_parses() {
        for k in TaskKind::ALL {
            assert_eq!(k.as_str().parse::<TaskKind>(), Ok(k));
            assert_eq!(
                serde_json::to_string(&k).ok(),
                Some(format!("\"{}\"", k.as_str()))
            );
        }
        assert_eq!(
            "Label".parse::<TaskKind>(),
            Err(UnknownTaskKind("Label".into()))
        );
        assert!("".parse::<TaskKind>().is_err());
    }
}
