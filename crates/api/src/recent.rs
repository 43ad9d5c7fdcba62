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
    /// For a team server (`path` is then its address): the name last signed in with.
    /// Passwords are never kept.
    #[serde(default)]
    pub person: Option<String>,
}

/// Whether a recent entry is a team server's address rather than a file.
pub fn is_server(path: &str) -> bool {
    path.starts_with("https://") || path.starts_with("http://")
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
            r.exists = is_server(&r.path) || Path::new(&r.path).is_file();
            r
        })
        .collect()
}

/// Puts a project at the top of the list. Failing to save it is not worth failing the
/// open for, so it is only logged.
pub fn remember(dir: &Path, path: &Path, name: &str) {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    put_on_top(
        dir,
        RecentProject {
            path: path.display().to_string(),
            name: name.to_string(),
            exists: true,
            person: None,
        },
    );
}

/// Puts a team server at the top of the list with the name signed in with (never the
/// password), so connecting again asks for the password only.
pub fn remember_server(dir: &Path, url: &str, person: &str, name: &str) {
    put_on_top(
        dir,
        RecentProject {
            path: url.to_string(),
            name: name.to_string(),
            exists: true,
            person: Some(person.to_string()),
        },
    );
}

fn put_on_top(dir: &Path, entry: RecentProject) {
    let mut items = read(dir);
    items.retain(|r| r.path != entry.path);
    items.insert(0, entry);
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
    // Just opened: no one is chosen yet, and whoever holds the file sees its counts.
    let overview = project.overview(None)?;
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
    fn a_server_is_remembered_with_its_person_and_no_password() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        remember(dir.path(), Path::new("/nowhere/a.fdesk"), "a");
        remember_server(dir.path(), "https://team.example.org", "ana", "covid");
        remember_server(dir.path(), "https://team.example.org", "ben", "covid");
        let items = list(dir.path());
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].path, "https://team.example.org");
        assert_eq!(items[0].person.as_deref(), Some("ben"));
        assert!(items[0].exists, "a server is not a missing file");
        assert!(!items[1].exists);
        let kept = std::fs::read_to_string(dir.path().join(FILE)).unwrap_or_default();
        assert!(!kept.contains("password"), "{kept}");
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
