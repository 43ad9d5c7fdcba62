//! The app's list of recently opened projects, kept as a small JSON file in a folder
//! the caller chooses (the app's config folder).

use crate::dto::Overview;
use crate::{Clock, Project, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use ts_rs::TS;

const FILE: &str = "recent-projects.json";
const KEEP: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RecentProject {
    pub path: String,
    pub name: String,
    /// False when the file has been moved or deleted since.
    #[serde(default)]
    pub exists: bool,
}

fn read(dir: &Path) -> Vec<RecentProject> {
    let Ok(text) = std::fs::read_to_string(dir.join(FILE)) else {
        return Vec::new();
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        tracing::warn!("ignoring an unreadable recent-projects list: {e}");
        Vec::new()
    })
}

/// Recent projects, most recent first.
pub fn list(dir: &Path) -> Vec<RecentProject> {
    read(dir)
        .into_iter()
        .map(|mut r| {
            r.exists = Path::new(&r.path).is_file();
            r
        })
        .collect()
}

/// Puts a project at the top of the list. Failing to save it is not worth failing the
/// open for, so it is only logged.
pub fn remember(dir: &Path, path: &Path, name: &str) {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let path = path.display().to_string();
    let mut items = read(dir);
    items.retain(|r| r.path != path);
    items.insert(
        0,
        RecentProject {
            path,
            name: name.to_string(),
            exists: true,
        },
    );
    items.truncate(KEEP);
    let saved = std::fs::create_dir_all(dir).and_then(|()| {
        let json = serde_json::to_string_pretty(&items).map_err(std::io::Error::other)?;
        std::fs::write(dir.join(FILE), json)
    });
    if let Err(e) = saved {
        tracing::warn!("could not save the recent-projects list: {e}");
    }
}

/// Opens a project and puts it at the top of the recent list kept in `dir`.
pub fn open(dir: &Path, path: &Path, clock: Box<dyn Clock>) -> Result<(Project, Overview)> {
    remembered(dir, path, Project::open(path, clock)?)
}

/// Creates a project and puts it at the top of the recent list kept in `dir`.
pub fn create(dir: &Path, path: &Path, clock: Box<dyn Clock>) -> Result<(Project, Overview)> {
    remembered(dir, path, Project::create(path, clock)?)
}

fn remembered(dir: &Path, path: &Path, project: Project) -> Result<(Project, Overview)> {
    let overview = project.overview()?;
    remember(dir, path, &overview.name);
    Ok((project, overview))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_first_without_duplicates_and_capped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for i in 0..12 {
            remember(
                dir.path(),
                Path::new(&format!("/nowhere/p{i}.fdesk")),
                &format!("p{i}"),
            );
        }
        remember(dir.path(), Path::new("/nowhere/p5.fdesk"), "p5");
        let items = list(dir.path());
        assert_eq!(items.len(), KEEP);
        assert_eq!(items[0].name, "p5");
        assert_eq!(items.iter().filter(|r| r.name == "p5").count(), 1);
        assert!(!items[0].exists);
    }

    #[test]
    fn opening_and_creating_put_the_project_on_top() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config = dir.path().join("config");
        let path = dir.path().join("first.fdesk");
        let clock = || Box::new(crate::FixedClock(0));
        let (_, created) = create(&config, &path, clock()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(created.name, "first");
        let (_, opened) = open(&config, &path, clock()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opened, created);
        let items = list(&config);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].name, "first");
        assert!(items[0].exists);
    }

    #[test]
    fn a_failed_open_is_not_remembered() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let missing = dir.path().join("missing.fdesk");
        assert!(open(dir.path(), &missing, Box::new(crate::FixedClock(0))).is_err());
        assert!(list(dir.path()).is_empty());
    }

    #[test]
    fn a_corrupt_list_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join(FILE), "{not json").unwrap_or_else(|e| panic!("{e}"));
        assert!(list(dir.path()).is_empty());
    }
}
