//! The app's operations as data: each screen's call into the api, declared once
//! ([`crate::for_each_operation!`]), so the desktop app runs it on its own project (or
//! pack) and the team server runs the very same function for the person a bearer token
//! names. A front end only chooses where a [`Call`] runs; the use case it reaches checks
//! the role, as everywhere else.
//!
//! Only operations on the project itself are here, and no path ever crosses: a server
//! must never take a client's path. Exports come back as bytes ([`crate::download`]) for
//! the client to write on its own machine.

#[macro_use]
mod declare;
mod on_project;
mod operations;
mod typescript;

use crate::packs::Workplace;
use crate::{Actor, Error, ErrorCode, Project, Result};
use serde::{Deserialize, Serialize};

pub use on_project::OnProject;
pub use typescript::typescript;

crate::for_each_operation!(declare_calls);

/// Who may call an operation. The use case checks it; the declaration says it to readers
/// of the server's document and to the tests that hold the two together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// Runs with no one chosen (the project's face, its first person).
    Anyone,
    /// Anyone signed in or chosen.
    Person,
    /// Leads only.
    Lead,
}

/// How the desktop shell serves an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// A command that runs the operation where the work is.
    Local,
    /// A command of the shell's own, with the operation's signature.
    Own,
    /// Not a command: the shell writes the result to a file and asks only a server for it.
    Remote,
}

/// One operation as the UI's bindings write it.
#[derive(Debug, Clone)]
pub struct Signature {
    pub name: &'static str,
    /// Its doc comment, one line of text per line.
    pub doc: &'static str,
    pub shell: Shell,
    /// Each argument's name and type.
    pub args: Vec<(&'static str, String)>,
    pub response: String,
}

impl Call {
    /// Whether the call may change what the lead's dashboard shows (an answer, who
    /// counts), so a server tells the dashboards following it.
    pub fn moves_the_dashboard(&self) -> bool {
        matches!(self, Call::SubmitAnswer { .. } | Call::FlagDecision { .. })
    }

    /// How soon after it arrives a server may answer this call, at the earliest: a
    /// trick's passage is built by another path than a candidate's and came back a few
    /// microseconds sooner, which timing each option of one's own item many times told
    /// (hostile pass of session 25: the fastest was the trick in 73 of 200 items, chance
    /// 33). Answered no sooner than this, every option's passage takes as long.
    pub fn answered_no_sooner_than(&self) -> Option<std::time::Duration> {
        matches!(self, Call::Passage { .. })
            .then(|| std::time::Duration::from_millis(PASSAGE_FLOOR_MS))
    }
}

/// The floor of [`Call::answered_no_sooner_than`] for passages: far above the time one
/// takes to build (well under a millisecond), and unnoticed by a person who asked for it.
pub const PASSAGE_FLOOR_MS: u64 = 15;

fn nobody() -> Error {
    Error::new(ErrorCode::NotFound, "choose who is working first")
}

/// Runs `call` on `project` for `actor` (the team server: the token's person).
pub fn run(project: &mut Project, actor: &Actor, call: Call) -> Result<Reply> {
    match call {
        Call::Overview => {
            let mut overview = project.overview(Some(actor))?;
            overview.path = String::new();
            Ok(Reply::Overview(overview))
        }
        // Only the lead's settings screen reads them; over a network an annotator gets
        // nothing beyond their screens (the seed orders everyone's items).
        Call::Settings => {
            project.as_lead(actor, "read the project's settings")?;
            Ok(Reply::Settings(project.settings()?))
        }
        call => dispatch(&mut OnProject::new(project, Some(actor)), call),
    }
}

/// Runs `call` on the project or pack open in the app, for the person chosen there (none
/// yet: only what needs no one runs).
pub fn run_in(work: &mut Workplace, actor: Option<&Actor>, call: Call) -> Result<Reply> {
    let session = match work {
        Workplace::Project(p) => return dispatch(&mut OnProject::new(p, actor), call),
        Workplace::Pack(session) => session,
    };
    let actor = actor.ok_or_else(nobody);
    Ok(match call {
        Call::Overview => Reply::Overview(session.overview()?),
        Call::Me => Reply::Me(on_project::pack_person(actor?)),
        Call::NextItem { kind } => Reply::NextItem(session.next_item(actor?, kind)?),
        Call::Paces => Reply::Paces(session.paces(actor?)?),
        Call::PreviousItem { kind, current } => {
            Reply::PreviousItem(session.previous_item(actor?, kind, current)?)
        }
        Call::SubmitAnswer { answer } => Reply::SubmitAnswer(session.submit(actor?, &answer)?),
        Call::Passage { task_id, option_id } => {
            Reply::Passage(session.passage(actor?, task_id, &option_id)?)
        }
        Call::SkipItem { task_id } => Reply::SkipItem(session.skip_item(actor?, task_id)?),
        Call::ReportProblem { task_id, text } => {
            session.report_problem(actor?, task_id, &text)?;
            Reply::ReportProblem(())
        }
        // Everything else needs the lead's project: the workplace says so.
        _ => {
            work.project()?;
            return Err(Error::new(ErrorCode::Io, "a pack runs no lead operation"));
        }
    })
}
