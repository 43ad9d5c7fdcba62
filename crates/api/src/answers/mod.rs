//! Every answer ever given, one row each, for leads who analyse their annotators' raw
//! work: superseded, rejected and not-counted answers included, each marked. One use case
//! yields the rows ([`Project::answer_rows`]); [`write`] lays them out per format.

mod write;

use crate::Lead;
use crate::{Project, Result};
use factdesk_core::answer::{Response, Selection};
use factdesk_core::claim::RefutationState;
use factdesk_store::raw_answers::RawAnswer;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use ts_rs::TS;

pub use write::columns;

choice! {
    "lowercase", "format";
    /// The file format of the raw answers.
    pub enum AnswersFormat {
        #[default]
        Jsonl,
        Csv,
        Parquet,
    }
}

impl AnswersFormat {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The format a file name's extension names (`.csv`, `.parquet`), else JSON Lines.
    pub fn from_path(path: &Path) -> AnswersFormat {
        match path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .as_deref()
        {
            Some("csv") => AnswersFormat::Csv,
            Some("parquet") => AnswersFormat::Parquet,
            _ => AnswersFormat::Jsonl,
        }
    }
}

/// Where an answer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum AnswerStatus {
    /// The annotator's latest answer on the task, not rejected.
    Current,
    /// The annotator answered the task again; the newer answer replaced this one.
    Superseded,
    /// It picked the trick sentence, or the lead rejected the refutation it wrote.
    Rejected,
}

impl AnswerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerStatus::Current => "current",
            AnswerStatus::Superseded => "superseded",
            AnswerStatus::Rejected => "rejected",
        }
    }
}

/// One answer, as the raw answers file holds it. The typed value is spread over the
/// columns of its kind; the others are null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct AnswerRow {
    pub answer_id: i64,
    pub answer_uuid: String,
    pub task_id: i64,
    /// evidence, refute, verify or label.
    pub task_kind: String,
    pub claim_id: String,
    pub claim: String,
    /// For a refutation's task, the claim it refutes.
    pub parent_claim_id: Option<String>,
    pub annotator: String,
    /// Evidence: the selected candidate sentences' ids (empty for "no evidence").
    pub selected_sentence_ids: Option<Vec<i64>>,
    /// Evidence: their texts, in the same order.
    pub selected_sentences: Option<Vec<String>>,
    /// Evidence: whether the answer said "no evidence".
    pub no_evidence: Option<bool>,
    /// Label tasks: SUPPORTED, REFUTED, NOT ENOUGH INFO or FAILED.
    pub label: Option<String>,
    /// Verification: contradicts, does_not_contradict or malformed.
    pub verdict: Option<String>,
    /// Refutation writing: the written claim.
    pub text: Option<String>,
    /// Design tasks: the answers by question.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub answers: Option<std::collections::BTreeMap<String, factdesk_core::design::Given>>,
    pub comment: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    pub duration_ms: Option<i64>,
    pub status: AnswerStatus,
    /// The answer this one replaced.
    pub supersedes: Option<i64>,
    /// The answer that replaced this one.
    pub superseded_by: Option<i64>,
    /// Whether it counts for agreement and gold data: current, and by an annotator whose
    /// answers count (not flagged, or included by the lead).
    pub counted: bool,
    /// Evidence: "picked" or "avoided" the trick sentence.
    pub trick: Option<String>,
    /// The pack the answer came back in.
    pub pack: Option<String>,
    /// Refutation writing: the written refutation's state (pending_review, accepted, …).
    pub refutation_state: Option<String>,
}

/// What `export_answers` wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AnswersReport {
    pub out: String,
    pub format: AnswersFormat,
    pub rows: u64,
    pub superseded: u64,
    pub rejected: u64,
    pub counted: u64,
}

impl Project {
    /// Every answer in the project, oldest first, with its surroundings.
    pub fn answer_rows(&self, by: &Lead) -> Result<Vec<AnswerRow>> {
        self.acting_lead(by)?;
        let raw = factdesk_store::raw_answers::all(self.store.read())?;
        let ids: Vec<i64> = raw
            .iter()
            .filter_map(|a| a.answer.response.selection())
            .flat_map(|s| s.ids().iter().copied())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let texts: HashMap<i64, String> = self
            .store
            .sentences(&ids)?
            .into_iter()
            .map(|s| (s.id, s.text))
            .collect();
        Ok(raw.into_iter().map(|a| row(a, &texts)).collect())
    }

    /// Writes every answer to `out` in `format`. `out` may not be a project or any input
    /// of the project, and an existing file is replaced only with `force`.
    pub fn export_answers(
        &self,
        by: &Lead,
        out: &Path,
        format: AnswersFormat,
        force: bool,
    ) -> Result<AnswersReport> {
        self.acting_lead(by)?;
        let inputs = crate::output::Inputs::project(self.path());
        crate::output::check(out, &inputs)?;
        crate::output::refuse_existing(out, force)?;
        let rows = self.answer_rows(by)?;
        let mut outputs = crate::output::Outputs::new(inputs);
        write::rows(out, outputs.file(out)?, &rows, format)?;
        outputs.commit()?;
        let count = |s: AnswerStatus| rows.iter().filter(|r| r.status == s).count() as u64;
        Ok(AnswersReport {
            out: out.display().to_string(),
            format,
            rows: rows.len() as u64,
            superseded: count(AnswerStatus::Superseded),
            rejected: count(AnswerStatus::Rejected),
            counted: rows.iter().filter(|r| r.counted).count() as u64,
        })
    }
}

fn row(a: RawAnswer, texts: &HashMap<i64, String>) -> AnswerRow {
    let status = if a.superseded_by.is_some() {
        AnswerStatus::Superseded
    } else if a.trick_failed || a.refutation_state == Some(RefutationState::Rejected) {
        AnswerStatus::Rejected
    } else {
        AnswerStatus::Current
    };
    let mut r = AnswerRow {
        answer_id: a.id,
        answer_uuid: a.uuid,
        task_id: a.task_id,
        task_kind: a.kind.as_str().to_string(),
        claim_id: a.claim_id,
        claim: a.claim,
        parent_claim_id: a.parent_claim_id,
        annotator: a.annotator,
        selected_sentence_ids: None,
        selected_sentences: None,
        no_evidence: None,
        label: None,
        verdict: None,
        answers: None,
        text: None,
        comment: a.answer.comment,
        created_at: a.created_at,
        duration_ms: a.answer.duration_ms,
        status,
        supersedes: a.supersedes,
        superseded_by: a.superseded_by,
        counted: status == AnswerStatus::Current && a.annotator_counted,
        trick: None,
        pack: a.pack,
        refutation_state: a.refutation_state.map(|s| s.as_str().to_string()),
    };
    match a.answer.response {
        Response::Evidence { selection } => {
            let ids = selection.ids().to_vec();
            r.selected_sentences = Some(
                ids.iter()
                    .map(|id| texts.get(id).cloned().unwrap_or_default())
                    .collect(),
            );
            r.selected_sentence_ids = Some(ids);
            r.no_evidence = Some(selection == Selection::NoEvidence);
            r.trick = Some(if a.trick_failed { "picked" } else { "avoided" }.to_string());
        }
        Response::Refute { text } => r.text = Some(text),
        Response::Verify { verdict } => r.verdict = Some(verdict.as_str().to_string()),
        Response::Label { label } => r.label = Some(label.as_str().to_string()),
        Response::Design { answers } => r.answers = Some(answers),
    }
    r
}
