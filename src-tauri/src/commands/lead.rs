//! The lead's own screens: refutation review, project settings, flag decisions and
//! issuing packs. The api checks the role; these only pass the person working along.

use crate::state::AppState;
use factdesk_api::annotators::Annotator;
use factdesk_api::packs::{PackIssued, PackRequest};
use factdesk_api::review::PendingReview;
use factdesk_api::settings::Settings;
use factdesk_api::Result;
use std::path::PathBuf;
use tauri::State;

/// Written refutations waiting for the lead's accept or reject.
#[tauri::command]
pub fn pending_reviews(state: State<'_, AppState>) -> Result<Vec<PendingReview>> {
    state.as_user(|p, user| p.pending_reviews(user))
}

/// The lead's decision on one written refutation, with an optional note.
#[tauri::command]
pub fn review_refutation(
    state: State<'_, AppState>,
    annotation_id: i64,
    accepted: bool,
    note: Option<String>,
) -> Result<()> {
    // The screen decides on what it listed as waiting: a decision taken meanwhile elsewhere
    // is refused, not overturned.
    state.as_user(|p, user| p.review_pending(user, annotation_id, accepted, note.as_deref()))
}

/// The project's settings, as anyone working on it may read them.
#[tauri::command]
pub fn settings(state: State<'_, AppState>) -> Result<Settings> {
    state.with_project(|p| p.settings())
}

/// Stores the lead's settings; the stored ones come back (a built-in guideline follows the stance).
#[tauri::command]
pub fn save_settings(state: State<'_, AppState>, settings: Settings) -> Result<Settings> {
    state.as_user(|p, user| p.set_settings(user, &settings).and_then(|()| p.settings()))
}

/// Counts (`Some(true)`) or leaves out (`Some(false)`) a flagged annotator's answers, or
/// follows the flag again (`None`).
#[tauri::command]
pub fn flag_decision(
    state: State<'_, AppState>,
    name: String,
    include: Option<bool>,
) -> Result<Annotator> {
    state.as_user(|p, user| p.set_flag_override(user, &name, include))
}

/// Writes a pack for an annotator at `out` and reserves its items.
#[tauri::command]
pub fn issue_pack(
    state: State<'_, AppState>,
    request: PackRequest,
    out: PathBuf,
) -> Result<PackIssued> {
    state.as_user(|p, user| p.issue_pack(user, &request, &out))
}
