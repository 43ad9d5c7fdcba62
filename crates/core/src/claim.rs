//! Claims and their labels as the rest of Factdesk sees them.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use ts_rs::TS;

/// The longest claim accepted, in characters, imported or written: seven times the
/// longest claim of COVID-Fact (273) and WikiFactCheck (137). The rankers' cost grows
/// with a claim's length times its documents' text, and a 32,000-word claim took a
/// minute to rank (hostile pass of session 33).
pub const MAX_CLAIM_CHARS: usize = 2_000;

/// The veracity label of a claim, as imported or as settled by annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Label {
    Supported,
    Refuted,
    #[serde(rename = "NOT ENOUGH INFO")]
    NotEnoughInfo,
    /// The claim itself is malformed and cannot be judged.
    Failed,
}

impl Label {
    pub const ALL: [Label; 4] = [
        Label::Supported,
        Label::Refuted,
        Label::NotEnoughInfo,
        Label::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Label::Supported => "SUPPORTED",
            Label::Refuted => "REFUTED",
            Label::NotEnoughInfo => "NOT ENOUGH INFO",
            Label::Failed => "FAILED",
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A label string that is none of the known spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLabel(pub String);

impl fmt::Display for UnknownLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown label {:?} (expected SUPPORTED, REFUTED, NOT ENOUGH INFO or FAILED)",
            self.0
        )
    }
}

impl std::error::Error for UnknownLabel {}

impl FromStr for Label {
    type Err = UnknownLabel;

    /// Accepts the spellings found in real datasets: FEVER's SUPPORTS/REFUTES, NEI,
    /// any case, underscores or spaces.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm: String = s
            .trim()
            .chars()
            .map(|c| {
                if c == '_' || c == '-' {
                    ' '
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect();
        match norm.as_str() {
            "SUPPORTED" | "SUPPORTS" | "SUPPORT" | "TRUE" => Ok(Label::Supported),
            "REFUTED" | "REFUTES" | "REFUTE" | "FALSE" => Ok(Label::Refuted),
            "NOT ENOUGH INFO" | "NEI" | "NOT ENOUGH INFORMATION" => Ok(Label::NotEnoughInfo),
            "FAILED" | "MALFORMED" => Ok(Label::Failed),
            _ => Err(UnknownLabel(s.to_string())),
        }
    }
}

/// Where a refutation written in Factdesk stands. Only a current refutation that is
/// accepted, or needs no review, is verified and can become gold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefutationState {
    /// Written by a writer not yet qualified; waits for the lead's review.
    PendingReview,
    /// The lead accepted it.
    Accepted,
    /// Written by a qualified writer, so it needs no review.
    NoReviewNeeded,
    /// The lead rejected it.
    Rejected,
    /// Its writer answered the same item again; the new refutation replaces it.
    Superseded,
}

impl RefutationState {
    pub const ALL: [RefutationState; 5] = [
        RefutationState::PendingReview,
        RefutationState::Accepted,
        RefutationState::NoReviewNeeded,
        RefutationState::Rejected,
        RefutationState::Superseded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RefutationState::PendingReview => "pending_review",
            RefutationState::Accepted => "accepted",
            RefutationState::NoReviewNeeded => "no_review_needed",
            RefutationState::Rejected => "rejected",
            RefutationState::Superseded => "superseded",
        }
    }

    pub fn from_db(s: &str) -> Option<RefutationState> {
        RefutationState::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether it may be verified and exported.
    pub fn is_live(self) -> bool {
        matches!(
            self,
            RefutationState::Accepted | RefutationState::NoReviewNeeded
        )
    }
}

/// A claim's readable number in its project, as people write it: `#1234`. It is the
/// claim's row id, given in order as claims come in (imported, then written) and never
/// reused, short where an imported id is a hash (`covid-fact:3f9a…`); the imported id
/// stays as the claim's provenance.
pub fn number_text(id: i64) -> String {
    format!("#{id}")
}

/// The claim number a query names (`#1234`, spaces around allowed), or `None`. A bare
/// number is not one: it is as likely a year or a figure in the text.
pub fn number_in(query: &str) -> Option<i64> {
    let digits = query.trim().strip_prefix('#')?;
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_numbers_read_as_written() {
        assert_eq!(number_text(1234), "#1234");
        assert_eq!(number_in("#1234"), Some(1234));
        assert_eq!(number_in("  #7 "), Some(7));
        assert_eq!(number_in(&number_text(42)), Some(42));
        for not in [
            "1234",
            "#",
            "#0",
            "#-3",
            "#12a",
            "# 12",
            "#１２",
            "#99999999999999999999",
            "",
        ] {
            assert_eq!(number_in(not), None, "{not:?}");
        }
    }

    #[test]
    fn parses_dataset_spellings() {
        assert_eq!("SUPPORTS".parse::<Label>(), Ok(Label::Supported));
        assert_eq!("refuted".parse::<Label>(), Ok(Label::Refuted));
        assert_eq!("NOT_ENOUGH_INFO".parse::<Label>(), Ok(Label::NotEnoughInfo));
        assert!("maybe".parse::<Label>().is_err());
    }

    #[test]
    fn round_trips_through_display() {
        for l in Label::ALL {
            assert_eq!(l.to_string().parse::<Label>(), Ok(l));
        }
    }
}
