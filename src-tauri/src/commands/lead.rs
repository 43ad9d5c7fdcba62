//! The lead's own screens: refutation review, project settings, flag decisions and
//! issuing packs. The api checks the role; these only pass the person working along.

use crate::state::AppState;
use factdesk_api::call::Call;
use factdesk_api::packs::PackRequest;
use factdesk_api::settings::Settings;
use factdesk_api::Result;
use serde_json::Value;
use std::path::PathBuf;
use tauri::State;

/// Written refutations waiting for the lead's accept or reject.
#[tauri::command(async)]
pub fn pending_reviews(state: State<'_, AppState>) -> Result<Value> {
    state.call(Call::PendingReviews)
}

/// The lead's decision on one written refutation, with an optional note.
#[tauri::command(async)]
pub fn review_refutation(
    state: State<'_, AppState>,
    annotation_id: i64,
    accepted: bool,
    note: Option<String>,
) -> Result<Value> {
    // The screen decides on what it listed as waiting: a decision taken meanwhile elsewhere
    // is refused, not overturned.
    state.call(Call::ReviewRefutation {
        annotation_id,
        accepted,
        note,
    })
}

/// The project's settings, as anyone working on it may read them.
#[tauri::command(async)]
pub fn settings(state: State<'_, AppState>) -> Result<Value> {
    state.call(Call::Settings)
}

/// Stores the lead's settings; the stored ones come back (a built-in guideline follows the stance).
#[tauri::command(async)]
pub fn save_settings(state: State<'_, AppState>, settings: Settings) -> Result<Value> {
    state.call(Call::SaveSettings { settings })
}

/// Counts (`Some(true)`) or leaves out (`Some(false)`) a flagged annotator's answers, or
/// follows the flag again (`None`).
#[tauri::command(async)]
pub fn flag_decision(
    state: State<'_, AppState>,
    name: String,
    include: Option<bool>,
) -> Result<Value> {
    state.call(Call::FlagDecision { name, include })
}

/// Writes a pack for an annotator at `out` and reserves its items. Connected to a team
/// server, the server issues it and the app writes its bytes at `out`.
#[tauri::command(async)]
pub fn issue_pack(state: State<'_, AppState>, request: PackRequest, out: PathBuf) -> Result<Value> {
    if let Some(remote) = state.remote() {
        // Refused here before the server reserves any item.
        factdesk_api::output::refuse_existing(&out, false)?;
        let files = remote.download(&Call::IssuePack { request })?;
        return factdesk_api::download::write(files, &out, false);
    }
    let issued = state.as_user(|p, user| p.issue_pack(user, &request, &out))?;
    serde_json::to_value(issued).map_err(|e| {
        factdesk_api::Error::new(
            factdesk_api::ErrorCode::Io,
            format!("cannot send the report: {e}"),
        )
    })
}
