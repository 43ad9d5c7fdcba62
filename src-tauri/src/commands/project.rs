//! Opening and creating projects, the overview and recent projects.

use crate::state::AppState;
use factdesk_api::dto::Overview;
use factdesk_api::recent::{self, RecentProject};
use factdesk_api::{Result, SystemClock};
use std::path::PathBuf;
use tauri::State;

/// Opens the project named on the command line or in FACTDESK_PROJECT, if any.
#[tauri::command]
pub fn startup_project(state: State<'_, AppState>) -> Result<Option<Overview>> {
    let Some(path) = &state.startup else {
        return Ok(None);
    };
    state
        .hold(recent::open(&state.config_dir, path, Box::new(SystemClock)))
        .map(Some)
}

#[tauri::command]
pub fn open_project(state: State<'_, AppState>, path: PathBuf) -> Result<Overview> {
    state.hold(recent::open(
        &state.config_dir,
        &path,
        Box::new(SystemClock),
    ))
}

#[tauri::command]
pub fn create_project(state: State<'_, AppState>, path: PathBuf) -> Result<Overview> {
    state.hold(recent::create(
        &state.config_dir,
        &path,
        Box::new(SystemClock),
    ))
}

#[tauri::command]
pub fn overview(state: State<'_, AppState>) -> Result<Overview> {
    state.with_project(|p| p.overview())
}

#[tauri::command]
pub fn recent_projects(state: State<'_, AppState>) -> Vec<RecentProject> {
    recent::list(&state.config_dir)
}
