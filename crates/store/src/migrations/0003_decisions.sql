-- The lead's decisions on items the annotators could not settle (adjudication).
-- Decisions are appended like answers: a new decision or an undo supersedes the last one.
CREATE TABLE decisions (
    id          INTEGER PRIMARY KEY,
    task_id     INTEGER NOT NULL REFERENCES tasks(id),
    lead_id     INTEGER NOT NULL REFERENCES annotators(id),
    answer      TEXT,                            -- JSON like an annotation's answer; NULL: undone
    taken_from  INTEGER REFERENCES annotations(id), -- the answer the lead took, if one was taken
    reason      TEXT,
    supersedes  INTEGER REFERENCES decisions(id),
    at          INTEGER NOT NULL
);
CREATE INDEX decisions_task ON decisions(task_id, id);
