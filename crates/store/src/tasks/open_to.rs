//! Which tasks are open to an annotator: the serving rules every query that hands out
//! work shares ([`OPEN_TO`]), and the walks and checks built on them.

use crate::db::{Engine, OptionalExtension};
use crate::params;
use crate::Read;
use crate::Result;
use factdesk_core::task::TaskKind;

/// Up to `limit` tasks of `kind`, in shuffle order after the `(key, id)` cursor and before
/// `before_key`, that `annotator_id` may take now: short of counted answers once others'
/// live reservations are added, not answered by them, not held for them in a pack, and
/// not a verification of a refutation they wrote. Returns (task id, shuffle key).
pub fn open_for_annotator(
    conn: &Read,
    kind: TaskKind,
    annotator_id: i64,
    after: (i64, i64),
    before_key: i64,
    now: i64,
    limit: u32,
) -> Result<Vec<(i64, i64)>> {
    let sql = match conn.engine() {
        Engine::Sqlite => format!(
            "SELECT t.id, t.shuffle_key FROM tasks t
             WHERE t.kind = ?1 AND t.answered < t.overlap AND t.closed_at IS NULL
               AND (t.shuffle_key > ?3 OR (t.shuffle_key = ?3 AND t.id > ?4)) AND t.shuffle_key < ?5
               AND {OPEN_TO}
             ORDER BY t.shuffle_key, t.id LIMIT {limit}"
        ),
        Engine::Postgres => {
            format!(
                "SELECT p.id, p.shuffle_key FROM ({}) p WHERE p.open LIMIT {limit}",
                open_walk()
            )
        }
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        params![
            kind.as_str(),
            annotator_id,
            after.0,
            after.1,
            before_key,
            now
        ],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(rows.collect::<crate::db::Result<_>>()?)
}

/// Whether task `t` is no label item of a claim family whose other items annotator
/// `who` was given: its verify or refute items, or its evidence items once the project
/// has a refutation. Evidence items are made for originals, so a label item's claim seen
/// among them was an original (596 of 600 labels named so, hostile pass of session 24);
/// held to families with a refutation, the label items left to such a person were all
/// originals (144 of 144, second pass). A project without refutations keeps evidence
/// then label to one person, as FEVER-like projects work. The kinds are listed, not
/// excluded: `kind IN (…)` with the claim is the tasks' unique index, and `kind <> …`
/// read every task for each label item (7 s a search at 9,740 label items).
macro_rules! given_across_kinds {
    ($who:literal) => {
        concat!(
            // CROSS JOIN keeps SQLite to this order, from the family's few claims through
            // indexes; driven by the person's assignments it read all of them each time.
            " AND (t.kind <> 'label' OR NOT EXISTS (SELECT 1 FROM claims k
                 CROSS JOIN tasks u CROSS JOIN assignments g
                 WHERE u.claim_id = k.id AND g.task_id = u.id AND g.annotator_id = ",
            $who,
            "
                   AND u.kind IN ('evidence', 'verify', 'refute')
                   AND (u.kind <> 'evidence' OR EXISTS (SELECT 1 FROM claims r WHERE r.parent_id IS NOT NULL))
                   AND (k.id = (SELECT coalesce(f.parent_id, f.id) FROM claims f WHERE f.id = t.claim_id)
                        OR k.parent_id = (SELECT coalesce(f.parent_id, f.id) FROM claims f WHERE f.id = t.claim_id))))"
        )
    };
}

/// Whether task `t`, of another kind than label, is of no claim family whose label item
/// annotator `who` holds unanswered (live, or in a pack, expired or not: `now` is not
/// read): a label given first and answered stays allowed, but held beside the family's
/// other items it could be answered from them, and would then be refused, the work lost
/// (two packs; a hold that lapsed while its screen stayed open; an expired pack's
/// answers: hostile passes of session 24). Only a skip or an answer ends the hold.
macro_rules! holding_a_label_of_family {
    ($who:literal) => {
        concat!(
            " AND (t.kind = 'label' OR NOT EXISTS (SELECT 1 FROM claims k
                 CROSS JOIN tasks u CROSS JOIN assignments g
                 WHERE u.claim_id = k.id AND g.task_id = u.id AND g.annotator_id = ",
            $who,
            "
                   AND u.kind = 'label' AND g.state = 'reserved'
                   AND (k.id = (SELECT coalesce(f.parent_id, f.id) FROM claims f WHERE f.id = t.claim_id)
                        OR k.parent_id = (SELECT coalesce(f.parent_id, f.id) FROM claims f WHERE f.id = t.claim_id))))"
        )
    };
}

/// Whether task `t` is open to annotator `?2` at time `?6`, beyond being short of
/// answers: not answered by them, not released by their skip, not held for them in a
/// pack, others' counted answers and live reservations under its overlap, not a
/// verification of a refutation they wrote, and not a label item of a claim family whose
/// verify or refute items they were given: a verify item shows an original beside its
/// counter-claim and a refute item shows originals, which told the family's label items'
/// claims apart (600 of 600, hostile pass of session 23). A label given before stands,
/// but cannot be corrected after ([`given_across_kinds`]). The last clause is also
/// [`GIVEN_ACROSS_KINDS_OF_FIRST`], for `?1`.
pub(crate) const OPEN_TO: &str = concat!(
    "NOT EXISTS (SELECT 1 FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = ?2
                 AND (m.state = 'answered' OR (m.state = 'released' AND m.pack_id IS NULL)
                      OR (m.state = 'reserved' AND m.pack_id IS NOT NULL
                      AND (m.expires_at IS NULL OR m.expires_at > ?6))))
           AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
                 AND o.annotator_id != ?2 AND o.state = 'reserved'
                 AND (o.expires_at IS NULL OR o.expires_at > ?6)) < t.overlap
           AND NOT EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
                 WHERE c.id = t.claim_id AND w.annotator_id = ?2)",
    given_across_kinds!("?2"),
    holding_a_label_of_family!("?2")
);

/// The last clauses of [`OPEN_TO`], for a query that names the annotator `?1`.
pub(crate) const GIVEN_ACROSS_KINDS_OF_FIRST: &str =
    concat!(given_across_kinds!("?1"), holding_a_label_of_family!("?1"));

/// Whether `task_id` is a label item of a claim family whose verify or refute items
/// `annotator_id` was given: their answer to it would be read off those.
pub fn given_across_kinds(conn: &Read, task_id: i64, annotator_id: i64) -> Result<bool> {
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM tasks t WHERE t.id = ?1 AND NOT (1 = 1{}))",
        given_across_kinds!("?2")
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_row(params![task_id, annotator_id], |r| r.get(0))?)
}

/// PostgreSQL's walk of the open tasks of kind `?1` in shuffle order from the `(?3, ?4)`
/// cursor to key `?5`, each with `open`: [`OPEN_TO`] for annotator `?2` at `?6`, computed
/// as a column. The rules as a column, in a subquery kept apart (OFFSET 0) and read up to
/// a limit, leave the planner one plan whatever the tables' statistics say: walk the open
/// queue's index in order and stop once enough rows are open. As filters, their
/// estimates flipped it to reading and sorting every open task (seconds at 300,000 tasks,
/// while `assignments` looked empty).
pub(crate) fn open_walk() -> String {
    format!(
        "SELECT t.id, t.shuffle_key, {OPEN_TO} AS open FROM tasks t
         WHERE t.kind = ?1 AND t.answered < t.overlap AND t.closed_at IS NULL
           AND (t.shuffle_key, t.id) > (?3, ?4) AND t.shuffle_key < ?5
         ORDER BY t.shuffle_key, t.id OFFSET 0"
    )
}

/// The task of `kind` this annotator skipped longest ago that is still open, unanswered by
/// them, has room for them and is still theirs to label ([`given_across_kinds`]): skipped
/// items come back only once nothing new is left.
pub fn skipped_with_room(
    conn: &Read,
    kind: TaskKind,
    annotator_id: i64,
    now: i64,
) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached(concat!(
            "SELECT t.id FROM assignments m JOIN tasks t ON t.id = m.task_id
             WHERE m.annotator_id = ?2 AND m.state = 'released' AND m.pack_id IS NULL
               AND t.kind = ?1 AND t.closed_at IS NULL AND t.answered < t.overlap
               AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
                     AND o.annotator_id != ?2 AND o.state = 'reserved'
                     AND (o.expires_at IS NULL OR o.expires_at > ?3)) < t.overlap",
            given_across_kinds!("?2"),
            holding_a_label_of_family!("?2"),
            "
             ORDER BY m.reserved_at, m.id LIMIT 1"
        ))?
        .query_row(params![kind.as_str(), annotator_id, now], |r| r.get(0))
        .optional()?)
}

/// Whether a task has room for one more counted answer from `annotator_id`: its counted
/// answers plus others' live reservations stay under its overlap.
pub fn has_room(conn: &Read, task_id: i64, annotator_id: i64, now: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
                     AND o.annotator_id != ?2 AND o.state = 'reserved'
                     AND (o.expires_at IS NULL OR o.expires_at > ?3)) < t.overlap
             FROM tasks t WHERE t.id = ?1",
        )?
        .query_row(params![task_id, annotator_id, now], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::OPEN_TO;
    use crate::Store;

    /// Second hostile pass of session 24: the cross-kind clause named the family's other
    /// tasks as `kind <> 'label'`, which no index serves, so each label item read every
    /// task (7 s a search at 9,740 label items). Only the walk itself may scan.
    #[test]
    fn the_serving_rules_read_a_familys_tasks_through_indexes() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT t.id FROM tasks t WHERE t.kind = ?1 AND ?3 = ?4 AND ?5 = ?5 AND {OPEN_TO}"
        );
        let conn = store.read();
        let mut stmt = conn.prepare(&sql).unwrap_or_else(|e| panic!("{e}"));
        let plan: Vec<String> = stmt
            .query_map(
                crate::params!["label", 1_i64, 0_i64, 0_i64, 0_i64, 0_i64],
                |r| r.get(3),
            )
            .unwrap_or_else(|e| panic!("{e}"))
            .collect::<crate::db::Result<_>>()
            .unwrap_or_else(|e| panic!("{e}"));
        // An automatic index is built over every task each time the statement runs.
        let reads_all = |d: &&String| {
            (d.starts_with("SCAN") && !d.starts_with("SCAN t")) || d.contains("AUTOMATIC")
        };
        let all: Vec<&String> = plan.iter().filter(reads_all).collect();
        assert!(all.is_empty(), "{plan:#?}");
    }
}
