//! Serving work to annotators and taking their answers.
//!
//! An annotator asks for the next item of a kind: an item they reserved and left
//! unfinished comes back first; otherwise the first open task in the project's seeded
//! order that they have not answered and that is not already taken by `overlap` counted
//! answers and live reservations. By default everyone walks the same order, so an item
//! fills to its overlap before a new one opens and agreement is measurable from the first
//! answers; `routing = spread` starts each annotator at their own seeded point instead.
//! A reservation lapses after the project's reservation time, so an absent annotator
//! blocks nobody; a pack's reservations stay the pack's. Finding and reserving happen in
//! one write transaction, as does checking and storing an answer, so racing annotators
//! never take more slots than an item has. A skipped item is released at once and comes
//! back to the one who skipped it only when nothing new is left for them.

mod by_question;
mod context;
mod item;
mod shape;
mod study;
mod submit;
mod trick_place;

pub(crate) use by_question::by_fields;
pub use by_question::{ByQuestion, Given};
pub use context::{Check, Passage};
pub use item::{EvidenceState, Item, ItemOption, Pace, PreviousAnswer, TextPiece};
pub(crate) use shape::{check_shape, Shaped};
pub use shape::{Ack, Answer};
pub(crate) use submit::{Checked, MAX_DURATION_MS};

use crate::actor::Actor;
use crate::settings::Routing;
use crate::tasks::TaskKind;
use crate::{Project, Result};
use factdesk_core::seeded::Seeded;
use factdesk_store::tasks::Hold;
use factdesk_store::{annotations, assignments, reviews, serving, tasks};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The next item, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Next {
    pub item: Option<Item>,
    /// Why there is no item: all done, or waiting for the lead's review.
    pub reason: Option<String>,
}

/// An annotator's progress on one kind of task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KindPace {
    pub kind: TaskKind,
    pub pace: Pace,
}

/// The person asking, with the project's settings and secret: what serving and answering
/// read first, in one statement.
pub(crate) struct AtWork {
    pub annotator: factdesk_store::annotators::AnnotatorRow,
    pub settings: crate::settings::Settings,
    pub secret: Vec<u8>,
}

impl Project {
    pub(crate) fn at_work(&self, name: &str) -> Result<AtWork> {
        let name = crate::annotators::name_of(name);
        let work = serving::at_work(self.store.read(), name)?.ok_or_else(|| {
            crate::Error::new(
                crate::ErrorCode::NotFound,
                format!("no annotator called {name:?}"),
            )
        })?;
        Ok(AtWork {
            annotator: work.annotator,
            settings: crate::settings::from_json(work.settings),
            secret: work.secret,
        })
    }
}

/// How many open tasks to look at per query while waiting for busy ones.
const PAGE: u32 = 16;

/// The first task of `kind` this annotator may take, walking the shuffled order from
/// `start` and wrapping around once, reserved for them until `expires`. Each step holds
/// the next open task nobody else holds and reserves it when it still has room (two
/// statements); on PostgreSQL a task another decision holds at that moment is passed by,
/// and only when nothing else is left are those waited for ([`find_busy`]), so a busy
/// item is never reported as no item.
fn find_open(
    conn: &factdesk_store::Tx<'_>,
    annotator_id: i64,
    kind: TaskKind,
    start: i64,
    (now, expires): (i64, i64),
) -> Result<Option<tasks::TaskRow>> {
    for (from, before) in [(start, i64::MAX), (0, start)] {
        let mut after = (from, i64::MIN);
        while let Some(taken) = serving::take_open(conn, kind, annotator_id, after, before, now)? {
            after = (taken.shuffle_key, taken.task.id);
            let id = taken.task.id;
            if !taken.in_study {
                if serving::reserve_if_room(conn, id, annotator_id, now, Some(expires))? {
                    return Ok(Some(taken.task));
                }
            } else if tasks::has_room(conn, id, annotator_id, now)?
                && open_to(conn, id, annotator_id, now)?
            {
                assignments::reserve(conn, id, annotator_id, now, Some(expires), None)?;
                return Ok(Some(taken.task));
            }
        }
    }
    // A file's transaction holds the whole project: no task was passed by as busy.
    if conn.engine() != factdesk_store::Engine::Postgres {
        return Ok(None);
    }
    let Some(id) = find_busy(conn, annotator_id, kind, start, now)? else {
        return Ok(None);
    };
    assignments::reserve(conn, id, annotator_id, now, Some(expires), None)?;
    Ok(tasks::get(conn, id)?)
}

/// [`find_open`]'s last resort on PostgreSQL: the same walk, page by page, holding each
/// task it can at once and then waiting, in order, for those other decisions held.
fn find_busy(
    conn: &factdesk_store::Read,
    annotator_id: i64,
    kind: TaskKind,
    start: i64,
    now: i64,
) -> Result<Option<i64>> {
    let mut busy = Vec::new();
    for (from, before) in [(start, i64::MAX), (0, start)] {
        let mut after = (from, i64::MIN);
        loop {
            let page =
                tasks::open_for_annotator(conn, kind, annotator_id, after, before, now, PAGE)?;
            for &(id, key) in &page {
                after = (key, id);
                match tasks::hold_if_room(conn, id, annotator_id, now)? {
                    Hold::Room if open_to(conn, id, annotator_id, now)? => return Ok(Some(id)),
                    Hold::Room | Hold::Full => {}
                    Hold::Busy => busy.push(id),
                }
            }
            if page.len() < PAGE as usize {
                break;
            }
        }
    }
    for id in busy {
        tasks::lock(conn, id)?;
        if tasks::has_room(conn, id, annotator_id, now)? && open_to(conn, id, annotator_id, now)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

fn nothing_left(kind: TaskKind) -> Next {
    Next {
        item: None,
        reason: Some(format!("no {} items left for you", kind.as_str())),
    }
}

/// Whether a task with room is open to this annotator as far as a study is concerned.
fn open_to(conn: &factdesk_store::Read, id: i64, annotator_id: i64, now: i64) -> Result<bool> {
    let Some(task) = tasks::get(conn, id)? else {
        return Ok(false);
    };
    Ok(study::room(conn, &task, annotator_id, now)? != Some(false))
}

/// The item this annotator skipped longest ago that has a place for them, a study's
/// kept places respected as for any other item.
fn skipped_with_room(
    conn: &factdesk_store::Read,
    annotator_id: i64,
    kind: TaskKind,
    now: i64,
) -> Result<Option<i64>> {
    let Some(id) = tasks::skipped_with_room(conn, kind, annotator_id, now)? else {
        return Ok(None);
    };
    // Waited for if busy: this is the last place an item can come from.
    tasks::lock(conn, id)?;
    if !tasks::has_room(conn, id, annotator_id, now)? {
        return Ok(None);
    }
    Ok(open_to(conn, id, annotator_id, now)?.then_some(id))
}

/// How long an ask for the next item that found nothing is answered so again without a
/// search. Finding nothing walks every open task of the kind, each checked against the
/// person's rules (60–70 ms at 9,740 label items), and one annotator asking from 16
/// sessions at once slowed a colleague's next item from 3.7 ms to 623 ms (hostile pass
/// of session 24). An item that opens meanwhile (new tasks, a reservation expired or
/// released) is served at most this much later.
pub const NOTHING_STANDS_MS: i64 = 2_000;

impl Project {
    /// The next item of `kind` for the acting person, reserved for them.
    pub fn next_item(&mut self, actor: &Actor, kind: TaskKind) -> Result<Next> {
        self.retrying(|p| p.next_item_once(actor, kind))
    }

    fn next_item_once(&mut self, actor: &Actor, kind: TaskKind) -> Result<Next> {
        let name = self.member(actor)?;
        let work = self.at_work(name)?;
        let (annotator, settings) = (&work.annotator, &work.settings);
        let now = self.clock.now_ms();
        if kind == TaskKind::Refute {
            if let Some(reason) = self.qualification_hold(annotator.id, settings)? {
                return Ok(Next {
                    item: None,
                    reason: Some(reason),
                });
            }
        }
        let start = match settings.routing {
            Routing::FillFirst => 0,
            Routing::Spread => {
                (Seeded::for_purpose(settings.seed, &format!("start:{}", annotator.name))
                    .next_u64()
                    >> 33) as i64
            }
        };
        let expires = now + i64::from(settings.reservation_minutes) * 60_000;
        let key = (annotator.id, kind);
        let searched = (self.nothing_until).with(|n| n.get(&key).copied().unwrap_or_default());
        if now < searched.nothing {
            return Ok(nothing_left(kind));
        }
        let tx = self.store.decision(annotator.id)?;
        let (live, member) = serving::live_or_member(&tx, annotator.id, kind, now)?;
        // The task, and whether it still needs reserving (find_open reserves what it finds).
        let chosen = match live {
            Some(id) => serving::lock_task(&tx, id)?.map(|t| (t, true)),
            None => {
                let from_study = if member {
                    study::next_for_member(&tx, annotator.id, kind, now)?
                } else {
                    None
                };
                match from_study {
                    Some(id) => tasks::get(&tx, id)?.map(|t| (t, true)),
                    None => {
                        // With nothing new found within the last two seconds, straight to
                        // the skipped items: one who skipped everything searched every
                        // open task on each ask (70-107 ms at 9,694 items, third hostile
                        // pass of session 24).
                        let new = if now < searched.nothing_new {
                            None
                        } else {
                            find_open(&tx, annotator.id, kind, start, (now, expires))?
                        };
                        match new {
                            Some(task) => Some((task, false)),
                            None => {
                                if now >= searched.nothing_new {
                                    self.nothing_until.with(|n| {
                                        n.entry(key).or_default().nothing_new =
                                            now + NOTHING_STANDS_MS;
                                    });
                                }
                                match skipped_with_room(&tx, annotator.id, kind, now)? {
                                    Some(id) => tasks::get(&tx, id)?.map(|t| (t, true)),
                                    None => None,
                                }
                            }
                        }
                    }
                }
            }
        };
        let Some((task, to_reserve)) = chosen else {
            (self.nothing_until)
                .with(|n| n.entry(key).or_default().nothing = now + NOTHING_STANDS_MS);
            return Ok(nothing_left(kind));
        };
        if to_reserve {
            assignments::reserve(&tx, task.id, annotator.id, now, Some(expires), None)?;
        }
        tx.commit()?;
        Ok(Next {
            item: Some(self.build_item_with(&task, annotator.id, settings, &work.secret)?),
            reason: None,
        })
    }

    /// Skips an item the acting person holds: their reservation is released in one
    /// transaction and the item goes back to the pool for others. Like an ignored example
    /// in Prodigy, it is not served to them again while anything new is left; after that
    /// their skipped items come back, oldest skip first. Skipping an item they answered
    /// (or one a pack holds) changes nothing: false.
    pub fn skip_item(&mut self, actor: &Actor, task_id: i64) -> Result<bool> {
        let name = self.member(actor)?;
        let annotator = self.annotator_row(name)?;
        self.task(task_id)?;
        let now = self.clock.now_ms();
        let tx = self.store.decision(annotator.id)?;
        let released = assignments::release(&tx, task_id, annotator.id, now)?;
        tx.commit()?;
        Ok(released)
    }

    /// The annotator's progress on every kind, reserving nothing (for the home screen).
    pub fn paces(&self, actor: &Actor) -> Result<Vec<KindPace>> {
        let name = self.member(actor)?;
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
        actor: &Actor,
        kind: TaskKind,
        current: Option<i64>,
    ) -> Result<Option<Item>> {
        let name = self.member(actor)?;
        let annotator = self.annotator_row(name)?;
        let Some(task_id) =
            annotations::previous_task(self.store.read(), annotator.id, kind, current)?
        else {
            return Ok(None);
        };
        let task = self.task(task_id)?;
        Ok(Some(self.build_item(&task, annotator.id)?))
    }

    pub(crate) fn task(&self, id: i64) -> Result<tasks::TaskRow> {
        tasks::get(self.store.read(), id)?
            .ok_or_else(|| crate::Error::new(crate::ErrorCode::NotFound, format!("no task {id}")))
    }

    /// Why a refutation writer gets no new items yet, if they do not.
    fn qualification_hold(
        &self,
        annotator_id: i64,
        s: &crate::settings::Settings,
    ) -> Result<Option<String>> {
        let (written, accepted, rejected) =
            reviews::writer_counts(self.store.read(), annotator_id)?;
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
