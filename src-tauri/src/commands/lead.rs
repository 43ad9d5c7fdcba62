//! The lead's own screens: refutation review, project settings, flag decisions and
//! issuing packs. The api checks the role; these only pass the person working along.

use crate::state::{not_on_a_server, AppState};
use factdesk_api::call::Call;
use factdesk_api::packs::{PackIssued, PackRequest};
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

/// Writes a pack for an annotator at `out` and reserves its items.
#[tauri::command(async)]
pub fn issue_pack(
    state: State<'_, AppState>,
    request: PackRequest,
    out: PathBuf,
) -> Result<PackIssued> {
    if state.remote().is_some() {
        return Err(not_on_a_server(
            "Issuing a pack",
            "run `factdesk pack PROJECT --for NAME` on the server's machine; the pack's answers merge back into the server's project there",
        ));
    }
    state.as_user(|p, user| p.issue_pack(user, &request, &out))
}
