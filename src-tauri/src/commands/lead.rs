//! Issuing packs from the lead's screen; the lead's other screens run the api's
//! operations ([`super::operations`]). The api checks the role.

use crate::state::AppState;
use factdesk_api::call::Call;
use factdesk_api::packs::{PackIssued, PackRequest};
use factdesk_api::Result;
use std::path::PathBuf;
use tauri::State;

/// Writes a pack for an annotator at `out` and reserves its items. Connected to a team
/// server, the server issues it and the app writes its bytes at `out`.
#[tauri::command(async)]
pub fn issue_pack(
    state: State<'_, AppState>,
    request: PackRequest,
    out: PathBuf,
) -> Result<PackIssued> {
    if let Some(remote) = state.remote() {
        // Refused here before the server reserves any item.
        factdesk_api::output::refuse_existing(&out, false)?;
        let files = remote.call(&Call::IssuePack { request })?;
        return factdesk_api::download::write(files, &out, false);
    }
    state.as_lead("issue packs", |p, lead| p.issue_pack(lead, &request, &out))
}
