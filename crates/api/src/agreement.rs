//! Agreement between annotators: over a project's answers (per task kind), or over
//! ratings made anywhere (a records file), with every statistic of
//! `factdesk_core::agreement`.

mod studies;

pub use studies::{StudyAgreement, MAJORITY_METRIC};

use crate::current::CurrentAnswers;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::agreement::{
    compute_all_with_pairs, AgreementOptions, IndexedSets, Label, MetricValue, PairKappa, Rating,
    RatingTable, SetNames, WithPairs,
};
use factdesk_core::answer::Response;
use factdesk_core::key_hash::IdMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use ts_rs::TS;

/// A statistic as `factdesk agreement --json` prints it, with its verbal reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Statistic {
    /// The metric's name in `factdesk agreement --json` (evidence is scored per
    /// candidate: the `setsel_pooled_*` metrics).
    pub metric: String,
    pub value: Option<f64>,
    /// Why the value is undefined.
    pub reason: Option<String>,
    /// Bootstrap 95% interval (on the dashboard, as of `Dashboard::intervals_as_of`).
    pub ci95: Option<(f64, f64)>,
    /// A kappa's or an alpha's reading once it has an interval: its Landis & Koch (1977)
    /// band ("slight", "fair", ... "almost perfect") when the value and the interval lie
    /// in one band, "uncertain" when the interval reaches into another
    /// (`factdesk_core::agreement::reading`).
    pub reading: Option<String>,
}

impl Statistic {
    /// Sets the reading from the value and the interval, as `factdesk agreement --json`
    /// gives it.
    pub fn read(&mut self) {
        self.reading = match self.value {
            Some(v) if factdesk_core::agreement::is_chance_corrected(&self.metric) => {
                factdesk_core::agreement::reading(v, self.ci95).map(str::to_string)
            }
            _ => None,
        };
    }
}

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
    /// Cohen's kappa per pair over the items both rated (their mean is
    /// `cohen_kappa_mean_pairwise`). For evidence each distinct set of sentences is one
    /// category: a pair agrees on an item only when both chose exactly the same set.
    pub cohen_kappa_pairs: Vec<PairKappa>,
    /// Evidence (set labels) only: Cohen's kappa per pair over the (item, candidate)
    /// units both rated, each sentence selected or not (their mean is
    /// `setsel_pooled_cohen_kappa_mean_pairwise`); the dashboard's and the report's pairs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub setsel_pooled_cohen_kappa_pairs: Vec<PairKappa>,
    /// Projects: the re-annotation studies of this kind with their figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub studies: Vec<StudyAgreement>,
}

fn table_error(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::InvalidInput, e.to_string())
}

/// Evidence answers from which the check against their candidates runs on a thread beside
/// the agreement's table: below it, starting the thread costs about what it saves.
const CHECK_BESIDE_FROM: usize = 20_000;

/// Computes every applicable statistic over a prepared table.
pub fn report(table: &RatingTable, req: &AgreementRequest) -> AgreementReport {
    let options = AgreementOptions {
        bootstrap_reps: req.bootstrap_reps,
        seed: req.seed,
    };
    let WithPairs {
        metrics,
        pairs: cohen_kappa_pairs,
        pooled_pairs: setsel_pooled_cohen_kappa_pairs,
    } = compute_all_with_pairs(table, &options);
    AgreementReport {
        units: table.items().len(),
        annotators: table.annotators().len(),
        ratings: table.rating_count(),
        metrics,
        cohen_kappa_pairs,
        setsel_pooled_cohen_kappa_pairs,
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
    pub fn ratings(&self, lead: &Lead, kind: TaskKind, include_flagged: bool) -> Result<Ratings> {
        self.acting_lead(lead)?;
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
            .filter(|a| a.counts_with(include_flagged))
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
                // Written refutations are reviewed; design answers are measured question
                // by question (`crate::declared::agreement`).
                Response::Refute { .. } | Response::Design { .. } => continue,
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

    /// The evidence table built from ids: the table `RatingTable::with_item_candidates`
    /// builds from [`Project::ratings_in`]'s ratings, in the same order (items and
    /// candidates interned where the names would be), without writing every answer's item,
    /// annotator and selected sentences as text for the table to intern again (most of
    /// `factdesk agreement`'s time before the bootstrap at 300,000 answers). `None` when
    /// no answer counts or one is not an evidence selection: the names build that table.
    /// The answers are checked against their candidates (on a thread beside the table
    /// from [`CHECK_BESIDE_FROM`] answers) before the table is returned.
    fn evidence_table_in(
        &self,
        read: &CurrentAnswers,
        include_flagged: bool,
    ) -> Result<Option<RatingTable>> {
        read.refuse_outside_candidates_while(self, &[], CHECK_BESIDE_FROM, || {
            self.evidence_table_unchecked(read, include_flagged)
        })
    }

    fn evidence_table_unchecked(
        &self,
        read: &CurrentAnswers,
        include_flagged: bool,
    ) -> Result<Option<RatingTable>> {
        let annotators = self.all_annotators()?;
        // A handful of people: a sorted list is quicker to ask than a hashed set.
        let mut counted: Vec<i64> = annotators
            .iter()
            .filter(|a| a.counts_with(include_flagged))
            .map(|a| a.id)
            .collect();
        counted.sort_unstable();
        let names: HashMap<i64, String> = annotators.into_iter().map(|a| (a.id, a.name)).collect();
        let answers = read.of_kind(TaskKind::Evidence);
        let claim_of = read.claim_of(self, TaskKind::Evidence)?;
        let mut item_of_task = FirstSeen::for_ids(claim_of.keys().copied(), claim_of.len());
        // Each claim's first item: the one `ratings_in` lists the claim's candidates under.
        let mut listed: IdMap<u32> = IdMap::default();
        let mut annotator_of: IdMap<u32> = IdMap::default();
        let mut annotator_names: Vec<String> = Vec::new();
        let mut ratings: Vec<(u32, u32, usize, usize)> = Vec::with_capacity(answers.len());
        let mut selected: Vec<i64> = Vec::with_capacity(answers.len() * 2);
        for a in
            answers.filter(|a| counted.binary_search(&a.annotator_id).is_ok() && !a.trick_failed)
        {
            let claim_id = *claim_of
                .get(&a.task_id)
                .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no task {}", a.task_id)))?;
            let Response::Evidence { selection } = &a.answer.response else {
                return Ok(None);
            };
            let item = item_of_task.index(a.task_id);
            listed.entry(claim_id).or_insert(item);
            let annotator = match annotator_of.get(&a.annotator_id) {
                Some(&index) => index,
                None => {
                    // Interned by name, as the ratings' names would be.
                    let name = names.get(&a.annotator_id).cloned().unwrap_or_default();
                    let index = match annotator_names.iter().position(|n| *n == name) {
                        Some(index) => index as u32,
                        None => {
                            annotator_names.push(name);
                            annotator_names.len() as u32 - 1
                        }
                    };
                    annotator_of.insert(a.annotator_id, index);
                    index
                }
            };
            let start = selected.len();
            selected.extend_from_slice(selection.ids());
            ratings.push((item, annotator, start, selected.len()));
        }
        if ratings.is_empty() {
            return Ok(None);
        }
        let items: Vec<String> = item_of_task
            .ids
            .iter()
            .map(|t| format!("task-{t}"))
            .collect();
        // Candidates are interned as `with_item_candidates` interns their names: the listed
        // items' candidates in the order of the items' names, then the selections.
        let mut listed: Vec<(u32, i64)> = listed.into_iter().map(|(c, i)| (i, c)).collect();
        listed.sort_unstable_by(|a, b| items[a.0 as usize].cmp(&items[b.0 as usize]));
        let shown = read.candidates(self)?;
        let mut candidates = FirstSeen::for_ids(
            shown.values().flatten().copied(),
            shown.values().map(Vec::len).sum(),
        );
        let mut offered: Vec<Option<Vec<u32>>> = vec![None; items.len()];
        for (item, claim_id) in listed {
            let ids = shown.get(&claim_id).map_or(&[][..], Vec::as_slice);
            offered[item as usize] = Some(ids.iter().map(|&id| candidates.index(id)).collect());
        }
        let mut sets = IndexedSets::with_capacity(ratings.len(), selected.len());
        for &(item, annotator, start, end) in &ratings {
            sets.push(
                item,
                annotator,
                selected[start..end].iter().map(|&id| candidates.index(id)),
            );
        }
        let names = SetNames {
            items,
            annotators: annotator_names,
            candidate_count: candidates.ids.len(),
            candidate_name: &|c| candidates.ids[c as usize].to_string(),
            offered,
        };
        RatingTable::from_indexed_sets(&sets, names)
            .map(Some)
            .map_err(table_error)
    }

    /// Agreement on one kind of task.
    pub fn agreement(
        &self,
        lead: &Lead,
        kind: TaskKind,
        req: &AgreementRequest,
    ) -> Result<AgreementReport> {
        self.acting_lead(lead)?;
        if kind == TaskKind::Refute {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "refutations are free text and have no agreement: --kind is evidence, verify or label",
            ));
        }
        self.agreement_in(lead, &CurrentAnswers::read(self)?, kind, req)
    }

    /// Agreement on every kind with answers (as [`Project::kinds_with_answers`] lists
    /// them), from one read of the answers.
    pub fn agreements(
        &self,
        lead: &Lead,
        req: &AgreementRequest,
    ) -> Result<Vec<(TaskKind, AgreementReport)>> {
        self.acting_lead(lead)?;
        self.agreements_in(lead, &CurrentAnswers::read(self)?, req)
    }

    pub(crate) fn agreements_in(
        &self,
        lead: &Lead,
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
        lead: &Lead,
        read: &CurrentAnswers,
        kind: TaskKind,
        req: &AgreementRequest,
    ) -> Result<AgreementReport> {
        let indexed = match kind {
            TaskKind::Evidence => self.evidence_table_in(read, req.include_flagged)?,
            _ => None,
        };
        let table = match indexed {
            Some(table) => table,
            None => {
                let (ratings, candidates) = self.ratings_in(read, kind, req.include_flagged)?;
                if kind == TaskKind::Evidence {
                    RatingTable::with_item_candidates(&ratings, None, &candidates)
                } else {
                    RatingTable::new(&ratings, req.categories.as_deref(), None)
                }
                .map_err(table_error)?
            }
        };
        let mut report = report(&table, req);
        report.studies = self.study_agreements_in(lead, read, Some(kind), req)?;
        Ok(report)
    }

    /// The kinds with answers to compare (refutations are free text: no agreement).
    pub fn kinds_with_answers(&self, lead: &Lead) -> Result<Vec<TaskKind>> {
        self.acting_lead(lead)?;
        self.check_stored()?;
        let mut out = Vec::new();
        for kind in [TaskKind::Evidence, TaskKind::Verify, TaskKind::Label] {
            if factdesk_store::annotations::any_current_of_kind(self.store.read(), kind)? {
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

/// Row ids numbered in the order first met. Row ids are mostly dense, so a table indexed
/// by id answers where a hashed map would jump around hundreds of thousands of entries;
/// ids outside its range (or all, when they are spread too thin) go to a map.
struct FirstSeen {
    low: i64,
    /// Per id from `low`: its number, or `u32::MAX` before it is met.
    table: Vec<u32>,
    others: IdMap<u32>,
    /// The ids in the order first met.
    ids: Vec<i64>,
}

impl FirstSeen {
    /// For about `count` distinct ids among `ids`.
    fn for_ids(ids: impl Iterator<Item = i64>, count: usize) -> FirstSeen {
        let (low, high) = ids.fold((i64::MAX, i64::MIN), |(lo, hi), id| {
            (lo.min(id), hi.max(id))
        });
        let span = high
            .checked_sub(low)
            .and_then(|span| usize::try_from(span).ok())
            .map(|span| span.saturating_add(1));
        let table = match span {
            Some(span) if span <= count.saturating_mul(4).saturating_add(4096) => {
                vec![u32::MAX; span]
            }
            _ => Vec::new(),
        };
        FirstSeen {
            low,
            table,
            others: IdMap::default(),
            ids: Vec::with_capacity(count),
        }
    }

    fn index(&mut self, id: i64) -> u32 {
        let next = self.ids.len() as u32;
        let slot = id
            .checked_sub(self.low)
            .and_then(|offset| usize::try_from(offset).ok())
            .and_then(|offset| self.table.get_mut(offset));
        let index = match slot {
            Some(slot) => {
                if *slot == u32::MAX {
                    *slot = next;
                }
                *slot
            }
            None => *self.others.entry(id).or_insert(next),
        };
        if index == next {
            self.ids.push(id);
        }
        index
    }
}

#[cfg(test)]
mod tests {
    use super::FirstSeen;

    /// Ids are numbered in the order first met whether the table, the map or both hold
    /// them: dense ids, ids spread too thin for a table, and ids outside the table's range.
    #[test]
    fn ids_are_numbered_first_met_by_table_and_map_alike() {
        let met = [7_i64, 3, 7, 9, -4, 3, 1 << 40, 9, 12, 1 << 40, 5];
        let expected = [0_u32, 1, 0, 2, 3, 1, 4, 2, 5, 4, 6];
        for range in [&[3_i64, 12][..], &[0, 1 << 41], &[]] {
            let mut seen = FirstSeen::for_ids(range.iter().copied(), 8);
            let numbers: Vec<u32> = met.iter().map(|&id| seen.index(id)).collect();
            assert_eq!(numbers, expected, "{range:?}");
            assert_eq!(seen.ids, [7, 3, 9, -4, 1 << 40, 12, 5]);
        }
        assert!(!FirstSeen::for_ids([3_i64, 12].into_iter(), 8)
            .table
            .is_empty());
        assert!(FirstSeen::for_ids([0_i64, 1 << 41].into_iter(), 8)
            .table
            .is_empty());
    }
}
