//! Embedded migrations, applied in one transaction.

use crate::Read;
use crate::{Error, Result};
use std::path::Path;

/// Each entry moves the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_initial.sql"),
    include_str!("migrations/0002_assignment.sql"),
    include_str!("migrations/0003_decisions.sql"),
    include_str!("migrations/0004_packs.sql"),
    include_str!("migrations/0005_open_tasks.sql"),
    include_str!("migrations/0006_counted_answers.sql"),
    include_str!("migrations/0007_task_tricks.sql"),
    include_str!("migrations/0008_refutation_lifecycle.sql"),
    include_str!("migrations/0009_studies.sql"),
    include_str!("migrations/0010_pack_merges.sql"),
    include_str!("migrations/0011_compact_text_and_scores.sql"),
    include_str!("migrations/0012_predictions.sql"),
    include_str!("migrations/0013_sign_in.sql"),
    include_str!("migrations/0014_semantic_ranker.sql"),
    include_str!("migrations/0015_open_task_shards.sql"),
    include_str!("migrations/0016_open_tasks_per_statement.sql"),
    include_str!("migrations/0017_checks_as_comparisons.sql"),
    include_str!("migrations/0018_session_activity.sql"),
    include_str!("migrations/0019_trick_sentences.sql"),
    include_str!("migrations/0020_one_task_queue.sql"),
    include_str!("migrations/0021_problem_reports.sql"),
    include_str!("migrations/0022_study_strata.sql"),
    include_str!("migrations/0023_decision_categories.sql"),
    include_str!("migrations/0024_designs.sql"),
    include_str!("migrations/0025_pack_problem_reports.sql"),
    include_str!("migrations/0026_candidates_placed_as_bits.sql"),
];

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// PostgreSQL's schema, by the version each file brings the database to. PostgreSQL
/// projects began at version 11, so its first file sets up that whole schema at once;
/// every later version adds one file for each engine.
const PG_MIGRATIONS: &[(i64, &str)] = &[
    (11, include_str!("migrations/postgres/0011_baseline.sql")),
    (12, include_str!("migrations/postgres/0012_predictions.sql")),
    (13, include_str!("migrations/postgres/0013_sign_in.sql")),
    (
        14,
        include_str!("migrations/postgres/0014_semantic_ranker.sql"),
    ),
    (
        15,
        include_str!("migrations/postgres/0015_open_task_shards.sql"),
    ),
    (
        16,
        include_str!("migrations/postgres/0016_open_tasks_per_statement.sql"),
    ),
    (
        17,
        include_str!("migrations/postgres/0017_checks_as_comparisons.sql"),
    ),
    (
        18,
        include_str!("migrations/postgres/0018_session_activity.sql"),
    ),
    (
        19,
        include_str!("migrations/postgres/0019_trick_sentences.sql"),
    ),
    (
        20,
        include_str!("migrations/postgres/0020_one_task_queue.sql"),
    ),
    (
        21,
        include_str!("migrations/postgres/0021_problem_reports.sql"),
    ),
    (
        22,
        include_str!("migrations/postgres/0022_study_strata.sql"),
    ),
    (
        23,
        include_str!("migrations/postgres/0023_decision_categories.sql"),
    ),
    (24, include_str!("migrations/postgres/0024_designs.sql")),
    (
        25,
        include_str!("migrations/postgres/0025_pack_problem_reports.sql"),
    ),
    (
        26,
        include_str!("migrations/postgres/0026_candidates_placed_as_bits.sql"),
    ),
];

/// Brings the schema up to date inside `tx`, or refuses a file from a newer version.
pub(crate) fn apply(tx: &Read, path: &Path) -> Result<()> {
    let Some(tx) = tx.sqlite() else {
        return apply_postgres(tx, path);
    };
    let found: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tracing::info!(version = i + 1, "applying migration");
        tx.execute_batch(sql)?;
    }
    if found < SCHEMA_VERSION {
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        // A migration may rewrite the schema's text in place (17 does): a new schema
        // version makes every connection, this one included, read it again.
        let schema: i64 = tx.pragma_query_value(None, "schema_version", |r| r.get(0))?;
        tx.pragma_update(None, "schema_version", schema + 1)?;
    }
    Ok(())
}

/// The PostgreSQL side of [`apply`]: the version lives in the `factdesk_schema` row.
fn apply_postgres(tx: &Read, shown: &Path) -> Result<()> {
    let found: i64 = tx.query_row("SELECT version FROM factdesk_schema", [], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(Error::NewerSchema {
            path: shown.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    for (version, sql) in PG_MIGRATIONS.iter().filter(|(v, _)| *v > found) {
        tracing::info!(version, "applying migration");
        tx.execute_batch(sql)?;
    }
    if found < SCHEMA_VERSION {
        tx.execute("UPDATE factdesk_schema SET version = ?1", [SCHEMA_VERSION])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{MIGRATIONS, PG_MIGRATIONS, SCHEMA_VERSION};

    /// A migration added for files needs its PostgreSQL counterpart, and the reverse.
    #[test]
    fn both_engines_reach_the_same_schema_version() {
        assert_eq!(PG_MIGRATIONS.last().map(|m| m.0), Some(SCHEMA_VERSION));
        assert!(PG_MIGRATIONS.windows(2).all(|w| w[0].0 < w[1].0));
    }
    use rusqlite::Connection;

    fn ok<T, E: std::fmt::Display>(r: std::result::Result<T, E>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    /// A project at schema 5 with four written refutations (one replaced, one unreviewed,
    /// one accepted, one rejected), each with a verify task, brought to the current schema.
    #[test]
    fn migration_8_gives_old_written_refutations_their_state_and_closes_what_must_not_be_verified()
    {
        let conn = ok(Connection::open_in_memory());
        for sql in &MIGRATIONS[..5] {
            ok(conn.execute_batch(sql));
        }
        ok(conn.execute_batch(
            "INSERT INTO project (id, name, created_at, secret) VALUES ('p', 'p', 0, x'00');
             INSERT INTO annotators (id, name, role, created_at) VALUES (1, 'lead', 'lead', 0), (2, 'wren', 'annotator', 0);
             INSERT INTO claims (id, ext_id, text, hash, created_at) VALUES
                 (1, 'a', 'A', 'h', 0), (6, 'b', 'B', 'h', 0), (7, 'c', 'C', 'h', 0);
             INSERT INTO tasks (id, kind, claim_id, overlap, created_at) VALUES
                 (10, 'refute', 1, 1, 0), (11, 'refute', 6, 1, 0), (12, 'refute', 7, 1, 0);
             INSERT INTO annotations (id, uuid, task_id, annotator_id, answer, supersedes, created_at) VALUES
                 (1, 'u1', 10, 2, '{}', NULL, 0), (2, 'u2', 10, 2, '{}', 1, 0),
                 (3, 'u3', 11, 2, '{}', NULL, 0), (4, 'u4', 12, 2, '{}', NULL, 0);
             INSERT INTO reviews (annotation_id, lead_id, accepted, at) VALUES (3, 1, 1, 0), (4, 1, 0, 0);
             INSERT INTO claims (id, ext_id, text, hash, created_at, parent_id, origin, written_in) VALUES
                 (2, 'w1', 'W1', 'h', 0, 1, 'written', 1), (3, 'w2', 'W2', 'h', 0, 1, 'written', 2),
                 (4, 'w3', 'W3', 'h', 0, 6, 'written', 3), (5, 'w4', 'W4', 'h', 0, 7, 'written', 4);
             INSERT INTO tasks (id, kind, claim_id, overlap, created_at) VALUES
                 (20, 'verify', 2, 3, 0), (21, 'verify', 3, 3, 0), (22, 'verify', 4, 3, 0), (23, 'verify', 5, 3, 0);",
        ));
        for sql in &MIGRATIONS[5..] {
            ok(conn.execute_batch(sql));
        }
        let state = |id: i64| -> (Option<String>, bool) {
            ok(conn.query_row(
                "SELECT c.refutation_state, t.closed_at IS NOT NULL FROM claims c LEFT JOIN tasks t ON t.claim_id = c.id AND t.kind = 'verify' WHERE c.id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get::<_, Option<bool>>(1)?.unwrap_or(false))),
            ))
        };
        assert_eq!(state(1), (None, false));
        assert_eq!(state(2), (Some("superseded".into()), true));
        assert_eq!(state(3), (Some("pending_review".into()), true));
        assert_eq!(state(4), (Some("accepted".into()), false));
        assert_eq!(state(5), (Some("rejected".into()), true));
        let open: i64 = ok(conn.query_row(
            "SELECT open FROM open_tasks WHERE kind = 'verify'",
            [],
            |r| r.get(0),
        ));
        assert_eq!(
            open, 1,
            "only the accepted refutation's verification is open"
        );

        // From now on a written claim needs a state, and no answer lands on a closed task.
        let e = conn.execute(
            "INSERT INTO claims (ext_id, text, hash, created_at, origin) VALUES ('x', 'X', 'h', 0, 'written')",
            [],
        );
        assert!(e.is_err());
        let e = conn.execute(
            "INSERT INTO annotations (uuid, task_id, annotator_id, answer, created_at) VALUES ('u9', 20, 1, '{}', 0)",
            [],
        );
        assert!(e.is_err_and(|e| e.to_string().contains("closed")));
    }

    /// Regression (issue 14): list checks of three or more values built a temporary b-tree
    /// for every inserted claim. After migration 17 a file at version 16 checks the same
    /// values with comparisons: every rewritten column still takes its values and NULL,
    /// still refuses others, and inserting a claim, a task or an assignment opens no
    /// temporary table.
    #[test]
    fn migration_17_checks_the_same_values_without_temporary_tables() {
        let conn = ok(Connection::open_in_memory());
        for sql in &MIGRATIONS[..16] {
            ok(conn.execute_batch(sql));
        }
        ok(conn.pragma_update(None, "user_version", 16));
        let conn = crate::Read(crate::db::Connection::Sqlite(conn));
        ok(super::apply(&conn, std::path::Path::new("memory")));
        let Some(conn) = conn.sqlite() else {
            unreachable!("opened as SQLite")
        };
        let lists: i64 = ok(conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%label IN (%' OR sql LIKE '%state IN (%' OR sql LIKE '%kind IN (%'",
            [],
            |r| r.get(0),
        ));
        assert_eq!(lists, 0, "a list check of three or more values is left");
        ok(conn.execute_batch(
            "INSERT INTO project (id, name, created_at, secret) VALUES ('p', 'p', 0, x'00');
             INSERT INTO annotators (id, name, role, created_at) VALUES (1, 'lead', 'lead', 0);",
        ));
        let inserts = [
            "INSERT INTO claims (ext_id, text, hash, created_at, label) VALUES ('c' || ?1, 'C', 'h', 0, ?2)",
            "INSERT INTO claims (ext_id, text, hash, created_at, origin, refutation_state) VALUES ('w' || ?1, 'W', 'h', 0, 'written', ?2)",
            "INSERT INTO tasks (kind, claim_id, overlap, created_at) VALUES (?2, ?1, 1, 0)",
            "INSERT INTO assignments (task_id, annotator_id, reserved_at, state) VALUES (?1, 1, 0, ?2)",
        ];
        for sql in inserts {
            let plan: Vec<String> =
                ok(conn.prepare(&format!("EXPLAIN {sql}")).and_then(|mut s| {
                    s.query_map(rusqlite::params![1, "x"], |r| r.get(1))?
                        .collect()
                }));
            assert!(
                !plan.iter().any(|op| op == "OpenEphemeral"),
                "{sql} opens a temporary table"
            );
        }
        let check = |sql: &str, n: i64, value: Option<&str>| {
            conn.execute(sql, rusqlite::params![n, value]).is_ok()
        };
        for (n, label) in ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"]
            .iter()
            .enumerate()
        {
            assert!(check(inserts[0], n as i64, Some(label)), "{label}");
        }
        assert!(check(inserts[0], 10, None));
        assert!(!check(inserts[0], 11, Some("supported")));
        let states = [
            "pending_review",
            "accepted",
            "no_review_needed",
            "rejected",
            "superseded",
        ];
        for (n, state) in states.iter().enumerate() {
            assert!(check(inserts[1], n as i64, Some(state)), "{state}");
        }
        assert!(!check(inserts[1], 10, Some("open")));
        for (n, kind) in ["evidence", "refute", "verify", "label"].iter().enumerate() {
            assert!(check(inserts[2], n as i64 + 1, Some(kind)), "{kind}");
        }
        assert!(!check(inserts[2], 5, Some("review")));
        assert!(!check(inserts[2], 5, None), "a task needs a kind");
        for (n, state) in ["reserved", "answered", "released"].iter().enumerate() {
            assert!(check(inserts[3], n as i64 + 1, Some(state)), "{state}");
        }
        assert!(!check(inserts[3], 4, Some("taken")));
        let study = |kind: &str| {
            conn.execute(
                "INSERT INTO studies (kind, sample_size, seed, created_at, lead_id) VALUES (?1, 1, 1, 0, 1)",
                [kind],
            )
        };
        assert!(study("verify").is_ok());
        assert!(study("refute").is_err());
        let predict = |label: &str| {
            conn.execute(
                "INSERT INTO predictions (claim_id, model, label, created_at) VALUES (1, 'm', ?1, 0)",
                [label],
            )
        };
        assert!(predict("REFUTED").is_ok());
        assert!(predict("TRUE").is_err());
    }

    /// Migration 26 keeps which rankers placed each candidate, as bits instead of names:
    /// every stored list of names becomes the same rankers' bits (any order, repeated
    /// spaces), no list stays no list, and the names' column is gone.
    #[test]
    fn migration_26_keeps_which_rankers_placed_each_candidate_as_bits() {
        let conn = ok(Connection::open_in_memory());
        for sql in &MIGRATIONS[..25] {
            ok(conn.execute_batch(sql));
        }
        // Candidate rows alone: their claims and sentences play no part here.
        ok(conn.pragma_update(None, "foreign_keys", false));
        let stored = [
            (Some("bm25 jaccard"), Some(5)),
            (Some(""), Some(0)),
            (None, None),
            (Some("semantic  levenshtein"), Some(10)),
            (Some("bm25 levenshtein jaccard semantic"), Some(15)),
        ];
        for (rank, (names, _)) in stored.iter().enumerate() {
            ok(conn.execute(
                "INSERT INTO candidates (claim_id, rank, sentence_id, ranker, score, placed_by) VALUES (1, ?1, ?1, 'fused', 0.5, ?2)",
                rusqlite::params![rank as i64 + 1, names],
            ));
        }
        ok(conn.execute_batch(MIGRATIONS[25]));
        let placed: Vec<Option<i64>> = ok(conn
            .prepare("SELECT placed FROM candidates ORDER BY rank")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect()));
        let expected: Vec<Option<i64>> = stored.iter().map(|(_, bits)| *bits).collect();
        assert_eq!(placed, expected);
        assert!(conn.prepare("SELECT placed_by FROM candidates").is_err());
        let out_of_range = conn.execute(
            "INSERT INTO candidates (claim_id, rank, sentence_id, ranker, score, placed) VALUES (2, 1, 1, 'fused', 0.5, 16)",
            [],
        );
        assert!(
            out_of_range.is_err(),
            "bits past the last ranker are refused"
        );
    }
}
