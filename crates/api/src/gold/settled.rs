//! A claim's settled evidence: the evidence its gold line would carry now under the
//! default gold request (strict majority, flagged annotators left out, claims short of
//! answers held back), which is what a label item is judged against. It is worked out
//! for the one claim with the aggregation's own rules and functions, so serving an item
//! does not read every answer in the project.

use super::answer::{Decision, Outcome, QueueAnswer};
use super::outcome::{counts, needed_answers, settle, share_agreeing, Pending, TaskOutcome};
use super::{GoldMethod, GoldRequest};
use crate::annotate::EvidenceState;
use crate::settings::Settings;
use crate::tasks::TaskKind;
use crate::{Project, Result};
use factdesk_store::tasks::TaskRow;
use factdesk_store::{annotations, decisions, feed, studies};
use std::collections::{HashMap, HashSet};

/// A claim's settled evidence with how it was settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SettledEvidence {
    pub state: EvidenceState,
    /// (sentence id, text) in candidate order for a settled outcome, in document order
    /// for imported evidence; empty when the evidence step settled on no evidence or
    /// nothing is settled.
    pub sentences: Vec<(i64, String)>,
}

impl SettledEvidence {
    fn unsettled(state: EvidenceState) -> SettledEvidence {
        SettledEvidence {
            state,
            sentences: Vec::new(),
        }
    }
}

/// The document name an import gives the evidence sentences that came with a claim.
pub(crate) const IMPORTED_EVIDENCE_PREFIX: &str = "evidence:";

impl Project {
    /// The evidence claim `claim_id`'s gold line would carry now, by the export's rules
    /// (docs/export.md): its evidence task's outcome when it has one, the lead's decision
    /// first, and nothing while that task is short of counted answers or has no strict
    /// majority; without an evidence task, the evidence it was imported with. A
    /// refutation's is its original claim's.
    pub(crate) fn settled_evidence(
        &self,
        claim_id: i64,
        settings: &Settings,
    ) -> Result<SettledEvidence> {
        // A refutation's gold line carries its original claim's evidence.
        let claim_id = match self.store.claim(claim_id)? {
            Some(claim) => claim.parent_id.unwrap_or(claim_id),
            None => claim_id,
        };
        let conn = self.store.read();
        let task = factdesk_store::tasks::of_claim(conn, claim_id)?
            .into_iter()
            .map(|(task, _closed)| task)
            .find(|t| t.kind == TaskKind::Evidence);
        let Some(task) = task else {
            return self.imported_evidence(claim_id);
        };
        let req = GoldRequest::default();
        let Some(outcome) = self.evidence_outcome(&task, settings, &req)? else {
            return Ok(SettledEvidence::unsettled(EvidenceState::NotSettled));
        };
        let held_back = super::thin::short(&[Some(&outcome)]).is_some();
        if !super::walk::settles(&outcome) || (held_back && !req.include_under_annotated) {
            return Ok(SettledEvidence::unsettled(EvidenceState::NotSettled));
        }
        let state = match outcome.decision {
            Some(_) => EvidenceState::Adjudicated,
            None => EvidenceState::Majority,
        };
        let ids = match &outcome.outcome {
            Outcome::Evidence { sentences } => sentences.clone(),
            Outcome::NoEvidence => Vec::new(),
            Outcome::NoGoldEvidence
            | Outcome::Label { .. }
            | Outcome::NoMajority
            | Outcome::Answers { .. } => {
                return Ok(SettledEvidence::unsettled(EvidenceState::NotSettled))
            }
        };
        let texts: HashMap<i64, String> = self
            .store
            .sentences(&ids)?
            .into_iter()
            .map(|s| (s.id, s.text))
            .collect();
        // A sentence no longer in the project is left out, as the gold line leaves it out.
        let sentences = ids
            .into_iter()
            .filter_map(|id| texts.get(&id).map(|t| (id, t.clone())))
            .collect();
        Ok(SettledEvidence { state, sentences })
    }

    /// The sentences a claim without an evidence task was imported with: the document the
    /// import made of its `evidence` field.
    fn imported_evidence(&self, claim_id: i64) -> Result<SettledEvidence> {
        let mut imported = Vec::new();
        for id in self.store.claim_document_ids(claim_id)? {
            let doc = self.store.document(id)?;
            if doc.is_some_and(|d| d.ext_id.starts_with(IMPORTED_EVIDENCE_PREFIX)) {
                imported.push(id);
            }
        }
        let sentences = self.store.document_sentences(&imported)?;
        Ok(match sentences.is_empty() {
            true => SettledEvidence::unsettled(EvidenceState::NoEvidenceStep),
            false => SettledEvidence {
                state: EvidenceState::Imported,
                sentences,
            },
        })
    }

    /// One evidence task's outcome as [`Project::aggregate_in`] gives it under `req` with
    /// the strict majority, which settles each task on its own answers (Dawid-Skene, an
    /// export's choice, weighs every task together), read for that task alone; `None`
    /// when it has no current answer, as the aggregation lists only answered tasks.
    fn evidence_outcome(
        &self,
        task: &TaskRow,
        settings: &Settings,
        req: &GoldRequest,
    ) -> Result<Option<TaskOutcome>> {
        let conn = self.store.read();
        let rows = annotations::current_of_task(conn, task.id)?;
        if rows.is_empty() {
            return Ok(None);
        }
        let pool_studies = settings.study_answers_in_gold;
        let people: HashMap<i64, (String, bool)> = self
            .all_annotators()?
            .into_iter()
            .map(|a| {
                let counted = a.counts_with(req.include_flagged);
                (a.id, (a.name, counted))
            })
            .collect();
        let in_study: HashSet<i64> = studies::member_items(conn)?
            .into_iter()
            .filter(|(t, _)| *t == task.id)
            .map(|(_, annotator)| annotator)
            .collect();
        // Only the overlap the task had before a study is read here; the annotator and
        // time given do not change it.
        let base = studies::item_room(conn, task.id, 0, 0)?.map(|r| r.base_overlap);
        let mut answers: Vec<QueueAnswer> = rows
            .into_iter()
            .map(|a| {
                let (name, counted) = people.get(&a.annotator_id).cloned().unwrap_or_default();
                let study = in_study.contains(&a.annotator_id);
                QueueAnswer {
                    annotation_id: a.id,
                    annotator: name,
                    counted: counts(counted, a.trick_failed, study, pool_studies),
                    in_study: study,
                    rejected: a.trick_failed,
                    answer: a.answer.response,
                    comment: a.answer.comment,
                    trick_failed: a.trick_failed,
                }
            })
            .collect();
        answers.sort_by_key(|a| a.rejected);
        let pending = Pending {
            task_id: task.id,
            claim_id: task.claim_id,
            answers,
            candidates: feed::candidate_ids_of(conn, task.claim_id)?,
        };
        let (outcomes, _) = settle(
            TaskKind::Evidence,
            std::slice::from_ref(&pending),
            GoldMethod::Majority,
            req.seed,
        );
        let decision = decisions::latest(conn)?
            .into_iter()
            .find(|d| d.task_id == task.id && d.answer.is_some())
            .and_then(|d| Decision::from_row(&d, &pending.answers));
        let outcome = match &decision {
            Some(d) => super::answer::from_answer(&d.answer),
            None => outcomes
                .into_iter()
                .next()
                .unwrap_or(Outcome::NoGoldEvidence),
        };
        let counted: Vec<&QueueAnswer> = pending.answers.iter().filter(|a| a.counted).collect();
        Ok(Some(TaskOutcome {
            task_id: task.id,
            kind: TaskKind::Evidence,
            claim_id: task.claim_id,
            counted: counted.len() as u32,
            needed: needed_answers(task.overlap, base, pool_studies),
            share_agreeing: share_agreeing(&counted, &outcome),
            rejected: pending.answers.iter().filter(|a| a.rejected).count() as u32,
            answers: pending.answers,
            outcome,
            decision,
        }))
    }
}
