//! The reads and writes of serving an item and taking its answer, each in as few
//! statements as the rules allow: on PostgreSQL every statement is a round trip, and a
//! team server's latency under load is mostly these (docs/performance.md, "Team
//! server"). Every rule is the same as in the per-table functions they stand for
//! (`tasks::open_for_annotator`, `tasks::has_room`, `assignments::reserve`, …); only
//! the number of statements differs.

use crate::annotators::AnnotatorRow;
use crate::db::{Engine, OptionalExtension};
use crate::params;
use crate::tasks::TaskRow;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;

/// The person asking and the project's settings and secret, read together.
#[derive(Debug, Clone)]
pub struct AtWork {
    pub annotator: AnnotatorRow,
    pub settings: serde_json::Value,
    pub secret: Vec<u8>,
}

/// `name`'s row with the project's settings and secret, in one statement; `None` when
/// nobody of that name works on the project.
pub fn at_work(conn: &Read, name: &str) -> Result<Option<AtWork>> {
    let row = conn
        .prepare_cached(
            "SELECT a.id, a.name, a.role, a.created_at, a.flag_override, a.tricks_seen,
                    a.tricks_failed, a.counted, p.settings, p.secret
             FROM annotators a CROSS JOIN (SELECT settings, secret FROM project LIMIT 1) p
             WHERE a.name = ?1",
        )?
        .query_row([name], |r| {
            Ok((
                crate::annotators::from_row(r)?,
                r.get::<_, String>(8)?,
                r.get::<_, Vec<u8>>(9)?,
            ))
        })
        .optional()?;
    let Some((annotator, settings, secret)) = row else {
        return Ok(None);
    };
    Ok(Some(AtWork {
        annotator,
        settings: serde_json::from_str(&settings)?,
        secret,
    }))
}

/// The task this annotator holds a live reservation on in the project (not in a pack),
/// for a kind, oldest first: an item left unfinished comes back before anything new; and
/// whether they are a member of a study of that kind.
pub fn live_or_member(
    conn: &Read,
    annotator_id: i64,
    kind: TaskKind,
    now: i64,
) -> Result<(Option<i64>, bool)> {
    Ok(conn
        .prepare_cached(
            "SELECT (SELECT a.task_id FROM assignments a JOIN tasks t ON t.id = a.task_id
                     WHERE a.annotator_id = ?1 AND t.kind = ?2 AND a.state = 'reserved' AND a.pack_id IS NULL
                       AND (a.expires_at IS NULL OR a.expires_at > ?3)
                     ORDER BY a.reserved_at, a.id LIMIT 1),
                    EXISTS (SELECT 1 FROM study_members m JOIN studies s ON s.id = m.study_id
                            WHERE m.annotator_id = ?1 AND s.kind = ?2)",
        )?
        .query_row(params![annotator_id, kind.as_str(), now], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?)
}

/// Holds a task for the rest of a decision, waiting for a decision that holds it now, and
/// reads it (as `tasks::lock` then `tasks::get`).
pub fn lock_task(conn: &Read, id: i64) -> Result<Option<TaskRow>> {
    let sql = match conn.engine() {
        Engine::Sqlite => {
            "SELECT id, kind, claim_id, overlap, trick_slot, answered FROM tasks WHERE id = ?1"
        }
        Engine::Postgres => {
            "SELECT id, kind, claim_id, overlap, trick_slot, answered FROM tasks WHERE id = ?1
             FOR NO KEY UPDATE"
        }
    };
    Ok(conn
        .prepare_cached(sql)?
        .query_row([id], crate::tasks::from_row)
        .optional()?)
}

/// How many open tasks [`take_open`] looks at on PostgreSQL for one nobody holds.
const TAKE_FROM: u32 = 8;

/// An open task [`take_open`] found and holds.
#[derive(Debug, Clone)]
pub struct Taken {
    pub task: TaskRow,
    pub shuffle_key: i64,
    /// The task is in a study: whether it is open to the annotator is the study's word.
    pub in_study: bool,
}

/// The first task of `kind` in shuffle order after the `(key, id)` cursor and before
/// `before_key` that `annotator_id` may take now (the rules of
/// `tasks::open_for_annotator`), held for the rest of the decision. On PostgreSQL a task
/// another decision holds now is passed by (SKIP LOCKED) among the first few open tasks,
/// and `None` may leave busy tasks behind; the caller then walks the order waiting for
/// them. What was read of the task's room before the hold may be stale:
/// [`reserve_if_room`] reads it again.
pub fn take_open(
    conn: &Read,
    kind: TaskKind,
    annotator_id: i64,
    after: (i64, i64),
    before_key: i64,
    now: i64,
) -> Result<Option<Taken>> {
    let sql = match conn.engine() {
        Engine::Sqlite => format!(
            "SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered, t.shuffle_key,
                    EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
             FROM tasks t
             WHERE t.kind = ?1 AND t.answered < t.overlap AND t.closed_at IS NULL
               AND (t.shuffle_key > ?3 OR (t.shuffle_key = ?3 AND t.id > ?4)) AND t.shuffle_key < ?5
               AND {}
             ORDER BY t.shuffle_key, t.id LIMIT 1",
            crate::tasks::OPEN_TO
        ),
        // The first few open tasks by `tasks::open_walk`, and of those the first nobody
        // holds; none when all are held (the caller then waits for them).
        Engine::Postgres => format!(
            "SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered, t.shuffle_key,
                    EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
             FROM tasks t
             WHERE t.id = ANY (ARRAY(SELECT p.id FROM ({}) p WHERE p.open LIMIT {TAKE_FROM}))
               AND t.answered < t.overlap AND t.closed_at IS NULL
             ORDER BY t.shuffle_key, t.id LIMIT 1
             FOR NO KEY UPDATE OF t SKIP LOCKED",
            crate::tasks::open_walk()
        ),
    };
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(
            params![
                kind.as_str(),
                annotator_id,
                after.0,
                after.1,
                before_key,
                now
            ],
            |r| {
                Ok(Taken {
                    task: crate::tasks::from_row(r)?,
                    shuffle_key: r.get(6)?,
                    in_study: r.get(7)?,
                })
            },
        )
        .optional()?)
}

/// Reserves a task the decision holds for `annotator_id` until `expires_at` when it has
/// room for them (as `tasks::has_room`, read now, after the hold) and is in no study;
/// renews their lapsed reservation as `assignments::reserve` does. True when reserved.
pub fn reserve_if_room(
    conn: &crate::Tx<'_>,
    task_id: i64,
    annotator_id: i64,
    now: i64,
    expires_at: Option<i64>,
) -> Result<bool> {
    let n = conn
        .prepare_cached(
            "INSERT INTO assignments (task_id, annotator_id, reserved_at, expires_at, pack_id, state)
             SELECT t.id, CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), CAST(?4 AS BIGINT), NULL, 'reserved'
             FROM tasks t
             WHERE t.id = ?1
               AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
                     AND o.annotator_id != ?2 AND o.state = 'reserved'
                     AND (o.expires_at IS NULL OR o.expires_at > ?3)) < t.overlap
               AND NOT EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
             ON CONFLICT (task_id, annotator_id) DO UPDATE SET reserved_at = ?3, expires_at = ?4,
                 pack_id = NULL, state = 'reserved'
             WHERE assignments.state != 'answered'
               AND (assignments.pack_id IS NULL OR assignments.state != 'reserved'
                    OR (assignments.expires_at IS NOT NULL AND assignments.expires_at <= ?3))",
        )?
        .execute(params![task_id, annotator_id, now, expires_at])?;
    Ok(n == 1)
}

/// What an item shows of its claim: the claim, its candidates (sentence id and text, in
/// rank order) and the task's real-sentence trick, if it has one.
#[derive(Debug, Clone, Default)]
pub struct ItemText {
    pub claim_text: String,
    pub context: Option<String>,
    pub parent_id: Option<i64>,
    pub candidates: Vec<(i64, String)>,
    pub trick: Option<(i64, String)>,
}

/// Task `task_id` with the [`ItemText`] of its claim, in one statement: `None` when
/// there is no such task, no text when its claim is missing.
pub fn task_text(conn: &Read, task_id: i64) -> Result<Option<(TaskRow, Option<ItemText>)>> {
    let sql = text_sql("");
    let mut stmt = conn.prepare_cached(&sql)?;
    let found = read_text(stmt.query([task_id])?, false)?;
    Ok(found.map(|(task, text, _)| (task, text)))
}

/// [`task_text`] for an answer by `annotator_id`, with whether the task was given to
/// them: they hold or held it (served, skipped, carried in a pack: an assignment row of
/// theirs, which nothing deletes) or they answered it. Still one statement.
pub fn answer_text(
    conn: &Read,
    task_id: i64,
    annotator_id: i64,
) -> Result<Option<(TaskRow, Option<ItemText>, bool)>> {
    let sql = text_sql(
        ", EXISTS (SELECT 1 FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = ?2)
           OR EXISTS (SELECT 1 FROM annotations n WHERE n.task_id = t.id AND n.annotator_id = ?2)",
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query(params![task_id, annotator_id])?;
    read_text(rows, true)
}

/// The statement of [`task_text`], with `extra` columns after its own.
fn text_sql(extra: &str) -> String {
    format!(
        "SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered,
                c.id, c.text, c.context, c.parent_id, k.sentence_id, s.text,
                (SELECT x.id FROM task_tricks tt JOIN sentences x ON x.id = tt.sentence_id WHERE tt.task_id = t.id),
                (SELECT x.text FROM task_tricks tt JOIN sentences x ON x.id = tt.sentence_id WHERE tt.task_id = t.id)
                {extra}
         FROM tasks t
         LEFT JOIN claims c ON c.id = t.claim_id
         LEFT JOIN candidates k ON k.claim_id = c.id
         LEFT JOIN sentences s ON s.id = k.sentence_id
         WHERE t.id = ?1 ORDER BY k.rank"
    )
}

/// The task, its text and (when `flag`, column 14) the flag of [`text_sql`]'s rows.
fn read_text(
    mut rows: crate::db::Rows<'_>,
    flag: bool,
) -> Result<Option<(TaskRow, Option<ItemText>, bool)>> {
    let mut found: Option<(TaskRow, Option<ItemText>, bool)> = None;
    while let Some(r) = rows.next()? {
        let (_, text, _) = match &mut found {
            Some(found) => found,
            None => {
                let task = crate::tasks::from_row(&r)?;
                let claim: Option<i64> = r.get(6)?;
                let text = match claim {
                    None => None,
                    Some(_) => {
                        let trick_id: Option<i64> = r.get(12)?;
                        let trick_text: Option<String> = r.get(13)?;
                        Some(ItemText {
                            claim_text: r.get(7)?,
                            context: r.get(8)?,
                            parent_id: r.get(9)?,
                            candidates: Vec::new(),
                            trick: trick_id.zip(trick_text),
                        })
                    }
                };
                let flagged = if flag { r.get(14)? } else { false };
                found.insert((task, text, flagged))
            }
        };
        let sentence: Option<i64> = r.get(10)?;
        if let (Some(text), Some(sentence)) = (text, sentence) {
            text.candidates.push((sentence, r.get(11)?));
        }
    }
    Ok(found)
}

/// An annotator's pace on a kind, as counted: tasks they answered, open tasks of the kind
/// (the `open_tasks` counters kept by triggers), those among the open ones they answered
/// (their answers on tasks now full do not count against them), and the times of their
/// latest `limit` answers, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaceCounts {
    pub done: u64,
    pub open: u64,
    pub mine: u64,
    pub times: Vec<i64>,
}

/// [`PaceCounts`] in one statement. The latest answers are ordered by `a.id + 0`, an
/// order no index gives, so they are found through the annotator's index and sorted:
/// ordered by `a.id`, PostgreSQL walked every answer of the project newest first looking
/// for this annotator's.
pub fn pace_counts(
    conn: &Read,
    annotator_id: i64,
    kind: TaskKind,
    limit: u32,
) -> Result<PaceCounts> {
    let mut stmt = conn.prepare_cached(
        "SELECT n.done, n.open, n.mine, l.created_at FROM (SELECT
            (SELECT count(DISTINCT a.task_id) FROM annotations a JOIN tasks t ON t.id = a.task_id
             WHERE a.annotator_id = ?1 AND t.kind = ?2) AS done,
            (SELECT CAST(coalesce(sum(open), 0) AS BIGINT) FROM open_tasks WHERE kind = ?2) AS open,
            (SELECT count(*) FROM assignments a JOIN tasks t ON t.id = a.task_id
             WHERE a.annotator_id = ?1 AND a.state = 'answered' AND t.kind = ?2
               AND t.answered < t.overlap AND t.closed_at IS NULL) AS mine) n
         LEFT JOIN (SELECT a.id, a.created_at FROM annotations a JOIN tasks t ON t.id = a.task_id
                    WHERE a.annotator_id = ?1 AND t.kind = ?2 ORDER BY a.id + 0 DESC LIMIT ?3) l ON 1 = 1
         ORDER BY l.id DESC",
    )?;
    let mut rows = stmt.query(params![annotator_id, kind.as_str(), limit])?;
    let mut pace = PaceCounts::default();
    while let Some(r) = rows.next()? {
        pace.done = r.get::<_, i64>(0)?.max(0) as u64;
        pace.open = r.get::<_, i64>(1)?.max(0) as u64;
        pace.mine = r.get::<_, i64>(2)?.max(0) as u64;
        if let Some(at) = r.get::<_, Option<i64>>(3)? {
            pace.times.push(at);
        }
    }
    Ok(pace)
}

/// What an answer's decision reads of its task and person once it holds the task.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerState {
    /// The task is closed (`tasks::is_closed`).
    pub closed: bool,
    /// The person's answers count (`annotators.counted`).
    pub counted: bool,
    /// When their reservation of the task began.
    pub reserved_at: Option<i64>,
    /// Their current answer on the task (`annotations::current`).
    pub current: Option<crate::annotations::AnnotationRow>,
}

/// Holds a task for the rest of a decision (waiting for a decision that holds it now) and
/// reads [`AnswerState`], in one statement; `None` when there is no such task or person.
/// What it reads of the person's own rows stays true while the decision holds them.
pub fn hold_for_answer(
    conn: &Read,
    task_id: i64,
    annotator_id: i64,
) -> Result<Option<AnswerState>> {
    // The current answer's columns first, as `annotations::from_row` reads them.
    const SQL: &str = "SELECT a.id, a.uuid, a.task_id, a.annotator_id, t.kind, a.answer, a.comment,
                a.trick_failed, a.duration_ms, a.supersedes, a.created_at,
                t.closed_at IS NOT NULL, p.counted,
                (SELECT m.reserved_at FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = p.id)
         FROM tasks t CROSS JOIN annotators p
         LEFT JOIN annotations a ON a.task_id = t.id AND a.annotator_id = p.id
              AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
         WHERE t.id = ?1 AND p.id = ?2 ORDER BY a.id DESC LIMIT 1";
    let sql = match conn.engine() {
        Engine::Sqlite => SQL.to_string(),
        Engine::Postgres => format!("{SQL} FOR NO KEY UPDATE OF t"),
    };
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![task_id, annotator_id], |r| {
            let answered: Option<i64> = r.get(0)?;
            Ok(AnswerState {
                closed: r.get(11)?,
                counted: r.get(12)?,
                reserved_at: r.get(13)?,
                current: match answered {
                    Some(_) => Some(crate::annotations::from_row(r)?),
                    None => None,
                },
            })
        })
        .optional()?)
}

/// Whether a task the decision holds has room for one more counted answer from
/// `annotator_id` (as `tasks::has_room`), and whether it is in a study, in one statement.
pub fn room(conn: &Read, task_id: i64, annotator_id: i64, now: i64) -> Result<(bool, bool)> {
    Ok(conn
        .prepare_cached(
            "SELECT t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
                     AND o.annotator_id != ?2 AND o.state = 'reserved'
                     AND (o.expires_at IS NULL OR o.expires_at > ?3)) < t.overlap,
                    EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
             FROM tasks t WHERE t.id = ?1",
        )?
        .query_row(params![task_id, annotator_id, now], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?
        .unwrap_or((false, false)))
}

/// Stores an answer with what it changes beside it: the task's count of counted answers
/// moved by `delta` (+1, -1 or 0), and the task marked answered by the annotator
/// (`annotations::insert`, `tasks::adjust_answered`, `assignments::mark_answered`). One
/// statement on PostgreSQL, which also announces the commit to listeners
/// ([`crate::listen`]). Returns the answer's id.
pub fn store_answer(
    conn: &crate::Tx<'_>,
    a: &crate::annotations::NewAnnotation<'_>,
    delta: i64,
    now: i64,
) -> Result<i64> {
    if conn.engine() != Engine::Postgres {
        let id = crate::annotations::insert(conn, a)?;
        crate::tasks::adjust_answered(conn, a.task_id, delta)?;
        crate::assignments::mark_answered(conn, a.task_id, a.annotator_id, now)?;
        return Ok(id);
    }
    Ok(conn
        .prepare_cached(
            "WITH new AS (
                 INSERT INTO annotations (uuid, task_id, annotator_id, answer, comment, trick_failed,
                                          duration_ms, supersedes, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING id),
             counted AS (UPDATE tasks SET answered = answered + ?10 WHERE id = ?2 AND ?10 <> 0),
             marked AS (
                 INSERT INTO assignments (task_id, annotator_id, reserved_at, state)
                 VALUES (?2, ?3, ?11, 'answered')
                 ON CONFLICT (task_id, annotator_id) DO UPDATE SET state = 'answered')
             SELECT id, pg_notify('factdesk_answers', '') FROM new",
        )?
        .query_row(
            params![
                a.uuid,
                a.task_id,
                a.annotator_id,
                a.response.to_stored(),
                a.comment,
                a.trick_failed,
                a.duration_ms,
                a.supersedes,
                a.created_at,
                delta,
                now
            ],
            |r| r.get(0),
        )?)
}
