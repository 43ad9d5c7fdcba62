-- Overlap as an invariant of the file, not of the code that writes it.
--
-- 1. One current answer per (task, annotator): one first answer, each answer superseded at
--    most once, and only by the same annotator on the same task. Files written before this
--    could hold two first answers from racing writers; they are linked in the order they
--    were written (the later one supersedes), which is what reading them already assumed.
-- 2. An annotator's trick record (items seen, items on which they ever picked the trick)
--    is kept by a trigger, so deciding whether their answers count needs no scan, and
--    `counted` says whether they do (the lead's word or the flag).
-- 3. `tasks.answered` counts counted answers only: current, not picking the trick, by a
--    counted annotator. A rejected answer's slot is open again.

DROP TRIGGER annotations_no_update;

UPDATE annotations SET supersedes = (
    SELECT max(b.id) FROM annotations b
    WHERE b.task_id = annotations.task_id AND b.annotator_id = annotations.annotator_id
      AND b.id < annotations.id)
WHERE (task_id, annotator_id) IN (
    SELECT task_id, annotator_id FROM annotations GROUP BY task_id, annotator_id
    HAVING sum(supersedes IS NULL) > 1
        OR count(DISTINCT supersedes) < sum(supersedes IS NOT NULL));

CREATE TRIGGER annotations_no_update BEFORE UPDATE ON annotations
BEGIN SELECT RAISE(ABORT, 'annotations are append-only'); END;

DROP INDEX annotations_supersedes;
CREATE UNIQUE INDEX annotations_superseded_once ON annotations(supersedes)
    WHERE supersedes IS NOT NULL;
CREATE UNIQUE INDEX annotations_one_first ON annotations(task_id, annotator_id)
    WHERE supersedes IS NULL;

CREATE TRIGGER annotations_supersede_own BEFORE INSERT ON annotations
WHEN new.supersedes IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM annotations o WHERE o.id = new.supersedes
      AND o.task_id = new.task_id AND o.annotator_id = new.annotator_id)
BEGIN SELECT RAISE(ABORT, 'an answer can only supersede the same annotator''s answer on the same task'); END;

ALTER TABLE annotators ADD COLUMN tricks_seen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE annotators ADD COLUMN tricks_failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE annotators ADD COLUMN counted INTEGER NOT NULL DEFAULT 1 CHECK (counted IN (0, 1));

-- Items, not answers: a correction does not take a failure off the record.
UPDATE annotators SET
    tricks_seen = (SELECT count(DISTINCT a.task_id) FROM annotations a JOIN tasks t ON t.id = a.task_id
        WHERE a.annotator_id = annotators.id AND t.kind = 'evidence'),
    tricks_failed = (SELECT count(DISTINCT a.task_id) FROM annotations a JOIN tasks t ON t.id = a.task_id
        WHERE a.annotator_id = annotators.id AND t.kind = 'evidence' AND a.trick_failed = 1);

-- The same rule as the api's (settings may lack the thresholds: their defaults then).
UPDATE annotators SET counted = CASE
    WHEN flag_override = 'include' THEN 1
    WHEN flag_override = 'exclude' THEN 0
    WHEN tricks_seen >= coalesce((SELECT json_extract(settings, '$.trick_min_seen') FROM project), 3)
     AND tricks_failed * 1.0 / tricks_seen > coalesce((SELECT json_extract(settings, '$.trick_flag_threshold') FROM project), 0.2)
    THEN 0 ELSE 1 END;

-- An item counts once as seen, and once as failed as soon as any answer on it picked the
-- trick: an annotator cannot clear a failure by answering the item again.
CREATE TRIGGER annotations_keep_record AFTER INSERT ON annotations
WHEN (SELECT kind FROM tasks WHERE id = new.task_id) = 'evidence'
BEGIN
    UPDATE annotators SET
        tricks_seen = tricks_seen + (new.supersedes IS NULL),
        tricks_failed = tricks_failed + (new.trick_failed = 1 AND NOT EXISTS (
            SELECT 1 FROM annotations o WHERE o.task_id = new.task_id
              AND o.annotator_id = new.annotator_id AND o.trick_failed = 1 AND o.id != new.id))
    WHERE id = new.annotator_id;
END;

UPDATE tasks SET answered = (
    SELECT count(*) FROM annotations a JOIN annotators p ON p.id = a.annotator_id
    WHERE a.task_id = tasks.id AND a.trick_failed = 0 AND p.counted = 1
      AND NOT EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = a.id));
