//! Returning a pack: the pack file is the results, so its log is folded into the file and
//! the file is copied to a results file for the annotator to send to the lead.

use crate::{Error, ErrorCode, Project, Result};
use std::path::{Path, PathBuf};

/// `<pack stem>.results.fdpack` beside the pack.
pub fn default_results_path(pack: &Path) -> PathBuf {
    let stem = pack
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pack".to_string());
    pack.with_file_name(format!("{stem}.results.fdpack"))
}

impl Project {
    /// Writes this pack's answers so far to `out` (by default beside the pack), replacing
    /// an earlier results file, and says where it went. Only a pack has results to return.
    pub fn return_results(&self, out: Option<&Path>) -> Result<PathBuf> {
        let pack = self.path().to_path_buf();
        if self.pack_manifest()?.is_none() {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "{} is a project, not a pack; only a pack's results are returned",
                    pack.display()
                ),
            ));
        }
        let out = out.map_or_else(|| default_results_path(&pack), Path::to_path_buf);
        let manifest = self.pack_manifest()?;
        // An earlier results file of this pack is replaced; any other project never is.
        if factdesk_store::is_project_file(&out) && !results_of(&out, manifest.as_ref()) {
            crate::output::check(&out, &crate::output::Inputs::project(&pack))?;
        }
        if same_file(&out, &pack) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "{}: the results go to a file of their own, not over the pack",
                    out.display()
                ),
            ));
        }
        if !factdesk_store::pack_file::checkpoint(self.store.conn())? {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "{} is open in another program; close it there and return the results again",
                    pack.display()
                ),
            ));
        }
        // Copy to a side file first so an interrupted copy never leaves a half results file.
        let partial = out.with_extension("fdpack.partial");
        let written = std::fs::copy(&pack, &partial)
            .and_then(|_| std::fs::File::open(&partial)?.sync_all())
            .and_then(|()| std::fs::rename(&partial, &out));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(Error::io(&format!("writing {}", out.display()), &e));
        }
        tracing::info!(pack = %pack.display(), results = %out.display(), "results returned");
        Ok(out)
    }
}

/// Whether `file` is a results file of the same pack, read without writing to it.
fn results_of(file: &Path, manifest: Option<&super::Manifest>) -> bool {
    let Some(manifest) = manifest else {
        return false;
    };
    factdesk_store::Store::open_with(file, factdesk_store::Access::ReadOnly)
        .ok()
        .and_then(|s| {
            factdesk_store::pack_file::read_manifest(s.conn())
                .ok()
                .flatten()
        })
        .and_then(|(text, _)| serde_json::from_str::<super::Manifest>(&text).ok())
        .is_some_and(|m| m.pack_id == manifest.pack_id)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_go_beside_the_pack() {
        assert_eq!(
            default_results_path(Path::new("/laptop/ana.fdpack")),
            PathBuf::from("/laptop/ana.results.fdpack")
        );
    }
}
