//! What the app holds between commands.

use factdesk_api::dto::Overview;
use factdesk_api::packs::Workplace;
use factdesk_api::{Actor, Error, ErrorCode, Project, Result};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug)]
pub struct AppState {
    /// The open project, or the open pack on an annotator's laptop.
    project: Mutex<Option<Workplace>>,
    /// Who is working, as chosen on the "who is working" screen and resolved by the api
    /// then; the api checks what they may do.
    user: Mutex<Option<Actor>>,
    /// Where the list of recent projects is kept.
    pub config_dir: PathBuf,
    /// The project named at start, opened when the UI asks for it.
    pub startup: Option<PathBuf>,
    /// Set to ask the running import to stop (it then rolls back).
    pub import_stop: Arc<AtomicBool>,
}

impl AppState {
    pub fn new(config_dir: PathBuf, startup: Option<PathBuf>) -> AppState {
        AppState {
            project: Mutex::new(None),
            user: Mutex::new(None),
            config_dir,
            startup,
            import_stop: Arc::new(AtomicBool::new(false)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Workplace>> {
        // A panic while holding the lock leaves the project as it was; keep using it.
        self.project.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the open project or pack.
    pub fn with_work<T>(&self, f: impl FnOnce(&mut Workplace) -> Result<T>) -> Result<T> {
        match self.lock().as_mut() {
            Some(w) => f(w),
            None => Err(Error::new(ErrorCode::NotFound, "no project is open")),
        }
    }

    /// Runs `f` on the open project; a pack refuses.
    pub fn with_project<T>(&self, f: impl FnOnce(&mut Project) -> Result<T>) -> Result<T> {
        self.with_work(|w| f(w.project()?))
    }

    /// The person working now; commands that act for someone need one.
    pub fn user(&self) -> Result<Actor> {
        self.user
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| Error::new(ErrorCode::NotFound, "choose who is working first"))
    }

    pub fn set_user(&self, actor: Option<Actor>) {
        *self.user.lock().unwrap_or_else(|p| p.into_inner()) = actor;
    }

    /// Runs `f` on the open project for the person working now.
    pub fn as_user<T>(&self, f: impl FnOnce(&mut Project, &Actor) -> Result<T>) -> Result<T> {
        let user = self.user()?;
        self.with_project(|p| f(p, &user))
    }

    /// Runs `f` on the open project or pack for the person working now.
    pub fn as_worker<T>(&self, f: impl FnOnce(&mut Workplace, &Actor) -> Result<T>) -> Result<T> {
        let user = self.user()?;
        self.with_work(|w| f(w, &user))
    }

    /// Makes a just-opened project or pack the open one, closing any other, and passes
    /// on its overview; a failed open leaves the current one open.
    pub fn hold(&self, opened: Result<(Workplace, Overview)>) -> Result<Overview> {
        let (work, overview) = opened?;
        *self.lock() = Some(work);
        self.set_user(None);
        Ok(overview)
    }
}
