//! Agreement between annotators: over a project's answers (per task kind), or over
//! ratings made anywhere (a records file), with every statistic of
//! `factdesk_core::agreement`.

use crate::actor::Actor;
use crate::current::CurrentAnswers;
use crate::study::StudyAgreement;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::agreement::{
    compute_all, pairs, AgreementOptions, Label, MetricValue, PairKappa, Rating, RatingTable,
};
use factdesk_core::answer::Response;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// How to compute agreement.
#[derive(Debug, Clone)]
pub struct AgreementRequest {
    /// Category order, for weighted kappa and ordinal alpha.
    pub categories: Option<Vec<String>>,
    /// The candidate list, for set labels from a records file.
    pub candidates: Option<Vec<String>>,
    /// Count annotators flagged for failing trick sentences (projects only).
    pub include_flagged: bool,
    pub bootstrap_reps: usize,
    pub seed: u64,
}

impl Default for AgreementRequest {
    fn default() -> AgreementRequest {
        AgreementRequest {
            categories: None,
            candidates: None,
            include_flagged: false,
            bootstrap_reps: 1000,
            seed: 1,
        }
    }
}

/// What `factdesk agreement --json` prints for one set of ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgreementReport {
    pub units: usize,
    pub annotators: usize,
    pub ratings: usize,
    pub metrics: BTreeMap<String, MetricValue>,
    pub cohen_kappa_pairs: Vec<PairKappa>,
    /// Projects: the re-annotation studies of this kind with their figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub studies: Vec<StudyAgreement>,
}

fn table_error(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::InvalidInput, e.to_string())
}

/// Computes every applicable statistic over a prepared table.
pub fn report(table: &RatingTable, req: &AgreementRequest) -> AgreementReport {
    let options = AgreementOptions {
        bootstrap_reps: req.bootstrap_reps,
        seed: req.seed,
    };
    AgreementReport {
        units: table.items().len(),
        annotators: table.annotators().len(),
        ratings: table.rating_count(),
        metrics: compute_all(table, &options),
        cohen_kappa_pairs: pairs(table),
        studies: Vec::new(),
    }
}

/// Reads ratings from JSON Lines (`{"item", "annotator", "label"}`) or CSV (columns item,
/// annotator, label; a set label as a JSON list, an empty cell for a missing rating).
pub fn read_records(path: &Path) -> Result<Vec<Rating>> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| Error::input(&name, 0, None, format!("cannot read: {e}")))?;
    // A pack and a project are SQLite files: say which, not "invalid UTF-8".
    if bytes.starts_with(b"SQLite format 3\0") {
        let what = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("fdpack"))
        {
            "an annotator's pack (.fdpack), not a project: merge it into its project (factdesk merge) and measure agreement on the project"
        } else {
            "a SQLite file, not a records file (.jsonl, .csv); a project must be named .fdesk"
        };
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("{name} is {what}"),
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::input(&name, 0, None, format!("cannot read: {e}")))?;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut out = Vec::new();
    if is_csv {
        // Read by column position into one reused record: building a map per row was
        // most of the time on a 500,000-row file.
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .map_err(|e| Error::input(&name, 1, None, format!("malformed header: {e}")))?
            .clone();
        let column = |k: &str| {
            headers
                .iter()
                .position(|h| h == k)
                .ok_or_else(|| Error::input(&name, 1, Some(k), "missing column"))
        };
        let (item, annotator, label) = (column("item")?, column("annotator")?, column("label")?);
        let mut row = csv::StringRecord::new();
        loop {
            let line = reader.position().line() + 1;
            match reader.read_record(&mut row) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    return Err(Error::input(
                        &name,
                        line,
                        None,
                        format!("malformed row: {e}"),
                    ))
                }
            }
            let line = row.position().map_or(line, |p| p.line());
            let field = |i: usize, k: &str| {
                row.get(i)
                    .ok_or_else(|| Error::input(&name, line, Some(k), "missing column"))
            };
            let raw = field(label, "label")?;
            let label = if raw.trim().is_empty() {
                Label::Missing
            } else if raw.trim_start().starts_with('[') {
                serde_json::from_str(raw).map_err(|e| {
                    Error::input(&name, line, Some("label"), format!("invalid list: {e}"))
                })?
            } else {
                Label::Category(raw.to_string())
            };
            out.push(Rating {
                item: field(item, "item")?.to_string(),
                annotator: field(annotator, "annotator")?.to_string(),
                label,
            });
        }
    } else {
        for (i, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let rating: Rating = serde_json::from_str(l).map_err(|e| {
                Error::input(
                    &name,
                    i as u64 + 1,
                    None,
                    format!("expected {{\"item\", \"annotator\", \"label\"}}: {e}"),
                )
            })?;
            out.push(rating);
        }
    }
    if out.is_empty() {
        return Err(Error::input(&name, 1, None, "no ratings in the file"));
    }
    Ok(out)
}

/// Agreement over a records file.
pub fn agreement_of_records(path: &Path, req: &AgreementRequest) -> Result<AgreementReport> {
    let ratings = read_records(path)?;
    let table = RatingTable::new(
        &ratings,
        req.categories.as_deref(),
        req.candidates.as_deref(),
    )
    .map_err(table_error)?;
    Ok(report(&table, req))
}

/// Ratings, and for evidence items the candidates each item showed.
pub type Ratings = (Vec<Rating>, BTreeMap<String, Vec<String>>);

impl Project {
    /// The counted answers of one kind as ratings (current, not picking the trick, by a
    /// counted annotator), with each evidence item's candidates.
    pub fn ratings(&self, lead: &Actor, kind: TaskKind, include_flagged: bool) -> Result<Ratings> {
        self.require_lead(lead, "read everyone's answers")?;
        self.ratings_in(&CurrentAnswers::read(self)?, kind, include_flagged)
    }

    /// [`Project::ratings`] from answers already read.
    pub(crate) fn ratings_in(
        &self,
        read: &CurrentAnswers,
        kind: TaskKind,
        include_flagged: bool,
    ) -> Result<Ratings> {
        let annotators = self.all_annotators()?;
        let counted: HashSet<i64> = annotators
            .iter()
            .filter(|a| include_flagged || a.counted)
            .map(|a| a.id)
            .collect();
        let names: BTreeMap<i64, String> = annotators.into_iter().map(|a| (a.id, a.name)).collect();
        let answers = read.of_kind(kind);
        if kind == TaskKind::Evidence {
            read.refuse_outside_candidates(self, &[])?;
        }
        let claim_of = read.claim_of(self, kind)?;
        let mut ratings = Vec::with_capacity(answers.len());
        let mut candidates: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut claims: BTreeMap<i64, String> = BTreeMap::new();
        // Only counted answers: an answer that picked the trick is rejected as a whole,
        // so its other selections count for no unit either.
        for a in answers.filter(|a| counted.contains(&a.annotator_id) && !a.trick_failed) {
            let claim_id = *claim_of
                .get(&a.task_id)
                .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no task {}", a.task_id)))?;
            let item = format!("task-{}", a.task_id);
            claims.entry(claim_id).or_insert_with(|| item.clone());
            let label = match &a.answer.response {
                Response::Evidence { selection } => {
                    Label::Set(selection.ids().iter().map(i64::to_string).collect())
                }
                Response::Refute { .. } => continue,
                Response::Verify { verdict } => Label::Category(verdict.as_str().to_string()),
                Response::Label { label } => Label::Category(label.as_str().to_string()),
            };
            ratings.push(Rating {
                item,
                annotator: names.get(&a.annotator_id).cloned().unwrap_or_default(),
                label,
            });
        }
        if kind == TaskKind::Evidence {
            // Units are (claim, candidate) over the candidates shown; the trick never is one.
            let shown = read.candidates(self)?;
            for (claim_id, item) in claims {
                let ids = shown
                    .get(&claim_id)
                    .map(|ids| ids.iter().map(i64::to_string).collect())
                    .unwrap_or_default();
                candidates.insert(item, ids);
            }
        }
        Ok((ratings, candidates))
    }

    /// Agreement on one kind of task.
    pub fn agreement(
        &self,
        lead: &Actor,
        kind: TaskKind,
        req: &AgreementRequest,
    ) -> Result<AgreementReport> {
        self.require_lead(lead, "see agreement")?;
        self.agreement_in(lead, &CurrentAnswers::read(self)?, kind, req)
    }

    /// Agreement on every kind with answers (as [`Project::kinds_with_answers`] lists
    /// them), from one read of the answers.
    pub fn agreements(
        &self,
        lead: &Actor,
        req: &AgreementRequest,
    ) -> Result<Vec<(TaskKind, AgreementReport)>> {
        self.require_lead(lead, "see agreement")?;
        self.agreements_in(lead, &CurrentAnswers::read(self)?, req)
    }

    pub(crate) fn agreements_in(
        &self,
        lead: &Actor,
        read: &CurrentAnswers,
        req: &AgreementRequest,
    ) -> Result<Vec<(TaskKind, AgreementReport)>> {
        kinds_with_answers_in(read)
            .into_iter()
            .map(|kind| Ok((kind, self.agreement_in(lead, read, kind, req)?)))
            .collect()
    }

    pub(crate) fn agreement_in(
        &self,
        lead: &Actor,
        read: &CurrentAnswers,
        kind: TaskKind,
        req: &AgreementRequest,
    ) -> Result<AgreementReport> {
        let (ratings, candidates) = self.ratings_in(read, kind, req.include_flagged)?;
        let table = if kind == TaskKind::Evidence {
            RatingTable::with_item_candidates(&ratings, None, &candidates)
        } else {
            RatingTable::new(&ratings, req.categories.as_deref(), None)
        }
        .map_err(table_error)?;
        let mut report = report(&table, req);
        report.studies = self.study_agreements_in(lead, read, Some(kind), req)?;
        Ok(report)
    }

    /// The kinds with answers to compare (refutations are free text: no agreement).
    pub fn kinds_with_answers(&self, lead: &Actor) -> Result<Vec<TaskKind>> {
        self.require_lead(lead, "see which kinds have answers")?;
        self.check_stored()?;
        let mut out = Vec::new();
        for kind in [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label] {
            if factdesk_store::annotations::any_current_of_kind(self.store.conn(), kind)? {
                out.push(kind);
            }
        }
        Ok(out)
    }
}

/// [`Project::kinds_with_answers`] from answers already read.
pub(crate) fn kinds_with_answers_in(read: &CurrentAnswers) -> Vec<TaskKind> {
    [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label]
        .into_iter()
        .filter(|&kind| read.of_kind(kind).len() > 0)
        .collect()
}
