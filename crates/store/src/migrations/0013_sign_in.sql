-- Sign-in for a team server. Kept beside `annotators` rather than in it, so a project
-- that never serves keeps its people table as it was.

-- A person's password as an argon2 PHC string (NULL: cannot sign in), and whether a lead
-- disabled them (a disabled person cannot sign in or act).
CREATE TABLE credentials (
    annotator_id  INTEGER PRIMARY KEY REFERENCES annotators(id),
    password_hash TEXT,
    disabled      INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
);

-- Signed-in sessions. Only a hash of the bearer token is kept: a copy of the database
-- gives no one a way in.
CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY,
    annotator_id INTEGER NOT NULL REFERENCES annotators(id),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX sessions_annotator ON sessions(annotator_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);

-- Failed sign-ins, per name ('name:…') and per address ('address:…'), for the limit on
-- guessing; rows older than the window are pruned as new ones come.
CREATE TABLE sign_in_failures (
    subject TEXT NOT NULL,
    at      INTEGER NOT NULL
);
CREATE INDEX sign_in_failures_subject ON sign_in_failures(subject, at);
