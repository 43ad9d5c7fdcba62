-- The statements of one `next` and one answer on a PostgreSQL project, each under
-- EXPLAIN (ANALYZE, BUFFERS), for docs/performance-history.md ("Session 8: the hot path at 300,000 claims").
-- Everything runs in one transaction that is rolled back: the project is left as it was.
--   psql "$URL" -v who=a1 -v plan=force_generic_plan -f scripts/bench/hot_path_explain.sql
-- Prepared statements as the server sends them; `plan_cache_mode` is set to show the
-- generic plan PostgreSQL may settle on after five executions of a prepared statement
-- (-v plan=force_generic_plan) or the plan for the values given (-v plan=force_custom_plan).
\set ON_ERROR_STOP on
\timing off
SELECT id AS ann FROM annotators WHERE name = :'who' \gset
SELECT (extract(epoch FROM now()) * 1000)::bigint AS now \gset
SELECT (:now + 30 * 60000)::bigint AS expires \gset
BEGIN;
SET LOCAL plan_cache_mode = :plan;
SELECT pg_advisory_xact_lock_shared(1178879315);
SELECT 1 FROM annotators WHERE id = :ann FOR NO KEY UPDATE;

\echo '== who and settings (at_work)'
PREPARE at_work(text) AS
SELECT a.id, a.name, a.role, a.created_at, a.flag_override, a.tricks_seen,
       a.tricks_failed, a.counted, p.settings, p.secret
FROM annotators a CROSS JOIN (SELECT settings, secret FROM project LIMIT 1) p
WHERE a.name = $1;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE at_work(:'who');

\echo '== live reservation or study member (live_or_member)'
PREPARE live_or_member(bigint, text, bigint) AS
SELECT (SELECT a.task_id FROM assignments a JOIN tasks t ON t.id = a.task_id
        WHERE a.annotator_id = $1 AND t.kind = $2 AND a.state = 'reserved' AND a.pack_id IS NULL
          AND (a.expires_at IS NULL OR a.expires_at > $3)
        ORDER BY a.reserved_at, a.id LIMIT 1),
       EXISTS (SELECT 1 FROM study_members m JOIN studies s ON s.id = m.study_id
               WHERE m.annotator_id = $1 AND s.kind = $2);
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE live_or_member(:ann, 'evidence', :now);

\echo '== the old page of 16 open tasks (open_for_annotator)'
PREPARE page(text, bigint, bigint, bigint, bigint, bigint, bigint) AS
SELECT t.id, t.shuffle_key FROM tasks t
WHERE t.kind = $1 AND t.answered < t.overlap AND t.closed_at IS NULL
  AND (t.shuffle_key > $3 OR (t.shuffle_key = $3 AND t.id > $4)) AND t.shuffle_key < $5
  AND NOT EXISTS (SELECT 1 FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = $2
        AND (m.state = 'answered' OR (m.state = 'released' AND m.pack_id IS NULL)
             OR (m.state = 'reserved' AND m.pack_id IS NOT NULL
             AND (m.expires_at IS NULL OR m.expires_at > $6))))
  AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
        AND o.annotator_id != $2 AND o.state = 'reserved'
        AND (o.expires_at IS NULL OR o.expires_at > $6)) < t.overlap
  AND NOT EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
        WHERE c.id = t.claim_id AND w.annotator_id = $2)
ORDER BY t.shuffle_key, t.id LIMIT $7;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
  EXECUTE page('evidence', :ann, 0, -9223372036854775808, 9223372036854775807, :now, 16);

\echo '== the new page of 16 (open_for_annotator, the rules as a column of a fenced walk)'
PREPARE walk(text, bigint, bigint, bigint, bigint, bigint) AS
SELECT p.id, p.shuffle_key FROM (
  SELECT t.id, t.shuffle_key, NOT EXISTS (SELECT 1 FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = $2
        AND (m.state = 'answered' OR (m.state = 'released' AND m.pack_id IS NULL)
             OR (m.state = 'reserved' AND m.pack_id IS NOT NULL
             AND (m.expires_at IS NULL OR m.expires_at > $6))))
  AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
        AND o.annotator_id != $2 AND o.state = 'reserved'
        AND (o.expires_at IS NULL OR o.expires_at > $6)) < t.overlap
  AND NOT EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
        WHERE c.id = t.claim_id AND w.annotator_id = $2) AS open FROM tasks t
  WHERE t.kind = $1 AND t.answered < t.overlap AND t.closed_at IS NULL
    AND (t.shuffle_key, t.id) > ($3, $4) AND t.shuffle_key < $5
  ORDER BY t.shuffle_key, t.id OFFSET 0) p
WHERE p.open LIMIT 16;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
  EXECUTE walk('evidence', :ann, 0, -9223372036854775808, 9223372036854775807, :now);

\echo '== take the first open task nobody holds (take_open)'
PREPARE take_open(text, bigint, bigint, bigint, bigint, bigint) AS
SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered, t.shuffle_key,
       EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
FROM tasks t
WHERE t.id = ANY (ARRAY(SELECT p.id FROM (
    SELECT t.id, t.shuffle_key, NOT EXISTS (SELECT 1 FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = $2
        AND (m.state = 'answered' OR (m.state = 'released' AND m.pack_id IS NULL)
             OR (m.state = 'reserved' AND m.pack_id IS NOT NULL
             AND (m.expires_at IS NULL OR m.expires_at > $6))))
  AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
        AND o.annotator_id != $2 AND o.state = 'reserved'
        AND (o.expires_at IS NULL OR o.expires_at > $6)) < t.overlap
  AND NOT EXISTS (SELECT 1 FROM claims c JOIN annotations w ON w.id = c.written_in
        WHERE c.id = t.claim_id AND w.annotator_id = $2) AS open FROM tasks t
    WHERE t.kind = $1 AND t.answered < t.overlap AND t.closed_at IS NULL
      AND (t.shuffle_key, t.id) > ($3, $4) AND t.shuffle_key < $5
    ORDER BY t.shuffle_key, t.id OFFSET 0) p WHERE p.open LIMIT 8))
  AND t.answered < t.overlap AND t.closed_at IS NULL
ORDER BY t.shuffle_key, t.id LIMIT 1
FOR NO KEY UPDATE OF t SKIP LOCKED;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
  EXECUTE take_open('evidence', :ann, 0, -9223372036854775808, 9223372036854775807, :now);
EXECUTE take_open('evidence', :ann, 0, -9223372036854775808, 9223372036854775807, :now) \gset task_
\echo task :task_id claim :task_claim_id

\echo '== reserve it if it has room (reserve_if_room)'
PREPARE reserve_if_room(bigint, bigint, bigint, bigint) AS
INSERT INTO assignments (task_id, annotator_id, reserved_at, expires_at, pack_id, state)
SELECT t.id, CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT), NULL, 'reserved'
FROM tasks t
WHERE t.id = $1
  AND t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
        AND o.annotator_id != $2 AND o.state = 'reserved'
        AND (o.expires_at IS NULL OR o.expires_at > $3)) < t.overlap
  AND NOT EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
ON CONFLICT (task_id, annotator_id) DO UPDATE SET reserved_at = $3, expires_at = $4,
    pack_id = NULL, state = 'reserved'
WHERE assignments.state != 'answered'
  AND (assignments.pack_id IS NULL OR assignments.state != 'reserved'
       OR (assignments.expires_at IS NOT NULL AND assignments.expires_at <= $3));
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE reserve_if_room(:task_id, :ann, :now, :expires);

\echo '== the item: task, claim, candidates, trick (task_text)'
PREPARE task_text(bigint) AS
SELECT t.id, t.kind, t.claim_id, t.overlap, t.trick_slot, t.answered,
       c.id, c.text, c.context, c.parent_id, k.sentence_id, s.text,
       (SELECT x.id FROM task_tricks tt JOIN sentences x ON x.id = tt.sentence_id WHERE tt.task_id = t.id),
       (SELECT x.text FROM task_tricks tt JOIN sentences x ON x.id = tt.sentence_id WHERE tt.task_id = t.id)
FROM tasks t
LEFT JOIN claims c ON c.id = t.claim_id
LEFT JOIN candidates k ON k.claim_id = c.id
LEFT JOIN sentences s ON s.id = k.sentence_id
WHERE t.id = $1 ORDER BY k.rank;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE task_text(:task_id);

\echo '== the old candidates read (candidates::of_claim)'
PREPARE candidates(bigint) AS
SELECT k.rank, k.sentence_id, s.document_id, d.ext_id, s.idx, s.text, k.ranker, k.score, k.scores,
       k.bm25, k.levenshtein, k.jaccard, k.fused, k.semantic, k.placed
FROM candidates k JOIN sentences s ON s.id = k.sentence_id JOIN documents d ON d.id = s.document_id
WHERE k.claim_id = $1 ORDER BY k.rank;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE candidates(:task_claim_id);

\echo '== pace (pace_counts)'
PREPARE pace(bigint, text, bigint) AS
SELECT n.done, n.open, n.mine, l.created_at FROM (SELECT
    (SELECT count(DISTINCT a.task_id) FROM annotations a JOIN tasks t ON t.id = a.task_id
     WHERE a.annotator_id = $1 AND t.kind = $2) AS done,
    (SELECT CAST(coalesce(sum(open), 0) AS BIGINT) FROM open_tasks WHERE kind = $2) AS open,
    (SELECT count(*) FROM assignments a JOIN tasks t ON t.id = a.task_id
     WHERE a.annotator_id = $1 AND a.state = 'answered' AND t.kind = $2
       AND t.answered < t.overlap AND t.closed_at IS NULL) AS mine) n
LEFT JOIN (SELECT a.id, a.created_at FROM annotations a JOIN tasks t ON t.id = a.task_id
           WHERE a.annotator_id = $1 AND t.kind = $2 ORDER BY a.id + 0 DESC LIMIT $3) l ON 1 = 1
ORDER BY l.id DESC;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE pace(:ann, 'evidence', 200);

\echo '== the current answer (annotations::current)'
PREPARE current(bigint, bigint) AS
SELECT a.id, a.uuid, a.task_id, a.annotator_id, t.kind, a.answer, a.comment, a.trick_failed,
       a.duration_ms, a.supersedes, a.created_at
FROM annotations a JOIN tasks t ON t.id = a.task_id
WHERE a.task_id = $1 AND a.annotator_id = $2
  AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id)
ORDER BY a.id DESC LIMIT 1;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE current(:task_id, :ann);

\echo '== an answer: hold the task, read its state (hold_for_answer)'
PREPARE hold_for_answer(bigint, bigint) AS
SELECT t.closed_at IS NOT NULL, p.counted,
       (SELECT m.reserved_at FROM assignments m WHERE m.task_id = t.id AND m.annotator_id = p.id)
FROM tasks t CROSS JOIN annotators p WHERE t.id = $1 AND p.id = $2 FOR NO KEY UPDATE OF t;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE hold_for_answer(:task_id, :ann);

\echo '== its room (room)'
PREPARE room(bigint, bigint, bigint) AS
SELECT t.answered + (SELECT count(*) FROM assignments o WHERE o.task_id = t.id
         AND o.annotator_id != $2 AND o.state = 'reserved'
         AND (o.expires_at IS NULL OR o.expires_at > $3)) < t.overlap,
       EXISTS (SELECT 1 FROM study_items s WHERE s.task_id = t.id)
FROM tasks t WHERE t.id = $1;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE room(:task_id, :ann, :now);

\echo '== store it (store_answer)'
PREPARE store_answer(text, bigint, bigint, text, text, bigint, bigint, bigint, bigint, bigint, bigint) AS
WITH new AS (
    INSERT INTO annotations (uuid, task_id, annotator_id, answer, comment, trick_failed,
                             duration_ms, supersedes, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id),
counted AS (UPDATE tasks SET answered = answered + $10 WHERE id = $2 AND $10 <> 0),
marked AS (
    INSERT INTO assignments (task_id, annotator_id, reserved_at, state)
    VALUES ($2, $3, $11, 'answered')
    ON CONFLICT (task_id, annotator_id) DO UPDATE SET state = 'answered')
SELECT id FROM new;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
  EXECUTE store_answer('explain-' || :now, :task_id, :ann, '{"v":1,"no_evidence":true}', NULL, 0, 5000, NULL, :now, 1, :now);

\echo '== the trick record read back (annotators::get)'
PREPARE annotator(bigint) AS
SELECT id, name, role, created_at, flag_override, tricks_seen, tricks_failed, counted
FROM annotators WHERE id = $1;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE annotator(:ann);
ROLLBACK;
