//! Creating, opening and describing a project.

use crate::dto::{Overview, Stats};
use crate::{Clock, Result};
use factdesk_store::Store;
use std::path::Path;

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
}

impl Project {
    /// Creates a new project file; its name is the file stem.
    pub fn create(path: &Path, clock: Box<dyn Clock>) -> Result<Project> {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".to_string());
        let store = Store::create(path, &name, clock.now_ms())?;
        let id = store.project()?.id;
        let mut project = Project {
            store,
            clock,
            id,
            checked_at: Default::default(),
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

    /// Opens an existing project file.
    pub fn open(path: &Path, clock: Box<dyn Clock>) -> Result<Project> {
        let store = Store::open(path)?;
        let id = store.project()?.id;
        Ok(Project {
            store,
            clock,
            id,
            checked_at: Default::default(),
        })
    }

    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// The raw store, past the gate: for the api's tests only (feature `raw-store`).
    #[cfg(feature = "raw-store")]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Row counts, as `factdesk stats` prints them.
    pub fn stats(&self) -> Result<Stats> {
        Ok(Stats::from(self.store.counts()?))
    }

    /// What the app's overview screen shows.
    pub fn overview(&self) -> Result<Overview> {
        let project = self.store.project()?;
        Ok(Overview {
            id: project.id,
            name: project.name,
            path: self.path().display().to_string(),
            schema_version: factdesk_store::SCHEMA_VERSION as u32,
            stats: self.stats()?,
        })
    }
}
