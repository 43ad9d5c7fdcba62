//! Importing from the app: the import runs on its own thread with its own connection to
//! the project file, so the window stays responsive, and reports progress as events.
//! Connected to a team server, the app sends the files' bytes, the server imports them as
//! a job, and the app follows the job's progress and passes a cancel on to it.

use super::throttle::Throttled;
use crate::remote::Remote;
use crate::state::AppState;
use factdesk_api::dto::{ImportOutcome, ImportProgress, ImportReport};
use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::upload::Upload;
use factdesk_api::{Error, ErrorCode, Project, Result, SystemClock};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tauri::{AppHandle, Emitter, State};

/// Starts importing claims (and documents) into the open project and returns at once;
/// `import-progress` events follow, then one `import-done`. Candidates are ranked for the
/// new claims as part of the import. Leads only.
#[tauri::command]
pub fn start_import(
    app: AppHandle,
    state: State<'_, AppState>,
    claims: Vec<PathBuf>,
    documents: Vec<PathBuf>,
    preset: String,
) -> Result<()> {
    if let Some(remote) = state.remote() {
        // The files are read here and imported there, as a job this thread follows.
        let stop = state.import_stop.clone();
        stop.store(false, Ordering::Relaxed);
        std::thread::spawn(move || {
            let result = Upload::read(&claims, &documents, &preset)
                .and_then(|u| import_on_server(&app, &remote, &u, &stop));
            done(&app, result);
        });
        return Ok(());
    }
    let (path, lead) = state.as_lead("import data", |p, lead| {
        Ok((p.path().to_path_buf(), lead.clone()))
    })?;
    let req = ImportRequest {
        claims,
        documents,
        preset: preset.parse::<Preset>()?,
        ..Default::default()
    };
    let stop = state.import_stop.clone();
    stop.store(false, Ordering::Relaxed);
    std::thread::spawn(move || {
        let events_to = app.clone();
        let mut events = Throttled::new(stop, move |p: ImportProgress| {
            if let Err(e) = events_to.emit("import-progress", p) {
                tracing::warn!("cannot send import progress: {e}");
            }
        });
        let result = Project::open(&path, Box::new(SystemClock))
            .and_then(|mut p| import(&mut p, &lead, &req, &mut events));
        done(&app, result);
    });
    Ok(())
}

/// How often a job on a team server is asked where it stands.
const JOB_POLL: Duration = Duration::from_millis(200);
/// How long the server may stay out of reach while a job is followed (it runs on
/// regardless) before the app gives up following it.
const JOB_PATIENCE: Duration = Duration::from_secs(60);

/// Sends `upload` to `remote` as an import job and follows it to its end: its progress as
/// `import-progress` events, a cancel asked on `stop` passed on to the server.
fn import_on_server(
    app: &AppHandle,
    remote: &Remote,
    upload: &Upload,
    stop: &AtomicBool,
) -> Result<ImportReport> {
    let progress = |p: ImportProgress| {
        if let Err(e) = app.emit("import-progress", p) {
            tracing::warn!("cannot send import progress: {e}");
        }
    };
    progress(ImportProgress {
        phase: "sending the files to the team server".into(),
        done: 0,
        total: 0,
    });
    let id = remote.start_import(upload)?.id;
    let mut cancel_sent = false;
    let mut out_of_reach: Option<Instant> = None;
    loop {
        let asked = if stop.load(Ordering::Relaxed) && !cancel_sent {
            remote.cancel_import(id).inspect(|_| cancel_sent = true)
        } else {
            remote.import_job(id)
        };
        match asked {
            Ok(job) => {
                out_of_reach = None;
                if let Some(outcome) = job.outcome {
                    return match (outcome.report, outcome.error) {
                        (Some(report), _) => Ok(report),
                        (None, Some(e)) => Err(e),
                        (None, None) => Err(Error::new(
                            ErrorCode::Io,
                            "the server ended the import without a report or an error",
                        )),
                    };
                }
                progress(job.progress);
            }
            // The job runs on over there: a short outage only pauses following it.
            Err(e) if e.code == ErrorCode::Unavailable => {
                let since = *out_of_reach.get_or_insert_with(Instant::now);
                if since.elapsed() > JOB_PATIENCE {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
        std::thread::sleep(JOB_POLL);
    }
}

fn done(app: &AppHandle, result: Result<ImportReport>) {
    let outcome = ImportOutcome::from(result);
    if let Err(e) = app.emit("import-done", outcome) {
        tracing::warn!("cannot report the end of an import: {e}");
    }
}

/// Asks the running import to stop; it ends with a `cancelled` error in `import-done` and
/// the project unchanged.
#[tauri::command]
pub fn cancel_import(state: State<'_, AppState>) {
    state.import_stop.store(true, Ordering::Relaxed);
}
