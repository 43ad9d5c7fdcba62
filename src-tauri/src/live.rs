//! The lead's live dashboard: a thread with its own connection to the project file
//! follows the answers (a probe of the newest annotation id four times a second, so
//! answers from other processes such as `factdesk submit` show too) and sends a
//! `dashboard` event whenever something changed. Bootstrap intervals need every answer,
//! so they are computed on one more thread, one computation at a time, and arrive later.
//! Connected to a team server, the dashboard follows the server's events instead
//! ([`watch_server`], in `live/server.rs`).

mod server;
pub use server::watch_server;

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::dashboard::{DashboardState, Intervals};
use factdesk_api::{Actor, Clock, Error, Project, Result, SystemClock};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tauri::{AppHandle, Emitter, Manager};

/// How often the project file is probed for new answers.
pub(crate) const POLL: Duration = Duration::from_millis(250);
/// How often the snapshot is sent again with no new answer, so paces (the last half
/// hour's) age as time passes.
pub(crate) const RESEND: Duration = Duration::from_secs(30);

/// The running watcher, if any: a new watch or a stop bumps the generation and the
/// thread of an older one ends.
#[derive(Debug, Default)]
pub struct DashboardWatch {
    generation: AtomicU64,
    /// What is followed: a project file's path, or a server's address and person.
    followed: Mutex<Option<String>>,
    resend: AtomicBool,
}

fn watch_state(app: &AppHandle) -> tauri::State<'_, DashboardWatch> {
    if app.try_state::<DashboardWatch>().is_none() {
        app.manage(DashboardWatch::default());
    }
    app.state::<DashboardWatch>()
}

/// Starts following `path` (or asks the running watcher to send its snapshot again).
pub fn watch(app: &AppHandle, path: PathBuf, lead: Actor) {
    let key = path.display().to_string();
    start(app, key, move |app, generation| {
        run(app, &path, &lead, generation)
    });
}

/// Runs `follow` on a thread of its own as the one watcher of `key`, unless `key` is
/// followed already: that watcher is asked to send its snapshot again.
fn start(app: &AppHandle, key: String, follow: impl FnOnce(&AppHandle, u64) + Send + 'static) {
    let watch = watch_state(app);
    let mut current = watch.followed.lock().unwrap_or_else(|p| p.into_inner());
    if current.as_ref() == Some(&key) {
        watch.resend.store(true, Ordering::SeqCst);
        return;
    }
    let generation = watch.generation.fetch_add(1, Ordering::SeqCst) + 1;
    *current = Some(key);
    let app = app.clone();
    std::thread::spawn(move || {
        follow(&app, generation);
        // Ended by itself (the file could not be opened): let the next watch start anew.
        let watch = watch_state(&app);
        let mut current = watch.followed.lock().unwrap_or_else(|p| p.into_inner());
        if watch.generation.load(Ordering::SeqCst) == generation {
            *current = None;
        }
    });
}

/// Whether the watcher of `generation` is still the one wanted.
fn wanted(app: &AppHandle, generation: u64) -> bool {
    watch_state(app).generation.load(Ordering::SeqCst) == generation
}

/// Whether the UI asked for the snapshot again; clears the request.
fn resend_asked(app: &AppHandle) -> bool {
    watch_state(app).resend.swap(false, Ordering::SeqCst)
}

/// Stops following.
pub fn stop(app: &AppHandle) {
    let watch = watch_state(app);
    watch.generation.fetch_add(1, Ordering::SeqCst);
    *watch.followed.lock().unwrap_or_else(|p| p.into_inner()) = None;
}

pub(crate) fn emit_error(app: &AppHandle, error: Error) {
    if let Err(e) = app.emit("dashboard-error", error) {
        tracing::warn!("cannot send a dashboard error: {e}");
    }
}

/// The link to a team server: `Some` while it is down and being followed again (why),
/// `None` once it is back.
pub(crate) fn emit_link(app: &AppHandle, down: Option<Error>) {
    if let Err(e) = app.emit("dashboard-link", down) {
        tracing::warn!("cannot send the dashboard's link: {e}");
    }
}

fn emit_snapshot(app: &AppHandle, snapshot: impl serde::Serialize + Clone) {
    if let Err(e) = app.emit("dashboard", snapshot) {
        tracing::warn!("cannot send the dashboard: {e}");
    }
}

/// Intervals with how long they took, from a thread of their own.
type Computed = (Result<Intervals>, Duration);

fn run(app: &AppHandle, path: &Path, lead: &Actor, generation: u64) {
    let project = match Project::open(path, Box::new(SystemClock)) {
        Ok(p) => p,
        Err(e) => {
            emit_error(app, e);
            return;
        }
    };
    let mut state = DashboardState::new();
    let (send, receive) = mpsc::channel::<Computed>();
    let mut computing = false;
    let mut next_intervals = Instant::now();
    let mut first = true;
    let mut sent = Instant::now();
    while wanted(app, generation) {
        let mut changed = match state.refresh(&project, lead) {
            Ok(changed) => changed,
            Err(e) => {
                emit_error(app, e);
                false
            }
        };
        while let Ok((result, took)) = receive.try_recv() {
            computing = false;
            // Never more than a third of one core on intervals, however large the project.
            next_intervals = Instant::now() + took * 2;
            match result {
                Ok(intervals) => {
                    state.set_intervals(intervals);
                    changed = true;
                }
                Err(e) => tracing::warn!("dashboard intervals: {e}"),
            }
        }
        if changed || first || resend_asked(app) || sent.elapsed() >= RESEND {
            emit_snapshot(app, state.snapshot(SystemClock.now_ms()));
            first = false;
            sent = Instant::now();
        }
        let stale = state.intervals_as_of() != Some(state.last_annotation_id());
        if stale && !computing && Instant::now() >= next_intervals {
            computing = true;
            let (path, send, lead) = (path.to_path_buf(), send.clone(), lead.clone());
            std::thread::spawn(move || {
                let started = Instant::now();
                let result = Project::open(&path, Box::new(SystemClock))
                    .and_then(|p| p.dashboard_intervals(&lead, &AgreementRequest::default()));
                // The watcher may have ended; then nobody needs these.
                let _ = send.send((result, started.elapsed()));
            });
        }
        std::thread::sleep(POLL);
    }
}
