//! Serving study items: a member of a re-annotation study is served its open items first,
//! and the room a study added to a task is kept for the study's members. Both read
//! through the caller's connection, so they run inside the serving transaction.

use crate::tasks::TaskKind;
use crate::Result;
use factdesk_store::Read;
use factdesk_store::{assignments, studies, tasks};

/// The first open study item of `kind` for a member of a study: sampled, not yet
/// answered by them, and with room for them now. `None` when they are in no study of
/// that kind or have answered all its items.
pub(crate) fn next_for_member(
    conn: &Read,
    annotator_id: i64,
    kind: TaskKind,
    now: i64,
) -> Result<Option<i64>> {
    for task_id in studies::open_for_member(conn, annotator_id, kind)? {
        let Some(task) = tasks::get(conn, task_id)? else {
            continue;
        };
        if assignments::state(conn, task.id, annotator_id)?.as_deref() == Some("answered")
            || tasks::is_closed(conn, task.id)?
        {
            continue;
        }
        // Held first, so the study's count and the task's room are read as they stay.
        if tasks::hold_if_room(conn, task.id, annotator_id, now)? == tasks::Hold::Room
            && room(conn, &task, annotator_id, now)? != Some(false)
            && tasks::has_room(conn, task.id, annotator_id, now)?
        {
            return Ok(Some(task_id));
        }
    }
    Ok(None)
}

/// The study's word on whether `annotator_id` may take `task` at `now`, on top of the
/// task's own overlap rule: `None` when the task is in no study; `Some(false)` when
/// they already answered it, or a non-member would take one of the group's slots (the
/// counted answers and live reservations of non-members already reach the task's
/// overlap before the study); `Some(true)` otherwise.
pub(crate) fn room(
    conn: &Read,
    task: &tasks::TaskRow,
    annotator_id: i64,
    now: i64,
) -> Result<Option<bool>> {
    let Some(room) = studies::item_room(conn, task.id, annotator_id, now)? else {
        return Ok(None);
    };
    if room.answered {
        return Ok(Some(false));
    }
    Ok(Some(if room.is_member {
        room.member_answers < room.group_size
    } else {
        room.other_answers + room.other_reservations < room.base_overlap
    }))
}
