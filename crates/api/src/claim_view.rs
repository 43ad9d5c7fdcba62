//! The data manager: a claim opened from a search hit or the list of claims, and the
//! list itself. What a claim shows depends on who asks, and the api decides it: a lead
//! sees everything (every answer, the imported label, the candidates and documents); an
//! annotator sees the claim, its tasks and their own answers only: never anyone else's
//! answer, no gold label, and neither the candidates nor the documents, whose list would
//! tell the trick apart from the real sentences of an item they are working on.

use crate::actor::Actor;
use crate::gold::QueueCandidate;
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::answer::{Response, Selection};
use factdesk_store::{annotations, tasks, Standing};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One current answer on a task, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaimAnswer {
    pub annotator: String,
    /// "sentences 2, 4", "no evidence", a label, a verdict or the written claim.
    pub summary: String,
    pub comment: Option<String>,
    /// Lead's view only: the answer picked the trick and counts for nothing.
    pub trick_failed: bool,
    /// Unix milliseconds.
    pub at: i64,
}

/// One task of the claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaimTask {
    pub task_id: i64,
    pub kind: TaskKind,
    pub overlap: u32,
    /// Counted answers so far; in an annotator's view, their own (others' answers, and
    /// the task's closing, would tick as others answer: hostile pass of session 23).
    pub answered: u32,
    /// Lead's view only; `false` in an annotator's.
    pub closed: bool,
    /// The lead's view: every current answer. An annotator's: their own only.
    pub answers: Vec<ClaimAnswer>,
}

/// A claim as the data manager shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaimView {
    /// The claim's number in the project; 0 in an annotator's view, where it would tell
    /// the import order (a refutation comes after its original).
    pub id: i64,
    /// How the person names the claim: a lead its number ("#12"), an annotator their own
    /// opaque reference, as their search hits show it.
    pub reference: String,
    /// The claim's own id, from the import (or given to a written refutation).
    pub ext_id: String,
    pub text: String,
    pub context: Option<String>,
    /// The claim a refutation was written for, by its own id.
    pub parent: Option<String>,
    /// And by its number in the project: a lead's view only.
    pub parent_number: Option<i64>,
    /// And by the person's reference of it (a lead's "#12"; an annotator's own, for a
    /// refutation they wrote).
    pub parent_reference: Option<String>,
    /// Whether this is the lead's full view.
    pub full: bool,
    /// Lead only: the label imported with the claim.
    pub label: Option<String>,
    /// Lead only: the claim's documents, by their own ids.
    pub documents: Vec<String>,
    /// Lead only: the candidate sentences, in rank order.
    pub candidates: Vec<QueueCandidate>,
    /// Lead only, beside each candidate: the rankers whose own top k held it (empty when
    /// ranked before this was recorded). Never in an annotator's or adjudicator's view:
    /// knowing which ranker put a sentence there would bias the choice, and the trick,
    /// placed by none, would stand out.
    pub candidate_rankers: Vec<Vec<String>>,
    pub tasks: Vec<ClaimTask>,
}

/// Which claims the list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ClaimStanding {
    #[default]
    Any,
    /// No open task.
    NoTasks,
    /// Some task still wants answers.
    Open,
    /// Every task has its answers.
    Complete,
}

/// One line of the list of claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaimLine {
    pub id: i64,
    pub ext_id: String,
    pub text: String,
    pub is_refutation: bool,
    pub tasks: u64,
    /// Counted answers given and wanted over the claim's open tasks.
    pub answered: u64,
    pub wanted: u64,
}

/// A page of the list, with how many claims match in all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ClaimPage {
    pub total: u64,
    pub offset: u64,
    pub lines: Vec<ClaimLine>,
}

/// The longest page the list gives.
const MAX_PAGE: u64 = 500;

impl Project {
    /// The claim `reference` names, as `actor` may see it (see the module's note): a
    /// lead names it by its number ("#12", or 12), an annotator by their own reference
    /// from a search hit (`crate::opaque`), never by its number. Anyone working on the
    /// project may open a claim.
    pub fn claim_view(&self, actor: &Actor, reference: &str) -> Result<ClaimView> {
        let name = self.member(actor)?;
        let full = actor.is_lead();
        // A lead sees every answer; anyone else only their own.
        let me = if full {
            None
        } else {
            Some(self.annotator_row(name)?.id)
        };
        // A claim an annotator has not worked on is as if it were not there.
        let not_found = || {
            Error::new(
                ErrorCode::NotFound,
                format!("no claim {} in this project", reference.trim()),
            )
        };
        let namer = self.namer(actor)?;
        let id = (self.claim_named(&namer, reference)?).ok_or_else(not_found)?;
        let claim = self.store.claim(id)?.ok_or_else(not_found)?;
        let own = if full {
            false
        } else {
            self.annotator_sight(&claim, actor)?.ok_or_else(not_found)?
        };
        let ext_id = self.shown_ext_id(&claim, full, own)?;
        // An annotator learns a claim's parent only for a refutation they wrote: for any
        // other, "refutation of" would give its label away to a correction.
        let parent = match claim.parent_id {
            Some(p) if full || own => self.store.claim(p)?.map(|c| c.ext_id),
            _ => None,
        };
        let (candidates, candidate_rankers): (Vec<QueueCandidate>, Vec<Vec<String>>) = if full {
            (self.store.candidates(id)?.into_iter())
                .map(|c| {
                    let candidate = QueueCandidate {
                        sentence_id: c.sentence_id,
                        document_id: c.document_ext_id,
                        sentence_index: c.sentence_index,
                        text: c.text,
                    };
                    (candidate, c.placed_by)
                })
                .unzip()
        } else {
            (Vec::new(), Vec::new())
        };
        let mut documents = Vec::new();
        if full {
            for d in self.store.claim_document_ids(id)? {
                documents.extend(self.store.document(d)?.map(|d| d.ext_id));
            }
        }
        let shown_tasks = self.claim_tasks(id, me, &candidates, full)?;
        // An annotator's view carries no row id: the parent is named by their reference.
        let parent_id = parent.as_ref().and(claim.parent_id);
        Ok(ClaimView {
            id: namer.number(id),
            reference: namer.reference(id),
            parent_number: parent_id.filter(|_| namer.by_number()),
            parent_reference: parent_id.map(|p| namer.reference(p)),
            ext_id,
            text: claim.text,
            context: claim.context,
            parent,
            full,
            label: if full {
                claim.label.map(|l| l.as_str().to_string())
            } else {
                None
            },
            documents,
            candidates,
            candidate_rankers,
            tasks: shown_tasks,
        })
    }

    /// The tasks of claim `id` as the claim page shows them: every one with every answer
    /// for a lead (`me` none), an annotator's answered ones with their own answer only.
    fn claim_tasks(
        &self,
        id: i64,
        me: Option<i64>,
        candidates: &[QueueCandidate],
        full: bool,
    ) -> Result<Vec<ClaimTask>> {
        let names: std::collections::HashMap<i64, String> = self
            .all_annotators()?
            .into_iter()
            .map(|a| (a.id, a.name))
            .collect();
        let mut shown_tasks = Vec::new();
        for (task, closed) in tasks::of_claim(self.store.read(), id)? {
            let answers = annotations::current_of_task(self.store.read(), task.id)?
                .into_iter()
                .filter(|a| me.is_none_or(|id| a.annotator_id == id))
                .map(|a| ClaimAnswer {
                    annotator: names.get(&a.annotator_id).cloned().unwrap_or_default(),
                    summary: summary(&a.answer.response, candidates, full),
                    comment: a.answer.comment.clone(),
                    trick_failed: full && a.trick_failed,
                    at: a.created_at,
                })
                .collect::<Vec<_>>();
            // An annotator sees the tasks they answered, not which kinds of task the claim
            // has (only a refutation has a verify task).
            if me.is_some() && answers.is_empty() {
                continue;
            }
            let (answered, closed) = match me {
                None => (task.answered, closed),
                Some(_) => (answers.len() as u32, false),
            };
            shown_tasks.push(ClaimTask {
                task_id: task.id,
                kind: task.kind,
                overlap: task.overlap,
                answered,
                closed,
                answers,
            });
        }
        Ok(shown_tasks)
    }

    /// The claims whose own id or text contains `words` (any case) or whose number
    /// `words` is ("#1234"), in the standing asked, `limit` (at most 500) from `offset`. Lead only.
    pub fn claims_list(
        &self,
        lead: &Lead,
        words: Option<&str>,
        standing: ClaimStanding,
        offset: u64,
        limit: u64,
    ) -> Result<ClaimPage> {
        self.acting_lead(lead)?;
        let words = words.map(str::trim).filter(|w| !w.is_empty());
        if let Some(words) = words {
            crate::search::bounded("words", words)?;
        }
        let standing = match standing {
            ClaimStanding::Any => Standing::Any,
            ClaimStanding::NoTasks => Standing::NoTasks,
            ClaimStanding::Open => Standing::Open,
            ClaimStanding::Complete => Standing::Complete,
        };
        let (total, rows) =
            self.store
                .claims_list(words, standing, offset, limit.clamp(1, MAX_PAGE))?;
        Ok(ClaimPage {
            total,
            offset,
            lines: rows
                .into_iter()
                .map(|r| ClaimLine {
                    id: r.id,
                    ext_id: r.ext_id,
                    text: r.text,
                    is_refutation: r.is_refutation,
                    tasks: r.tasks,
                    answered: r.answered,
                    wanted: r.wanted,
                })
                .collect(),
        })
    }
}

/// An answer in words. The lead's evidence answers name the candidates by their
/// one-based number; an annotator's own evidence answer says only that it was given,
/// since a count of its sentences would tell whether one of them was the trick.
fn summary(response: &Response, candidates: &[QueueCandidate], full: bool) -> String {
    match response {
        Response::Evidence {
            selection: Selection::NoEvidence,
        } => "no evidence".into(),
        Response::Evidence { selection } if full => {
            let numbers: Vec<String> = (candidates.iter().enumerate())
                .filter(|(_, c)| selection.ids().contains(&c.sentence_id))
                .map(|(i, _)| (i + 1).to_string())
                .collect();
            match numbers.len() {
                0 => "no candidate sentence".into(),
                1 => format!("sentence {}", numbers[0]),
                _ => format!("sentences {}", numbers.join(", ")),
            }
        }
        Response::Evidence { .. } => "sentences selected".into(),
        Response::Refute { text } => text.clone(),
        Response::Design { answers } => crate::design::summary(answers),
        Response::Verify { verdict } => verdict.as_str().into(),
        Response::Label { label } => label.as_str().into(),
    }
}
