-- A trick's text, whether every passage leaves that text out (so that it is shown in other
-- items no more often than its item's real options are) and whether no sentence shown as
-- they are was found: a passage asks for the left-out texts among its document's.
ALTER TABLE task_tricks ADD COLUMN text_hash INTEGER;
ALTER TABLE task_tricks ADD COLUMN left_out INTEGER NOT NULL DEFAULT 0;
ALTER TABLE task_tricks ADD COLUMN unlike INTEGER NOT NULL DEFAULT 0;
CREATE INDEX task_tricks_left_out ON task_tricks (text_hash) WHERE left_out = 1;
