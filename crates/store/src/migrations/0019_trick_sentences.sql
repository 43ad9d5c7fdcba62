-- A trick may be left out of every passage, so that its text is shown in other items no
-- more often than its item's real options' are: a passage asks for the tricks of its
-- document by sentence.
ALTER TABLE task_tricks ADD COLUMN left_out INTEGER NOT NULL DEFAULT 0;
CREATE INDEX task_tricks_sentence ON task_tricks (sentence_id);
