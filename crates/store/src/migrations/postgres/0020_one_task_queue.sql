-- Version 20 on PostgreSQL: one task queue index, as migrations/0020_one_task_queue.sql.
DROP INDEX tasks_queue;
