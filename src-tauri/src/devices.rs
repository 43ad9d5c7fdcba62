//! The device tokens team servers gave this app's sign-ins, one per server and name, in
//! the app's config folder: presented at the next sign-in, a token tells its owner apart
//! from someone guessing the name from the same address (a lab's NAT), who would
//! otherwise hold the name there for its owner too. A lost or unreadable file only
//! loses that; the token is no password and opens nothing by itself.

use std::collections::BTreeMap;
use std::path::Path;

const FILE: &str = "devices.json";

fn key(url: &str, name: &str) -> String {
    format!("{url} {name}")
}

fn read(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read(dir.join(FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// The token kept for `name` on the server at `url`, if any.
pub fn kept(dir: &Path, url: &str, name: &str) -> Option<String> {
    read(dir).remove(&key(url, name))
}

/// Keeps `token` for `name` on the server at `url` (an empty one is not kept).
pub fn keep(dir: &Path, url: &str, name: &str, token: &str) {
    if token.is_empty() {
        return;
    }
    let mut tokens = read(dir);
    tokens.insert(key(url, name), token.to_string());
    let saved = std::fs::create_dir_all(dir).and_then(|()| {
        let json = serde_json::to_vec_pretty(&tokens).map_err(std::io::Error::other)?;
        let partial = dir.join(format!("{FILE}.partial"));
        std::fs::write(&partial, json)?;
        std::fs::rename(&partial, dir.join(FILE))
    });
    if let Err(e) = saved {
        tracing::warn!("could not keep the server's device token: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_kept_per_server_and_name() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kept(dir.path(), "https://a", "ana"), None);
        keep(dir.path(), "https://a", "ana", "t1");
        keep(dir.path(), "https://a", "ben", "t2");
        keep(dir.path(), "https://b", "ana", "t3");
        keep(dir.path(), "https://a", "ana", "");
        assert_eq!(kept(dir.path(), "https://a", "ana").as_deref(), Some("t1"));
        assert_eq!(kept(dir.path(), "https://a", "ben").as_deref(), Some("t2"));
        assert_eq!(kept(dir.path(), "https://b", "ana").as_deref(), Some("t3"));
        keep(dir.path(), "https://a", "ana", "t4");
        assert_eq!(kept(dir.path(), "https://a", "ana").as_deref(), Some("t4"));
        std::fs::write(dir.path().join(FILE), "not json").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(kept(dir.path(), "https://a", "ana"), None);
    }
}
