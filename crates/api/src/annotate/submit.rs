//! Taking an answer: checked, committed, then acknowledged.

use super::item::{slots_of, Slot};
use super::shape::{check_shape, Ack, Answer, Shaped};
use crate::actor::Actor;
use crate::settings::Settings;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::answer::{Response, Selection};
use factdesk_core::checks;
use factdesk_store::annotations::{self, NewAnnotation};
use factdesk_store::assignments;
use factdesk_store::serving::{self, ItemText};
use factdesk_store::tasks::TaskRow;

/// The most answers one person gives one item in the project: the first and nine
/// corrections. Every correction is kept (answers are appended, never changed), and with
/// no bound one annotator correcting one item in a loop filled the disk, after which
/// nobody could sign in (twelfth hostile pass: 1 GB in 100 s).
pub const LIVE_ANSWERS_PER_ITEM: u64 = 10;

/// The longest time an answer can have taken (live or in a pack); a longer one is cut to
/// it.
pub(crate) const MAX_DURATION_MS: i64 = 24 * 3_600_000;

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, msg)
}

/// The refusal of an answer to an item the annotator was never given (not served to
/// them, in none of their packs, not answered by them).
fn not_given(task_id: i64) -> Error {
    Error::new(
        ErrorCode::Forbidden,
        format!("task {task_id} was not given to you: ask for it with next"),
    )
}

/// Where an answer comes from: the annotator's screen now, or a pack they carried.
#[derive(Debug, Clone, Copy)]
enum Origin<'a> {
    Live,
    /// Answered in a pack at `created_at` (already clamped to the pack's window).
    Pack {
        id: &'a str,
        created_at: i64,
        /// The id the answer was given on the laptop, which it keeps in the project so a
        /// lead can trace it from the pack to the raw answers.
        uuid: &'a str,
    },
}

impl Project {
    /// Checks and commits `answer` by the acting person, returning the acknowledgement
    /// only once it is durable. A second answer to the same task supersedes the first.
    pub fn submit(&mut self, actor: &Actor, answer: &Answer) -> Result<Ack> {
        self.take_answer(self.member(actor)?, answer, Origin::Live)
    }

    /// An answer returned in pack `pack_id`, made at `created_at` with id `uuid`, checked
    /// exactly as [`Project::submit`] checks a live one up to its write: the answer keeps
    /// its id (refused when it is not plain). [`Checked::store`] writes it in the merge's
    /// own transaction, so a pack's answers are merged all together or not at all.
    pub(crate) fn check_returned<'a>(
        &self,
        name: &str,
        answer: &Answer,
        created_at: i64,
        pack_id: &'a str,
        uuid: &'a str,
    ) -> Result<Checked<'a>> {
        // A pack Factdesk wrote holds uuids; whatever a rewritten one holds becomes part
        // of a written refutation's id, so it stays short and plain.
        let plain = (1..=64).contains(&uuid.len())
            && uuid.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !plain {
            return Err(invalid(format!(
                "answer id {:?} is not an id Factdesk writes (1 to 64 letters, digits and '-')",
                uuid.chars().take(80).collect::<String>()
            )));
        }
        self.check_answer(
            name,
            answer,
            Origin::Pack {
                id: pack_id,
                created_at,
                uuid,
            },
        )
    }

    fn take_answer(&mut self, name: &str, answer: &Answer, origin: Origin<'_>) -> Result<Ack> {
        self.retrying(|p| p.take_answer_once(name, answer, origin))
    }

    fn take_answer_once(&mut self, name: &str, answer: &Answer, origin: Origin<'_>) -> Result<Ack> {
        let now = self.clock.now_ms();
        // An answer sent again (its acknowledgement lost on the way) is known by its key
        // before anything checks it again: what it was checked against may have moved
        // since it was stored (the item closed, its reservation used).
        // Whose it is is read only for a key already stored: a first sending costs one
        // lookup by id, and the person is read once, by the checks below.
        if let (Origin::Live, Some(key)) = (origin, answer.key.as_deref()) {
            if annotations::by_uuid(self.store.read(), key)?.is_some() {
                let annotator = self.at_work(name)?.annotator.id;
                if let Some(ack) =
                    stored_under_key(self.store.read(), key, annotator, answer.task_id)?
                {
                    return Ok(ack);
                }
            }
        }
        let checked = self.check_answer(name, answer, origin)?;
        // From here to the commit is one write transaction: the earlier answer, the
        // item's room and the new row are read and written with no other writer between
        // (on PostgreSQL, none on this task or for this person: the decision holds both;
        // a written refutation creates claims and tasks, so it holds the whole project).
        let tx = if checked.task.kind == TaskKind::Refute {
            self.store.transaction()?
        } else {
            self.store.decision(checked.annotator_id)?
        };
        let ack = store_checked(&tx, &checked, now)?;
        tx.commit()?;
        Ok(ack)
    }

    /// The checks that read the project but write nothing: the person, the task, the
    /// answer's shape and options.
    fn check_answer<'a>(
        &self,
        name: &str,
        answer: &Answer,
        origin: Origin<'a>,
    ) -> Result<Checked<'a>> {
        let work = self.at_work(name)?;
        let (annotator, settings) = (&work.annotator, &work.settings);
        // Task ids start at 1: 0 is the default of an answer that gave none.
        if answer.task_id == 0 {
            return Err(invalid("missing field \"task_id\""));
        }
        let (task, text, given) =
            serving::answer_text(self.store.read(), answer.task_id, annotator.id)?.ok_or_else(
                || Error::new(ErrorCode::NotFound, format!("no task {}", answer.task_id)),
            )?;
        // Before anything reads the answer against the task: an item never shown to the
        // annotator would let them pick their claims, pad their trick record with "no
        // evidence", or probe a claim through the refutation checks. Rows are never
        // deleted, so what this reads outside the write transaction stays true.
        if !given {
            return Err(not_given(task.id));
        }
        // Answers by question become the kind's fields, stored as they always were.
        let answer = &*super::by_question::by_fields(task.kind, answer)?;
        let text =
            text.ok_or_else(|| Error::new(ErrorCode::NotFound, "the task's claim is missing"))?;
        let (response, trick_failed) =
            self.response(&task, &text, annotator.id, answer, (settings, &work.secret))?;
        if task.kind == TaskKind::Verify
            && annotations::writer_of_claim(self.store.read(), task.claim_id)? == Some(annotator.id)
        {
            return Err(Error::new(
                ErrorCode::Forbidden,
                format!("task {}: nobody verifies a refutation they wrote", task.id),
            ));
        }
        // A written refutation is stored with its parent claim whole.
        let parent = match &response {
            Response::Refute { .. } => {
                Some(self.store.claim(task.claim_id)?.ok_or_else(|| {
                    Error::new(ErrorCode::NotFound, "the task's claim is missing")
                })?)
            }
            _ => None,
        };
        Ok(Checked {
            name: name.to_string(),
            annotator_id: annotator.id,
            settings: work.settings,
            task,
            response,
            trick_failed,
            parent,
            answer: answer.clone(),
            origin,
        })
    }

    /// The answer as stored, and whether it picked the trick: its shape checked, an
    /// evidence selection mapped from the options shown to their sentences, a written
    /// refutation through the writing checks.
    fn response(
        &self,
        task: &TaskRow,
        text: &ItemText,
        annotator_id: i64,
        answer: &Answer,
        (settings, secret): (&Settings, &[u8]),
    ) -> Result<(Response, bool)> {
        let slots: Vec<Slot> = match task.kind {
            TaskKind::Evidence => slots_of(
                task,
                annotator_id,
                secret,
                (&text.claim_text, settings),
                &text.candidates,
                text.trick.clone(),
            ),
            _ => Vec::new(),
        };
        let issued: Vec<&str> = slots.iter().map(|s| s.id.as_str()).collect();
        match check_shape(task.kind, answer, &issued)? {
            Shaped::Options(selected) => {
                let chosen: Vec<&Slot> =
                    slots.iter().filter(|s| selected.contains(&s.id)).collect();
                let trick_failed = chosen.iter().any(|s| s.sentence_id.is_none());
                let sentences = chosen.iter().filter_map(|s| s.sentence_id).collect();
                Ok((
                    Response::Evidence {
                        selection: Selection::sentences(sentences),
                    },
                    trick_failed,
                ))
            }
            Shaped::Response(Response::Refute { text: written }) => {
                let results =
                    checks::check_refutation(&text.claim_text, &written, &settings.checks);
                if let Some(failed) = checks::blocking(&results) {
                    return Err(Error::new(ErrorCode::CheckFailed, failed.message.clone()));
                }
                Ok((Response::Refute { text: written }, false))
            }
            Shaped::Response(Response::Design { answers }) => {
                let answers =
                    crate::design::checked(self, task, &text.claim_text, settings, &answers)?;
                let missed = crate::design::misses_control(self, task, &answers)?;
                Ok((Response::Design { answers }, missed))
            }
            Shaped::Response(response) => Ok((response, false)),
        }
    }
}

/// An answer checked against the project, ready to be written in a transaction.
pub(crate) struct Checked<'a> {
    name: String,
    annotator_id: i64,
    settings: Settings,
    task: TaskRow,
    response: Response,
    trick_failed: bool,
    parent: Option<factdesk_store::ClaimRow>,
    answer: Answer,
    origin: Origin<'a>,
}

impl Checked<'_> {
    /// Writes a pack's answer checked by [`Project::check_returned`] in the caller's
    /// transaction (which must hold the whole project), with the checks that read what
    /// the transaction may have changed: the item's room, the earlier answer, the id.
    pub(crate) fn store(&self, tx: &factdesk_store::Tx<'_>, now: i64) -> Result<Ack> {
        store_checked(tx, self, now)
    }
}

/// The part of taking an answer that reads and writes inside the write transaction.
fn store_checked(tx: &factdesk_store::Tx<'_>, checked: &Checked<'_>, now: i64) -> Result<Ack> {
    let Checked {
        name,
        annotator_id,
        settings,
        task,
        response,
        trick_failed,
        parent,
        answer,
        origin,
    } = checked;
    let (annotator_id, trick_failed, origin) = (*annotator_id, *trick_failed, *origin);
    let created_at = match origin {
        Origin::Live => now,
        Origin::Pack { created_at, .. } => created_at,
    };
    let state = serving::hold_for_answer(tx, task.id, annotator_id)?
        .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no annotator {name:?}")))?;
    if state.closed {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "task {} is closed: the refutation it verifies was rejected or replaced",
                task.id
            ),
        ));
    }
    let earlier = state.current;
    let uuid = match answer_id(tx, answer, origin, annotator_id, task.id)? {
        Ok(uuid) => uuid,
        Err(stored) => return Ok(stored),
    };
    // A design's control item may be answered again, and a miss stays a miss: refusing the
    // correction, as an evidence item's trick does, would tell the annotator the item
    // was a control and, on a yes/no question, its answer (hostile pass of session 29).
    let control = task.kind == TaskKind::Design;
    let kept_miss = control && earlier.as_ref().is_some_and(|e| e.trick_failed);
    let checked_earlier = earlier.as_ref().filter(|e| !(control && e.trick_failed));
    refuse_replacing(task.id, checked_earlier, origin, created_at)?;
    let trick_failed = trick_failed || kept_miss;
    if let (Origin::Live, Some(e)) = (origin, earlier.as_ref()) {
        if let Some(ack) = said_before(tx, e, checked, trick_failed)? {
            return Ok(ack);
        }
    }
    if task.kind == TaskKind::Label
        && factdesk_store::tasks::given_across_kinds(tx, task.id, annotator_id)?
    {
        return Err(invalid(format!(
            "task {}: you have been given this claim's verify or refute items, which tell its label; a label given before stands as given",
            task.id
        )));
    }
    let was_counted = earlier
        .as_ref()
        .is_some_and(|e| !e.trick_failed && state.counted);
    let will_count = !trick_failed && state.counted;
    let needs_room = earlier.is_none() || (will_count && !was_counted);
    if needs_room {
        ensure_room(tx, task, annotator_id, earlier.is_none(), origin, now)?;
    }
    let duration = duration(answer, origin, state.reserved_at, now);
    // The task's count moves with the answer; when the insert's trigger changed the
    // annotator's trick record so that they are flagged or cleared, all their tasks
    // are recounted from the answers, this one included, which overrides that move.
    let id = serving::store_answer(
        tx,
        &NewAnnotation {
            uuid: &uuid,
            task_id: task.id,
            annotator_id,
            response,
            comment: answer.comment.as_deref().filter(|c| !c.trim().is_empty()),
            trick_failed,
            duration_ms: duration,
            supersedes: earlier.as_ref().map(|e| e.id),
            created_at,
        },
        i64::from(will_count) - i64::from(was_counted),
        now,
    )?;
    crate::annotators::sync_counted(tx, annotator_id, settings, false)?;
    if let (Response::Refute { text }, Some(parent)) = (response, parent) {
        let written = crate::refutation::Written {
            parent,
            text,
            annotation_id: id,
            uuid: &uuid,
            writer_id: annotator_id,
            supersedes: earlier.as_ref().map(|e| e.id),
            now,
        };
        crate::refutation::write(tx, settings, &written)?;
    }
    Ok(Ack {
        ack: uuid,
        task_id: task.id,
    })
}

/// Refuses an answer that may not replace the annotator's `earlier` one on a task: a
/// pack answer older than one given since in the project (their latest word stands), and
/// any correction of an answer that picked the trick, rejected as COVID-Fact rejected
/// such entries, for good (corrected, it would count or not by whether someone else had
/// taken the slot it opened meanwhile). Not `Conflict`, which a pack's merge reads as a
/// slot filled meanwhile ("late").
fn refuse_replacing(
    task_id: i64,
    earlier: Option<&annotations::AnnotationRow>,
    origin: Origin<'_>,
    created_at: i64,
) -> Result<()> {
    let Some(e) = earlier else {
        return Ok(());
    };
    if matches!(origin, Origin::Pack { .. }) && e.created_at > created_at {
        return Err(invalid(format!(
            "task {task_id}: this answer is older than your answer in the project, which stands"
        )));
    }
    if e.trick_failed {
        return Err(invalid(format!(
            "task {task_id}: your answer here picked the trick sentence and was rejected; a rejected answer stays as given, and the item goes to another annotator"
        )));
    }
    Ok(())
}

/// The time the answer took: as the client measured it, else since the item was
/// reserved. A pack's answer without a measured time has none: the time since the pack
/// was issued says nothing about the item.
fn duration(
    answer: &Answer,
    origin: Origin<'_>,
    reserved_at: Option<i64>,
    now: i64,
) -> Option<i64> {
    let measured = match (answer.duration_ms, origin) {
        (Some(ms), _) => Some(ms),
        (None, Origin::Pack { .. }) => None,
        (None, Origin::Live) => reserved_at.map(|at| now - at),
    };
    // Brought into range as a pack's durations are: a client's clock is no authority.
    measured.map(|ms| ms.clamp(0, MAX_DURATION_MS))
}

/// Refuses an answer that needs a place on a task with none left for the annotator: a
/// first answer, or one that now counts where the earlier did not.
fn ensure_room(
    tx: &factdesk_store::Tx<'_>,
    task: &TaskRow,
    annotator_id: i64,
    first: bool,
    origin: Origin<'_>,
    now: i64,
) -> Result<()> {
    let (room, in_study) = serving::room(tx, task.id, annotator_id, now)?;
    // A study keeps its extra slots for its group; a first answer must fit its side.
    let study_refuses =
        first && in_study && super::study::room(tx, task, annotator_id, now)? == Some(false);
    if !study_refuses && room {
        return Ok(());
    }
    let held = assignments::state(tx, task.id, annotator_id)?.is_some();
    let live = held && assignments::holds_live(tx, task.id, annotator_id, now)?;
    let why = match origin {
        // Still held, yet full: its places were taken from under the reservation, which
        // only a deleted study (its overlap back to what it was) or answers counting
        // again (an annotator included again) do; "lapsed" would be false.
        Origin::Live if live => "it filled up while you held it: the study that kept a place for you was deleted, or answers that count again took its places".to_string(),
        Origin::Live if held => "your reservation lapsed and it went to others".to_string(),
        Origin::Live => "others hold or filled its places".to_string(),
        Origin::Pack { id, .. } => format!("pack {id}'s hold on it lapsed and it went to others"),
    };
    Err(Error::new(
        ErrorCode::Conflict,
        format!(
            "task {} has no place left for you (overlap {}); {why}",
            task.id, task.overlap
        ),
    ))
}

/// The id an answer is stored under: the sender's key, a new one, or a pack answer's
/// own; or (`Err`) the acknowledgement of the answer already stored under its key.
fn answer_id(
    tx: &factdesk_store::Tx<'_>,
    answer: &Answer,
    origin: Origin<'_>,
    annotator_id: i64,
    task_id: i64,
) -> Result<std::result::Result<String, Ack>> {
    Ok(match origin {
        Origin::Live => Ok(match answer.key.as_deref() {
            // A retry that raced its first sending here: this person's writes are one at
            // a time, so the first one's row is seen.
            Some(key) => match stored_under_key(tx, key, annotator_id, task_id)? {
                Some(ack) => return Ok(Err(ack)),
                None => key.to_string(),
            },
            None => uuid::Uuid::new_v4().to_string(),
        }),
        Origin::Pack { uuid, .. } => {
            // Unique in the project: a copied or forged id is refused, not merged
            // under another answer's name.
            if annotations::by_uuid(tx, uuid)?.is_some() {
                return Err(invalid(format!(
                    "answer id {uuid} is already another answer's in the project"
                )));
            }
            Ok(uuid.to_string())
        }
    })
}

/// A live correction of `earlier`: the stored answer's acknowledgement when it says the
/// same (nothing new is written: twelfth hostile pass, identical corrections filled the
/// disk; and a lost acknowledgement sent again without its key gets the stored one), a
/// refusal past the item's bound of [`LIVE_ANSWERS_PER_ITEM`], else `None`: write it.
fn said_before(
    tx: &factdesk_store::Tx<'_>,
    earlier: &annotations::AnnotationRow,
    checked: &Checked<'_>,
    trick_failed: bool,
) -> Result<Option<Ack>> {
    let comment = checked
        .answer
        .comment
        .as_deref()
        .filter(|c| !c.trim().is_empty());
    if earlier.answer.response == checked.response
        && earlier.answer.comment.as_deref() == comment
        && earlier.trick_failed == trick_failed
    {
        return Ok(Some(Ack {
            ack: earlier.uuid.clone(),
            task_id: checked.task.id,
        }));
    }
    let given = annotations::given_count(tx, checked.task.id, checked.annotator_id)?;
    if given >= LIVE_ANSWERS_PER_ITEM {
        return Err(invalid(format!(
            "task {}: this answer was changed {} times, the most an item keeps; if it must change again, ask your lead",
            checked.task.id,
            LIVE_ANSWERS_PER_ITEM - 1
        )));
    }
    Ok(None)
}

/// The acknowledgement of the answer stored under `key` by `annotator` to `task_id`, if
/// there is one; a key that is not plain, or that another answer holds, is refused.
fn stored_under_key(
    conn: &factdesk_store::Read,
    key: &str,
    annotator: i64,
    task_id: i64,
) -> Result<Option<Ack>> {
    let plain =
        (1..=64).contains(&key.len()) && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if !plain {
        return Err(invalid(
            "an answer's key is 1 to 64 letters, digits and '-'",
        ));
    }
    match annotations::by_uuid(conn, key)? {
        None => Ok(None),
        Some(row) if row.annotator_id == annotator && row.task_id == task_id => Ok(Some(Ack {
            ack: row.uuid,
            task_id,
        })),
        Some(_) => Err(Error::new(
            ErrorCode::Conflict,
            "this answer's key is another answer's: send a new answer with a new key",
        )),
    }
}
