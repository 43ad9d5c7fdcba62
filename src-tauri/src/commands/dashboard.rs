//! The lead's live agreement dashboard: start following the project (snapshots arrive as
//! `dashboard` events, failures as `dashboard-error`), and stop; draw a re-annotation
//! study.

use crate::state::AppState;
use factdesk_api::agreement::AgreementRequest;
use factdesk_api::study::{StudyAgreement, StudyRequest};
use factdesk_api::Result;
use tauri::{AppHandle, State};

/// Leads only. Sends the current snapshot at once, then one on every change.
#[tauri::command]
pub fn watch_dashboard(app: AppHandle, state: State<'_, AppState>) -> Result<()> {
    let path = state.as_user(|p, user| p.require_lead(user).map(|()| p.path().to_path_buf()))?;
    crate::live::watch(&app, path);
    Ok(())
}

#[tauri::command]
pub fn stop_dashboard(app: AppHandle) {
    crate::live::stop(&app);
}

/// Leads only: draws a re-annotation study; returns every study with its figures.
#[tauri::command]
pub fn create_study(
    state: State<'_, AppState>,
    request: StudyRequest,
) -> Result<Vec<StudyAgreement>> {
    state.as_user(|p, user| {
        p.create_study(user, &request)?;
        p.study_agreements(None, &AgreementRequest::default())
    })
}
