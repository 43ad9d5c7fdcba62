//! The lead's live agreement dashboard: per task kind, Fleiss' kappa and nominal
//! Krippendorff's alpha (and for evidence, alpha with MASI distance over the selected
//! sets) with their intervals and Landis–Koch reading, the pairwise Cohen matrix, each
//! annotator's answers, rejected answers, pace, trick record and agreement with the
//! majority of the others, kappa as the answers accumulated, and re-annotation studies.
//!
//! A [`DashboardState`] follows the project's append-only answers by the last annotation
//! id it has seen: [`DashboardState::refresh`] reads only newer rows and changes running
//! sums (see `tally`), so a recompute after one answer costs microseconds even at 500,000
//! answers. The values are those of `factdesk agreement` for the same kind (the same
//! counted answers: an answer that picked the trick counts for nothing, flagged annotators
//! are left out, a superseded answer is replaced). Bootstrap intervals cost a full pass over the answers, so they are
//! computed separately ([`Project::dashboard_intervals`]) and carried with the answer id
//! they were computed at.

mod activity;
mod intervals;
mod masi;
mod questions;
mod running;
mod snapshot;
mod tally;

pub use crate::agreement::Statistic;
pub use snapshot::{
    AnnotatorActivity, Dashboard, Interval, Intervals, KappaPoint, KindDashboard, KindIntervals,
    PairAgreement,
};

use crate::annotators::describe;
use crate::current::CurrentAnswers;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Project, Result};
use activity::Activity;
use factdesk_core::key_hash::{IdMap, KeyMap};
use factdesk_store::feed::{self, FeedRow};
pub(crate) use intervals::kind_intervals;
pub use intervals::{metric_names, pair_metric_name, pair_unit_name, MASI_METRIC};
use masi::MasiTally;
pub(crate) use questions::question_statistics;
pub use questions::{headline_names, QuestionStatistics};
use running::{extend_series, retract};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tally::{Outcome, Tally};

/// Kinds whose answers can agree (refutations are free text).
const KINDS: [TaskKind; 3] = [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label];
/// A gap between two answers longer than this is a break, not work.
const IDLE_MS: i64 = 5 * 60 * 1000;
/// Most points kept in the kappa series; beyond it every other point is dropped.
const SERIES_POINTS: usize = 240;

/// An answer as the dashboard keeps it.
#[derive(Debug, Clone)]
struct Current {
    id: i64,
    kind: usize,
    task: i64,
    label: Parsed,
    trick_failed: bool,
    at_ms: i64,
    /// Whether the answer (or one it superseded) is in the kind's tally.
    tallied: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Parsed {
    /// Verification and labelling: the category's index; `None` when no label was given.
    Category(Option<u32>),
    /// Evidence: the selected candidate sentence ids.
    Selected(Vec<i64>),
}

/// A task's units: one for a category task, one per candidate for evidence.
#[derive(Debug, Clone)]
struct TaskUnits {
    first: usize,
    candidates: Vec<i64>,
    counted_raters: u32,
}

#[derive(Debug, Clone, Default)]
struct KindState {
    tally: Tally,
    /// Evidence only: the selected sets per task.
    masi: MasiTally,
    categories: HashMap<String, u32>,
    tasks: IdMap<TaskUnits>,
    activity: IdMap<Activity>,
    units: u64,
    /// Items with two or more counted answers: the ones agreement is measured on.
    paired: u64,
    ratings: u64,
    /// Counted answers per annotator (to count who rated).
    rated: IdMap<u64>,
    series: Vec<KappaPoint>,
    stride: u64,
    applied: u64,
}

#[derive(Debug, Clone)]
struct Person {
    name: String,
    flagged: bool,
    counted: bool,
    tricks_seen: u64,
    trick_failure_rate: Option<f64>,
    trick_failure_ci95: Option<(f64, f64)>,
}

/// What the dashboard has read so far, updated from the answers written since.
#[derive(Debug, Clone, Default)]
pub struct DashboardState {
    last_id: i64,
    /// Hashed as row ids are: replaying every answer into SipHash maps was about a sixth
    /// of opening the dashboard.
    current: KeyMap<(i64, i64), Current>,
    kinds: [KindState; 3],
    /// Dense tally index of each annotator id.
    index: IdMap<u32>,
    people: BTreeMap<i64, Person>,
    /// The counted annotators the tallies were built with; `None` before the first build.
    counted: Option<BTreeSet<i64>>,
    candidates: Option<IdMap<Vec<i64>>>,
    intervals: Option<Intervals>,
}

fn kind_slot(kind: TaskKind) -> Option<usize> {
    KINDS.iter().position(|&k| k == kind)
}

impl DashboardState {
    pub fn new() -> DashboardState {
        DashboardState::default()
    }

    /// The newest answer id read.
    pub fn last_annotation_id(&self) -> i64 {
        self.last_id
    }

    /// Reads the answers written since the last refresh and who counts now; returns
    /// whether anything changed.
    pub fn refresh(&mut self, project: &Project, lead: &Lead) -> Result<bool> {
        project.acting_lead(lead)?;
        let rows = feed::since(project.store.read(), self.last_id)?;
        self.take(project, rows)
    }

    /// [`DashboardState::refresh`] of a new state from answers already read (every
    /// stored answer, as the feed gives them), with their candidates: the report reads
    /// the answers once for all its figures.
    pub(crate) fn refresh_from(
        &mut self,
        project: &Project,
        lead: &Lead,
        read: &CurrentAnswers,
    ) -> Result<bool> {
        if self.last_id != 0 {
            return self.refresh(project, lead);
        }
        project.acting_lead(lead)?;
        if self.candidates.is_none() {
            self.candidates = Some(read.candidates(project)?.clone());
        }
        let rows = read.feed(project)?;
        self.take(project, rows)
    }

    /// Files the rows read, then brings the tallies up to date.
    fn take(&mut self, project: &Project, rows: Vec<FeedRow>) -> Result<bool> {
        let any = !rows.is_empty();
        // The first read of a project brings every answer at once.
        self.current.reserve(rows.len());
        let mut changes = Vec::with_capacity(rows.len());
        for row in rows {
            self.last_id = self.last_id.max(row.id);
            if let Some(change) = self.read(project, row)? {
                changes.push(change);
            }
        }
        // Flags move with trick answers and with the lead's decisions, which are no answers.
        let counted = self.update_people(project)?;
        if self.counted.as_ref() != Some(&counted) {
            self.counted = Some(counted);
            self.rebuild();
            return Ok(true);
        }
        for key in changes {
            self.apply(key);
        }
        Ok(any)
    }

    /// Files one row as the current answer of its (task, annotator); returns the key to
    /// apply to the tallies.
    fn read(&mut self, project: &Project, row: FeedRow) -> Result<Option<(i64, i64)>> {
        let Some(slot) = kind_slot(row.kind) else {
            return Ok(None);
        };
        let label = if KINDS[slot] == TaskKind::Evidence {
            if !self.kinds[slot].tasks.contains_key(&row.task_id) {
                let ids = self.candidates_of(project, row.claim_id)?;
                let state = &mut self.kinds[slot];
                let first = (0..ids.len())
                    .map(|_| state.tally.add_unit())
                    .min()
                    .unwrap_or(0);
                state.tasks.insert(
                    row.task_id,
                    TaskUnits {
                        first,
                        candidates: ids,
                        counted_raters: 0,
                    },
                );
            }
            Parsed::Selected(
                row.answer
                    .selection()
                    .map(|s| s.ids().to_vec())
                    .unwrap_or_default(),
            )
        } else {
            let state = &mut self.kinds[slot];
            if !state.tasks.contains_key(&row.task_id) {
                let first = state.tally.add_unit();
                state.tasks.insert(
                    row.task_id,
                    TaskUnits {
                        first,
                        candidates: Vec::new(),
                        counted_raters: 0,
                    },
                );
            }
            Parsed::Category(row.answer.judgement().map(|j| {
                let next = state.categories.len() as u32;
                *state
                    .categories
                    .entry(j.as_str().to_string())
                    .or_insert(next)
            }))
        };
        let next = self.index.len() as u32;
        self.index.entry(row.annotator_id).or_insert(next);
        let key = (row.task_id, row.annotator_id);
        let activity = self.kinds[slot]
            .activity
            .entry(row.annotator_id)
            .or_default();
        let gap = activity
            .last_at
            .map(|last| row.created_at - last)
            .filter(|&gap| (0..=IDLE_MS).contains(&gap))
            .unwrap_or(0);
        activity.active_ms += row.duration_ms.unwrap_or(gap).max(0);
        activity.last_at = Some(row.created_at);
        activity.record(row.created_at);
        let tallied = self.current.get(&key).is_some_and(|c| c.tallied);
        let previous = self.current.insert(
            key,
            Current {
                id: row.id,
                kind: slot,
                task: row.task_id,
                label,
                trick_failed: row.trick_failed,
                at_ms: row.created_at,
                tallied,
            },
        );
        if previous.is_none() {
            activity.answers += 1;
        }
        if previous.as_ref().is_some_and(|old| old.trick_failed) {
            activity.rejected -= 1;
        }
        activity.rejected += u64::from(row.trick_failed);
        Ok(Some(key))
    }

    fn candidates_of(&mut self, project: &Project, claim_id: i64) -> Result<Vec<i64>> {
        let conn = project.store.read();
        if self.candidates.is_none() {
            let mut by_claim: IdMap<Vec<i64>> = IdMap::default();
            for (claim, sentence) in feed::candidate_ids(conn)? {
                by_claim.entry(claim).or_default().push(sentence);
            }
            self.candidates = Some(by_claim);
        }
        if let Some(ids) = self.candidates.as_ref().and_then(|c| c.get(&claim_id)) {
            return Ok(ids.clone());
        }
        // Ranked after the bulk read.
        Ok(feed::candidate_ids_of(conn, claim_id)?)
    }

    /// Re-reads who is flagged (from the trick counts kept here) and returns the counted.
    fn update_people(&mut self, project: &Project) -> Result<BTreeSet<i64>> {
        let settings = project.settings()?;
        let rows = factdesk_store::annotators::list(project.store.read())?;
        self.people.clear();
        let mut counted = BTreeSet::new();
        for row in rows {
            let id = row.id;
            let person = describe(row, &settings);
            if person.counted {
                counted.insert(id);
            }
            self.people.insert(
                id,
                Person {
                    name: person.name,
                    flagged: person.flagged,
                    counted: person.counted,
                    tricks_seen: person.tricks_seen,
                    trick_failure_rate: person.trick_failure_rate,
                    trick_failure_ci95: person.trick_failure_ci95,
                },
            );
        }
        Ok(counted)
    }

    /// Builds the tallies afresh from the current answers, in answer order (so the kappa
    /// series is the same however the answers were read).
    fn rebuild(&mut self) {
        for state in &mut self.kinds {
            let activity = std::mem::take(&mut state.activity);
            let categories = std::mem::take(&mut state.categories);
            let tasks: IdMap<TaskUnits> = std::mem::take(&mut state.tasks)
                .into_iter()
                .map(|(id, t)| {
                    (
                        id,
                        TaskUnits {
                            counted_raters: 0,
                            ..t
                        },
                    )
                })
                .collect();
            let units = tasks
                .values()
                .map(|t| t.first + t.candidates.len().max(1))
                .max()
                .unwrap_or(0);
            *state = KindState {
                activity,
                categories,
                tasks,
                ..KindState::default()
            };
            for _ in 0..units {
                state.tally.add_unit();
            }
        }
        let mut order: Vec<(i64, (i64, i64))> = self
            .current
            .iter_mut()
            .map(|(&k, c)| {
                c.tallied = false;
                (c.id, k)
            })
            .collect();
        order.sort_unstable();
        for (_, key) in order {
            self.apply(key);
        }
    }

    /// Puts the current answer of (task, annotator) into its kind's tally, replacing the
    /// one it superseded, and extends the kappa series. An answer that is not counted
    /// (it picked the trick) takes the one it superseded out of the tally.
    fn apply(&mut self, key: (i64, i64)) {
        let annotator = key.1;
        if !self
            .counted
            .as_ref()
            .is_some_and(|c| c.contains(&annotator))
        {
            return;
        }
        let (Some(answer), Some(&index)) = (self.current.get_mut(&key), self.index.get(&annotator))
        else {
            return;
        };
        let state = &mut self.kinds[answer.kind];
        let Some(units) = state.tasks.get_mut(&answer.task) else {
            return;
        };
        if answer.trick_failed {
            if answer.tallied {
                answer.tallied = false;
                retract(state, answer, index, annotator);
            }
            return;
        }
        let newly = !answer.tallied;
        if newly {
            answer.tallied = true;
            units.counted_raters += 1;
            match units.counted_raters {
                1 => state.units += 1,
                2 => state.paired += 1,
                _ => {}
            }
            *state.rated.entry(annotator).or_default() += 1;
        }
        match &answer.label {
            Parsed::Category(value) => {
                let had = state.tally.rating(units.first, index).is_some();
                state.tally.set(units.first, index, *value);
                match (had, value.is_some()) {
                    (false, true) => state.ratings += 1,
                    (true, false) => state.ratings -= 1,
                    _ => {}
                }
            }
            Parsed::Selected(selected) => {
                if newly {
                    state.ratings += 1;
                }
                for (k, candidate) in units.candidates.iter().enumerate() {
                    let value = u32::from(selected.contains(candidate));
                    state.tally.set(units.first + k, index, Some(value));
                }
                state.masi.set(answer.task, index, Some(selected));
            }
        }
        extend_series(state, answer.at_ms);
    }

    /// The answer id the held intervals were computed at.
    pub fn intervals_as_of(&self) -> Option<i64> {
        self.intervals.as_ref().map(|i| i.as_of)
    }

    /// Takes intervals computed by [`Project::dashboard_intervals`].
    pub fn set_intervals(&mut self, intervals: Intervals) {
        self.intervals = Some(intervals);
    }

    /// What the dashboard shows at `now_ms` (unix ms): cheap, from the running sums.
    /// Paces are those of the last half hour before `now_ms`, as the work screen's.
    pub fn snapshot(&self, now_ms: i64) -> Dashboard {
        let kinds = KINDS
            .iter()
            .zip(&self.kinds)
            .filter(|(_, state)| !state.activity.is_empty())
            .map(|(&kind, state)| self.kind_snapshot(kind, state, now_ms))
            .collect();
        Dashboard {
            last_annotation_id: self.last_id,
            intervals_as_of: self.intervals.as_ref().map(|i| i.as_of),
            kinds,
            studies: self
                .intervals
                .as_ref()
                .map(|i| i.studies.clone())
                .unwrap_or_default(),
            questions: self
                .intervals
                .as_ref()
                .map(|i| i.questions.clone())
                .unwrap_or_default(),
        }
    }

    fn kind_snapshot(&self, kind: TaskKind, state: &KindState, now_ms: i64) -> KindDashboard {
        let rated_by = state.rated.len();
        let (fleiss_name, alpha_name) = metric_names(kind);
        let ci = self
            .intervals
            .as_ref()
            .and_then(|i| i.by_kind.get(kind.as_str()).copied())
            .unwrap_or_default();
        let mut raters: Vec<(&str, u32)> = state
            .rated
            .keys()
            .filter_map(|id| Some((self.people.get(id)?.name.as_str(), *self.index.get(id)?)))
            .collect();
        raters.sort_unstable();
        let mut pairs = Vec::new();
        for (i, &(a, x)) in raters.iter().enumerate() {
            for &(b, y) in &raters[i + 1..] {
                let (units, outcome) = state.tally.cohen(x, y);
                pairs.push(PairAgreement {
                    a: a.to_string(),
                    b: b.to_string(),
                    units: units as u64,
                    value: outcome.as_ref().ok().copied(),
                    reason: outcome.err(),
                });
            }
        }
        let mut people: Vec<AnnotatorActivity> = state
            .activity
            .iter()
            .filter_map(|(id, activity)| {
                let person = self.people.get(id)?;
                let (majority_units, majority_agreement) = match self.index.get(id) {
                    Some(&index) if person.counted => state.tally.with_majority(index),
                    _ => (0, None),
                };
                Some(AnnotatorActivity {
                    name: person.name.clone(),
                    counted: person.counted,
                    flagged: person.flagged,
                    answers: activity.answers,
                    rejected: activity.rejected,
                    active_ms: activity.active_ms,
                    pace_per_hour: activity.pace(now_ms),
                    tricks_seen: person.tricks_seen,
                    trick_failure_rate: person.trick_failure_rate,
                    trick_failure_ci95: person.trick_failure_ci95,
                    majority_units,
                    majority_agreement,
                })
            })
            .collect();
        people.sort_by(|a, b| a.name.cmp(&b.name));
        let mut series = state.series.clone();
        if series.last().map(|p| p.answers) != Some(state.applied) && state.applied > 0 {
            series.push(KappaPoint {
                answers: state.applied,
                at_ms: self.last_at(state),
                value: state.tally.fleiss(rated_by).ok(),
            });
        }
        KindDashboard {
            kind,
            units: state.units,
            paired: state.paired,
            annotators: rated_by as u64,
            answers: state.ratings,
            fleiss: statistic(fleiss_name, state.tally.fleiss(rated_by), ci.fleiss),
            alpha: statistic(alpha_name, state.tally.alpha(rated_by), ci.alpha),
            masi: (kind == TaskKind::Evidence)
                .then(|| statistic(MASI_METRIC, state.masi.alpha(rated_by), ci.masi)),
            pairs_metric: pair_metric_name(kind).to_string(),
            pairs_unit: pair_unit_name(kind).to_string(),
            pairs,
            people,
            series,
        }
    }

    fn last_at(&self, state: &KindState) -> i64 {
        state
            .activity
            .values()
            .filter_map(|a| a.last_at)
            .max()
            .unwrap_or(0)
    }
}

fn statistic(metric: &str, outcome: Outcome, ci95: Option<(f64, f64)>) -> Statistic {
    let value = outcome.as_ref().ok().copied();
    let mut statistic = Statistic {
        metric: metric.to_string(),
        value,
        reason: outcome.err(),
        ci95: value.and(ci95),
        reading: None,
    };
    statistic.read();
    statistic
}
