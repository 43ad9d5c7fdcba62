-- Problems annotators report on an item they cannot answer ("the sentences are cut",
-- "the claim is two claims"): the item goes back to the pool and the report waits in
-- the lead's list until the lead marks it seen.
CREATE TABLE problem_reports (
    id           INTEGER PRIMARY KEY,
    task_id      INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    text         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    seen_at      INTEGER,
    seen_by      TEXT
);
CREATE INDEX problem_reports_open ON problem_reports (created_at) WHERE seen_at IS NULL;
