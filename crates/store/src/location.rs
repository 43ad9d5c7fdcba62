//! Where a project lives: a file, or a PostgreSQL database named by a `postgres://` URL.

use crate::db::{Connection, PgConn};
use crate::file::APPLICATION_ID;
use crate::Read;
use crate::{migrate, project, Access, Error, Result, Store, Tx};
use std::path::{Path, PathBuf};

/// A project's place, as a command line or the app names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectLocation {
    File(PathBuf),
    /// A connection URL (`postgres://user:password@host:port/database`).
    Postgres(String),
}

impl ProjectLocation {
    /// A `postgres://` or `postgresql://` URL names a database; anything else a file.
    pub fn parse(text: &Path) -> ProjectLocation {
        match text.to_str() {
            Some(s) if is_postgres_url(s) => ProjectLocation::Postgres(s.to_string()),
            _ => ProjectLocation::File(text.to_path_buf()),
        }
    }

    /// Whether this names a database rather than a file.
    pub fn is_database(&self) -> bool {
        matches!(self, ProjectLocation::Postgres(_))
    }

    /// The location as it may be shown: a URL without its password.
    pub fn shown(&self) -> String {
        match self {
            ProjectLocation::File(p) => p.display().to_string(),
            ProjectLocation::Postgres(url) => without_password(url),
        }
    }

    /// A name for a new project: the file's stem, or the database's name.
    pub fn default_name(&self) -> String {
        let name = match self {
            ProjectLocation::File(p) => p.file_stem().map(|s| s.to_string_lossy().into_owned()),
            ProjectLocation::Postgres(url) => url
                .split('?')
                .next()
                .and_then(|u| u.rsplit_once('/'))
                .map(|(_, db)| db.to_string())
                .filter(|db| !db.is_empty()),
        };
        name.unwrap_or_else(|| "project".to_string())
    }
}

pub(crate) fn is_postgres_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// `postgres://user:secret@host/db` → `postgres://user@host/db`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}@{host}{tail}")
        }
        None => url.to_string(),
    }
}

fn connect(url: &str) -> Result<PgConn> {
    PgConn::connect(url).map_err(|e| Error::Connect {
        location: without_password(url),
        reason: e.to_string(),
    })
}

fn tables_besides_ours(conn: &Read) -> Result<(i64, bool)> {
    Ok(conn.query_row(
        "SELECT count(*), count(*) FILTER (WHERE tablename = 'factdesk_schema') > 0
         FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Creates the schema and the project row in an empty database, in one transaction.
pub(crate) fn create_postgres(url: &str, name: &str, now_ms: i64) -> Result<Store> {
    let shown = PathBuf::from(without_password(url));
    let mut conn = Read(Connection::Postgres(Box::new(connect(url)?)));
    match tables_besides_ours(&conn)? {
        (0, _) => {}
        (_, true) => return Err(Error::AlreadyExists(shown)),
        (_, false) => return Err(Error::DatabaseInUse(without_password(url))),
    }
    let tx = Tx::begin(&mut conn)?;
    tx.execute_batch(&format!(
        "CREATE TABLE factdesk_schema (application_id BIGINT NOT NULL, version BIGINT NOT NULL);
         INSERT INTO factdesk_schema VALUES ({APPLICATION_ID}, 0);"
    ))?;
    migrate::apply(&tx, &shown)?;
    project::insert(&tx, name, now_ms)?;
    tx.commit()?;
    Ok(Store {
        conn,
        path: shown,
        access: Access::ReadWrite,
    })
}

/// Opens a project database, migrating an older schema in one transaction and refusing
/// a newer one.
pub(crate) fn open_postgres(url: &str) -> Result<Store> {
    let shown = PathBuf::from(without_password(url));
    let mut conn = Read(Connection::Postgres(Box::new(connect(url)?)));
    let ours: bool = conn.query_row(
        "SELECT to_regclass('factdesk_schema') IS NOT NULL",
        [],
        |r| r.get(0),
    )?;
    if !ours {
        return Err(Error::NotAProject(shown));
    }
    let (app_id, version): (i64, i64) = conn.query_row(
        "SELECT application_id, version FROM factdesk_schema",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if app_id != APPLICATION_ID {
        return Err(Error::NotAProject(shown));
    }
    if version > crate::SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            path: shown,
            found: version,
            supported: crate::SCHEMA_VERSION,
        });
    }
    if version < crate::SCHEMA_VERSION {
        let tx = Tx::begin(&mut conn)?;
        migrate::apply(&tx, &shown)?;
        tx.commit()?;
    }
    Ok(Store {
        conn,
        path: shown,
        access: Access::ReadWrite,
    })
}

/// The search index of a database project: in the user's cache (`FACTDESK_CACHE_DIR`,
/// else `$XDG_CACHE_HOME/factdesk`, else `~/.cache/factdesk`), by project id. It is
/// rebuilt from the database whenever it is missing or behind.
pub(crate) fn cached_index_dir(project_id: &str) -> PathBuf {
    let base = std::env::var_os("FACTDESK_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| Path::new(&d).join("factdesk")))
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/factdesk")))
        .unwrap_or_else(|| std::env::temp_dir().join("factdesk"));
    let safe: String = project_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    base.join("index").join(safe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_databases_and_lose_their_password_when_shown() {
        let l = ProjectLocation::parse(Path::new("postgres://ann:s3cret@db.local:5432/team"));
        assert_eq!(l.shown(), "postgres://ann@db.local:5432/team");
        assert_eq!(l.default_name(), "team");
        let f = ProjectLocation::parse(Path::new("work/p.fdesk"));
        assert_eq!(f, ProjectLocation::File(PathBuf::from("work/p.fdesk")));
        assert_eq!(f.default_name(), "p");
    }
}
