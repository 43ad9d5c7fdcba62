//! Embeds the app's built screens (ui/dist) in the server, which serves them to browsers
//! (src/ui.rs): every file there becomes an entry of `ASSETS`, its bytes included at
//! compile time. The UI is built before any cargo step (`npm run build:ui`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() -> Result<(), String> {
    // Read when the script runs, not when it compiles: a target folder shared by two
    // checkouts would otherwise embed the other checkout's screens.
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|e| format!("cargo sets CARGO_MANIFEST_DIR for build scripts: {e}"))?;
    let dist = Path::new(&manifest).join("../../ui/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut files = Vec::new();
    collect(&dist, &mut files).map_err(|e| {
        format!(
            "the server embeds the UI from {}, which cannot be read ({e}): run `npm ci && npm run build:ui` first",
            dist.display()
        )
    })?;
    files.sort();
    if !files.iter().any(|f| f.ends_with("index.html")) {
        return Err(format!(
            "{} holds no index.html: run `npm run build:ui` first",
            dist.display()
        ));
    }
    let mut out = String::from(
        "/// The built UI: each file's path under ui/dist (from `/`) and its bytes.\n\
         pub(crate) static ASSETS: &[(&str, &[u8])] = &[\n",
    );
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file
            .strip_prefix(&dist)
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .replace('\\', "/");
        let absolute = file.canonicalize().map_err(|e| e.to_string())?;
        let _ = writeln!(
            out,
            "    ({:?}, include_bytes!({:?})),",
            format!("/{relative}"),
            absolute.display().to_string()
        );
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    std::fs::write(target.join("ui_assets.rs"), out).map_err(|e| e.to_string())
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect(&entry.path(), files)?;
        } else if kind.is_file() {
            files.push(entry.path());
        }
    }
    Ok(())
}
