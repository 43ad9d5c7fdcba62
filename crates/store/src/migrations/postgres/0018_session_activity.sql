-- Version 18 on PostgreSQL: session activity and the per-name limit on guessing, as
-- migrations/0018_session_activity.sql.
ALTER TABLE sessions ADD COLUMN address TEXT;
ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT;
CREATE TABLE sign_in_names (
    subject  TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    last_at  BIGINT NOT NULL
);
CREATE TABLE sign_in_known (
    subject TEXT PRIMARY KEY,
    at      BIGINT NOT NULL
);
