-- Every query that walks tasks in serving order asks for open ones, which the partial
-- index tasks_open_queue holds: the full queue index only cost each new task a write
-- (issue 30: creating 100,000 evidence tasks).
DROP INDEX tasks_queue;
