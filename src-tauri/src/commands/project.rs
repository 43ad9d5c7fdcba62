//! Opening and creating projects, connecting to a team server, the overview and recent
//! projects.

use crate::remote::Remote;
use crate::state::{AppState, Place};
use factdesk_api::annotators::Person;
use factdesk_api::call::{Call, Reply};
use factdesk_api::dto::Overview;
use factdesk_api::packs::Workplace;
use factdesk_api::recent::{self, RecentProject};
use factdesk_api::{Result, SystemClock};
use std::path::{Path, PathBuf};
use tauri::State;

/// Opens a project, or a pack in annotator mode, and puts it at the top of the recent list.
fn open_any(config_dir: &Path, path: &Path) -> Result<(Place, Overview)> {
    let work = Workplace::open(path, Box::new(SystemClock))?;
    // Just opened: no one is chosen yet.
    let overview = work.overview(None)?;
    recent::remember(config_dir, path, &overview.name);
    Ok((Place::Local(work), overview))
}

/// A server's overview, its address where a file's path would be.
fn server_overview(remote: &Remote) -> Result<Overview> {
    let mut overview: Overview = remote.call(&Call::Overview)?;
    overview.path = remote.url.clone();
    Ok(overview)
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
            .map(|(p, o)| (Place::Local(Workplace::Project(p)), o)),
    )
}

/// Signs in to a team server (off the window's thread: a server may be slow to answer); the work is then the server's project, as the person
/// signed in. The server goes on the recent list with the name, never the password.
#[tauri::command(async)]
pub fn connect_server(
    state: State<'_, AppState>,
    url: String,
    name: String,
    password: String,
) -> Result<Overview> {
    let dir = &state.config_dir;
    let typed = crate::remote::server_url(&url).unwrap_or_else(|_| url.clone());
    let device = crate::devices::kept(dir, &typed, &name);
    let connected = Remote::connect(&url, &name, &password, device.as_deref()).and_then(|remote| {
        crate::devices::keep(dir, &remote.url, &name, &remote.device);
        let overview = server_overview(&remote)?;
        recent::remember_server(
            &state.config_dir,
            &remote.url,
            &remote.person.name,
            &overview.name,
        );
        Ok((Place::Server(remote), overview))
    });
    state.hold(connected)
}

/// Who is working: on a server, the person signed in; on a file, the one chosen.
#[tauri::command]
pub fn current_person(state: State<'_, AppState>) -> Option<Person> {
    match state.remote() {
        Some(remote) => Some(remote.person),
        None => state
            .run(Call::Me, |reply| match reply {
                Reply::Me(person) => Some(person),
                _ => None,
            })
            .ok(),
    }
}

/// The `overview` operation: a server's names its address where a file's path would be.
pub fn overview(state: &AppState) -> Result<Overview> {
    match state.remote() {
        Some(remote) => server_overview(&remote),
        None => {
            let user = state.user().ok();
            state.with_work(|w| w.overview(user.as_ref()))
        }
    }
}

#[tauri::command]
pub fn recent_projects(state: State<'_, AppState>) -> Vec<RecentProject> {
    recent::list(&state.config_dir)
}
