//! The file open for work: a lead's project or an annotator's pack. Front ends hold one
//! and call the same work functions on either; anything else needs a project.

use super::{Manifest, PackSession};
use crate::annotate::{Ack, Answer, Item, KindPace, Next, Passage};
use crate::annotators::Person;
use crate::dto::Overview;
use crate::tasks::TaskKind;
use crate::{Actor, Clock, Error, ErrorCode, Project, Result};
use std::path::Path;

/// A project or a pack, open.
#[derive(Debug)]
pub enum Workplace {
    Project(Project),
    Pack(PackSession),
}

impl Workplace {
    /// Opens the file at `path` as what its header says it is.
    pub fn open(path: &Path, clock: Box<dyn Clock>) -> Result<Workplace> {
        if super::is_pack(path) {
            Ok(Workplace::Pack(PackSession::open(path, clock)?))
        } else {
            Ok(Workplace::Project(Project::open(path, clock)?))
        }
    }

    /// The project, for everything a pack does not do.
    pub fn project(&mut self) -> Result<&mut Project> {
        match self {
            Workplace::Project(p) => Ok(p),
            Workplace::Pack(s) => Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is a pack: only the annotator's work is done in it; the rest is in the lead's project",
                    s.path().display()
                ),
            )),
        }
    }

    /// The pack's manifest, or `None` for a project.
    pub fn pack_manifest(&self) -> Option<&Manifest> {
        match self {
            Workplace::Project(_) => None,
            Workplace::Pack(s) => Some(s.manifest()),
        }
    }

    /// The overview, for the person working (`None` before anyone is chosen).
    pub fn overview(&self, actor: Option<&Actor>) -> Result<Overview> {
        match self {
            Workplace::Project(p) => p.overview(actor),
            Workplace::Pack(s) => s.overview(),
        }
    }

    pub fn people(&self) -> Result<Vec<Person>> {
        match self {
            Workplace::Project(p) => p.people(),
            Workplace::Pack(s) => Ok(s.people()),
        }
    }

    pub fn person(&self, name: &str) -> Result<Person> {
        match self {
            Workplace::Project(p) => p.person(name),
            Workplace::Pack(s) => s.person(name),
        }
    }

    /// The person working, resolved once when the session starts: someone on the
    /// project, or the pack's holder.
    pub fn actor(&self, name: &str) -> Result<Actor> {
        match self {
            Workplace::Project(p) => p.actor(name),
            Workplace::Pack(s) => s.actor(name),
        }
    }

    /// The person chosen to work in the app: on a project, with their password if they
    /// have one ([`Project::choose_person`]); a pack's holder needs none (the pack is theirs).
    pub fn choose_person(&self, name: &str, password: Option<&str>) -> Result<Actor> {
        match self {
            Workplace::Project(p) => p.choose_person(name, password),
            Workplace::Pack(s) => s.actor(name),
        }
    }

    pub fn next_item(&mut self, actor: &Actor, kind: TaskKind) -> Result<Next> {
        match self {
            Workplace::Project(p) => p.next_item(actor, kind),
            Workplace::Pack(s) => s.next_item(actor, kind),
        }
    }

    pub fn previous_item(
        &mut self,
        actor: &Actor,
        kind: TaskKind,
        current: Option<i64>,
    ) -> Result<Option<Item>> {
        match self {
            Workplace::Project(p) => p.previous_item(actor, kind, current),
            Workplace::Pack(s) => s.previous_item(actor, kind, current),
        }
    }

    /// Skips an item: see [`Project::skip_item`] and [`PackSession::skip_item`].
    pub fn skip_item(&mut self, actor: &Actor, task_id: i64) -> Result<bool> {
        match self {
            Workplace::Project(p) => p.skip_item(actor, task_id),
            Workplace::Pack(s) => s.skip_item(actor, task_id),
        }
    }

    pub fn paces(&self, actor: &Actor) -> Result<Vec<KindPace>> {
        match self {
            Workplace::Project(p) => p.paces(actor),
            Workplace::Pack(s) => s.paces(actor),
        }
    }

    pub fn submit(&mut self, actor: &Actor, answer: &Answer) -> Result<Ack> {
        match self {
            Workplace::Project(p) => p.submit(actor, answer),
            Workplace::Pack(s) => s.submit(actor, answer),
        }
    }

    pub fn passage(&self, actor: &Actor, task_id: i64, option_id: &str) -> Result<Passage> {
        match self {
            Workplace::Project(p) => p.passage(actor, task_id, option_id),
            Workplace::Pack(s) => s.passage(actor, task_id, option_id),
        }
    }
}
