//! The lead's live agreement dashboard: start following the project (snapshots arrive as
//! `dashboard` events, failures as `dashboard-error`), and stop.

use crate::state::AppState;
use factdesk_api::call::Call;
use factdesk_api::Result;
use tauri::{AppHandle, State};

/// Leads only (the api refuses anyone else). Sends the current snapshot at once, then one on every change.
#[tauri::command(async)]
pub fn watch_dashboard(app: AppHandle, state: State<'_, AppState>) -> Result<()> {
    if let Some(remote) = state.remote() {
        // The server's gate refuses anyone but a lead here, so the refusal reaches the caller.
        let first = remote.call(&Call::Dashboard { intervals: false })?;
        crate::live::watch_server(&app, remote, first);
        return Ok(());
    }
    // The api's first probe refuses anyone but a lead, so the refusal reaches the caller.
    let (path, lead) = state.as_lead("watch the dashboard", |p, lead| {
        p.last_annotation_id(lead)?;
        Ok((p.path().to_path_buf(), lead.clone()))
    })?;
    crate::live::watch(&app, path, lead);
    Ok(())
}

#[tauri::command]
pub fn stop_dashboard(app: AppHandle) {
    crate::live::stop(&app);
}
