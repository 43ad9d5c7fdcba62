-- A project's own design (issue 33): tasks of kind 'design' ask the project's declared
-- questions, and an imported pair keeps its second text beside its claim row (the first
-- text is the claim's text). Tasks' kind check gains the new kind; as in version 17 only
-- the schema's text changes, which SQLite documents for checks that widen.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql,
    'kind = ''evidence'' OR kind = ''refute'' OR kind = ''verify'' OR kind = ''label''',
    'kind = ''evidence'' OR kind = ''refute'' OR kind = ''verify'' OR kind = ''label'' OR kind = ''design''')
WHERE type = 'table' AND name = 'tasks';
PRAGMA writable_schema = OFF;
CREATE TABLE pair_texts (
    claim_id    INTEGER PRIMARY KEY REFERENCES claims(id),
    text_b      TEXT NOT NULL
);
-- A stratified sample made a kind's task set (`factdesk sample --keep-only`): how it
-- was drawn, and each drawn task's stratum as named when drawn; the kind's other tasks
-- are closed.
CREATE TABLE task_samples (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    strata      TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    per_stratum INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE TABLE task_sample_items (
    sample_id   INTEGER NOT NULL REFERENCES task_samples(id),
    task_id     INTEGER NOT NULL REFERENCES tasks(id),
    stratum     TEXT NOT NULL,
    PRIMARY KEY (sample_id, task_id)
);
