-- New tasks are counted into open_tasks once per statement, not once per row: creating
-- 300,000 tasks in one transaction changed the same 16 counter rows 300,000 times, and
-- each change walked the versions its transaction had already left of that row, so the
-- cost grew with the square of the number of tasks. Changes and deletions of tasks keep
-- their row trigger (a task fills one at a time).
CREATE FUNCTION factdesk_open_tasks_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO open_tasks (kind, shard, open)
        SELECT kind, id % 16, count(*) FILTER (WHERE answered < overlap AND closed_at IS NULL)
        FROM inserted_tasks GROUP BY kind, id % 16
        ON CONFLICT (kind, shard) DO UPDATE SET open = open_tasks.open + excluded.open;
    RETURN NULL;
END $$;
DROP TRIGGER open_tasks_insert ON tasks;
CREATE TRIGGER open_tasks_insert AFTER INSERT ON tasks
    REFERENCING NEW TABLE AS inserted_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION factdesk_open_tasks_inserted();
