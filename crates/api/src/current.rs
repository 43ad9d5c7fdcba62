//! The project's answers as one use case reads them, shared by the agreement, the gold
//! data and the report: every stored answer in one read (which is also the check that
//! each can be read), each task's claim and each claim's candidates in one read apiece,
//! and the check that no evidence answer selects a sentence outside its candidates made
//! once. A use case that computes several figures (a report: label counts, agreement of
//! every kind, the dashboard, the gold data behind model comparisons) reads them once.

use crate::tasks::TaskKind;
use crate::{Project, Result};
use factdesk_core::answer::Response;
use factdesk_core::key_hash::IdMap;
use factdesk_store::annotations::AnnotationRow;
use factdesk_store::decisions::DecisionRow;
use factdesk_store::feed::{self, FeedRow};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// From this many stored answers on, two connections read them side by side; below it a
/// second connection costs more to open than it saves.
const READ_IN_TWO_FROM: i64 = 20_000;

/// The stored answers in two parts, and the candidates when they were read beside them.
struct Rows {
    parts: [Vec<AnnotationRow>; 2],
    candidates: Option<IdMap<Vec<i64>>>,
}

/// One read of the project's answers.
#[derive(Debug)]
pub(crate) struct CurrentAnswers {
    /// Every stored answer, oldest first: the first part's, then the second's (kept
    /// apart: joined, hundreds of thousands of rows were copied into fresh memory).
    rows: [Vec<AnnotationRow>; 2],
    /// Per kind, where its current answers (nothing supersedes them) are in `rows`:
    /// indices rather than the rows moved apart, which at 300,000 answers copied tens of
    /// megabytes into freshly faulted pages.
    by_kind: HashMap<TaskKind, Vec<u32>>,
    claim_of: RefCell<HashMap<TaskKind, Rc<IdMap<i64>>>>,
    candidates: OnceCell<IdMap<Vec<i64>>>,
    /// Whether the evidence answers were checked against their candidates.
    evidence_checked: Cell<bool>,
}

impl CurrentAnswers {
    /// Reads every stored answer once, failing on the first that cannot be read (as
    /// `Project::check_stored` does, and marking the check as passed), and keeps the
    /// current ones: those of [`factdesk_store::annotations::current_of_kind`], in its order.
    pub fn read(project: &Project) -> Result<CurrentAnswers> {
        let conn = project.store.read();
        let mark = project.store.change_mark()?;
        factdesk_store::tasks::check_kinds(conn)?;
        let Rows {
            parts: rows,
            candidates,
        } = Self::read_rows(project, READ_IN_TWO_FROM)?;
        factdesk_store::decisions::latest(conn)?;
        project.checked(mark);
        let all = || rows[0].iter().chain(&rows[1]);
        let superseded: HashSet<i64> = all().filter_map(|a| a.supersedes).collect();
        let mut by_kind: HashMap<TaskKind, Vec<u32>> = HashMap::new();
        // The rows are in id order, as `current_of_kind` reads each kind.
        for (i, row) in all().enumerate() {
            if !superseded.contains(&row.id) {
                by_kind.entry(row.kind).or_default().push(i as u32);
            }
        }
        Ok(CurrentAnswers {
            rows,
            by_kind,
            claim_of: RefCell::default(),
            candidates: candidates.map_or_else(OnceCell::new, OnceCell::from),
            evidence_checked: Cell::new(false),
        })
    }

    /// Every stored answer in id order, failing on the first that cannot be read: with
    /// at least `in_two_from` of them on a file, the older part through this connection
    /// and the newer through a second one on another thread. Answers are only appended,
    /// so the older part is the same rows whenever it is read, and the two parts are one
    /// state of the answers: the newer part's.
    fn read_rows(project: &Project, in_two_from: i64) -> Result<Rows> {
        use factdesk_store::annotations;
        let conn = project.store.read();
        let whole = || {
            Ok(Rows {
                parts: [annotations::all(conn)?, Vec::new()],
                candidates: None,
            })
        };
        if conn.engine() != factdesk_store::Engine::Sqlite {
            return whole();
        }
        // The second connection also reads the candidates (every use case of evidence
        // answers checks them), so it takes the smaller share of the answers.
        let Some(middle) = annotations::split_id(conn, (5, 8), in_two_from)? else {
            return whole();
        };
        let reader = match project.store.reader() {
            Ok(Some(reader)) => reader,
            Ok(None) => return whole(),
            Err(e) => {
                tracing::debug!("no second connection to read answers with: {e}");
                return whole();
            }
        };
        std::thread::scope(|s| {
            let newer = s.spawn(move || {
                let rows = annotations::range(reader.read(), middle, None)?;
                // A failure here is met again where the candidates are read for use.
                let candidates = candidates_by_claim(reader.read()).ok();
                Ok::<_, crate::Error>((rows, candidates))
            });
            let older = annotations::range(conn, i64::MIN, Some(middle));
            let newer = newer.join();
            // The older part's failure first: it names the first row that cannot be read.
            let older = older?;
            let (newer, candidates) = newer.map_err(|_| {
                crate::Error::new(
                    crate::ErrorCode::Database,
                    "the reading of the newer answers stopped",
                )
            })??;
            Ok(Rows {
                parts: [older, newer],
                candidates,
            })
        })
    }

    fn row(&self, i: u32) -> &AnnotationRow {
        let i = i as usize;
        match self.rows[0].get(i) {
            Some(row) => row,
            None => &self.rows[1][i - self.rows[0].len()],
        }
    }

    /// The current answers of one kind, oldest first.
    pub fn of_kind(&self, kind: TaskKind) -> impl ExactSizeIterator<Item = &AnnotationRow> {
        self.by_kind
            .get(&kind)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&i| self.row(i))
    }

    /// Every stored answer as the feed reads it (`factdesk_store::feed::since(0)`).
    pub fn feed(&self, project: &Project) -> Result<Vec<FeedRow>> {
        let mut claim_of: HashMap<TaskKind, Rc<IdMap<i64>>> = HashMap::new();
        let mut out = Vec::with_capacity(self.rows[0].len() + self.rows[1].len());
        for row in self.rows[0].iter().chain(&self.rows[1]) {
            let claims = match claim_of.get(&row.kind) {
                Some(claims) => claims,
                None => claim_of
                    .entry(row.kind)
                    .or_insert(self.claim_of(project, row.kind)?),
            };
            let claim_id = *claims.get(&row.task_id).ok_or_else(|| {
                crate::Error::new(
                    crate::ErrorCode::NotFound,
                    format!("no task {}", row.task_id),
                )
            })?;
            out.push(FeedRow {
                id: row.id,
                task_id: row.task_id,
                kind: row.kind,
                claim_id,
                annotator_id: row.annotator_id,
                answer: row.answer.response.clone(),
                trick_failed: row.trick_failed,
                duration_ms: row.answer.duration_ms,
                supersedes: row.supersedes,
                created_at: row.created_at,
            });
        }
        Ok(out)
    }

    /// Each task of a kind's claim.
    pub fn claim_of(&self, project: &Project, kind: TaskKind) -> Result<Rc<IdMap<i64>>> {
        if let Some(map) = self.claim_of.borrow().get(&kind) {
            return Ok(Rc::clone(map));
        }
        let map: Rc<IdMap<i64>> = Rc::new(
            factdesk_store::tasks::claims_of_tasks(project.store.read(), kind)?
                .into_iter()
                .collect(),
        );
        self.claim_of.borrow_mut().insert(kind, Rc::clone(&map));
        Ok(map)
    }

    /// Every claim's candidate sentence ids, in rank order.
    pub fn candidates(&self, project: &Project) -> Result<&IdMap<Vec<i64>>> {
        if let Some(map) = self.candidates.get() {
            return Ok(map);
        }
        let map = candidates_by_claim(project.store.read())?;
        Ok(self.candidates.get_or_init(|| map))
    }

    /// Refuses a current evidence answer (checked once per read) or one of `decided` that
    /// selects a sentence its claim never showed as a candidate: a damaged or rewritten row,
    /// which would otherwise be silently dropped from the gold data or blamed on the item.
    pub fn refuse_outside_candidates(
        &self,
        project: &Project,
        decided: &[&DecisionRow],
    ) -> Result<()> {
        self.refuse_outside_candidates_while(project, decided, usize::MAX, || Ok(()))
    }

    /// [`CurrentAnswers::refuse_outside_candidates`] and `work` (which must change nothing:
    /// its result is dropped when the check refuses): the check on a thread of its own,
    /// beside `work`, when it has at least `beside_from` answers to look at.
    pub fn refuse_outside_candidates_while<T>(
        &self,
        project: &Project,
        decided: &[&DecisionRow],
        beside_from: usize,
        work: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let selects = |r: &Response| matches!(r, Response::Evidence { selection } if !selection.ids().is_empty());
        let rows: Vec<&AnnotationRow> = if self.evidence_checked.get() {
            Vec::new()
        } else {
            self.of_kind(TaskKind::Evidence).collect()
        };
        if !rows.iter().any(|a| selects(&a.answer.response))
            && !decided
                .iter()
                .any(|d| d.answer.as_ref().is_some_and(selects))
        {
            self.evidence_checked.set(true);
            return work();
        }
        let claim_of = self.claim_of(project, TaskKind::Evidence)?;
        let shown = self.candidates(project)?;
        if rows.len() < beside_from {
            outside_candidates(&rows, decided, &claim_of, shown)?;
            self.evidence_checked.set(true);
            return work();
        }
        let claim_of: &IdMap<i64> = &claim_of;
        let (checked, done) = std::thread::scope(|scope| {
            let checked = scope.spawn(|| outside_candidates(&rows, decided, claim_of, shown));
            let done = work();
            let checked = checked
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (checked, done)
        });
        checked?;
        self.evidence_checked.set(true);
        done
    }
}

/// The first of `rows` and `decided` (in that order) that selects a sentence outside its
/// claim's candidates, as an error naming the row.
fn outside_candidates(
    rows: &[&AnnotationRow],
    decided: &[&DecisionRow],
    claim_of: &IdMap<i64>,
    shown: &IdMap<Vec<i64>>,
) -> Result<()> {
    let check = |task_id: i64, response: &Response, row: &dyn Fn() -> String| {
        let Response::Evidence { selection } = response else {
            return Ok(());
        };
        if selection.ids().is_empty() {
            return Ok(());
        }
        let Some(&claim_id) = claim_of.get(&task_id) else {
            return Err(crate::Error::new(
                crate::ErrorCode::Database,
                format!(
                    "{}: an evidence answer on task {task_id}, which is not an evidence task",
                    row()
                ),
            ));
        };
        let candidates = shown.get(&claim_id);
        match selection
            .ids()
            .iter()
            .find(|id| !candidates.is_some_and(|c| c.contains(id)))
        {
            Some(id) => Err(crate::Error::new(
                crate::ErrorCode::Database,
                format!(
                    "{}: the stored answer selects sentence {id}, which is not a candidate of claim {claim_id}",
                    row()
                ),
            )),
            None => Ok(()),
        }
    };
    for a in rows {
        check(a.task_id, &a.answer.response, &|| {
            format!("annotation {} ({})", a.id, a.uuid)
        })?;
    }
    for d in decided {
        if let Some(response) = &d.answer {
            check(d.task_id, response, &|| {
                format!("decision {} on task {}", d.id, d.task_id)
            })?;
        }
    }
    Ok(())
}

/// Every claim's candidate sentence ids in rank order, in one read.
pub(crate) fn candidates_by_claim(conn: &factdesk_store::Read) -> Result<IdMap<Vec<i64>>> {
    let rows = feed::candidate_ids(conn)?;
    let mut out: IdMap<Vec<i64>> = IdMap::default();
    // The rows come by claim: each claim's list is made at its size, not grown.
    let mut start = 0;
    while start < rows.len() {
        let claim = rows[start].0;
        let end = start + rows[start..].iter().take_while(|r| r.0 == claim).count();
        out.entry(claim)
            .or_default()
            .extend(rows[start..end].iter().map(|r| r.1));
        start = end;
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    /// A copy of the fixture project with answers of every kind, in `dir` (also for the
    /// tests of what reads the answers).
    pub(crate) fn fixture(dir: &Path) -> Project {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/answers-759dfd1.fdesk");
        let path = dir.join("p.fdesk");
        std::fs::copy(fixture, &path).unwrap_or_else(|e| panic!("{e}"));
        Project::open(&path, Box::new(crate::clock::FixedClock(0)))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The answers read in two parts on two connections are the answers read whole, in
    /// the same order.
    #[test]
    fn answers_read_in_two_parts_are_the_answers_read_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = fixture(dir.path());
        let read = |from| {
            CurrentAnswers::read_rows(&project, from)
                .unwrap_or_else(|e| panic!("{e}"))
                .parts
        };
        let (whole, parts) = (read(i64::MAX), read(1));
        assert!(whole[1].is_empty());
        assert!(!parts[0].is_empty() && !parts[1].is_empty(), "read in two");
        let joined: Vec<&AnnotationRow> = parts[0].iter().chain(&parts[1]).collect();
        assert_eq!(joined, whole[0].iter().collect::<Vec<_>>());
        // The candidates read beside them are those read alone.
        let beside = CurrentAnswers::read_rows(&project, 1)
            .unwrap_or_else(|e| panic!("{e}"))
            .candidates;
        let alone = candidates_by_claim(project.store.read()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!alone.is_empty());
        assert_eq!(beside, Some(alone));
    }

    /// The check against the candidates refuses the same row with the same message on a
    /// thread beside the work as before it, and hands back the work's result when it passes.
    #[test]
    fn the_candidate_check_beside_the_work_refuses_as_the_check_before_it() {
        use factdesk_core::answer::Selection;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = fixture(dir.path());
        let outcomes = |decided: &[&DecisionRow]| -> Vec<Result<u8>> {
            [usize::MAX, 0]
                .into_iter()
                .map(|beside_from| {
                    let read = CurrentAnswers::read(&project).unwrap_or_else(|e| panic!("{e}"));
                    read.refuse_outside_candidates_while(&project, decided, beside_from, || Ok(7))
                })
                .collect()
        };
        for outcome in outcomes(&[]) {
            assert_eq!(outcome.ok(), Some(7));
        }
        // A decision selecting a sentence its claim never showed (forged: none can be made).
        let read = CurrentAnswers::read(&project).unwrap_or_else(|e| panic!("{e}"));
        let task_id = read
            .of_kind(TaskKind::Evidence)
            .next()
            .map(|a| a.task_id)
            .unwrap_or_else(|| panic!("the fixture has evidence answers"));
        let forged = DecisionRow {
            id: 41,
            task_id,
            lead: "lead".to_string(),
            kind: TaskKind::Evidence,
            answer: Some(Response::Evidence {
                selection: Selection::sentences(vec![999_999]),
            }),
            taken_from: None,
            reason: None,
            category: None,
            at: 0,
        };
        let messages: Vec<String> = outcomes(&[&forged])
            .into_iter()
            .map(|outcome| match outcome {
                Err(e) => e.message,
                Ok(_) => panic!("the check passed a selection outside the candidates"),
            })
            .collect();
        assert!(
            messages[0].contains(&format!("decision 41 on task {task_id}"))
                && messages[0].contains("sentence 999999, which is not a candidate"),
            "{}",
            messages[0]
        );
        assert_eq!(messages[0], messages[1]);
    }
}
