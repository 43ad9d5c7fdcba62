-- The project row: one per file.
CREATE TABLE project (
    id          TEXT PRIMARY KEY,              -- uuid, stable for the life of the project
    name        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,              -- unix milliseconds
    settings    TEXT NOT NULL DEFAULT '{}',    -- JSON: overlap, trick template, checks...
    secret      BLOB NOT NULL                  -- key for signing packs; never leaves the file
);

CREATE TABLE annotators (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL CHECK (role IN ('lead', 'annotator')),
    created_at  INTEGER NOT NULL
);

CREATE TABLE imports (
    id          INTEGER PRIMARY KEY,
    file        TEXT NOT NULL,
    preset      TEXT NOT NULL,
    rows_added  INTEGER NOT NULL,
    rows_seen   INTEGER NOT NULL,
    at          INTEGER NOT NULL
);

CREATE TABLE documents (
    id          INTEGER PRIMARY KEY,
    ext_id      TEXT NOT NULL UNIQUE,          -- the id the data came with, or a content hash
    url         TEXT,
    title       TEXT,
    text        TEXT NOT NULL,
    hash        TEXT NOT NULL,                 -- of the content, to detect id clashes
    import_id   INTEGER REFERENCES imports(id)
);

CREATE TABLE sentences (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id),
    idx         INTEGER NOT NULL,              -- position in the document, from 0
    start_char  INTEGER NOT NULL,              -- offsets in the document text, in characters
    end_char    INTEGER NOT NULL,
    text        TEXT NOT NULL,
    UNIQUE (document_id, idx)
);

CREATE TABLE claims (
    id          INTEGER PRIMARY KEY,
    ext_id      TEXT NOT NULL UNIQUE,
    text        TEXT NOT NULL,
    context     TEXT,
    label       TEXT CHECK (label IN ('SUPPORTED', 'REFUTED', 'NOT ENOUGH INFO', 'FAILED')),
    source_url  TEXT,
    parent_id   INTEGER REFERENCES claims(id), -- a refutation points at the claim it refutes
    origin      TEXT NOT NULL DEFAULT 'imported' CHECK (origin IN ('imported', 'written')),
    metadata    TEXT NOT NULL DEFAULT '{}',    -- JSON object
    hash        TEXT NOT NULL,
    import_id   INTEGER REFERENCES imports(id),
    created_at  INTEGER NOT NULL
);
CREATE INDEX claims_parent ON claims(parent_id);

CREATE TABLE claim_documents (
    claim_id    INTEGER NOT NULL REFERENCES claims(id),
    document_id INTEGER NOT NULL REFERENCES documents(id),
    PRIMARY KEY (claim_id, document_id)
) WITHOUT ROWID;
CREATE INDEX claim_documents_document ON claim_documents(document_id);

CREATE TABLE candidates (
    claim_id    INTEGER NOT NULL REFERENCES claims(id),
    rank        INTEGER NOT NULL,              -- 1 is best
    sentence_id INTEGER NOT NULL REFERENCES sentences(id),
    ranker      TEXT NOT NULL,
    score       REAL NOT NULL,
    scores      TEXT NOT NULL DEFAULT '{}',    -- JSON: score of each ranker
    PRIMARY KEY (claim_id, rank)
) WITHOUT ROWID;

CREATE TABLE tasks (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('evidence', 'refute', 'verify', 'label')),
    claim_id    INTEGER NOT NULL REFERENCES claims(id),
    overlap     INTEGER NOT NULL CHECK (overlap >= 1),
    trick_slot  INTEGER,                       -- evidence tasks: where the trick is shown
    created_at  INTEGER NOT NULL,
    UNIQUE (kind, claim_id)
);

CREATE TABLE assignments (
    id          INTEGER PRIMARY KEY,
    task_id     INTEGER NOT NULL REFERENCES tasks(id),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    reserved_at INTEGER NOT NULL,
    expires_at  INTEGER,                       -- NULL: held until answered
    pack_id     TEXT,
    state       TEXT NOT NULL DEFAULT 'reserved' CHECK (state IN ('reserved', 'answered', 'released')),
    UNIQUE (task_id, annotator_id)
);

-- Answers are appended, never changed: a correction is a new row that supersedes.
CREATE TABLE annotations (
    id          INTEGER PRIMARY KEY,
    uuid        TEXT NOT NULL UNIQUE,
    task_id     INTEGER NOT NULL REFERENCES tasks(id),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    answer      TEXT NOT NULL,                 -- JSON
    comment     TEXT,
    trick_failed INTEGER NOT NULL DEFAULT 0,
    duration_ms INTEGER,
    supersedes  INTEGER REFERENCES annotations(id),
    created_at  INTEGER NOT NULL
);
CREATE INDEX annotations_task ON annotations(task_id, annotator_id);

CREATE TRIGGER annotations_no_update BEFORE UPDATE ON annotations
BEGIN SELECT RAISE(ABORT, 'annotations are append-only'); END;
CREATE TRIGGER annotations_no_delete BEFORE DELETE ON annotations
BEGIN SELECT RAISE(ABORT, 'annotations are append-only'); END;
