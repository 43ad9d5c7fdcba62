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
-- Control items (issue 33): an item imported with its known answers is a design's trick,
-- served like any other. An answer that gives another label is rejected as a whole and
-- counts against its annotator's trick record, as picking an evidence item's trick does.
CREATE TABLE control_answers (
    claim_id    INTEGER PRIMARY KEY REFERENCES claims(id),
    answers     TEXT NOT NULL               -- JSON object: question id -> label
);
DROP TRIGGER annotations_keep_record;
CREATE TRIGGER annotations_keep_record AFTER INSERT ON annotations
WHEN (SELECT kind FROM tasks WHERE id = new.task_id) = 'evidence'
  OR EXISTS (SELECT 1 FROM tasks t JOIN control_answers c ON c.claim_id = t.claim_id
             WHERE t.id = new.task_id AND t.kind = 'design')
BEGIN
    UPDATE annotators SET
        tricks_seen = tricks_seen + (new.supersedes IS NULL),
        tricks_failed = tricks_failed + (new.trick_failed = 1 AND NOT EXISTS (
            SELECT 1 FROM annotations o WHERE o.task_id = new.task_id
              AND o.annotator_id = new.annotator_id AND o.trick_failed = 1 AND o.id != new.id))
    WHERE id = new.annotator_id;
END;
