//! Returning a pack: the pack file is the results (every answer is committed into the
//! file itself), so it is copied to a results file for the annotator to send to the lead.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// `<pack stem>.results.fdpack` beside the pack.
pub fn default_results_path(pack: &Path) -> PathBuf {
    let stem = pack
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pack".to_string());
    pack.with_file_name(format!("{stem}.results.fdpack"))
}

/// Copies the pack to `out` (by default beside it), replacing an earlier results file,
/// and says where it went.
pub(super) fn copy_pack(pack: &Path, out: Option<&Path>) -> Result<PathBuf> {
    let out = out.map_or_else(|| default_results_path(pack), Path::to_path_buf);
    // Never over the pack itself, its journal, a folder or any project; an earlier
    // results file of a pack (not a project) is replaced.
    crate::output::check_results(&out, &crate::output::Inputs::project(pack))?;
    // Copy to a side file first so an interrupted copy never leaves a half results file.
    let partial = out.with_extension("fdpack.partial");
    let written = std::fs::copy(pack, &partial)
        .and_then(|_| std::fs::File::open(&partial)?.sync_all())
        .and_then(|()| std::fs::rename(&partial, &out));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(Error::io(&format!("writing {}", out.display()), &e));
    }
    tracing::info!(pack = %pack.display(), results = %out.display(), "results returned");
    Ok(out)
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
