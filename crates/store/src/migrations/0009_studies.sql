-- Re-annotation studies (COVID-Fact's quality check): a lead draws a seeded sample of one
-- kind's tasks for a second group of annotators (the members, group B); group A is
-- everyone else who answered the sampled items.
CREATE TABLE studies (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('evidence', 'verify', 'label')),
    sample_size INTEGER NOT NULL CHECK (sample_size >= 1),
    seed        INTEGER NOT NULL,                -- u64, stored as its two's-complement i64
    created_at  INTEGER NOT NULL,
    lead_id     INTEGER NOT NULL REFERENCES annotators(id)
);

-- A sampled task and the overlap it had before the group's room was added to it: a task
-- is in at most one study, so its overlap is base_overlap plus that study's group size.
CREATE TABLE study_items (
    study_id     INTEGER NOT NULL REFERENCES studies(id),
    task_id      INTEGER NOT NULL UNIQUE REFERENCES tasks(id),
    base_overlap INTEGER NOT NULL CHECK (base_overlap >= 1),
    PRIMARY KEY (study_id, task_id)
) WITHOUT ROWID;

CREATE TABLE study_members (
    study_id     INTEGER NOT NULL REFERENCES studies(id),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    PRIMARY KEY (study_id, annotator_id)
) WITHOUT ROWID;
CREATE INDEX study_members_annotator ON study_members(annotator_id, study_id);
