//! Serving work to annotators and taking their answers.
//!
//! An annotator asks for the next item of a kind: an item they reserved and left
//! unfinished comes back first; otherwise the first open task in their seeded order that
//! they have not answered and that is not already taken by `overlap` answers and live
//! reservations. A reservation lapses after the project's reservation time, so an absent
//! annotator blocks nobody. Every answer is committed before it is acknowledged.

mod context;
mod item;
mod study;
mod submit;

pub use context::{Check, Passage};
pub use item::{Item, ItemOption, Pace, PreviousAnswer, TextPiece};
pub use submit::{Ack, Answer};

use crate::tasks::TaskKind;
use crate::{Project, Result};
use factdesk_core::seeded::Seeded;
use factdesk_store::{annotations, assignments, reviews, tasks};
use serde::Serialize;
use ts_rs::TS;

/// The next item, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Next {
    pub item: Option<Item>,
    /// Why there is no item: all done, or waiting for the lead's review.
    pub reason: Option<String>,
}

/// An annotator's progress on one kind of task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct KindPace {
    pub kind: TaskKind,
    pub pace: Pace,
}

/// How many open tasks to look at per query while skipping ones this annotator cannot take.
const PAGE: u32 = 64;

impl Project {
    /// The next item of `kind` for annotator `name`, reserved for them.
    pub fn next_item(&mut self, name: &str, kind: TaskKind) -> Result<Next> {
        let annotator = self.annotator_row(name)?;
        let settings = self.settings()?;
        let now = self.clock.now_ms();
        if kind == TaskKind::Refute {
            if let Some(reason) = self.qualification_hold(annotator.id, &settings)? {
                return Ok(Next {
                    item: None,
                    reason: Some(reason),
                });
            }
        }
        let conn = self.store.conn();
        let task_id = match assignments::live_for(conn, annotator.id, kind.as_str(), now)? {
            Some(id) => Some(id),
            None => match self.study_next(annotator.id, kind, now)? {
                Some(id) => Some(id),
                None => self.find_open(annotator.id, &annotator.name, kind, settings.seed, now)?,
            },
        };
        let Some(task_id) = task_id else {
            return Ok(Next {
                item: None,
                reason: Some(format!("no {} items left for you", kind.as_str())),
            });
        };
        let expires = now + i64::from(settings.reservation_minutes) * 60_000;
        let tx = self.store.transaction()?;
        assignments::reserve(&tx, task_id, annotator.id, now, Some(expires), None)?;
        tx.commit()?;
        let task = self.task(task_id)?;
        Ok(Next {
            item: Some(self.build_item(&task, annotator.id)?),
            reason: None,
        })
    }

    /// The annotator's progress on every kind, reserving nothing (for the home screen).
    pub fn paces(&self, name: &str) -> Result<Vec<KindPace>> {
        let annotator = self.annotator_row(name)?;
        TaskKind::ALL
            .iter()
            .map(|&kind| {
                Ok(KindPace {
                    kind,
                    pace: self.pace(annotator.id, kind)?,
                })
            })
            .collect()
    }

    /// The item before `current` (or the last answered one), with the earlier answer,
    /// for correcting it; a new answer supersedes the old.
    pub fn previous_item(
        &mut self,
        name: &str,
        kind: TaskKind,
        current: Option<i64>,
    ) -> Result<Option<Item>> {
        let annotator = self.annotator_row(name)?;
        let Some(task_id) =
            annotations::previous_task(self.store.conn(), annotator.id, kind.as_str(), current)?
        else {
            return Ok(None);
        };
        let task = self.task(task_id)?;
        Ok(Some(self.build_item(&task, annotator.id)?))
    }

    pub(crate) fn task(&self, id: i64) -> Result<tasks::TaskRow> {
        tasks::get(self.store.conn(), id)?
            .ok_or_else(|| crate::Error::new(crate::ErrorCode::NotFound, format!("no task {id}")))
    }

    /// Whether this annotator may take `task` now: not answered by them, and fewer than
    /// `overlap` answers plus others' live reservations.
    pub(crate) fn can_take(
        &self,
        task: &tasks::TaskRow,
        annotator_id: i64,
        now: i64,
    ) -> Result<bool> {
        let conn = self.store.conn();
        if assignments::state(conn, task.id, annotator_id)?.as_deref() == Some("answered") {
            return Ok(false);
        }
        if self.study_room(task, annotator_id, now)? == Some(false) {
            return Ok(false);
        }
        let others = assignments::live_others(conn, task.id, annotator_id, now)?;
        Ok(task.answered + others < task.overlap)
    }

    fn find_open(
        &self,
        annotator_id: i64,
        name: &str,
        kind: TaskKind,
        seed: u64,
        now: i64,
    ) -> Result<Option<i64>> {
        // Each annotator starts at their own seeded point of one shuffled cycle, so the
        // order is reproducible and annotators spread over different items.
        let start = (Seeded::for_purpose(seed, &format!("start:{name}")).next_u64() >> 33) as i64;
        for wrapped in [false, true] {
            let mut after = -1;
            loop {
                let page = tasks::open_from(
                    self.store.conn(),
                    kind.as_str(),
                    start,
                    wrapped,
                    after,
                    PAGE,
                )?;
                for (task, key) in &page {
                    after = *key;
                    if self.can_take(task, annotator_id, now)? {
                        return Ok(Some(task.id));
                    }
                }
                if page.len() < PAGE as usize {
                    break;
                }
            }
        }
        Ok(None)
    }

    /// Why a refutation writer gets no new items yet, if they do not.
    fn qualification_hold(
        &self,
        annotator_id: i64,
        s: &crate::settings::Settings,
    ) -> Result<Option<String>> {
        let (written, accepted, rejected) =
            reviews::writer_counts(self.store.conn(), annotator_id)?;
        if accepted >= u64::from(s.qualification_min_accepted)
            || written < u64::from(s.qualification_items)
        {
            return Ok(None);
        }
        let pending = written - accepted - rejected;
        Ok(Some(if pending > 0 {
            format!("Your first {written} refutations are waiting for the lead's review; more items come once {} are accepted.", s.qualification_min_accepted)
        } else {
            format!("{accepted} of your first refutations were accepted; {} are needed to qualify. Ask the lead.", s.qualification_min_accepted)
        }))
    }
}
