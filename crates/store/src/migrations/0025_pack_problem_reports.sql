-- Problems reported in a pack come in with its merge: the pack they came from, so a
-- second merge of the same pack adds no report twice (one report an item in a pack).
ALTER TABLE problem_reports ADD COLUMN pack_id TEXT REFERENCES packs(id);
CREATE UNIQUE INDEX problem_reports_from_packs ON problem_reports (pack_id, task_id) WHERE pack_id IS NOT NULL;
