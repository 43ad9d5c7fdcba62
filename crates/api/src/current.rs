//! The project's answers as one use case reads them, shared by the agreement, the gold
//! data and the report: every stored answer in one read (which is also the check that
//! each can be read), each task's claim and each claim's candidates in one read apiece,
//! and the check that no evidence answer selects a sentence outside its candidates made
//! once. A use case that computes several figures (a report: label counts, agreement of
//! every kind, the dashboard, the gold data behind model comparisons) reads them once.

use crate::tasks::TaskKind;
use crate::{Project, Result};
use factdesk_core::answer::Response;
use factdesk_store::annotations::AnnotationRow;
use factdesk_store::decisions::DecisionRow;
use factdesk_store::feed::FeedRow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// One read of the project's answers.
#[derive(Debug)]
pub(crate) struct CurrentAnswers {
    /// Every stored answer, oldest first.
    rows: Vec<AnnotationRow>,
    /// Per kind, where its current answers (nothing supersedes them) are in `rows`:
    /// indices rather than the rows moved apart, which at 300,000 answers copied tens of
    /// megabytes into freshly faulted pages.
    by_kind: HashMap<TaskKind, Vec<u32>>,
    claim_of: RefCell<HashMap<TaskKind, Rc<HashMap<i64, i64>>>>,
    candidates: OnceCell<HashMap<i64, Vec<i64>>>,
    /// Whether the evidence answers were checked against their candidates.
    evidence_checked: Cell<bool>,
}

impl CurrentAnswers {
    /// Reads every stored answer once, failing on the first that cannot be read (as
    /// `Project::check_stored` does, and marking the check as passed), and keeps the
    /// current ones: those of [`factdesk_store::annotations::current_of_kind`], in its order.
    pub fn read(project: &Project) -> Result<CurrentAnswers> {
        let conn = project.store.conn();
        let mark = project.store.change_mark()?;
        factdesk_store::tasks::check_kinds(conn)?;
        let all = factdesk_store::annotations::all(conn)?;
        factdesk_store::decisions::latest(conn)?;
        project.checked(mark);
        let superseded: HashSet<i64> = all.iter().filter_map(|a| a.supersedes).collect();
        let mut by_kind: HashMap<TaskKind, Vec<u32>> = HashMap::new();
        // `all` is in id order, as `current_of_kind` reads each kind.
        for (i, row) in all.iter().enumerate() {
            if !superseded.contains(&row.id) {
                by_kind.entry(row.kind).or_default().push(i as u32);
            }
        }
        Ok(CurrentAnswers {
            rows: all,
            by_kind,
            claim_of: RefCell::default(),
            candidates: OnceCell::new(),
            evidence_checked: Cell::new(false),
        })
    }

    /// The current answers of one kind, oldest first.
    pub fn of_kind(&self, kind: TaskKind) -> impl ExactSizeIterator<Item = &AnnotationRow> {
        self.by_kind
            .get(&kind)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&i| &self.rows[i as usize])
    }

    /// Every stored answer as the feed reads it (`factdesk_store::feed::since(0)`).
    pub fn feed(&self, project: &Project) -> Result<Vec<FeedRow>> {
        let mut claim_of: HashMap<TaskKind, Rc<HashMap<i64, i64>>> = HashMap::new();
        let mut out = Vec::with_capacity(self.rows.len());
        for row in &self.rows {
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
    pub fn claim_of(&self, project: &Project, kind: TaskKind) -> Result<Rc<HashMap<i64, i64>>> {
        if let Some(map) = self.claim_of.borrow().get(&kind) {
            return Ok(Rc::clone(map));
        }
        let map: Rc<HashMap<i64, i64>> = Rc::new(
            factdesk_store::tasks::claims_of_tasks(project.store.conn(), kind)?
                .into_iter()
                .collect(),
        );
        self.claim_of.borrow_mut().insert(kind, Rc::clone(&map));
        Ok(map)
    }

    /// Every claim's candidate sentence ids, in rank order.
    pub fn candidates(&self, project: &Project) -> Result<&HashMap<i64, Vec<i64>>> {
        if let Some(map) = self.candidates.get() {
            return Ok(map);
        }
        let map = crate::gold::candidates_by_claim(project.store.conn())?;
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
            return Ok(());
        }
        let claim_of = self.claim_of(project, TaskKind::Evidence)?;
        let shown = self.candidates(project)?;
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
        self.evidence_checked.set(true);
        for d in decided {
            if let Some(response) = &d.answer {
                check(d.task_id, response, &|| {
                    format!("decision {} on task {}", d.id, d.task_id)
                })?;
            }
        }
        Ok(())
    }
}
