//! The lead's gold work: the adjudication queue, decisions with undo, and the export with
//! its preview. Every command is for leads only.

use crate::state::AppState;
use factdesk_api::answers::AnswersFormat;
use factdesk_api::call::Call;
use factdesk_api::download;
use factdesk_api::gold::{ExportFormat, GoldRequest};
use factdesk_api::Result;
use serde_json::Value;
use std::path::PathBuf;
use tauri::State;

/// Tasks the counted annotators disagree on, most disagreement first.
#[tauri::command(async)]
pub fn adjudication_queue(state: State<'_, AppState>, request: GoldRequest) -> Result<Value> {
    state.call(Call::AdjudicationQueue { request })
}

/// Takes `take`'s answer, or records `answer`, as the lead's decision on a task whose
/// decision the screen showed as made at `seen` (none: undecided); another one taken
/// meanwhile is refused, not replaced.
#[tauri::command(async)]
pub fn decide(
    state: State<'_, AppState>,
    task_id: i64,
    seen: Option<i64>,
    take: Option<String>,
    answer: Option<serde_json::Value>,
    reason: Option<String>,
) -> Result<Value> {
    state.call(Call::Decide {
        task_id,
        seen,
        take,
        answer,
        reason,
    })
}

/// Undoes the decision the screen showed, made at `seen`.
#[tauri::command(async)]
pub fn undo_decision(
    state: State<'_, AppState>,
    task_id: i64,
    seen: i64,
    reason: Option<String>,
) -> Result<Value> {
    state.call(Call::UndoDecision {
        task_id,
        seen,
        reason,
    })
}

/// A candidate sentence among its neighbours, for the lead adjudicating.
#[tauri::command(async)]
pub fn sentence_passage(state: State<'_, AppState>, sentence_id: i64) -> Result<Value> {
    state.call(Call::SentencePassage { sentence_id })
}

/// What an export would write; nothing is written.
#[tauri::command(async)]
pub fn export_preview(state: State<'_, AppState>, request: GoldRequest) -> Result<Value> {
    state.call(Call::ExportPreview { request })
}

/// Writes the gold file at `out` and its dataset card beside it; existing files are
/// replaced only with `force`. Connected to a team server, the server makes the files and
/// the app writes them here.
#[tauri::command(async)]
pub fn export_gold(
    state: State<'_, AppState>,
    request: GoldRequest,
    out: PathBuf,
    format: ExportFormat,
    force: bool,
) -> Result<Value> {
    if let Some(remote) = state.remote() {
        let files = remote.download(&Call::ExportGold { request, format })?;
        return download::write(files, &out, force);
    }
    let report = state.as_user(|p, user| p.export_gold(user, &request, &out, format, force))?;
    to_json(&report)
}

/// Writes every answer ever given at `out` (JSON Lines, CSV or Parquet); an existing file
/// is replaced only with `force`.
#[tauri::command(async)]
pub fn export_answers(
    state: State<'_, AppState>,
    out: PathBuf,
    format: AnswersFormat,
    force: bool,
) -> Result<Value> {
    if let Some(remote) = state.remote() {
        // Refused before the server does the work.
        factdesk_api::output::refuse_existing(&out, force)?;
        let files = remote.download(&Call::ExportAnswers { format })?;
        return download::write(files, &out, force);
    }
    let report = state.as_user(|p, user| p.export_answers(user, &out, format, force))?;
    to_json(&report)
}

fn to_json<T: serde::Serialize>(report: &T) -> Result<Value> {
    serde_json::to_value(report).map_err(|e| {
        factdesk_api::Error::new(
            factdesk_api::ErrorCode::Io,
            format!("cannot send the report: {e}"),
        )
    })
}
