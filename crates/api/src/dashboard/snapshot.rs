//! What the dashboard shows, as it crosses IPC (and as reports reuse it).

use crate::agreement::{Statistic, StudyAgreement};
use crate::tasks::TaskKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use ts_rs::TS;

/// Everything the dashboard shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Dashboard {
    /// The newest answer included; the app polls for a larger one.
    pub last_annotation_id: i64,
    /// The answer id the intervals were computed at; null before any.
    pub intervals_as_of: Option<i64>,
    /// Kinds with answers, in task order.
    pub kinds: Vec<KindDashboard>,
    /// Re-annotation studies with their figures, as of `intervals_as_of` (they need a
    /// bootstrap, so they come with the intervals).
    pub studies: Vec<StudyAgreement>,
    /// The project's own design: agreement per question, as of `intervals_as_of`; none
    /// from a server made before designs.
    #[serde(default)]
    pub questions: Vec<super::QuestionStatistics>,
}

impl Dashboard {
    /// Lays the intervals (and studies) of `full`, an earlier or equal dashboard computed
    /// with them, over this newer one's figures, until fresh ones are computed.
    pub fn lay_intervals_from(&mut self, full: &Dashboard) {
        self.intervals_as_of = full.intervals_as_of;
        self.studies.clone_from(&full.studies);
        self.questions.clone_from(&full.questions);
        for kind in &mut self.kinds {
            let Some(done) = full.kinds.iter().find(|f| f.kind == kind.kind) else {
                continue;
            };
            kind.fleiss.ci95 = done.fleiss.ci95;
            kind.alpha.ci95 = done.alpha.ci95;
            kind.fleiss.read();
            kind.alpha.read();
            if let (Some(masi), Some(done)) = (kind.masi.as_mut(), done.masi.as_ref()) {
                masi.ci95 = done.ci95;
                masi.read();
            }
        }
    }
}

/// One task kind's agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KindDashboard {
    pub kind: TaskKind,
    /// Items with a counted answer, as `factdesk agreement` counts "units".
    pub units: u64,
    /// Items with two or more counted answers: agreement is measured on these alone.
    pub paired: u64,
    /// Counted annotators with an answer of this kind.
    pub annotators: u64,
    /// Counted ratings, as `factdesk agreement` counts "ratings".
    pub answers: u64,
    pub fleiss: Statistic,
    pub alpha: Statistic,
    /// Evidence only: Krippendorff's alpha with MASI distance over the selected sets
    /// ("no evidence" is the empty set), `setsel_masi_krippendorff_alpha`.
    pub masi: Option<Statistic>,
    /// The `factdesk agreement --json` name of `pairs`' kappa: `setsel_pooled_cohen_kappa`
    /// for evidence (per candidate sentence; `setsel_pooled_cohen_kappa_pairs` there),
    /// `cohen_kappa` otherwise (`cohen_kappa_pairs` there).
    pub pairs_metric: String,
    /// What `pairs[].units` counts: "candidate sentence" for evidence, "item" otherwise
    /// (`units` above counts items for every kind).
    pub pairs_unit: String,
    /// Cohen's kappa for each pair of counted annotators, names in sorted order, over the
    /// units both rated (per candidate sentence for evidence).
    pub pairs: Vec<PairAgreement>,
    /// Everyone who answered this kind, counted or not, by name.
    pub people: Vec<AnnotatorActivity>,
    /// Fleiss' kappa as the counted answers accumulated, oldest first.
    pub series: Vec<KappaPoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    /// Units both rated.
    pub units: u64,
    pub value: Option<f64>,
    pub reason: Option<String>,
}

/// One annotator's work on a kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AnnotatorActivity {
    pub name: String,
    /// Whether these answers count (not flagged, or included by the lead).
    pub counted: bool,
    pub flagged: bool,
    /// Current answers of this kind, counted or not.
    pub answers: u64,
    /// Of those, answers rejected because they picked the trick: shown, counted for
    /// nothing.
    pub rejected: u64,
    /// Time spent answering: each answer's own time, or the gap since the previous one
    /// when it was not measured, gaps over 5 minutes left out.
    pub active_ms: i64,
    /// Answers per hour over the last half hour, as the work screen gives it
    /// (`factdesk_core::pace`: breaks left out, at most one answer per three seconds);
    /// null with fewer than four recent answers.
    pub pace_per_hour: Option<f64>,
    /// Evidence items answered (each showed a trick) and the failed share of them.
    pub tricks_seen: u64,
    pub trick_failure_rate: Option<f64>,
    /// The Wilson 95% interval of the failure rate, [low, high]: a person is flagged when
    /// its low end is above the threshold (after enough tricks).
    pub trick_failure_ci95: Option<(f64, f64)>,
    /// Units (per candidate for evidence) where the other counted annotators had a strict
    /// majority, and the share of them where this annotator agreed with it.
    pub majority_units: u64,
    pub majority_agreement: Option<f64>,
}

/// Kappa after `answers` counted answers (the answer at `at_ms`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KappaPoint {
    pub answers: u64,
    pub at_ms: i64,
    pub value: Option<f64>,
}

/// A 95% interval, when the statistic has one.
pub type Interval = Option<(f64, f64)>;

/// One kind's intervals.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KindIntervals {
    pub fleiss: Interval,
    pub alpha: Interval,
    pub masi: Interval,
}

/// Bootstrap intervals per kind, from `factdesk agreement` on the same answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Intervals {
    /// The newest answer id when they were computed.
    pub as_of: i64,
    /// Per kind: Fleiss, alpha and (evidence) MASI alpha intervals.
    pub by_kind: BTreeMap<&'static str, KindIntervals>,
    pub studies: Vec<StudyAgreement>,
    /// The project's own design's questions, with their figures.
    pub questions: Vec<super::QuestionStatistics>,
}
