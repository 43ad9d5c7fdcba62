//! The api holds no SQL and does not depend on the SQLite driver: every statement lives in
//! crates/store, so a second storage engine can sit behind the same functions. Its modules
//! use each other one way, with no circle.

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

/// The api's top-level modules (`crate::<module>`) each file names outside comments and
/// tests, by module: `a -> {b, …}`.
fn module_uses(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut uses = std::collections::BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap_or(&file);
        let Some(first) = relative.components().next() else {
            continue;
        };
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if module == "lib" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
        let used: &mut std::collections::BTreeSet<String> = uses.entry(module.clone()).or_default();
        for line in shipped.lines() {
            let code = line.split("//").next().unwrap_or_default();
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let named: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if !named.is_empty() && named != module {
                    used.insert(named);
                }
            }
        }
    }
    let modules: std::collections::BTreeSet<String> = uses.keys().cloned().collect();
    for used in uses.values_mut() {
        used.retain(|m| modules.contains(m));
    }
    uses
}

/// A module that, through the modules it uses, comes back to itself: the path, if any.
fn circle_through(
    start: &str,
    uses: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Option<Vec<String>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut paths = vec![vec![start.to_string()]];
    while let Some(path) = paths.pop() {
        let last = path.last().cloned().unwrap_or_default();
        for next in uses.get(&last).into_iter().flatten() {
            if next == start {
                let mut circle = path.clone();
                circle.push(start.to_string());
                return Some(circle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                paths.push(longer);
            }
        }
    }
    None
}

/// The api's modules use each other one way: a shared type lives below every module that
/// needs it, so no module reaches back to itself through the others (issue 32).
#[test]
fn the_apis_modules_form_no_circle() {
    let uses = module_uses(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(uses.len() > 20, "the api's modules were not found");
    let circles: Vec<String> = uses
        .keys()
        .filter_map(|m| circle_through(m, &uses))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(
        circles.is_empty(),
        "modules in a circle:\n{}",
        circles.join("\n")
    );
}

/// The check finds a circle when there is one.
#[test]
fn a_circle_of_modules_is_found() {
    let uses: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, u)| (m.to_string(), u.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        circle_through("a", &uses),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(circle_through("d", &uses), None);
}
