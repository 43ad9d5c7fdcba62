-- Packs of assigned work that travel to an annotator's laptop, and what came back.
CREATE TABLE packs (
    id            TEXT PRIMARY KEY,              -- uuid, written into the pack
    annotator_id  INTEGER NOT NULL REFERENCES annotators(id),
    kind          TEXT,                          -- NULL: every kind
    items         INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    returned_at   INTEGER,
    merged        INTEGER NOT NULL DEFAULT 0     -- answers merged from this pack
);
CREATE INDEX assignments_pack ON assignments(pack_id);
