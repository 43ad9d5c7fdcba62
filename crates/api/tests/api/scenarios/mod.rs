//! Acceptance scenarios on the published data in ../shared/data: 300 COVID-Fact claims
//! annotated by three careful annotators and one who clicks at random (covid_fact.rs),
//! and WikiFactCheck refutations written, reviewed, replaced and verified
//! (wikifactcheck.rs).

use crate::common;
mod covid_fact;
mod wikifactcheck;

use common::Acting;
use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::{ManualClock, NoProgress, Project};
use std::path::{Path, PathBuf};

pub(crate) fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A file from ../shared/data, which these tests need.
pub(crate) fn data(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name);
    assert!(
        p.is_file(),
        "test data {} is missing: the shared data folder must sit beside the repository",
        p.display()
    );
    p
}

/// A project of the first `n` data lines of a shared file (plus its header line when
/// `header`), imported with `preset`.
pub(crate) fn imported(dir: &Path, name: &str, n: usize, header: bool, preset: Preset) -> Project {
    let text = ok(std::fs::read_to_string(data(name)));
    let head: Vec<&str> = text.lines().take(n + usize::from(header)).collect();
    let file = dir.join(name);
    ok(std::fs::write(&file, head.join("\n") + "\n"));
    let clock = ManualClock::new(1_000_000);
    let mut p = ok(Project::create(
        &common::location(dir, "p.fdesk"),
        Box::new(clock),
    ));
    let req = ImportRequest {
        claims: vec![file],
        preset,
        ..Default::default()
    };
    let owner = p.lead();
    ok(import(&mut p, &owner, &req, &mut NoProgress));
    // Which claims each person is served, and in what order, follows the project's seed,
    // drawn afresh for every project: fixed here, so a scenario plays the same every run.
    let mut settings = ok(p.settings());
    settings.seed = 2021;
    ok(p.set_settings(&owner, &settings));
    p
}
