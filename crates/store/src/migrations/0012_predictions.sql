-- Model predictions, kept apart from the annotators' answers: a predicted label for a
-- claim, or a machine-generated counter-claim (itself a claim, linked to its parent, to
-- be verified by people). Never an annotation, never counted for agreement or gold.
CREATE TABLE predictions (
    id               INTEGER PRIMARY KEY,
    claim_id         INTEGER NOT NULL REFERENCES claims(id),
    model            TEXT NOT NULL CHECK (length(model) BETWEEN 1 AND 200),
    label            TEXT CHECK (label IN ('SUPPORTED', 'REFUTED', 'NOT ENOUGH INFO', 'FAILED')),
    counter_claim_id INTEGER REFERENCES claims(id),
    score            REAL,
    created_at       INTEGER NOT NULL,
    CHECK ((label IS NULL) != (counter_claim_id IS NULL))
);
-- One label per model and claim (a later import replaces it); a counter-claim once.
CREATE UNIQUE INDEX predictions_label ON predictions(claim_id, model) WHERE label IS NOT NULL;
CREATE UNIQUE INDEX predictions_counter ON predictions(counter_claim_id) WHERE counter_claim_id IS NOT NULL;
