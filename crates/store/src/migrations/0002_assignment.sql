-- Serving work: a seeded position of each task in one shuffled cycle, and how many
-- annotators have answered it, so the next item is found through an index.
ALTER TABLE tasks ADD COLUMN shuffle_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN answered INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_queue ON tasks(kind, shuffle_key);
CREATE INDEX assignments_task ON assignments(task_id, state);
CREATE INDEX assignments_annotator ON assignments(annotator_id, state);

-- The lead's word on an annotator flagged for failing trick sentences.
ALTER TABLE annotators ADD COLUMN flag_override TEXT CHECK (flag_override IN ('include', 'exclude'));

-- The lead's review of written refutations (qualification of new writers).
CREATE TABLE reviews (
    id            INTEGER PRIMARY KEY,
    annotation_id INTEGER NOT NULL UNIQUE REFERENCES annotations(id),
    lead_id       INTEGER NOT NULL REFERENCES annotators(id),
    accepted      INTEGER NOT NULL,
    note          TEXT,
    at            INTEGER NOT NULL
);

-- A refutation written in Factdesk points at the answer that wrote it.
ALTER TABLE claims ADD COLUMN written_in INTEGER REFERENCES annotations(id);

CREATE INDEX annotations_supersedes ON annotations(supersedes);
CREATE INDEX annotations_annotator ON annotations(annotator_id, task_id);
