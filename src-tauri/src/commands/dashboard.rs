//! The lead's live agreement dashboard: start following the project (snapshots arrive as
//! `dashboard` events, failures as `dashboard-error`), and stop.

use crate::state::AppState;
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
