-- Version 14 on PostgreSQL: the semantic ranker, as migrations/0014_semantic_ranker.sql.
CREATE TABLE sentence_embeddings (
    text_hash BYTEA NOT NULL CHECK (octet_length(text_hash) = 16),
    model     TEXT NOT NULL,
    vector    BYTEA NOT NULL CHECK (octet_length(vector) > 0 AND octet_length(vector) % 4 = 0),
    PRIMARY KEY (text_hash, model)
);
ALTER TABLE candidates ADD COLUMN semantic DOUBLE PRECISION;
ALTER TABLE candidates ADD COLUMN placed_by TEXT;
