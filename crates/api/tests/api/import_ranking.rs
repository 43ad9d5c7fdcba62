//! Issue 14: an import into an empty project ranks its claims while it writes them, with
//! BM25 statistics counted from its own texts instead of read from the committed index.
//! The candidates must be exactly those that ranking after the import gives, and a cancel
//! at any point must leave the project as it was.

use factdesk_api::import::{import, ImportRequest};
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, Progress, Project};
use factdesk_core::ranking::Ranker;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Documents of varied sentences (accents, capitals, apostrophes, repeated words) and
/// claims naming one, two or no documents, some shared, some containing a sentence of
/// their document word for word.
fn inputs(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let claims = dir.join("claims.jsonl");
    let docs = dir.join("docs.jsonl");
    let mut c = ok(std::fs::File::create(&claims));
    let mut d = ok(std::fs::File::create(&docs));
    let words = [
        "harbour",
        "Café",
        "ferry",
        "island",
        "don't",
        "Über",
        "mayor",
        "museum",
        "war",
        "lighthouse",
        "ships",
        "the",
        "a",
        "of",
        "built",
        "opened",
        "Zürich",
        "naïve",
        "x",
    ];
    let word = |i: usize, j: usize| words[(i * 7 + j * 13 + i / 3) % words.len()];
    for i in 0..n {
        let sentences: Vec<String> = (0..(3 + i % 5))
            .map(|s| {
                let body: Vec<&str> = (0..(4 + (i + s) % 9)).map(|j| word(i + s, j)).collect();
                format!("Sentence {} of {i} says {}.", s, body.join(" "))
            })
            .collect();
        let text = sentences.join(" ");
        ok(writeln!(
            d,
            "{}",
            serde_json::json!({"id": format!("d{i}"), "text": text})
        ));
        let claim_words: Vec<&str> = (0..(3 + i % 6)).map(|j| word(i + 1, j)).collect();
        let claim = match i % 10 {
            // A claim that is one of its document's sentences, word for word.
            7 => sentences[0].clone(),
            _ => format!("Claim {i}: {}.", claim_words.join(" ")),
        };
        // Most claims have documents of their own (one or two: ranked while writing);
        // some share one (ranked after); some have none; some documents no claim names.
        let doc_ids = match i % 6 {
            0 => serde_json::json!([format!("d{i}"), "d0"]),
            1 => serde_json::json!([format!("d{}", i + 1), format!("d{i}")]),
            2 => serde_json::json!([]),
            _ => serde_json::json!([format!("d{i}")]),
        };
        ok(writeln!(
            c,
            "{}",
            serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": doc_ids})
        ));
    }
    (claims, docs)
}

fn candidates(p: &Project) -> Vec<(String, String, String)> {
    common::project_values(p)
        .into_iter()
        .filter(|(table, _, _)| table == "candidates")
        .collect()
}

#[test]
fn ranked_while_writing_equals_ranked_after() {
    let dir = ok(tempfile::tempdir());
    let (claims, docs) = inputs(dir.path(), 3000);
    let mut p = ok(Project::create(
        &dir.path().join("p.fdesk"),
        Box::new(ManualClock::new(0)),
    ));
    let lead = p.lead();
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    let mut progress = StopIn::default();
    let report = ok(import(&mut p, &lead, &req, &mut progress));
    // Every claim with documents was ranked while writing, those sharing one too.
    let first_ranking = progress
        .phases
        .iter()
        .find(|(name, _, _)| name == "ranking");
    assert!(
        first_ranking.is_some_and(|r| r.1 >= 1900),
        "{:?}",
        progress.phases
    );
    let while_writing = candidates(&p);
    assert!(report.claims_ranked > 2000, "{report:?}");
    assert!(while_writing.len() > 10_000, "{}", while_writing.len());
    // Ranked again the usual way: statistics from the committed index, sentences read
    // back from the project.
    let again = ok(p.rank(
        &lead,
        Ranker::Fused,
        5,
        false,
        &mut factdesk_api::NoProgress,
    ));
    assert_eq!(again.claims, report.claims_ranked);
    assert_eq!(candidates(&p), while_writing);
}

/// Records phases; asks to stop once `stop_in` has reported `stop_after` positions.
#[derive(Debug, Default)]
struct StopIn {
    phases: Vec<(String, u64, Vec<u64>)>,
    stop_in: Option<&'static str>,
    stop_after: usize,
}

impl Progress for StopIn {
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

/// A new project file at `path` with `claims` and `docs` imported.
fn imported(path: &Path, claims: PathBuf, docs: PathBuf) -> Project {
    let mut p = ok(Project::create(path, Box::new(ManualClock::new(0))));
    let lead = p.lead();
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    ok(import(&mut p, &lead, &req, &mut factdesk_api::NoProgress));
    p
}

#[test]
fn a_cancelled_import_into_an_empty_project_leaves_it_empty() {
    let dir = ok(tempfile::tempdir());
    let path = common::location(dir.path(), "p.fdesk");
    let mut p = ok(Project::create(&path, Box::new(ManualClock::new(0))));
    let before = common::project_values(&p);
    let (claims, docs) = inputs(dir.path(), 4000);
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    for (phase, after) in [("documents", 2), ("claims", 2), ("ranking", 1)] {
        let mut progress = StopIn {
            stop_in: Some(phase),
            stop_after: after,
            ..Default::default()
        };
        let lead = p.lead();
        let err = match import(&mut p, &lead, &req, &mut progress) {
            Ok(_) => panic!("an import cancelled in {phase} went through"),
            Err(e) => e,
        };
        assert_eq!(err.code, ErrorCode::Cancelled, "{phase}: {err}");
        assert_eq!(common::project_values(&p), before, "cancelled in {phase}");
        assert!(ok(p.search(&p.lead(), "harbour", 10)).is_empty(), "{phase}");
    }
    let lead = p.lead();
    let mut progress = StopIn::default();
    let report = ok(import(&mut p, &lead, &req, &mut progress));
    assert!(report.claims_ranked > 0);
    // Every claim with documents is ranked while writing (those sharing a document once
    // the last document is counted): one ranking phase, reporting up to its total.
    let ranking: Vec<_> = progress
        .phases
        .iter()
        .filter(|(name, _, _)| name == "ranking")
        .collect();
    assert_eq!(ranking.len(), 1, "{:?}", progress.phases);
    assert_eq!(
        ranking.iter().map(|r| r.1).sum::<u64>(),
        report.claims_ranked
    );
    for r in &ranking {
        assert_eq!(r.2.last(), Some(&r.1), "{r:?}");
    }
    let while_writing = candidates(&p);
    ok(p.rank(
        &lead,
        Ranker::Fused,
        5,
        false,
        &mut factdesk_api::NoProgress,
    ));
    assert_eq!(candidates(&p), while_writing);
}

/// Regression (session 10's hostile pass): references are checked once at the commit
/// only in a project's first import. A later import checks row by row, so a damaged row
/// the project already holds neither blocks it nor makes a small import read the whole
/// project.
#[test]
fn a_later_import_is_not_refused_for_a_damaged_row_it_did_not_write() {
    let dir = ok(tempfile::tempdir());
    let (claims, docs) = inputs(dir.path(), 30);
    let path = dir.path().join("p.fdesk");
    drop(imported(&path, claims, docs));
    let raw = ok(rusqlite::Connection::open(&path));
    ok(raw.execute_batch(
        "PRAGMA foreign_keys = OFF; INSERT INTO claim_documents (claim_id, document_id) VALUES (1, 999999);",
    ));
    drop(raw);
    let mut p = ok(Project::open(&path, Box::new(ManualClock::new(0))));
    let more = dir.path().join("more.jsonl");
    ok(std::fs::write(
        &more,
        "{\"id\": \"late\", \"claim\": \"A late claim about the harbour.\"}\n",
    ));
    let lead = p.lead();
    let req = ImportRequest {
        claims: vec![more],
        ..Default::default()
    };
    let report = ok(import(&mut p, &lead, &req, &mut factdesk_api::NoProgress));
    assert_eq!(report.claims_added, 1);
}

/// Issue 30, point 1: ranking again after people have answered (another ranker, another
/// `--k`) used to replace the candidates their answers selected among, and agreement,
/// the report, adjudication and export then failed on "not a candidate of claim". What
/// people were shown now stays; claims nobody has seen are ranked again.
#[test]
fn ranking_again_keeps_the_candidates_people_were_shown() {
    use factdesk_api::agreement::AgreementRequest;
    use factdesk_api::annotate::Answer;
    use factdesk_api::annotators::Role;
    use factdesk_api::gold::GoldRequest;
    use factdesk_api::tasks::TaskKind;

    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 8, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    let candidates = |p: &Project| -> Vec<(i64, i64)> {
        let conn = p.store().read();
        let mut stmt =
            ok(conn
                .prepare("SELECT claim_id, sentence_id FROM candidates ORDER BY claim_id, rank"));
        let rows = ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))));
        rows.map(ok).collect()
    };
    // Two people answer the same three items (fill-first), each picking the first real
    // candidate shown.
    let mut answered = std::collections::BTreeSet::new();
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
        for _ in 0..3 {
            let item = ok(p.next_item(&p.who(name), TaskKind::Evidence))
                .item
                .unwrap_or_else(|| panic!("no item for {name}"));
            let trick = common::trick_option(&p, &item);
            let pick = item.options.iter().find(|o| Some(&o.id) != trick.as_ref());
            let answer = Answer {
                task_id: item.task_id,
                selected: pick.map(|o| o.id.clone()).into_iter().collect(),
                ..Default::default()
            };
            ok(p.submit(&p.who(name), &answer));
            answered.insert(item.claim.clone());
        }
    }
    assert_eq!(answered.len(), 3);
    let before = candidates(&p);

    let report = ok(p.rank(
        &p.lead(),
        Ranker::Levenshtein,
        3,
        false,
        &mut factdesk_api::NoProgress,
    ));
    assert_eq!(report.kept, 3, "{report:?}");
    assert_eq!(report.claims, 5, "{report:?}");
    let after = candidates(&p);
    // The three claims answered keep their five candidates; the others now have three.
    let shown: std::collections::BTreeSet<i64> = ok(p
        .store()
        .read()
        .prepare("SELECT DISTINCT t.claim_id FROM annotations a JOIN tasks t ON t.id = a.task_id")
        .and_then(|mut s| {
            s.query_map([], |r| r.get(0))
                .and_then(|rows| rows.collect::<Result<_, _>>())
        }));
    for claim in 1..=8 {
        let of = |rows: &[(i64, i64)]| -> Vec<i64> {
            rows.iter().filter(|r| r.0 == claim).map(|r| r.1).collect()
        };
        if shown.contains(&claim) {
            assert_eq!(of(&after), of(&before), "claim {claim} was shown");
        } else {
            assert_eq!(of(&after).len(), 3, "claim {claim} was never shown");
        }
    }

    // Every figure and file a lead asks for still works.
    let lead = p.lead();
    let req = AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    };
    ok(p.agreement(&lead, TaskKind::Evidence, &req));
    ok(p.report(&lead, &req));
    let gold = GoldRequest::default();
    ok(p.adjudication_queue(&lead, &gold));
    let (lines, _) = ok(p.gold(&lead, &gold));
    assert!(!lines.is_empty());
}

/// Issue 31, item 7: `rank` computes outside any transaction and then writes. A claim
/// first shown to someone in between had its candidates replaced under the item they
/// were looking at (their answer would then select a sentence that is no candidate).
/// Each chunk of the write now leaves out the claims someone has seen by then, and
/// writes in its own transaction.
#[test]
fn a_claim_shown_while_rank_computes_keeps_its_candidates() {
    use factdesk_api::annotators::Role;
    use factdesk_api::tasks::TaskKind;

    /// Serves one item to ana from another connection the first time `rank` reports
    /// progress, as the team server would while the lead's command computes.
    struct ServeMeanwhile {
        location: std::path::PathBuf,
        clock: ManualClock,
        served: Option<String>,
    }
    impl factdesk_api::Progress for ServeMeanwhile {
        fn phase(&mut self, _: &str, _: u64) {}
        fn set(&mut self, _: u64) {
            if self.served.is_some() {
                return;
            }
            let mut other = ok(Project::open(&self.location, Box::new(self.clock.clone())));
            let item = ok(other.next_item(&other.who("ana"), TaskKind::Evidence)).item;
            self.served = Some(item.map(|i| i.claim).unwrap_or_default());
        }
    }

    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = common::project(dir.path(), 8, &clock);
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    ok(p.add_annotator(&p.lead(), "ana", Role::Annotator));
    let candidates_of = |p: &Project, claim: &str| -> Vec<i64> {
        let conn = p.store().read();
        let mut stmt = ok(conn.prepare(
            "SELECT k.sentence_id FROM candidates k JOIN claims c ON c.id = k.claim_id
             WHERE c.text = ?1 ORDER BY k.rank",
        ));
        let rows = ok(stmt.query_map([claim], |r| r.get(0)));
        rows.map(ok).collect()
    };
    let before: Vec<(String, Vec<i64>)> = {
        let conn = p.store().read();
        let mut stmt = ok(conn.prepare("SELECT text FROM claims ORDER BY id"));
        let texts: Vec<String> = ok(stmt.query_map([], |r| r.get(0))).map(ok).collect();
        texts
            .into_iter()
            .map(|t| {
                let c = candidates_of(&p, &t);
                (t, c)
            })
            .collect()
    };
    let mut meanwhile = ServeMeanwhile {
        location: common::location(dir.path(), "p.fdesk"),
        clock: clock.clone(),
        served: None,
    };
    let report = ok(p.rank(&p.lead(), Ranker::Levenshtein, 3, false, &mut meanwhile));
    let served = meanwhile.served.unwrap_or_default();
    assert!(!served.is_empty(), "an item was served while rank computed");
    assert_eq!(report.kept, 1, "{report:?}");
    assert_eq!(report.claims, 7, "{report:?}");
    for (claim, was) in &before {
        let now = candidates_of(&p, claim);
        if *claim == served {
            assert_eq!(&now, was, "the claim shown meanwhile keeps what was shown");
        } else {
            assert_eq!(now.len(), 3, "{claim} was never shown");
        }
    }
}

/// A regression test from a hostile pass: `rank --ranker bm25` on a claim that shares no
/// word with its document wrote it no candidate at all, and its evidence task could then
/// never be served. A claim the ranker scores nothing of keeps what it had, and the report
/// counts it. Also: `--k` beyond what an item can show, and `--model` with a ranker that
/// uses no model, are refused before anything is read.
#[test]
fn a_ranker_that_scores_nothing_of_a_claim_leaves_its_candidates() {
    let dir = ok(tempfile::tempdir());
    let claims = dir.path().join("claims.jsonl");
    let docs = dir.path().join("docs.jsonl");
    ok(std::fs::write(
        &claims,
        "{\"id\": \"apart\", \"claim\": \"Germany shuts down daily life.\", \"doc_ids\": [\"d1\"]}\n\
         {\"id\": \"near\", \"claim\": \"The ferry left the harbour.\", \"doc_ids\": [\"d2\"]}\n",
    ));
    ok(std::fs::write(
        &docs,
        "{\"id\": \"d1\", \"text\": \"Cats sleep all afternoon. Dogs bark at night.\"}\n\
         {\"id\": \"d2\", \"text\": \"A ferry left the harbour at noon. Gulls followed it.\"}\n",
    ));
    let mut p = imported(&dir.path().join("p.fdesk"), claims, docs);
    let lead = p.lead();
    let before = ok(p.candidates(&lead, "apart"));
    assert_eq!(before.len(), 2, "fused ranks every sentence");

    let report = ok(p.rank(&lead, Ranker::Bm25, 3, false, &mut factdesk_api::NoProgress));
    assert_eq!((report.claims, report.unscored), (1, 1), "{report:?}");
    assert_eq!(ok(p.candidates(&lead, "apart")), before);
    assert!(ok(p.candidates(&lead, "near"))
        .iter()
        .all(|c| c.ranker == "bm25"));

    for k in [0, factdesk_api::rank::MAX_K + 1] {
        let Err(err) = p.rank(
            &lead,
            Ranker::Fused,
            k,
            false,
            &mut factdesk_api::NoProgress,
        ) else {
            panic!("--k {k} was taken")
        };
        assert_eq!(err.code, ErrorCode::InvalidInput, "{err}");
        assert!(err.message.contains("--k must be 1 to 50"), "{err}");
    }
    let overrides = factdesk_api::rank::RankingOverrides {
        model: Some(dir.path().join("no-such-model")),
        ..Default::default()
    };
    let Err(err) = p.rank_with(
        &lead,
        Ranker::Jaccard,
        3,
        false,
        &overrides,
        &mut factdesk_api::NoProgress,
    ) else {
        panic!("--model was taken with jaccard")
    };
    assert_eq!(err.code, ErrorCode::InvalidInput, "{err}");
    assert!(err.message.contains("jaccard does not use"), "{err}");
    assert_eq!(ok(p.candidates(&lead, "apart")), before);
}
