//! Packs in the app: the lead merges returned packs and lists them; in a pack, the
//! annotator sees whose it is and returns the results.

use crate::state::AppState;
use factdesk_api::packs::{Manifest, MergeOutcome, Unanswered, Workplace};
use factdesk_api::upload::{PacksUpload, UploadFile};
use factdesk_api::{Error, ErrorCode, Result};
use std::path::PathBuf;
use tauri::State;

/// Leads only. Each file gets its outcome; a refused file does not stop the others. A pack
/// with no answers is refused unless `give_back` (the lead said to take the work back).
/// Connected to a team server, the packs' bytes go to the server, which merges them.
#[tauri::command(async)]
pub fn merge_packs(
    state: State<'_, AppState>,
    paths: Vec<PathBuf>,
    give_back: bool,
) -> Result<Vec<MergeOutcome>> {
    if let Some(remote) = state.remote() {
        let packs = UploadFile::read_all(&paths)?;
        return remote.merge(&PacksUpload { packs, give_back });
    }
    let unanswered = if give_back {
        Unanswered::GiveBack
    } else {
        Unanswered::Refuse
    };
    state.as_lead("merge packs", |p, lead| {
        p.merge_packs(lead, &paths, unanswered)
    })
}

/// The open file's manifest when it is a pack; null for a project or a server.
#[tauri::command]
pub fn pack_info(state: State<'_, AppState>) -> Result<Option<Manifest>> {
    if state.remote().is_some() {
        return Ok(None);
    }
    state.with_work(|w| Ok(w.pack_manifest().cloned()))
}

/// Writes the pack's results file (beside the pack unless `to` is given); its path.
#[tauri::command]
pub fn return_results(state: State<'_, AppState>, to: Option<PathBuf>) -> Result<String> {
    state.with_work(|w| match w {
        Workplace::Pack(pack) => pack
            .return_results(to.as_deref())
            .map(|out| out.display().to_string()),
        Workplace::Project(p) => Err(Error::new(
            ErrorCode::Forbidden,
            format!(
                "{} is a project, not a pack; only a pack's results are returned",
                p.path().display()
            ),
        )),
    })
}
