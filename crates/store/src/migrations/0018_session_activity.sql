-- Sessions say where they were opened and when they were last used, so a lead can list
-- and end them (`factdesk annotators P sessions`).
ALTER TABLE sessions ADD COLUMN address TEXT;
ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER;

-- The limit on guessing one name from anywhere: failed password checks for the name (a
-- hash, 'name:…') and when the last one was. Past a budget, each further check waits
-- twice as long after the last; a name left alone for a day is forgotten.
CREATE TABLE sign_in_names (
    subject  TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    last_at  INTEGER NOT NULL
);

-- Addresses a name signed in from lately ('known:…@address'), so a name locked by
-- guessing still lets its owner in from where they work.
CREATE TABLE sign_in_known (
    subject TEXT PRIMARY KEY,
    at      INTEGER NOT NULL
);
