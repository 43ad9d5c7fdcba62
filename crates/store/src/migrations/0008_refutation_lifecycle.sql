-- The life of a written refutation, kept with the claim it became: waiting for the lead's
-- review, accepted by the lead, needing no review (its writer had qualified), rejected by
-- the lead, or superseded by its writer's next answer. Imported claims have none.
ALTER TABLE claims ADD COLUMN refutation_state TEXT
    CHECK (refutation_state IN ('pending_review', 'accepted', 'no_review_needed', 'rejected', 'superseded'));

-- A closed task (the verification of a refutation that was rejected or superseded) is
-- never served again; its answers stay.
ALTER TABLE tasks ADD COLUMN closed_at INTEGER;

-- Refutations written before this version: superseded, then the lead's review, then
-- whether the writer had qualified (enough accepted refutations) when the project moved.
UPDATE claims SET refutation_state = CASE
    WHEN EXISTS (SELECT 1 FROM annotations b WHERE b.supersedes = claims.written_in) THEN 'superseded'
    WHEN EXISTS (SELECT 1 FROM reviews r WHERE r.annotation_id = claims.written_in AND r.accepted = 1) THEN 'accepted'
    WHEN EXISTS (SELECT 1 FROM reviews r WHERE r.annotation_id = claims.written_in AND r.accepted = 0) THEN 'rejected'
    WHEN (SELECT count(*) FROM reviews r JOIN annotations a ON a.id = r.annotation_id
          WHERE r.accepted = 1 AND a.annotator_id = (SELECT annotator_id FROM annotations WHERE id = claims.written_in))
         >= coalesce((SELECT json_extract(settings, '$.qualification_min_accepted') FROM project), 4)
        THEN 'no_review_needed'
    ELSE 'pending_review'
END
WHERE origin = 'written';

UPDATE tasks SET closed_at = created_at
WHERE kind = 'verify' AND claim_id IN (
    SELECT id FROM claims WHERE refutation_state IN ('pending_review', 'rejected', 'superseded'));

-- Every written claim has a state and no imported one does; a row that breaks this is
-- refused from now on.
CREATE TRIGGER claims_refutation_state_insert BEFORE INSERT ON claims
WHEN (new.origin = 'written') != (new.refutation_state IS NOT NULL)
BEGIN SELECT RAISE(ABORT, 'a written refutation needs a state, an imported claim none'); END;
CREATE TRIGGER claims_refutation_state_update BEFORE UPDATE OF origin, refutation_state ON claims
WHEN (new.origin = 'written') != (new.refutation_state IS NOT NULL)
BEGIN SELECT RAISE(ABORT, 'a written refutation needs a state, an imported claim none'); END;

-- No answer lands on a closed task.
CREATE TRIGGER annotations_closed_task BEFORE INSERT ON annotations
WHEN (SELECT closed_at FROM tasks WHERE id = new.task_id) IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'this task is closed: its refutation was rejected or replaced'); END;

-- The open-task queue and counts of migration 0005, now leaving closed tasks out.
DROP INDEX tasks_open_queue;
CREATE INDEX tasks_open_queue ON tasks(kind, shuffle_key) WHERE answered < overlap AND closed_at IS NULL;

DROP TRIGGER open_tasks_insert;
DROP TRIGGER open_tasks_update;
DROP TRIGGER open_tasks_delete;
DELETE FROM open_tasks;
INSERT INTO open_tasks (kind, open)
    SELECT kind, sum(answered < overlap AND closed_at IS NULL) FROM tasks GROUP BY kind;

CREATE TRIGGER open_tasks_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO open_tasks (kind, open) VALUES (new.kind, new.answered < new.overlap AND new.closed_at IS NULL)
        ON CONFLICT (kind) DO UPDATE SET open = open + (new.answered < new.overlap AND new.closed_at IS NULL);
END;

CREATE TRIGGER open_tasks_update AFTER UPDATE OF answered, overlap, kind, closed_at ON tasks BEGIN
    UPDATE open_tasks SET open = open - (old.answered < old.overlap AND old.closed_at IS NULL) WHERE kind = old.kind;
    INSERT INTO open_tasks (kind, open) VALUES (new.kind, new.answered < new.overlap AND new.closed_at IS NULL)
        ON CONFLICT (kind) DO UPDATE SET open = open + (new.answered < new.overlap AND new.closed_at IS NULL);
END;

CREATE TRIGGER open_tasks_delete AFTER DELETE ON tasks BEGIN
    UPDATE open_tasks SET open = open - (old.answered < old.overlap AND old.closed_at IS NULL) WHERE kind = old.kind;
END;

-- Finding the claim an answer wrote, on every refutation submitted and reviewed.
CREATE INDEX claims_written_in ON claims(written_in) WHERE written_in IS NOT NULL;
