//! Working in a pack on the annotator's laptop: its items in order, going back, the pace,
//! "show in document", and answers and problem reports stored in the pack, each committed
//! before it is acknowledged. The same DTOs as a project's, so the screens do not tell them apart.

use super::{read_manifest, Manifest};
use crate::actor::Actor;
use crate::annotate::{Ack, Answer, Item, KindPace, Next, Pace, Passage, PreviousAnswer};
use crate::annotators::{Person, Role};
use crate::dto::{Overview, Stats};
use crate::tasks::TaskKind;
use crate::{Clock, Error, ErrorCode, Result};
use factdesk_store::pack_store::{self, PackAnswerRow, PackFile, PackItemRow};
use std::path::{Path, PathBuf};

/// An open pack.
#[derive(Debug)]
pub struct PackSession {
    file: PackFile,
    /// Boxed: the app holds a session or a project in one place, and these are large.
    manifest: Box<Manifest>,
    clock: Box<dyn Clock>,
    /// Items skipped while the pack is open, oldest first: they stay the pack's (nobody
    /// else can take them offline) and come back once nothing else is left.
    skipped: Vec<i64>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, msg)
}

fn damaged(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::Database, format!("the pack is damaged: {what}"))
}

impl PackSession {
    /// Opens the pack at `path` to work in.
    pub fn open(path: &Path, clock: Box<dyn Clock>) -> Result<PackSession> {
        let file = PackFile::open(path)?;
        let (manifest, _, _) = read_manifest(file.read(), path)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotAProject,
                format!("{} is not a pack (it has no manifest)", path.display()),
            )
        })?;
        Ok(PackSession {
            file,
            manifest: Box::new(manifest),
            clock,
            skipped: Vec::new(),
        })
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The home screen's overview: the pack's name, how many items it holds and how many
    /// its holder answered. Its own progress only: the project's counts stay with the
    /// lead ([`crate::Project::stats`]).
    pub fn overview(&self) -> Result<Overview> {
        let conn = self.file.read();
        let items = pack_store::items(conn)?.len() as u64;
        let answers = pack_store::answers(conn)?.len() as u64;
        Ok(Overview {
            id: self.manifest.pack_id.clone(),
            name: format!("Pack for {}", self.manifest.annotator),
            path: self.path().display().to_string(),
            schema_version: pack_store::PACK_VERSION as u32,
            stats: Some(Stats {
                claims: 0,
                root_claims: 0,
                refutations: 0,
                documents: 0,
                sentences: 0,
                candidates: 0,
                tasks: items,
                annotations: answers,
                annotators: 1,
            }),
        })
    }

    /// Only the pack's annotator works in it.
    pub fn people(&self) -> Vec<Person> {
        vec![Person {
            name: self.manifest.annotator.clone(),
            role: Role::Annotator,
            // A pack opens for its holder alone, with no password.
            has_password: false,
        }]
    }

    pub fn person(&self, name: &str) -> Result<Person> {
        self.require_owner(name)?;
        Ok(self.people().remove(0))
    }

    /// The person working in the pack: its holder, and no one else.
    pub fn actor(&self, name: &str) -> Result<Actor> {
        self.require_owner(name)?;
        Ok(Actor::holder(
            &self.manifest.pack_id,
            &self.manifest.annotator,
        ))
    }

    /// The gate of the pack's work: its holder, resolved in this pack.
    fn require_holder(&self, actor: &Actor) -> Result<()> {
        actor.require_place(&self.manifest.pack_id)?;
        self.require_owner(actor.name())
    }

    fn require_owner(&self, name: &str) -> Result<()> {
        if name != self.manifest.annotator {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!(
                    "this pack is {}'s; only {} works in it",
                    self.manifest.annotator, self.manifest.annotator
                ),
            ));
        }
        Ok(())
    }

    fn items_of(&self, kind: TaskKind) -> Result<Vec<PackItemRow>> {
        Ok(pack_store::items(self.file.read())?
            .into_iter()
            .filter(|i| i.kind == kind)
            .collect())
    }

    /// The first item of `kind` in the pack's order that has no answer yet.
    pub fn next_item(&mut self, actor: &Actor, kind: TaskKind) -> Result<Next> {
        self.require_holder(actor)?;
        // The reports read once, not once an item.
        let reported = self.reported()?;
        let mut open = Vec::new();
        for row in self.items_of(kind)? {
            if !self.dealt_with(row.task_id, &reported)? {
                open.push(row);
            }
        }
        let skipped_at = |id: i64| self.skipped.iter().position(|s| *s == id);
        open.sort_by_key(|row| skipped_at(row.task_id).map_or(0, |at| at + 1));
        if let Some(row) = open.first() {
            return Ok(Next {
                item: Some(self.item(row)?),
                reason: None,
            });
        }
        Ok(Next {
            item: None,
            reason: Some(format!("no {} items left in this pack", kind.as_str())),
        })
    }

    /// Skips an unanswered item of the pack: it comes back after the others. False when
    /// it is answered (or not in the pack).
    pub fn skip_item(&mut self, actor: &Actor, task_id: i64) -> Result<bool> {
        self.require_holder(actor)?;
        if pack_store::item(self.file.read(), task_id)?.is_none()
            || self.dealt_with(task_id, &self.reported()?)?
        {
            return Ok(false);
        }
        self.skipped.retain(|s| *s != task_id);
        self.skipped.push(task_id);
        Ok(true)
    }

    /// The answered item before `current` (by when each was first answered), or the last
    /// answered one, with its answer.
    pub fn previous_item(
        &mut self,
        actor: &Actor,
        kind: TaskKind,
        current: Option<i64>,
    ) -> Result<Option<Item>> {
        self.require_holder(actor)?;
        let kind_tasks: Vec<i64> = self.items_of(kind)?.iter().map(|i| i.task_id).collect();
        // Answered and reported items, by when each was first dealt with.
        let conn = self.file.read();
        let mut done: Vec<(i64, i64)> = pack_store::answers(conn)?
            .into_iter()
            .map(|a| (a.created_at, a.task_id))
            .collect();
        done.extend(
            pack_store::problems(conn)?
                .into_iter()
                .map(|r| (r.created_at, r.task_id)),
        );
        done.sort_by_key(|(at, _)| *at);
        let mut answered: Vec<i64> = Vec::new();
        for (_, task_id) in done {
            if kind_tasks.contains(&task_id) && !answered.contains(&task_id) {
                answered.push(task_id);
            }
        }
        let upto = current
            .and_then(|c| answered.iter().position(|t| *t == c))
            .unwrap_or(answered.len());
        let Some(task_id) = upto.checked_sub(1).and_then(|i| answered.get(i)) else {
            return Ok(None);
        };
        let row = pack_store::item(self.file.read(), *task_id)?
            .ok_or_else(|| damaged(format!("item {task_id} is missing")))?;
        Ok(Some(self.item(&row)?))
    }

    /// The item as stored, with the pack's pace and the current answer, if any.
    fn item(&self, row: &PackItemRow) -> Result<Item> {
        let mut item: Item = serde_json::from_str(&row.item).map_err(damaged)?;
        item.pace = self.pace(item.kind)?;
        item.previous = match pack_store::current_answer(self.file.read(), row.task_id)? {
            Some(a) => {
                let a: Answer = serde_json::from_str(&a.answer).map_err(damaged)?;
                Some(PreviousAnswer {
                    selected: a.selected,
                    no_evidence: a.no_evidence,
                    text: a.text,
                    label: a.label,
                    comment: a.comment,
                    answers: a.answers.map(|given| given.0),
                })
            }
            None => None,
        };
        item.reported = pack_store::problem(self.file.read(), row.task_id)?.map(|r| r.text);
        Ok(item.with_design(None))
    }

    fn pace(&self, kind: TaskKind) -> Result<Pace> {
        let tasks: Vec<i64> = self.items_of(kind)?.iter().map(|i| i.task_id).collect();
        let answers: Vec<PackAnswerRow> = pack_store::answers(self.file.read())?
            .into_iter()
            .filter(|a| tasks.contains(&a.task_id))
            .collect();
        let mut done: Vec<i64> = answers.iter().map(|a| a.task_id).collect();
        // A reported item is dealt with, as an answered one.
        done.extend(
            pack_store::problems(self.file.read())?
                .into_iter()
                .map(|r| r.task_id)
                .filter(|t| tasks.contains(t)),
        );
        done.sort_unstable();
        done.dedup();
        // The project's pace: the last half hour, breaks out, bounded (`factdesk_core::pace`).
        let times: Vec<i64> = answers.iter().map(|a| a.created_at).collect();
        let per_hour = factdesk_core::pace::per_hour(&times, self.clock.now_ms());
        let left = tasks.len().saturating_sub(done.len()) as f64;
        Ok(Pace {
            done: done.len() as u64,
            total: tasks.len() as u64,
            // A pack's own items: their count is the pack's, not the project's.
            more: false,
            per_hour,
            minutes_left: per_hour.map(|p| left / p * 60.0),
        })
    }

    /// The annotator's pace on every kind.
    pub fn paces(&self, actor: &Actor) -> Result<Vec<KindPace>> {
        self.require_holder(actor)?;
        TaskKind::ALL
            .iter()
            .map(|&kind| {
                Ok(KindPace {
                    kind,
                    pace: self.pace(kind)?,
                })
            })
            .collect()
    }

    /// "Show in document" for an option of an evidence item, as the project gave it.
    pub fn passage(&self, actor: &Actor, task_id: i64, option_id: &str) -> Result<Passage> {
        self.require_holder(actor)?;
        let text = pack_store::passage(self.file.read(), task_id, option_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no option {option_id:?} in task {task_id}"),
            )
        })?;
        let passage: Passage = serde_json::from_str(&text).map_err(damaged)?;
        // A pack issued before titles were left out still holds them; none is shown.
        Ok(Passage {
            title: None,
            ..passage
        })
    }

    /// Checks `answer` against its item as the project's `submit` would, and stores it
    /// in the pack (an answer to an answered item supersedes the earlier one); the
    /// acknowledgement comes only once it is committed.
    pub fn submit(&mut self, actor: &Actor, answer: &Answer) -> Result<Ack> {
        self.require_holder(actor)?;
        let row = pack_store::item(self.file.read(), answer.task_id)?.ok_or_else(|| {
            Error::new(
                ErrorCode::NotFound,
                format!("no task {} in this pack", answer.task_id),
            )
        })?;
        let item: Item = serde_json::from_str(&row.item).map_err(damaged)?;
        let answer = &*crate::annotate::by_fields(item.kind, answer)?;
        check(&item, answer)?;
        if pack_store::problem(self.file.read(), answer.task_id)?.is_some() {
            return Err(invalid(
                "you reported a problem with this item: it goes back to the pool when your lead merges the pack, so it takes no answer here",
            ));
        }
        let stored = serde_json::to_string(answer).map_err(damaged)?;
        let uuid = uuid::Uuid::new_v4().to_string();
        let now = self.clock.now_ms();
        let tx = self.file.transaction()?;
        if pack_store::answers_for(&tx, answer.task_id)? >= super::limits::ANSWERS_PER_ITEM {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "this item's answer was changed {} times in this pack, the most a pack keeps: return the results, and correct it in the project once your lead has merged them",
                    super::limits::ANSWERS_PER_ITEM - 1
                ),
            ));
        }
        let earlier = pack_store::current_answer(&tx, answer.task_id)?;
        pack_store::insert_answer(
            &tx,
            &PackAnswerRow {
                seq: 0,
                uuid: uuid.clone(),
                task_id: answer.task_id,
                answer: stored,
                created_at: now,
                supersedes: earlier.map(|e| e.uuid),
            },
        )?;
        tx.commit()?;
        Ok(Ack {
            ack: uuid,
            task_id: answer.task_id,
        })
    }

    /// Reports a problem with item `task_id` of the pack, answered or not, held to what the
    /// project takes ([`crate::problems::REPORT_CHARS`], one report an item): stored in the
    /// pack, committed before it is acknowledged, the item counts as dealt with, and the
    /// merge hands the report to the lead and the item back to the pool.
    pub fn report_problem(&mut self, actor: &Actor, task_id: i64, text: &str) -> Result<()> {
        self.require_holder(actor)?;
        let text = crate::problems::checked_text(text)?;
        if pack_store::item(self.file.read(), task_id)?.is_none() {
            return Err(Error::new(
                ErrorCode::NotFound,
                format!("no task {task_id} in this pack"),
            ));
        }
        let now = self.clock.now_ms();
        let tx = self.file.transaction()?;
        if pack_store::problem(&tx, task_id)?.is_some() {
            return Err(Error::new(
                ErrorCode::Conflict,
                "you reported a problem with this item already; your lead reads it when the pack is merged",
            ));
        }
        pack_store::insert_problem(&tx, task_id, text, now)?;
        tx.commit()?;
        self.skipped.retain(|s| *s != task_id);
        Ok(())
    }

    /// The items the holder reported a problem with.
    fn reported(&self) -> Result<std::collections::HashSet<i64>> {
        Ok(pack_store::problems(self.file.read())?
            .into_iter()
            .map(|r| r.task_id)
            .collect())
    }

    /// Whether the holder answered or reported the item (`reported` from
    /// [`Self::reported`]): it is not served again.
    fn dealt_with(&self, task_id: i64, reported: &std::collections::HashSet<i64>) -> Result<bool> {
        Ok(reported.contains(&task_id)
            || pack_store::current_answer(self.file.read(), task_id)?.is_some())
    }

    /// Copies the pack, answers and all, to `out` (by default `<pack>.results.fdpack`
    /// beside it), through a side file renamed into place.
    pub fn return_results(&self, out: Option<&Path>) -> Result<PathBuf> {
        super::results::copy_pack(self.path(), out)
    }
}

/// The checks of `submit` that the pack can make itself (the same function): the shape
/// of the answer for the item's kind, options among those issued. The project checks
/// everything again on merge.
fn check(item: &Item, a: &Answer) -> Result<()> {
    if item.kind == TaskKind::Refute {
        return Err(invalid(
            "refutation writing is not done in packs; it needs the project",
        ));
    }
    let issued: Vec<&str> = item.options.iter().map(|o| o.id.as_str()).collect();
    crate::annotate::check_shape(item.kind, a, &issued).map(|_| ())
}
