-- The real sentence shown as the trick of an evidence task under a "supports or refutes"
-- guideline: from an unrelated claim's document, chosen once with the project's secret
-- when the task is created, so it is the same every time the item is shown.
CREATE TABLE task_tricks (
    task_id     INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    sentence_id INTEGER NOT NULL REFERENCES sentences(id)
);
