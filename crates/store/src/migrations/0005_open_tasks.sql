-- Serving at scale: open tasks (short of answers) have their own queue index, so finding
-- the next item skips full ones, and a per-kind count of open tasks is kept by triggers,
-- so progress bars need no scan of the tasks table.
CREATE INDEX tasks_open_queue ON tasks(kind, shuffle_key) WHERE answered < overlap;

CREATE TABLE open_tasks (
    kind  TEXT PRIMARY KEY,
    open  INTEGER NOT NULL
);
INSERT INTO open_tasks (kind, open)
    SELECT kind, sum(answered < overlap) FROM tasks GROUP BY kind;

CREATE TRIGGER open_tasks_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO open_tasks (kind, open) VALUES (new.kind, new.answered < new.overlap)
        ON CONFLICT (kind) DO UPDATE SET open = open + (new.answered < new.overlap);
END;

CREATE TRIGGER open_tasks_update AFTER UPDATE OF answered, overlap, kind ON tasks BEGIN
    UPDATE open_tasks SET open = open - (old.answered < old.overlap) WHERE kind = old.kind;
    INSERT INTO open_tasks (kind, open) VALUES (new.kind, new.answered < new.overlap)
        ON CONFLICT (kind) DO UPDATE SET open = open + (new.answered < new.overlap);
END;

CREATE TRIGGER open_tasks_delete AFTER DELETE ON tasks BEGIN
    UPDATE open_tasks SET open = open - (old.answered < old.overlap) WHERE kind = old.kind;
END;
