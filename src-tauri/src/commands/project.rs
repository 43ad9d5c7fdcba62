//! Opening and creating projects, the overview and recent projects.

use crate::state::AppState;
use factdesk_api::dto::Overview;
use factdesk_api::packs::Workplace;
use factdesk_api::recent::{self, RecentProject};
use factdesk_api::{Result, SystemClock};
use std::path::{Path, PathBuf};
use tauri::State;

/// Opens a project, or a pack in annotator mode, and puts it at the top of the recent list.
fn open_any(config_dir: &Path, path: &Path) -> Result<(Workplace, Overview)> {
    let work = Workplace::open(path, Box::new(SystemClock))?;
    let overview = work.overview()?;
    recent::remember(config_dir, path, &overview.name);
    Ok((work, overview))
}

/// Opens the project named on the command line or in FACTDESK_PROJECT, if any.
#[tauri::command]
pub fn startup_project(state: State<'_, AppState>) -> Result<Option<Overview>> {
    let Some(path) = &state.startup else {
        return Ok(None);
    };
    state.hold(open_any(&state.config_dir, path)).map(Some)
}

#[tauri::command]
pub fn open_project(state: State<'_, AppState>, path: PathBuf) -> Result<Overview> {
    state.hold(open_any(&state.config_dir, &path))
}

#[tauri::command]
pub fn create_project(state: State<'_, AppState>, path: PathBuf) -> Result<Overview> {
    state.hold(
        recent::create(&state.config_dir, &path, Box::new(SystemClock))
            .map(|(p, o)| (Workplace::Project(p), o)),
    )
}

#[tauri::command]
pub fn overview(state: State<'_, AppState>) -> Result<Overview> {
    state.with_work(|w| w.overview())
}

#[tauri::command]
pub fn recent_projects(state: State<'_, AppState>) -> Vec<RecentProject> {
    recent::list(&state.config_dir)
}
