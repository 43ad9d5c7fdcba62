//! The gate: who is acting, resolved once when a session starts, and the role check every
//! use case makes itself. Front ends (the CLI, the desktop shell, a server) pass an
//! [`Actor`] along and never check roles, so a second front end cannot forget a check.

use crate::annotators::Role;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_store::annotators;

/// The person a use case acts for. Only the api makes one ([`Project::actor`],
/// [`Project::lead_or_owner`], a pack's holder), so holding one means the name was found
/// on the project with this role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The person's row; `None` only for the owner of a project that has no lead yet.
    id: Option<i64>,
    name: String,
    role: Role,
}

impl Actor {
    pub(crate) fn person(id: i64, name: &str, role: Role) -> Actor {
        Actor {
            id: Some(id),
            name: name.to_string(),
            role,
        }
    }

    /// The annotator a pack was issued to, working in it on their laptop; the pack holds
    /// no rows of people, so there is no id.
    pub(crate) fn holder(name: &str) -> Actor {
        Actor {
            id: None,
            name: name.to_string(),
            role: Role::Annotator,
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

    /// Fails with `Forbidden` unless the actor is a lead; `what` completes "may not …".
    pub(crate) fn require_lead(&self, what: &str) -> Result<()> {
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

impl Project {
    /// Resolves `name` to the person acting for a session; an unknown name is an error.
    pub fn actor(&self, name: &str) -> Result<Actor> {
        let row = annotators::by_name(self.store.conn(), name.trim())?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no one called {name:?} works on this project"),
            )
        })?;
        let role = if row.role == Role::Lead.as_str() {
            Role::Lead
        } else {
            Role::Annotator
        };
        Ok(Actor::person(row.id, &row.name, role))
    }

    /// The person a lead's script acts as: `name` when given (whatever their role: a
    /// non-lead then meets `Forbidden` in the use case), else the project's first lead.
    /// A project with no lead yet is its owner's, as anyone may add its first person:
    /// whoever holds the file then acts as its lead.
    pub fn lead_or_owner(&self, name: Option<&str>) -> Result<Actor> {
        if let Some(name) = name {
            return self.actor(name);
        }
        let first_lead = annotators::list(self.store.conn())?
            .into_iter()
            .find(|r| r.role == Role::Lead.as_str());
        Ok(match first_lead {
            Some(row) => Actor::person(row.id, &row.name, Role::Lead),
            None => Actor {
                id: None,
                name: "the project's owner".to_string(),
                role: Role::Lead,
            },
        })
    }
}
