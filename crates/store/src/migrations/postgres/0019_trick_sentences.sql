-- Version 19 on PostgreSQL: a trick's text, left out of passages or not, and whether it
-- is shown unlike real options, as migrations/0019_trick_sentences.sql.
ALTER TABLE task_tricks ADD COLUMN text_hash BIGINT;
ALTER TABLE task_tricks ADD COLUMN left_out BIGINT NOT NULL DEFAULT 0;
ALTER TABLE task_tricks ADD COLUMN unlike BIGINT NOT NULL DEFAULT 0;
CREATE INDEX task_tricks_left_out ON task_tricks (text_hash) WHERE left_out = 1;
