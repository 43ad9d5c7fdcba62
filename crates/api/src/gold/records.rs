//! The records a gold export writes and reports: a line per claim that made it, with its
//! evidence, agreement and provenance; a claim left out and why; the preview and the
//! report of an export.

use super::GoldMethod;
use crate::settings::EvidenceStance;
use factdesk_core::claim::Label;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use ts_rs::TS;

choice! {
    "lowercase", "format";
    /// The shape of the exported lines.
    pub enum ExportFormat {
        #[default]
        Factdesk,
        Fever,
    }
}

/// One gold evidence sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct GoldEvidence {
    pub document_id: String,
    pub sentence_index: i64,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct GoldAgreement {
    /// Answers counted for the claim's deciding task.
    pub answers: u32,
    /// Share of them equal to the gold answer; null without answers.
    pub share_agreeing: Option<f64>,
    /// Exported with fewer counted answers than its task's overlap, as the lead asked
    /// (`include_under_annotated`); absent from every other line.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub under_annotated: bool,
}

/// How a line's label and evidence were reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Provenance {
    /// majority, dawid-skene, lead-decision, or imported (no task stands behind the line:
    /// its label is the one imported).
    pub method: String,
    pub lead: Option<String>,
    /// Unix milliseconds of the decision.
    pub at: Option<i64>,
    pub reason: Option<String>,
    /// The disagreement category the lead named; absent when none was (and from every
    /// line of a project made before categories existed, whose exports stay as they were).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub category: Option<String>,
    /// The annotator whose answer the lead took.
    pub taken_from: Option<String>,
}

/// One line of the gold file (factdesk format).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct GoldLine {
    pub id: String,
    pub claim: String,
    pub label: Label,
    pub evidence: Vec<GoldEvidence>,
    pub context: Option<String>,
    pub source_url: Option<String>,
    pub parent_id: Option<String>,
    pub split: String,
    pub agreement: GoldAgreement,
    pub provenance: Provenance,
    /// The project's task that settled the evidence (FEVER's annotation id).
    #[serde(skip)]
    pub task_id: i64,
    #[serde(skip)]
    pub row_id: i64,
}

/// A claim left out of the gold file, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DroppedClaim {
    /// The claim's own id, as imported (and as the gold file would name it).
    pub id: String,
    /// The claim's number in the project ("#12" on screen).
    pub number: i64,
    pub claim: String,
    pub reason: String,
}

/// A claim whose task has fewer counted answers than its overlap: held back from the
/// gold file unless the lead asked for it, and listed either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct UnderAnnotated {
    /// The claim's own id, as imported.
    pub id: String,
    /// The claim's number in the project.
    pub number: i64,
    pub claim: String,
    /// The task kind short of answers (evidence, label or verify).
    pub kind: String,
    /// Counted answers it has...
    pub answers: u32,
    /// ...and how many its overlap asks for.
    pub needed: u32,
}

/// What an export would write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ExportPreview {
    pub method: GoldMethod,
    pub lines: u64,
    pub per_label: BTreeMap<String, u64>,
    pub per_split: BTreeMap<String, u64>,
    pub dropped: Vec<DroppedClaim>,
    pub counted_annotators: Vec<String>,
    pub excluded_annotators: Vec<String>,
    /// Dawid-Skene: each kind's estimated accuracy of each annotator.
    pub accuracy: BTreeMap<String, BTreeMap<String, f64>>,
    /// Mean share agreeing over the exported lines with counted answers.
    pub mean_share_agreeing: Option<f64>,
    /// Answers rejected because they picked the trick (shown, counted for nothing).
    pub rejected_answers: u64,
    /// Written refutations in each state (pending_review, accepted, no_review_needed,
    /// rejected, superseded); only current accepted or unreviewed qualified ones export.
    pub refutations: BTreeMap<String, u64>,
    /// Splits that miss their requested share by more than 5 points, or are empty.
    pub split_warnings: Vec<String>,
    /// Whether study answers counted (the project's `study_answers_in_gold`).
    pub study_answers_in_gold: bool,
    /// The flag rule the aggregation used: after `trick_min_seen` tricks, a Wilson 95%
    /// lower bound of the failure rate above `trick_flag_threshold`.
    pub trick_flag_threshold: f64,
    pub trick_min_seen: u32,
    /// The stance evidence was asked for under, which decides what the trick checks.
    pub evidence_stance: EvidenceStance,
    /// The recipe the project was set up by (`init --recipe`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub recipe: Option<String>,
    /// The name of the project's own design, if it declares one: its gold is written by
    /// `factdesk export --design`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub design: Option<String>,
    /// Study answers left out of the gold (0 when they are pooled).
    pub study_answers_apart: u64,
    /// Claims with fewer counted answers than their overlap: exported (marked) when the
    /// request includes them, held back otherwise.
    pub under_annotated: Vec<UnderAnnotated>,
    /// Whether they were exported.
    pub include_under_annotated: bool,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ExportReport {
    pub out: String,
    pub card: String,
    /// FEVER format: the file of each split.
    pub split_files: Vec<String>,
    pub preview: ExportPreview,
}
