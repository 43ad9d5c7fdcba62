//! The dashboard's names for its statistics, and what needs a full pass over the answers:
//! bootstrap intervals and re-annotation studies, computed as `factdesk agreement` does.

use super::{Dashboard, DashboardState, Intervals, KindIntervals, KINDS};
use crate::actor::Actor;
use crate::agreement::{kinds_with_answers_in, AgreementReport, AgreementRequest};
use crate::current::CurrentAnswers;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Project, Result};
use factdesk_store::feed;
use std::collections::BTreeMap;

/// The `factdesk agreement --json` name of alpha with MASI distance over evidence sets.
pub const MASI_METRIC: &str = "setsel_masi_krippendorff_alpha";

/// The `factdesk agreement --json` names of the dashboard's two statistics for a kind:
/// evidence is scored per (claim, candidate) unit, as DESIGN.md defines it.
pub fn metric_names(kind: TaskKind) -> (&'static str, &'static str) {
    if kind == TaskKind::Evidence {
        (
            "setsel_pooled_fleiss_kappa",
            "setsel_pooled_krippendorff_alpha_nominal",
        )
    } else {
        ("fleiss_kappa", "krippendorff_alpha_nominal")
    }
}

/// The `factdesk agreement --json` name of the dashboard's pairwise Cohen's kappa for a
/// kind: per (claim, candidate) unit for evidence, as its Fleiss' kappa.
pub fn pair_metric_name(kind: TaskKind) -> &'static str {
    if kind == TaskKind::Evidence {
        "setsel_pooled_cohen_kappa"
    } else {
        "cohen_kappa"
    }
}

/// What one unit of [`pair_metric_name`]'s kappa is, in words: each pair agrees or not
/// on each candidate sentence for evidence, on each item otherwise.
pub fn pair_unit_name(kind: TaskKind) -> &'static str {
    if kind == TaskKind::Evidence {
        "candidate sentence"
    } else {
        "item"
    }
}

impl Project {
    /// Whether `actor` may follow the moments answers are committed (a team server's event
    /// stream): a lead's dashboard may; an annotator would learn when each other person
    /// answers.
    pub fn may_follow_answers(&self, actor: &Actor) -> Result<()> {
        self.as_lead(
            actor,
            "follow the event stream: it is the lead's dashboard's",
        )
        .map(drop)
    }

    /// The newest annotation id (0 with none): a cheap probe for new answers.
    pub fn last_annotation_id(&self, lead: &Lead) -> Result<i64> {
        self.acting_lead(lead)?;
        Ok(feed::last_id(self.store.read())?)
    }

    /// Bootstrap intervals of the dashboard's statistics, exactly as `factdesk agreement`
    /// computes them (same seed and replicates); a full pass over the answers.
    pub fn dashboard_intervals(&self, lead: &Lead, req: &AgreementRequest) -> Result<Intervals> {
        self.acting_lead(lead)?;
        let as_of = self.last_annotation_id(lead)?;
        let mut by_kind = BTreeMap::new();
        let mut studies = Vec::new();
        let read = CurrentAnswers::read(self)?;
        let with_answers = kinds_with_answers_in(&read);
        for kind in KINDS {
            if with_answers.contains(&kind) {
                let report = self.agreement_in(lead, &read, kind, req)?;
                by_kind.insert(kind.as_str(), kind_intervals(kind, &report));
                studies.extend(report.studies);
            } else {
                studies.extend(self.study_agreements_in(lead, &read, Some(kind), req)?);
            }
        }
        studies.sort_by_key(|s| s.study.id);
        let questions = self
            .design_agreement_in(&read, req)?
            .map(|d| super::question_statistics(&d))
            .unwrap_or_default();
        Ok(Intervals {
            as_of,
            by_kind,
            studies,
            questions,
        })
    }

    /// The whole dashboard at once, intervals included (for reports and scripts).
    pub fn dashboard(&self, lead: &Lead, req: &AgreementRequest) -> Result<Dashboard> {
        self.acting_lead(lead)?;
        let mut state = DashboardState::new();
        state.refresh(self, lead)?;
        state.set_intervals(self.dashboard_intervals(lead, req)?);
        Ok(state.snapshot(self.clock.now_ms()))
    }
}

/// The dashboard's intervals of one kind, from its `factdesk agreement` report.
pub(crate) fn kind_intervals(kind: TaskKind, report: &AgreementReport) -> KindIntervals {
    let (fleiss, alpha) = metric_names(kind);
    let ci = |name: &str| report.metrics.get(name).and_then(|m| m.ci95);
    KindIntervals {
        fleiss: ci(fleiss),
        alpha: ci(alpha),
        masi: ci(MASI_METRIC),
    }
}
