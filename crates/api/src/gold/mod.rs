//! Gold data: each task's outcome from its counted answers (strict majority or
//! Dawid-Skene) or the lead's decision, the adjudication queue, and the export.

mod adjudicate;
mod answer;
mod card_text;
mod export;
mod export_card;
mod family;
mod gold_file;
mod hf;
mod hf_card;
mod hf_folder;
mod outcome;
mod records;
mod settled;
mod thin;
mod walk;

pub use crate::annotate::EvidenceState;
pub(crate) use adjudicate::in_queue_order;
pub use adjudicate::{HandAnswer, QueueCandidate, QueueGroup, QueueItem, Ruling};
pub(crate) use answer::from_answer as outcome_of_answer;
pub use answer::{Decision, Outcome, QueueAnswer};
pub(crate) use card_text::cell;
pub(crate) use gold_file::beside;
pub use hf::HfReport;
pub use outcome::{Aggregation, TaskOutcome};
pub use records::{
    DroppedClaim, ExportFormat, ExportPreview, ExportReport, GoldAgreement, GoldEvidence, GoldLine,
    Provenance, UnderAnnotated,
};
pub(crate) use settled::IMPORTED_EVIDENCE_PREFIX;

use crate::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

choice! {
    "kebab-case", "method";
    /// How answers become one label.
    pub enum GoldMethod {
        #[default]
        Majority,
        DawidSkene,
    }
}

impl GoldMethod {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What to aggregate and how to split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GoldRequest {
    pub method: GoldMethod,
    /// Count annotators flagged for failing trick sentences.
    pub include_flagged: bool,
    /// Export claims with fewer counted answers than their task's overlap, each line
    /// marked `under_annotated`; by default they are held back and listed.
    #[serde(default)]
    pub include_under_annotated: bool,
    /// Relative sizes of the splits, e.g. [70, 15, 15].
    pub splits: Vec<u32>,
    pub seed: u64,
}

impl Default for GoldRequest {
    fn default() -> GoldRequest {
        GoldRequest {
            method: GoldMethod::Majority,
            include_flagged: false,
            include_under_annotated: false,
            splits: vec![70, 15, 15],
            seed: 1,
        }
    }
}

/// Reads `70,15,15` into ratios.
pub fn parse_splits(text: &str) -> Result<Vec<u32>> {
    let ratios: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "splits {text:?}: expected whole numbers separated by commas, like 70,15,15"
                ),
            )
        })?;
    if ratios.iter().all(|&r| r == 0) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("splits {text:?}: at least one must be above zero"),
        ));
    }
    Ok(ratios)
}

/// The names of the splits for a number of ratios.
pub fn split_names(count: usize) -> Vec<String> {
    match count {
        // One split is the training set: `datasets` refuses a split named "all".
        1 => vec!["train".into()],
        2 => vec!["train".into(), "test".into()],
        3 => vec!["train".into(), "dev".into(), "test".into()],
        n => (1..=n).map(|i| format!("split{i}")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::{ExportFormat, GoldMethod};
    use crate::answers::AnswersFormat;

    /// Each request enum reads the spelling it writes (serde's, the command line's), and
    /// names the choices when a value is none of them.
    #[test]
    fn request_enums_read_their_one_spelling() {
        for m in [GoldMethod::Majority, GoldMethod::DawidSkene] {
            assert_eq!(m.as_str().parse::<GoldMethod>().ok(), Some(m));
            let json = serde_json::to_string(&m).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", m.as_str()));
        }
        for f in [
            AnswersFormat::Jsonl,
            AnswersFormat::Csv,
            AnswersFormat::Parquet,
        ] {
            assert_eq!(f.as_str().parse::<AnswersFormat>().ok(), Some(f));
        }
        assert_eq!(
            "fever".parse::<ExportFormat>().ok(),
            Some(ExportFormat::Fever)
        );
        for (refused, says) in [
            (
                "vote".parse::<GoldMethod>().err(),
                "unknown method \"vote\": use majority or dawid-skene",
            ),
            (
                "xlsx".parse::<AnswersFormat>().err(),
                "unknown format \"xlsx\": use jsonl, csv or parquet",
            ),
            (
                "csv".parse::<ExportFormat>().err(),
                "unknown format \"csv\": use factdesk or fever",
            ),
        ] {
            let message = refused.map(|e| e.message).unwrap_or_default();
            assert!(message.contains(says), "{message}");
        }
    }
}
