//! The gold export's walk over the claims: each root claim's line and its refutations',
//! or why not, with the claims short of answers; and what a line says of the tasks behind
//! it (agreement, provenance).

use super::answer::Outcome;
use super::family;
use super::outcome::TaskOutcome;
use super::records::{
    DroppedClaim, GoldAgreement, GoldEvidence, GoldLine, Provenance, UnderAnnotated,
};
use super::{GoldMethod, GoldRequest};
use crate::settings::Settings;
use crate::tasks::{SkipReason, TaskKind};
use factdesk_core::answer::Judgement;
use factdesk_core::claim::Label;
use factdesk_store::ClaimRow;
use std::collections::{HashMap, HashSet};

/// The provenance of a line from the tasks behind it (evidence, label, verification): the
/// first of them the lead decided, else the aggregation method; with no task behind it
/// (a refutation-only claim beside its verified refutation, an imported refutation beside
/// its claim) nothing was aggregated, and the line is as imported.
fn provenance(method: GoldMethod, tasks: &[Option<&TaskOutcome>]) -> Provenance {
    let method = if tasks.iter().flatten().next().is_some() {
        method.as_str()
    } else {
        IMPORTED
    };
    match tasks.iter().flatten().find_map(|t| t.decision.as_ref()) {
        Some(d) => Provenance {
            method: "lead-decision".into(),
            lead: Some(d.lead.clone()),
            at: Some(d.at),
            reason: d.reason.clone(),
            category: d.category.clone(),
            taken_from: d.taken_from.clone(),
        },
        None => Provenance {
            method: method.into(),
            lead: None,
            at: None,
            reason: None,
            category: None,
            taken_from: None,
        },
    }
}

/// The provenance method of a line no answer or decision stands behind.
const IMPORTED: &str = "imported";

/// Whether a task's outcome can carry a gold line: it has counted answers, or the lead
/// decided it.
pub(super) fn settles(task: &TaskOutcome) -> bool {
    task.counted > 0 || task.decision.is_some()
}

fn agreement(task: Option<&TaskOutcome>) -> GoldAgreement {
    GoldAgreement {
        answers: task.map_or(0, |t| t.counted),
        share_agreeing: task.and_then(|t| t.share_agreeing),
        under_annotated: false,
    }
}

/// How much of the export a walk gathers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// Everything: lines, dropped claims, under-annotated claims.
    Lines,
    /// The same lines, dropped and under-annotated claims, each line without its
    /// evidence sentences (none is read): for what needs only the labels and the drops.
    Labels,
    /// The under-annotated claims; lines and dropped claims only as far as they decide
    /// which refutations are listed.
    UnderAnnotated,
}

/// What a walk gathered.
pub(super) struct Walked {
    pub(super) lines: Vec<GoldLine>,
    pub(super) dropped: Vec<DroppedClaim>,
    pub(super) under: Vec<UnderAnnotated>,
}

/// The gold export's walk over the root claims, gathering lines, dropped claims and the
/// under-annotated ones.
pub(super) struct Walk<'w, 'a> {
    pub(super) req: &'w GoldRequest,
    pub(super) settings: &'w Settings,
    pub(super) known: &'w Known<'a>,
    pub(super) sentences: &'w HashMap<i64, GoldEvidence>,
    pub(super) method: GoldMethod,
    /// Whether each claim is walked past its own count (see [`Project::walk`]).
    pub(super) whole: bool,
    pub(super) lines: Vec<GoldLine>,
    pub(super) dropped: Vec<DroppedClaim>,
    pub(super) under: Vec<UnderAnnotated>,
    pub(super) texts: family::Texts,
}

impl<'a> Walk<'_, 'a> {
    /// A root claim's line (in `split`) and its refutations', or why not.
    pub(super) fn claim(&mut self, claim: &ClaimRow, split: String, children: &[ClaimRow]) {
        // A task a line rests on needs counted answers or the lead's decision: one
        // whose answers were all rejected (the trick) or left out (flagged) settles
        // nothing, as if it had no answers yet.
        let any_evidence = self.known.task(TaskKind::Evidence, claim.id);
        let task = any_evidence.filter(|t| settles(t));
        let label_task = self
            .known
            .task(TaskKind::Label, claim.id)
            .filter(|t| settles(t));
        let refutation_only = !self.known.with_evidence_task.contains(&claim.id);
        let label = match label_task.map(|t| &t.outcome) {
            Some(Outcome::Label {
                label: Judgement::Label(label),
            }) => Some(*label),
            Some(_) => None,
            None => claim.label,
        };
        let (family, family_dropped) = self.known.family(children, refutation_only);
        let short = super::thin::short(&[task, label_task]);
        if let Some(t) = short {
            self.under.push(super::thin::listed(claim, t));
        }
        if !self.whole {
            return;
        }
        if short.is_some() && !self.req.include_under_annotated {
            for (child, _) in &family {
                self.dropped
                    .push(drop_of(child, super::thin::PARENT_HELD_BACK));
            }
            self.dropped.extend(family_dropped);
            return;
        }
        let root = family::Root {
            label,
            evidence: task.map(|t| &t.outcome),
            label_task: label_task.is_some(),
            refutation_only,
            children: children.len(),
            family: family.len(),
            uncounted: any_evidence.map_or(0, |t| t.answers.len()),
            no_evidence_task: self.known.no_evidence_task.get(&claim.id).copied(),
            // Read only where a reason names it: a claim with no work at all.
            too_long: refutation_only
                && family.is_empty()
                && children.is_empty()
                && crate::tasks::too_long(&claim.text, self.settings),
        };
        let mut key = None;
        let reason = match family::drop_reason(&root, self.settings) {
            Some(reason) => Some(reason),
            None => {
                let text_key = family::Texts::key(&claim.text);
                let same = self.texts.same_as(&text_key).map(family::same_claim);
                key = Some(text_key);
                same
            }
        };
        let label = match (reason, label) {
            (None, Some(label)) => label,
            // A claim without a label always has a reason to drop it.
            (reason, _) => {
                let reason = reason.unwrap_or_else(|| "no label".into());
                self.dropped.push(drop_of(claim, &reason));
                for (child, _) in &family {
                    self.dropped
                        .push(drop_of(child, "its original claim was dropped"));
                }
                self.dropped.extend(family_dropped);
                return;
            }
        };
        self.dropped.extend(family_dropped);
        let evidence = match task.map(|t| &t.outcome) {
            Some(Outcome::Evidence { sentences: ids }) => ids
                .iter()
                .filter_map(|id| self.sentences.get(id).cloned())
                .collect(),
            _ => Vec::new(),
        };
        let deciding = task.or(label_task);
        let mut agreement = agreement(deciding);
        agreement.under_annotated = short.is_some();
        self.lines.push(GoldLine {
            id: claim.ext_id.clone(),
            claim: claim.text.clone(),
            label,
            evidence: evidence.clone(),
            context: claim.context.clone(),
            source_url: claim.source_url.clone(),
            parent_id: None,
            split,
            agreement,
            provenance: provenance(self.method, &[task, label_task]),
            task_id: deciding.map_or(0, |t| t.task_id),
            row_id: claim.id,
        });
        let key = key.unwrap_or_else(|| family::Texts::key(&claim.text));
        self.texts.keep(key, &claim.ext_id);

        let root = self.lines.len() - 1;
        self.refutations(root, family, label, refutation_only, task);
    }

    /// The lines of a root claim's refutations (`family`, with their verification),
    /// after the root's line at `root`.
    fn refutations(
        &mut self,
        root: usize,
        family: Vec<(&ClaimRow, Option<&'a TaskOutcome>)>,
        label: Label,
        refutation_only: bool,
        task: Option<&'a TaskOutcome>,
    ) {
        for (child, verify) in family {
            if let Err(reason) =
                family::refutation_of(label, refutation_only, &mut self.texts, child)
            {
                self.dropped.push(drop_of(child, &reason));
                continue;
            }
            let short_verify = super::thin::short(&[verify]);
            if let Some(v) = short_verify {
                self.under.push(super::thin::listed(child, v));
                if !self.req.include_under_annotated {
                    continue;
                }
            }
            let mut line = refutation_line(&self.lines[root], child, verify, task, self.method);
            // A refutation's line rests on its original's evidence and its own
            // verification: short on either, it is marked.
            line.agreement.under_annotated |=
                self.lines[root].agreement.under_annotated || short_verify.is_some();
            self.lines.push(line);
        }
    }
}

/// The line of a refutation that stands beside its original claim's line `root`.
fn refutation_line(
    root: &GoldLine,
    child: &ClaimRow,
    verify: Option<&TaskOutcome>,
    evidence_task: Option<&TaskOutcome>,
    method: GoldMethod,
) -> GoldLine {
    let deciding = (root.task_id != 0).then_some(root.task_id);
    GoldLine {
        id: child.ext_id.clone(),
        claim: child.text.clone(),
        // A supported claim's gold evidence refutes its accepted refutations (only a
        // supported claim's refutations are exported: `family::refutation_of`).
        evidence: root.evidence.clone(),
        label: child.label.unwrap_or(Label::Refuted),
        context: child.context.clone(),
        source_url: child.source_url.clone(),
        parent_id: Some(root.id.clone()),
        split: root.split.clone(),
        agreement: match verify {
            Some(v) => agreement(Some(v)),
            None => root.agreement.clone(),
        },
        provenance: provenance(method, &[verify, evidence_task]),
        // The evidence task, as FEVER's annotation id; without one, the verification
        // that made the line.
        task_id: evidence_task
            .or(verify)
            .map(|t| t.task_id)
            .or(deciding)
            .unwrap_or(0),
        row_id: child.id,
    }
}

/// Each task's outcome by (kind, claim), and why claims got no work.
pub(super) struct Known<'a> {
    pub(super) by_claim: HashMap<(TaskKind, i64), &'a TaskOutcome>,
    pub(super) with_evidence_task: HashSet<i64>,
    /// Refutations with a verify task: they wait for its verdict (a model's counter-claims
    /// always have one), answered or not.
    pub(super) with_verify_task: HashSet<i64>,
    pub(super) no_evidence_task: HashMap<i64, SkipReason>,
}

impl<'a> Known<'a> {
    fn task(&self, kind: TaskKind, claim_id: i64) -> Option<&'a TaskOutcome> {
        self.by_claim.get(&(kind, claim_id)).copied()
    }

    /// A claim's refutations that may become gold lines, with their verification, and
    /// the others with why not.
    fn family<'c>(
        &self,
        children: &'c [ClaimRow],
        refutation_only: bool,
    ) -> (
        Vec<(&'c ClaimRow, Option<&'a TaskOutcome>)>,
        Vec<DroppedClaim>,
    ) {
        let mut family = Vec::new();
        let mut dropped = Vec::new();
        for child in children {
            let verify = self.task(TaskKind::Verify, child.id);
            let must_verify = refutation_only || self.with_verify_task.contains(&child.id);
            match family::refutation_verdict(child, verify, must_verify) {
                Ok(()) => family.push((child, verify)),
                Err(reason) => dropped.push(drop_of(child, &reason)),
            }
        }
        (family, dropped)
    }
}

pub(super) fn drop_of(claim: &ClaimRow, reason: &str) -> DroppedClaim {
    DroppedClaim {
        id: claim.ext_id.clone(),
        number: claim.id,
        claim: claim.text.clone(),
        reason: reason.to_string(),
    }
}
