//! The lead's exports, written to a file the lead chose (the queue, decisions and the
//! preview are the api's operations, [`super::operations`]). Leads only.

use crate::state::AppState;
use factdesk_api::answers::{AnswersFormat, AnswersReport};
use factdesk_api::call::Call;
use factdesk_api::download;
use factdesk_api::gold::{ExportFormat, ExportReport, GoldRequest};
use factdesk_api::Result;
use std::path::PathBuf;
use tauri::State;

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
) -> Result<ExportReport> {
    if let Some(remote) = state.remote() {
        let files = remote.call(&Call::ExportGold { request, format })?;
        return download::write(files, &out, force);
    }
    state.as_lead("export gold data", |p, lead| {
        p.export_gold(lead, &request, &out, format, force)
    })
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
    if let Some(remote) = state.remote() {
        // Refused before the server does the work.
        factdesk_api::output::refuse_existing(&out, force)?;
        let files = remote.call(&Call::ExportAnswers { format })?;
        return download::write(files, &out, force);
    }
    state.as_lead("export the raw answers", |p, lead| {
        p.export_answers(lead, &out, format, force)
    })
}
