-- Version 13 on PostgreSQL: sign-in for a team server, as migrations/0013_sign_in.sql.
CREATE TABLE credentials (
    annotator_id  BIGINT PRIMARY KEY REFERENCES annotators(id),
    password_hash TEXT,
    disabled      BIGINT NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))
);
CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY,
    annotator_id BIGINT NOT NULL REFERENCES annotators(id),
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX sessions_annotator ON sessions(annotator_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);
CREATE TABLE sign_in_failures (
    subject TEXT NOT NULL,
    at      BIGINT NOT NULL
);
CREATE INDEX sign_in_failures_subject ON sign_in_failures(subject, at);
