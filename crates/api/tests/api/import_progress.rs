//! Issue 14: a long import reports its progress up to each phase's total, and can be
//! cancelled at any point with the project left exactly as it was; an import into an
//! empty project (which looks no row up in it) refuses what one into a project with rows
//! refuses.

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::{ErrorCode, ManualClock, Progress, Project};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Records every phase and position; asks to stop once `stop_in` has started and
/// reported `stop_after` positions.
#[derive(Debug, Default)]
struct Recorder {
    phases: Vec<(String, u64, Vec<u64>)>,
    stop_in: Option<&'static str>,
    stop_after: usize,
}

impl Progress for Recorder {
    fn phase(&mut self, name: &str, total: u64) {
        self.phases.push((name.to_string(), total, Vec::new()));
    }
    fn set(&mut self, done: u64) {
        if let Some(p) = self.phases.last_mut() {
            p.2.push(done);
        }
    }
    fn cancelled(&self) -> bool {
        self.phases.last().is_some_and(|(name, _, sets)| {
            Some(name.as_str()) == self.stop_in && sets.len() >= self.stop_after
        })
    }
}

/// Claims `from..to`, each with its own document of five sentences; more than one
/// ranking batch, so a cancel can fall between batches.
fn inputs(dir: &Path, from: usize, to: usize) -> (PathBuf, PathBuf) {
    let claims = dir.join(format!("claims-{from}.jsonl"));
    let docs = dir.join(format!("docs-{from}.jsonl"));
    let mut c = ok(std::fs::File::create(&claims));
    let mut d = ok(std::fs::File::create(&docs));
    for i in from..to {
        let text = format!(
            "Harbour {i} held ships in {}. Its lighthouse{i} was built in {}. The mayor opened museum {i}. Fishing declined after the war. A ferry linked harbour {i} to the island.",
            1800 + i % 200,
            1850 + i % 100
        );
        ok(writeln!(
            d,
            "{}",
            serde_json::json!({"id": format!("d{i}"), "text": text})
        ));
        let claim = format!(
            "The lighthouse{i} of harbour {i} was built in {}.",
            1850 + i % 100
        );
        ok(writeln!(
            c,
            "{}",
            serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]})
        ));
    }
    (claims, docs)
}

fn request(files: (PathBuf, PathBuf)) -> ImportRequest {
    ImportRequest {
        claims: vec![files.0],
        documents: vec![files.1],
        ..Default::default()
    }
}

#[test]
fn progress_reaches_each_phases_total() {
    let dir = ok(tempfile::tempdir());
    let mut p = ok(Project::create(
        &dir.path().join("p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let mut progress = Recorder::default();
    let lead = p.lead();
    let report = ok(import(
        &mut p,
        &lead,
        &request(inputs(dir.path(), 0, 5000)),
        &mut progress,
    ));
    assert_eq!(report.claims_ranked, 5000);
    let names: Vec<&str> = progress.phases.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        ["reading", "documents", "claims", "ranking", "committing"]
    );
    for (name, total, sets) in &progress.phases {
        if *total > 0 {
            assert_eq!(*total, 5000, "{name}");
            assert_eq!(sets.last(), Some(total), "{name} ends at its total");
            assert!(sets.len() > 1, "{name} reports along the way: {sets:?}");
            assert!(sets.is_sorted(), "{name} never goes back: {sets:?}");
        }
    }
}

#[test]
fn a_cancelled_import_changes_nothing() {
    let dir = ok(tempfile::tempdir());
    let path = common::location(dir.path(), "p.fdesk");
    let mut p = ok(Project::create(&path, Box::new(ManualClock::new(0))));
    let first = request(inputs(dir.path(), 0, 300));
    let lead = p.lead();
    ok(import(&mut p, &lead, &first, &mut factdesk_api::NoProgress));
    let before = common::project_values(&p);
    let hits_before = ok(p.search(&p.lead(), "lighthouse7", 10));
    assert!(!hits_before.is_empty());
    let second = request(inputs(dir.path(), 300, 5000));
    for (phase, after) in [
        ("reading", 1),
        ("documents", 2),
        ("claims", 2),
        ("ranking", 1),
        ("ranking", 2),
    ] {
        let mut progress = Recorder {
            stop_in: Some(phase),
            stop_after: after,
            ..Default::default()
        };
        let lead = p.lead();
        let err = match import(&mut p, &lead, &second, &mut progress) {
            Ok(_) => panic!("an import cancelled in {phase} went through"),
            Err(e) => e,
        };
        assert_eq!(err.code, ErrorCode::Cancelled, "{phase}: {err}");
        assert_eq!(common::project_values(&p), before, "cancelled in {phase}");
        // The search index holds nothing of the cancelled rows and all of the others.
        assert!(
            ok(p.search(&p.lead(), "lighthouse4000", 10)).is_empty(),
            "{phase}"
        );
        assert_eq!(
            ok(p.search(&p.lead(), "lighthouse7", 10)),
            hits_before,
            "{phase}"
        );
        drop(p);
        p = ok(Project::open(&path, Box::new(ManualClock::new(0))));
        assert_eq!(common::project_values(&p), before, "reopened after {phase}");
    }
    // Nothing was left half done: the same import then goes through whole.
    let lead = p.lead();
    let report = ok(import(
        &mut p,
        &lead,
        &second,
        &mut factdesk_api::NoProgress,
    ));
    assert_eq!(report.claims_added, 4700);
    assert_eq!(report.claims_ranked, 4700);
    assert!(!ok(p.search(&p.lead(), "lighthouse4000", 10)).is_empty());
}

/// A refutation given with claim `a` is stored as claim `a/refuted`; a later row taking
/// that id with other content must be refused whether or not the project held claims
/// before (an import into an empty project finds earlier rows in its own maps only).
#[test]
fn an_id_taken_by_a_refutation_of_the_same_import_is_refused_in_an_empty_project_too() {
    let dir = ok(tempfile::tempdir());
    let claims = dir.path().join("claims.jsonl");
    ok(std::fs::write(
        &claims,
        concat!(
            r#"{"id": "a", "claim": "The bridge opened in 1932.", "refuted": "The bridge opened in 1950."}"#,
            "\n",
            r#"{"id": "a/refuted", "claim": "The tunnel opened in 1960."}"#,
            "\n",
        ),
    ));
    let other = dir.path().join("other.jsonl");
    ok(std::fs::write(
        &other,
        r#"{"id": "z", "claim": "The river froze in 1963."}"#,
    ));
    let req = |path: &Path| ImportRequest {
        claims: vec![path.to_path_buf()],
        ..Default::default()
    };
    for earlier in [false, true] {
        let mut p = ok(Project::create(
            &dir.path().join(format!("p-{earlier}.fdesk")),
            Box::new(ManualClock::new(0)),
        ));
        let lead = p.lead();
        if earlier {
            ok(import(
                &mut p,
                &lead,
                &req(&other),
                &mut factdesk_api::NoProgress,
            ));
        }
        let before = common::project_values(&p);
        let err = match import(&mut p, &lead, &req(&claims), &mut factdesk_api::NoProgress) {
            Ok(r) => panic!("imported with earlier claims {earlier}: {r:?}"),
            Err(e) => e,
        };
        assert_eq!(err.code, ErrorCode::Conflict, "{earlier}: {err}");
        assert!(err.message.contains("a/refuted"), "{earlier}: {err}");
        assert_eq!(common::project_values(&p), before, "{earlier}");
    }
}

/// Reading a large documents file asks whether to stop after each batch, not only once
/// every document is read (a Ctrl-C then waited for the whole file).
#[test]
fn reading_documents_stops_at_the_first_batch_after_a_cancel() {
    let dir = ok(tempfile::tempdir());
    let mut p = ok(Project::create(
        &dir.path().join("p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let mut progress = Recorder {
        stop_in: Some("reading"),
        stop_after: 1,
        ..Default::default()
    };
    let lead = p.lead();
    let err = match import(
        &mut p,
        &lead,
        &request(inputs(dir.path(), 0, 9000)),
        &mut progress,
    ) {
        Ok(_) => panic!("a cancelled import went through"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::Cancelled);
    // One batch of documents read, no claim yet.
    assert_eq!(progress.phases.len(), 1);
    assert_eq!(progress.phases[0].2, [4096]);
}
