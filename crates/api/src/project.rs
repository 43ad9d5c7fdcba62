//! Creating, opening and describing a project.

use crate::dto::{Overview, Stats};
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Actor, Clock, Result};
use factdesk_store::{ProjectLocation, Store};
use std::path::Path;

/// The asks for a next item that found nothing, by (annotator, kind), with until when
/// each stands. Projects opened on one file or database for one server share them
/// ([`Project::sharing_found_nothing`]), so that asking through every connection of a
/// pool searches once, not once a connection (second hostile pass of session 24).
#[derive(Debug, Clone, Default)]
pub struct FoundNothing(pub(crate) std::sync::Arc<std::sync::Mutex<SearchedMap>>);

/// [`Searched`] by (annotator, kind).
pub(crate) type SearchedMap = std::collections::HashMap<(i64, TaskKind), Searched>;

impl FoundNothing {
    /// Runs `f` on the record (`annotate::NOTHING_STANDS_MS`).
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut SearchedMap) -> T) -> T {
        // A poisoned lock only says a thread panicked while it held the map.
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Until when (unix ms) what a person's last search for a next item of a kind found
/// stands: nothing at all, or nothing new (only their skipped items).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Searched {
    pub(crate) nothing: i64,
    pub(crate) nothing_new: i64,
}

/// An open project: the store plus the clock its writes are stamped with.
#[derive(Debug)]
pub struct Project {
    pub(crate) store: Store,
    pub(crate) clock: Box<dyn Clock>,
    /// The project's id, which every [`crate::Actor`] resolved here carries.
    pub(crate) id: String,
    /// The project's change mark ([`Store::change_mark`]) when every stored answer last
    /// read back whole (`check_stored`): unchanged since, the check is not repeated.
    pub(crate) checked_at: std::sync::Mutex<Option<(i64, u64)>>,
    /// Until when (unix ms) an annotator's ask for the next item of a kind, having found
    /// nothing, is answered so again without a search (`annotate::NOTHING_STANDS_MS`).
    /// A lead's use case forgets them: a lead's work may open items.
    pub(crate) nothing_until: FoundNothing,
}

impl Project {
    /// Runs a decision (`Store::decision`) again when PostgreSQL aborted it to break a
    /// deadlock with another, a few times at most; nothing of an aborted attempt was
    /// written.
    pub(crate) fn retrying<T>(
        &mut self,
        mut decide: impl FnMut(&mut Project) -> Result<T>,
    ) -> Result<T> {
        let mut attempt = 0;
        loop {
            match decide(self) {
                Err(_)
                    if attempt < factdesk_store::DECISION_RETRIES
                        && self.store.aborted_by_conflict() =>
                {
                    attempt += 1;
                    tracing::debug!(attempt, "decision aborted by a deadlock; running it again");
                }
                other => return other,
            }
        }
    }

    /// Creates a new project at `path`: a file, named by its stem, or (when `path` is a
    /// `postgres://` URL) the schema in an empty database, named by the database.
    pub fn create(path: &Path, clock: Box<dyn Clock>) -> Result<Project> {
        Project::create_at(&ProjectLocation::parse(path), clock)
    }

    /// Creates a new project at a location.
    pub fn create_at(location: &ProjectLocation, clock: Box<dyn Clock>) -> Result<Project> {
        let store = Store::create_at(location, &location.default_name(), clock.now_ms())?;
        let id = store.project()?.id;
        let mut project = Project {
            store,
            clock,
            id,
            checked_at: Default::default(),
            nothing_until: Default::default(),
        };
        // Each project draws from its own seed (kept in its settings, so it can be set).
        let seed = u64::from_le_bytes(
            uuid::Uuid::new_v4().as_bytes()[..8]
                .try_into()
                .unwrap_or([1; 8]),
        );
        project.store_settings(&crate::settings::Settings {
            seed,
            ..Default::default()
        })?;
        Ok(project)
    }

    /// Opens an existing project: a file, or a database when `path` is a `postgres://`
    /// URL.
    pub fn open(path: &Path, clock: Box<dyn Clock>) -> Result<Project> {
        Project::open_at(&ProjectLocation::parse(path), clock)
    }

    /// Opens an existing project at a location.
    pub fn open_at(location: &ProjectLocation, clock: Box<dyn Clock>) -> Result<Project> {
        let store = Store::open_at(location)?;
        let id = store.project()?.id;
        Ok(Project {
            store,
            clock,
            id,
            checked_at: Default::default(),
            nothing_until: Default::default(),
        })
    }

    /// This project with `found_nothing` for the asks that found nothing, shared with the
    /// other projects opened with it.
    pub fn sharing_found_nothing(mut self, found_nothing: &FoundNothing) -> Project {
        self.nothing_until = found_nothing.clone();
        self
    }

    /// The project file, or for a database its URL without the password.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// Whether the project lives in a PostgreSQL database rather than a file.
    pub fn is_database(&self) -> bool {
        self.store.engine() == factdesk_store::Engine::Postgres
    }

    /// The raw store, past the gate: for the api's tests only (feature `raw-store`).
    #[cfg(feature = "raw-store")]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The raw store, to write to past the gate: for the api's tests and benches only.
    #[cfg(feature = "raw-store")]
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// Row counts, as `factdesk stats` prints them. A lead's: the count of originals
    /// tells an annotator which claim numbers are refutations, and the count of answers
    /// ticks as others answer.
    pub fn stats(&self, lead: &Lead) -> Result<Stats> {
        self.acting_lead(lead)?;
        Ok(Stats::from(self.store.counts()?))
    }

    /// What the app's overview screen shows, to `actor`, or to whoever holds the file
    /// when no one is chosen yet (they could read the file itself). The counts are left
    /// out for an annotator ([`Project::stats`]).
    pub fn overview(&self, actor: Option<&Actor>) -> Result<Overview> {
        if let Some(actor) = actor {
            self.member(actor)?;
        }
        let project = self.store.project()?;
        let stats = match actor {
            Some(a) if !a.is_lead() => None,
            _ => Some(Stats::from(self.store.counts()?)),
        };
        Ok(Overview {
            id: project.id,
            name: project.name,
            path: self.path().display().to_string(),
            schema_version: factdesk_store::SCHEMA_VERSION as u32,
            stats,
        })
    }
}
