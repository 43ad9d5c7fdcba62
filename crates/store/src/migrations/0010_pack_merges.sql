-- The ids a pack gives its tasks (opaque, so a pack holds no project task id).
CREATE TABLE pack_tasks (
    pack_id       TEXT NOT NULL REFERENCES packs(id),
    pack_task_id  INTEGER NOT NULL,
    task_id       INTEGER NOT NULL REFERENCES tasks(id),
    PRIMARY KEY (pack_id, pack_task_id)
);
-- Answers of a pack already merged, by their id in the pack, and the answer they became.
CREATE TABLE pack_answers (
    pack_id         TEXT NOT NULL REFERENCES packs(id),
    uuid            TEXT NOT NULL,
    annotation_uuid TEXT NOT NULL,
    merged_at       INTEGER NOT NULL,
    PRIMARY KEY (pack_id, uuid)
);
-- Set while a merge of the pack runs, so a second merge at the same time waits its turn.
ALTER TABLE packs ADD COLUMN merging_since INTEGER;
