-- Version 25 on PostgreSQL: problems reported in packs, as
-- migrations/0025_pack_problem_reports.sql.
ALTER TABLE problem_reports ADD COLUMN pack_id TEXT REFERENCES packs(id);
CREATE UNIQUE INDEX problem_reports_from_packs ON problem_reports (pack_id, task_id) WHERE pack_id IS NOT NULL;
