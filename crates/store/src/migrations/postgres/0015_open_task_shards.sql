-- The per-kind count of open tasks in 16 rows per kind (by task id), each changed only
-- when a task opens or fills: answers from many people at once no longer queue on one
-- row of this table until their commits. Readers sum a kind's rows.
ALTER TABLE open_tasks ADD COLUMN shard BIGINT NOT NULL DEFAULT 0;
ALTER TABLE open_tasks DROP CONSTRAINT open_tasks_pkey;
ALTER TABLE open_tasks ADD PRIMARY KEY (kind, shard);

CREATE OR REPLACE FUNCTION factdesk_open_tasks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was_open BOOLEAN := tg_op IN ('UPDATE', 'DELETE') AND old.answered < old.overlap AND old.closed_at IS NULL;
    is_open BOOLEAN := tg_op IN ('INSERT', 'UPDATE') AND new.answered < new.overlap AND new.closed_at IS NULL;
BEGIN
    IF tg_op = 'UPDATE' AND old.kind = new.kind AND old.id = new.id AND was_open = is_open THEN
        RETURN NULL;
    END IF;
    IF was_open THEN
        UPDATE open_tasks SET open = open - 1 WHERE kind = old.kind AND shard = old.id % 16;
    END IF;
    IF tg_op IN ('INSERT', 'UPDATE') THEN
        INSERT INTO open_tasks (kind, shard, open) VALUES (new.kind, new.id % 16, is_open::int)
            ON CONFLICT (kind, shard) DO UPDATE SET open = open_tasks.open + is_open::int;
    END IF;
    RETURN NULL;
END $$;
