//! The api holds no SQL and does not depend on the SQLite driver: every statement lives in
//! crates/store, so a second storage engine can sit behind the same functions.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_api_source_holds_no_sql_and_no_sqlite_driver() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 20, "the api's sources were not found");
    let statements = [
        "SELECT ",
        "INSERT INTO",
        "DELETE FROM",
        "CREATE TABLE",
        "PRAGMA ",
    ];
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !text.contains("rusqlite"),
            "{} names the SQLite driver",
            file.display()
        );
        for s in statements {
            assert!(!text.contains(s), "{} holds SQL ({s:?})", file.display());
        }
    }
}

#[test]
fn the_api_depends_on_the_sqlite_driver_only_for_its_tests() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
    let dependencies = manifest
        .split("\n[")
        .find(|section| section.starts_with("dependencies]"))
        .unwrap_or_else(|| panic!("no [dependencies] in the api's Cargo.toml"));
    assert!(dependencies.contains("factdesk-store"));
    assert!(!dependencies.contains("rusqlite"), "{dependencies}");
}
