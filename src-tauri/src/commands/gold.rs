//! The lead's gold work: the adjudication queue, decisions with undo, and the export with
//! its preview. Every command is for leads only.

use crate::state::{not_on_a_server, AppState};
use factdesk_api::answers::{AnswersFormat, AnswersReport};
use factdesk_api::call::Call;
use factdesk_api::gold::{ExportFormat, ExportReport, GoldRequest};
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
/// replaced only with `force`.
#[tauri::command(async)]
pub fn export_gold(
    state: State<'_, AppState>,
    request: GoldRequest,
    out: PathBuf,
    format: ExportFormat,
    force: bool,
) -> Result<ExportReport> {
    if state.remote().is_some() {
        return Err(not_on_a_server(
            "Exporting gold data",
            "run `factdesk export` on the server's machine, beside its project",
        ));
    }
    state.as_user(|p, user| p.export_gold(user, &request, &out, format, force))
}

/// Writes every answer ever given at `out` (JSON Lines, CSV or Parquet); an existing file
/// is replaced only with `force`.
#[tauri::command(async)]
pub fn export_answers(
    state: State<'_, AppState>,
    out: PathBuf,
    format: AnswersFormat,
    force: bool,
) -> Result<AnswersReport> {
    if state.remote().is_some() {
        return Err(not_on_a_server(
            "Exporting the raw answers",
            "run `factdesk answers` on the server's machine, beside its project",
        ));
    }
    state.as_user(|p, user| p.export_answers(user, &out, format, force))
}
