//! The lead's live dashboard: a thread with its own connection to the project file is
//! woken whenever the file is written, by any process, and sends a `dashboard` event
//! whenever something changed ([`file::follow`], in `live/file.rs`). Connected to a team
//! server, the dashboard follows the server's events instead ([`watch_server`], in
//! `live/server.rs`).

mod file;
mod server;
pub use server::watch_server;

use factdesk_api::dashboard::Dashboard;
use factdesk_api::{Error, Lead};
use file::Wake;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::time::Duration;
use tauri::{AppHandle, Emitter, Manager};

/// How often the server's follower looks whether it is still wanted between events.
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
    /// Wakes the running watcher (to resend, or to notice it was stopped).
    wake: Mutex<Option<Sender<Wake>>>,
}

impl DashboardWatch {
    fn wake(&self) {
        if let Some(wake) = self.wake.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            let _ = wake.send(Wake::Asked);
        }
    }
}

fn watch_state(app: &AppHandle) -> tauri::State<'_, DashboardWatch> {
    if app.try_state::<DashboardWatch>().is_none() {
        app.manage(DashboardWatch::default());
    }
    app.state::<DashboardWatch>()
}

/// Starts following `path` (or asks the running watcher to send its snapshot again).
pub fn watch(app: &AppHandle, path: PathBuf, lead: Lead) {
    let key = path.display().to_string();
    start(app, key, move |app, generation, (send, woken)| {
        let sink = AppSink { app, generation };
        file::follow(&path, &lead, &sink, send, woken)
    });
}

/// The window of the app, for the watcher of `generation`.
struct AppSink<'a> {
    app: &'a AppHandle,
    generation: u64,
}

impl file::Sink for AppSink<'_> {
    fn wanted(&self) -> bool {
        wanted(self.app, self.generation)
    }

    fn resend_asked(&self) -> bool {
        resend_asked(self.app)
    }

    fn snapshot(&self, dashboard: Dashboard) {
        emit_snapshot(self.app, dashboard);
    }

    fn error(&self, error: Error) {
        emit_error(self.app, error);
    }
}

/// The two ends of a watcher's wake-up channel.
type Wakes = (Sender<Wake>, Receiver<Wake>);

/// Runs `follow` on a thread of its own as the one watcher of `key`, unless `key` is
/// followed already: that watcher is asked to send its snapshot again.
fn start(
    app: &AppHandle,
    key: String,
    follow: impl FnOnce(&AppHandle, u64, Wakes) + Send + 'static,
) {
    let watch = watch_state(app);
    let mut current = watch.followed.lock().unwrap_or_else(|p| p.into_inner());
    if current.as_ref() == Some(&key) {
        watch.resend.store(true, Ordering::SeqCst);
        watch.wake();
        return;
    }
    let generation = watch.generation.fetch_add(1, Ordering::SeqCst) + 1;
    *current = Some(key);
    let (send, woken) = mpsc::channel();
    let old = watch
        .wake
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .replace(send.clone());
    // The older watcher notices at once that it is no longer wanted.
    if let Some(old) = old {
        let _ = old.send(Wake::Asked);
    }
    let app = app.clone();
    std::thread::spawn(move || {
        follow(&app, generation, (send, woken));
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

/// Ends the watcher of `generation` from within (the server refused it for good): its
/// threads stop, and the next watch starts anew. A newer watcher is left alone.
fn end(app: &AppHandle, generation: u64) {
    let watch = watch_state(app);
    let mut current = watch.followed.lock().unwrap_or_else(|p| p.into_inner());
    let ours = watch.generation.compare_exchange(
        generation,
        generation + 1,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    if ours.is_ok() {
        *current = None;
    }
}

/// Stops following.
pub fn stop(app: &AppHandle) {
    let watch = watch_state(app);
    watch.generation.fetch_add(1, Ordering::SeqCst);
    *watch.followed.lock().unwrap_or_else(|p| p.into_inner()) = None;
    watch.wake();
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
