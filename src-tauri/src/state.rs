//! What the app holds between commands.

use crate::commands::rank::RankJob;
use crate::remote::Remote;
use factdesk_api::call::{self, Call, Reply};
use factdesk_api::dto::Overview;
use factdesk_api::packs::Workplace;
use factdesk_api::{Actor, Error, ErrorCode, Lead, Project, Result};
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

/// Where the work is: a file on this computer (a project, or a pack on an annotator's
/// laptop), or a team server signed in to.
#[derive(Debug)]
pub enum Place {
    Local(Workplace),
    Server(Remote),
}

#[derive(Debug)]
pub struct AppState {
    /// The open project or pack, or the server connected to.
    place: Mutex<Option<Place>>,
    /// Who is working on a local file, as chosen on the "who is working" screen and
    /// resolved by the api then; the api checks what they may do. On a server the token
    /// says who is working, never this.
    user: Mutex<Option<Actor>>,
    /// Where the list of recent projects is kept.
    pub config_dir: PathBuf,
    /// The project named at start, opened when the UI asks for it.
    pub startup: Option<PathBuf>,
    /// Set to ask the running import to stop (it then rolls back).
    pub import_stop: Arc<AtomicBool>,
    /// The ranking started from this window, if one runs, and its stop flag.
    pub ranking: Arc<RankJob>,
}

impl AppState {
    pub fn new(config_dir: PathBuf, startup: Option<PathBuf>) -> AppState {
        AppState {
            place: Mutex::new(None),
            user: Mutex::new(None),
            config_dir,
            startup,
            import_stop: Arc::new(AtomicBool::new(false)),
            ranking: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Place>> {
        // A panic while holding the lock leaves the project as it was; keep using it.
        self.place.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The server connected to, if that is where the work is.
    pub fn remote(&self) -> Option<Remote> {
        match self.lock().as_ref() {
            Some(Place::Server(remote)) => Some(remote.clone()),
            _ => None,
        }
    }

    /// Runs one of the app's operations where the work is: on the open file for the
    /// person chosen, or on the server for the signed-in person, whose answer is read as
    /// the operation's response type `T`. `pick` takes the response out of the reply.
    pub fn run<T: DeserializeOwned>(
        &self,
        op: Call,
        pick: impl FnOnce(Reply) -> Option<T>,
    ) -> Result<T> {
        // The server is asked without holding the lock, so a slow answer blocks nothing.
        if let Some(remote) = self.remote() {
            return remote.call(&op);
        }
        let name = op.name();
        let user = self.user().ok();
        let reply = self.with_work(|w| call::run_in(w, user.as_ref(), op))?;
        pick(reply).ok_or_else(|| {
            Error::new(
                ErrorCode::Io,
                format!("{name} answered with another operation's reply"),
            )
        })
    }

    /// Runs `f` on the open project or pack; a server refuses with `on_server`'s error.
    pub fn with_work<T>(&self, f: impl FnOnce(&mut Workplace) -> Result<T>) -> Result<T> {
        match self.lock().as_mut() {
            Some(Place::Local(w)) => f(w),
            Some(Place::Server(r)) => Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "this needs a project file; the app is connected to {}",
                    r.url
                ),
            )),
            None => Err(Error::new(ErrorCode::NotFound, "no project is open")),
        }
    }

    /// Runs `f` on the open project; a pack refuses.
    pub fn with_project<T>(&self, f: impl FnOnce(&mut Project) -> Result<T>) -> Result<T> {
        self.with_work(|w| f(w.project()?))
    }

    /// The person working now on a local file; commands that act for someone need one.
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

    /// Runs a lead's use case `f` on the open project for the person working now, with
    /// the proof from the api's gate; `what` completes "… may not …".
    pub fn as_lead<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Project, &Lead) -> Result<T>,
    ) -> Result<T> {
        let user = self.user()?;
        self.with_project(|p| {
            let lead = p.as_lead(&user, what)?;
            f(p, &lead)
        })
    }

    /// Makes a just-opened project, pack or server connection the current one, closing
    /// any other (a server's session is ended), and passes on its overview; a failed open
    /// leaves the current one open.
    pub fn hold(&self, opened: Result<(Place, Overview)>) -> Result<Overview> {
        let (place, overview) = opened?;
        let old = self.lock().replace(place);
        self.set_user(None);
        if let Some(Place::Server(old)) = old {
            std::thread::spawn(move || old.sign_out());
        }
        Ok(overview)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::fake;
    use factdesk_api::annotate::Ack;

    /// The app connected to a server that answers its first call with `body`.
    fn on_server(body: &'static str) -> AppState {
        let state = AppState::new(PathBuf::new(), None);
        let remote = fake::signed_in(fake::answering(200, body));
        *state.lock() = Some(Place::Server(remote));
        state
    }

    fn submit(state: &AppState) -> Result<Ack> {
        let answer = Default::default();
        state.run(Call::SubmitAnswer { answer }, |reply| match reply {
            Reply::SubmitAnswer(ack) => Some(ack),
            _ => None,
        })
    }

    #[test]
    fn an_operation_run_on_a_server_returns_its_response_typed() {
        let ack = submit(&on_server(r#"{"ack":"stored","task_id":7}"#));
        let expected = Ack {
            ack: "stored".into(),
            task_id: 7,
        };
        assert_eq!(ack.ok(), Some(expected));
        let wrong = submit(&on_server(r#"[{"ack":"stored"}]"#)).err();
        let wrong = wrong.unwrap_or_else(|| panic!("a list was read as an ack"));
        assert_eq!(wrong.code, ErrorCode::Io);
        assert!(wrong.message.contains("submit_answer"), "{}", wrong.message);
    }
}
