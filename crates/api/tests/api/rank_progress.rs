//! Issue 35: ranking a project in use again reports its progress as claims finish, not
//! once per batch of 2,048 (the semantic ranker spent minutes on a batch with the bar
//! standing still), can be cancelled mid-batch with every candidate and answer left as
//! it was, and keeps the candidates of the claims people answered when it goes through.

use crate::common;
use common::Acting;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ErrorCode, ManualClock, NoProgress, Progress, Project};
use factdesk_core::ranking::Ranker;
use std::io::Write;
use std::path::Path;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Records each position of the "ranking" phase; asks to stop after `stop_after` of them.
#[derive(Debug, Default)]
struct Recorder {
    total: u64,
    sets: Vec<u64>,
    stop_after: Option<usize>,
    /// Asks to stop once every claim is reported ranked, from the second time it is
    /// asked on (the first comes before the threads say they are done).
    stop_at_the_end: bool,
    asked_at_the_end: std::cell::Cell<u32>,
}

impl Progress for Recorder {
    fn phase(&mut self, name: &str, total: u64) {
        assert_eq!(name, "ranking");
        self.total = total;
    }
    fn set(&mut self, done: u64) {
        self.sets.push(done);
    }
    fn cancelled(&self) -> bool {
        if self.stop_at_the_end && self.sets.last() == Some(&self.total) {
            self.asked_at_the_end.set(self.asked_at_the_end.get() + 1);
            return self.asked_at_the_end.get() >= 2;
        }
        self.stop_after.is_some_and(|n| self.sets.len() >= n)
    }
}

/// A project of `n` claims, each with a document of its own (`sentences` sentences long),
/// evidence tasks, and three items ana answered.
fn project_in_use(dir: &Path, n: usize, sentences: usize) -> Project {
    let claims = dir.join("claims.jsonl");
    let docs = dir.join("docs.jsonl");
    let mut c = ok(std::fs::File::create(&claims));
    let mut d = ok(std::fs::File::create(&docs));
    for i in 0..n {
        let text: Vec<String> = (0..sentences)
            .map(|s| {
                format!(
                    "Harbour {i} saw ship {s} arrive in {}.",
                    1800 + (i + s) % 200
                )
            })
            .collect();
        let doc = serde_json::json!({"id": format!("d{i}"), "text": text.join(" ")});
        ok(writeln!(d, "{doc}"));
        let claim = format!("A ship reached harbour {i} in {}.", 1800 + i % 200);
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]});
        ok(writeln!(c, "{row}"));
    }
    let clock = ManualClock::new(1_000_000);
    let mut p = ok(Project::create(
        &common::location(dir, "p.fdesk"),
        Box::new(clock),
    ));
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    let lead = p.lead();
    ok(import(&mut p, &lead, &req, &mut NoProgress));
    ok(p.create_tasks(&lead, TaskKind::Evidence, Some(1)));
    ok(p.add_annotator(&lead, "ana", Role::Annotator));
    for _ in 0..3 {
        let item = ok(p.next_item(&p.who("ana"), TaskKind::Evidence))
            .item
            .unwrap_or_else(|| panic!("no item for ana"));
        let answer = Answer {
            task_id: item.task_id,
            selected: vec![common::real_option(&p, &item)],
            ..Default::default()
        };
        ok(p.submit(&p.who("ana"), &answer));
    }
    p
}

/// Every candidate and every answer, as stored.
fn candidates_and_answers(p: &Project) -> Vec<(String, String, String)> {
    common::project_values(p)
        .into_iter()
        .filter(|(table, _, _)| table == "candidates" || table == "annotations")
        .collect()
}

/// The candidates of the claims ana answered, as stored.
fn answered_candidates(p: &Project) -> Vec<(i64, i64, i64)> {
    let conn = p.store().read();
    let mut stmt = ok(conn.prepare(
        "SELECT k.claim_id, k.rank, k.sentence_id FROM candidates k
         WHERE k.claim_id IN (SELECT t.claim_id FROM annotations a JOIN tasks t ON t.id = a.task_id)
         ORDER BY k.claim_id, k.rank",
    ));
    let rows = ok(stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))));
    rows.map(ok).collect()
}

#[test]
fn ranking_again_reports_progress_as_claims_finish_and_keeps_what_was_answered() {
    let dir = ok(tempfile::tempdir());
    let mut p = project_in_use(dir.path(), 3000, 6);
    let kept_before = answered_candidates(&p);
    assert_eq!(
        kept_before.len(),
        3 * 5,
        "three answered claims of five candidates"
    );
    let answers_before: Vec<_> = candidates_and_answers(&p)
        .into_iter()
        .filter(|(table, _, _)| table == "annotations")
        .collect();

    let mut progress = Recorder::default();
    let report = ok(p.rank(&p.lead(), Ranker::Levenshtein, 3, false, &mut progress));
    assert_eq!(report.kept, 3, "{report:?}");
    assert_eq!(report.claims, 2997, "{report:?}");
    // Every claim not shown is ranked and counted once; a report at least every 64
    // claims (a thread's step is 32), never going back, ending at the total.
    assert_eq!(progress.total, 2997);
    assert_eq!(progress.sets.last(), Some(&2997), "{:?}", progress.sets);
    assert!(progress.sets.len() >= 2997 / 64, "{:?}", progress.sets);
    assert!(progress.sets.is_sorted(), "{:?}", progress.sets);
    let widest = progress
        .sets
        .iter()
        .scan(0, |previous, &done| {
            Some(done - std::mem::replace(previous, done))
        })
        .max();
    assert!(widest.is_some_and(|w| w <= 64), "{:?}", progress.sets);

    // The answered claims keep what their annotator was shown; the answers stay.
    assert_eq!(answered_candidates(&p), kept_before);
    let answers_after: Vec<_> = candidates_and_answers(&p)
        .into_iter()
        .filter(|(table, _, _)| table == "annotations")
        .collect();
    assert_eq!(answers_after, answers_before);
}

/// Ranks `p` again by Levenshtein, three candidates a claim, with `progress`, which
/// cancels it: the ranking must end cancelled.
fn cancelled(p: &mut Project, progress: &mut Recorder) {
    match p.rank(&p.lead(), Ranker::Levenshtein, 3, false, progress) {
        Ok(report) => panic!("a cancelled ranking went through: {report:?}"),
        Err(err) => assert_eq!(err.code, ErrorCode::Cancelled, "{err}"),
    }
}

#[test]
fn a_ranking_cancelled_mid_batch_leaves_candidates_and_answers_as_they_were() {
    let dir = ok(tempfile::tempdir());
    let mut p = project_in_use(dir.path(), 3000, 6);
    let before = candidates_and_answers(&p);
    // Stopped after its second report, while a batch is being ranked.
    let mut progress = Recorder {
        stop_after: Some(2),
        ..Default::default()
    };
    cancelled(&mut p, &mut progress);
    assert!(
        progress.sets.last().is_some_and(|&d| d < 2997),
        "the cancel was heard before the end: {:?}",
        progress.sets
    );
    assert_eq!(candidates_and_answers(&p), before);
    // Nothing was left half done: annotation goes on, and the same ranking goes through.
    let item = ok(p.next_item(&p.who("ana"), TaskKind::Evidence)).item;
    assert!(item.is_some(), "ana still has work");
    let report = ok(p.rank(&p.lead(), Ranker::Levenshtein, 3, false, &mut NoProgress));
    assert_eq!(report.kept, 4, "the three answered and the one just served");
}

/// Regression (end-to-end test of session 35): a cancel that came after the threads had
/// ranked the last batch, while its progress was still being shown, was not heard, and
/// the ranking wrote its candidates.
#[test]
fn a_cancel_after_the_last_claim_is_ranked_but_before_the_write_changes_nothing() {
    let dir = ok(tempfile::tempdir());
    let mut p = project_in_use(dir.path(), 300, 4);
    let before = candidates_and_answers(&p);
    let mut progress = Recorder {
        stop_at_the_end: true,
        ..Default::default()
    };
    cancelled(&mut p, &mut progress);
    assert_eq!(
        progress.sets.last(),
        Some(&progress.total),
        "{:?}",
        progress.sets
    );
    assert_eq!(candidates_and_answers(&p), before);
}

/// The semantic ranker reports every 16 claims, as their embeddings are done; cancelled,
/// it changes no candidate but keeps what it embedded, so the next run embeds the rest.
#[test]
fn the_semantic_ranker_reports_as_it_embeds_and_a_cancel_keeps_its_embeddings() {
    if !common::model_installed() {
        return;
    }
    let dir = ok(tempfile::tempdir());
    let mut p = project_in_use(dir.path(), 64, 3);
    let before = candidates_and_answers(&p);
    let mut progress = Recorder {
        stop_after: Some(1),
        ..Default::default()
    };
    let err = match p.rank(&p.lead(), Ranker::Semantic, 3, false, &mut progress) {
        Ok(report) => panic!("a cancelled ranking went through: {report:?}"),
        Err(e) => e,
    };
    assert_eq!(err.code, ErrorCode::Cancelled, "{err}");
    assert!(err.message.contains("kept for the next run"), "{err}");
    assert_eq!(progress.sets.first(), Some(&16), "{:?}", progress.sets);
    assert_eq!(candidates_and_answers(&p), before);

    let mut progress = Recorder::default();
    let report = ok(p.rank(&p.lead(), Ranker::Semantic, 3, false, &mut progress));
    assert_eq!(report.claims, 61, "{report:?}");
    assert_eq!(progress.sets, [16, 32, 48, 61]);
    // 61 claims and their 183 sentences, less what the cancelled run kept.
    assert!(report.embedded < 61 + 183, "{report:?}");
    assert!(report.embedded > 0, "{report:?}");
}
