-- Version 19 on PostgreSQL: tricks left out of passages, by sentence, as
-- migrations/0019_trick_sentences.sql.
ALTER TABLE task_tricks ADD COLUMN left_out BIGINT NOT NULL DEFAULT 0;
CREATE INDEX task_tricks_sentence ON task_tricks (sentence_id);
