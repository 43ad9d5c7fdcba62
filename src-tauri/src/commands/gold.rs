//! The lead's gold work: the adjudication queue, decisions with undo, and the export with
//! its preview. Every command is for leads only.

use crate::state::AppState;
use factdesk_api::annotate::Passage;
use factdesk_api::answers::{AnswersFormat, AnswersReport};
use factdesk_api::gold::{
    ExportFormat, ExportPreview, ExportReport, GoldRequest, Outcome, QueueItem,
};
use factdesk_api::Result;
use std::path::PathBuf;
use tauri::State;

/// Tasks the counted annotators disagree on, most disagreement first.
#[tauri::command]
pub fn adjudication_queue(
    state: State<'_, AppState>,
    request: GoldRequest,
) -> Result<Vec<QueueItem>> {
    state.as_user(|p, user| p.adjudication_queue(user, &request))
}

/// Takes `take`'s answer, or records `answer`, as the lead's decision on a task whose
/// decision the screen showed as made at `seen` (none: undecided); another one taken
/// meanwhile is refused, not replaced.
#[tauri::command]
pub fn decide(
    state: State<'_, AppState>,
    task_id: i64,
    seen: Option<i64>,
    take: Option<String>,
    answer: Option<serde_json::Value>,
    reason: Option<String>,
) -> Result<Outcome> {
    state.as_user(|p, user| {
        p.decide_seen(
            user,
            task_id,
            seen,
            take.as_deref(),
            answer,
            reason.as_deref(),
        )
    })
}

/// Undoes the decision the screen showed, made at `seen`.
#[tauri::command]
pub fn undo_decision(
    state: State<'_, AppState>,
    task_id: i64,
    seen: i64,
    reason: Option<String>,
) -> Result<()> {
    state.as_user(|p, user| p.undo_decision_seen(user, task_id, seen, reason.as_deref()))
}

/// A candidate sentence among its neighbours, for the lead adjudicating.
#[tauri::command]
pub fn sentence_passage(state: State<'_, AppState>, sentence_id: i64) -> Result<Passage> {
    state.as_user(|p, user| p.sentence_passage(user, sentence_id))
}

/// What an export would write; nothing is written.
#[tauri::command]
pub fn export_preview(state: State<'_, AppState>, request: GoldRequest) -> Result<ExportPreview> {
    state.as_user(|p, user| p.export_preview(user, &request))
}

/// Writes the gold file at `out` and its dataset card beside it.
#[tauri::command]
pub fn export_gold(
    state: State<'_, AppState>,
    request: GoldRequest,
    out: PathBuf,
    format: ExportFormat,
) -> Result<ExportReport> {
    state.as_user(|p, user| p.export_gold(user, &request, &out, format))
}

/// Writes every answer ever given at `out` (JSON Lines, CSV or Parquet); an existing file
/// is replaced only with `force`.
#[tauri::command]
pub fn export_answers(
    state: State<'_, AppState>,
    out: PathBuf,
    format: AnswersFormat,
    force: bool,
) -> Result<AnswersReport> {
    state.as_user(|p, user| p.export_answers(user, &out, format, force))
}
