//! The gate: who is acting, resolved once when a session starts, and the role check every
//! use case makes itself. Front ends (the CLI, the desktop shell, a server) pass an
//! [`Actor`] along and never check roles, so a second front end cannot forget a check.

use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::role::Role;
use factdesk_store::annotators;

/// The person a use case acts for. Only the api makes one ([`Project::actor`],
/// [`Project::lead_or_owner`], a pack's holder), so holding one means the name was found
/// on the project with this role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The person's row; `None` for the owner of a project that has no lead yet, and for
    /// a pack's holder.
    id: Option<i64>,
    name: String,
    role: Role,
    /// The project (or pack) the name was resolved in: an actor is no one elsewhere.
    place: String,
}

impl Actor {
    pub(crate) fn person(place: &str, id: i64, name: &str, role: Role) -> Actor {
        Actor {
            id: Some(id),
            name: name.to_string(),
            role,
            place: place.to_string(),
        }
    }

    /// The annotator a pack was issued to, working in it on their laptop; the pack holds
    /// no rows of people, so there is no id.
    pub(crate) fn holder(pack_id: &str, name: &str) -> Actor {
        Actor {
            id: None,
            name: name.to_string(),
            role: Role::Annotator,
            place: pack_id.to_string(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// The person's row id; `None` for a project's owner before it has a lead.
    pub fn id(&self) -> Option<i64> {
        self.id
    }

    pub fn is_lead(&self) -> bool {
        self.role == Role::Lead
    }

    /// Fails with `Forbidden` unless the actor was resolved in `place` (a project's or a
    /// pack's id).
    pub(crate) fn require_place(&self, place: &str) -> Result<()> {
        if self.place == place {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::Forbidden,
            format!(
                "{} was chosen in another project; choose who is working in this one",
                self.name
            ),
        ))
    }

    /// Fails with `Forbidden` unless the actor is a lead; `what` completes "may not …".
    fn require_role_lead(&self, what: &str) -> Result<()> {
        match self.role {
            Role::Lead => Ok(()),
            Role::Annotator => Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is not a lead of this project and may not {what}",
                    self.name
                ),
            )),
        }
    }
}

/// A lead of one project, proven: only the gate ([`Project::as_lead`]) makes one, so a
/// use case that takes a `&Lead` checks no role, and no front end can call it for an
/// annotator (it would not compile). It reads as the [`Actor`] it was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lead(Actor);

impl std::ops::Deref for Lead {
    type Target = Actor;

    fn deref(&self) -> &Actor {
        &self.0
    }
}

impl Project {
    /// The gate of a lead's use cases: the proof that `actor` is a lead of this project,
    /// or `Forbidden`; `what` completes "… may not …".
    pub fn as_lead(&self, actor: &Actor, what: &str) -> Result<Lead> {
        actor.require_place(&self.id)?;
        actor.require_role_lead(what)?;
        Ok(Lead(actor.clone()))
    }

    /// What every lead's use case does first: the proof must be of this project (one
    /// made elsewhere is no one here), and a lead's work may open items (tasks, a person
    /// disabled, a study deleted), so "nothing new found" is forgotten.
    pub(crate) fn acting_lead(&self, lead: &Lead) -> Result<()> {
        lead.require_place(&self.id)?;
        self.nothing_until.with(std::collections::HashMap::clear);
        Ok(())
    }

    /// The gate of an annotator's use case: the actor's name, once they are known to be
    /// someone of this project.
    pub(crate) fn member<'a>(&self, actor: &'a Actor) -> Result<&'a str> {
        actor.require_place(&self.id)?;
        Ok(actor.name())
    }

    /// Resolves `name` to the person acting for a session; an unknown name is an error.
    pub fn actor(&self, name: &str) -> Result<Actor> {
        let name = name_of(name);
        let row = annotators::by_name(self.store.read(), name)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no one called {name:?} works on this project"),
            )
        })?;
        if factdesk_store::sign_in::is_disabled(self.store.read(), row.id)? {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!("{} was disabled by a lead of this project", row.name),
            ));
        }
        Ok(Actor::person(&self.id, row.id, &row.name, row.role))
    }

    /// The person a lead's script acts as: `name` when given (whatever their role: a
    /// non-lead then meets `Forbidden` in the use case), else the project's first lead
    /// who is not disabled.
    /// A project with no lead yet is its owner's, as anyone may add its first person:
    /// whoever holds the file then acts as its lead.
    pub fn lead_or_owner(&self, name: Option<&str>) -> Result<Actor> {
        if let Some(name) = name {
            return self.actor(name);
        }
        // A lead disabled by another lead acts for no one, scripts included.
        let mut first_lead = None;
        for row in annotators::list(self.store.read())? {
            if row.role == Role::Lead
                && !factdesk_store::sign_in::is_disabled(self.store.read(), row.id)?
            {
                first_lead = Some(row);
                break;
            }
        }
        Ok(match first_lead {
            Some(row) => Actor::person(&self.id, row.id, &row.name, Role::Lead),
            None => Actor {
                id: None,
                name: "the project's owner".to_string(),
                role: Role::Lead,
                place: self.id.clone(),
            },
        })
    }
}

/// A person's name as it came in (from a flag, a form, a pack request), as the project
/// stores and looks it up: without the spaces around it. Every name the api takes in
/// passes here, so " cy" finds cy wherever it is typed.
pub(crate) fn name_of(given: &str) -> &str {
    given.trim()
}
