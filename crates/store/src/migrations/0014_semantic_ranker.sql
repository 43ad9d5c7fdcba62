-- Sentence embeddings of the semantic ranker, keyed by the text's hash (BLAKE3, first 16
-- bytes) and the model's id, so a sentence shared by documents or claims is embedded
-- once per model. `vector` holds little-endian f32s.
CREATE TABLE sentence_embeddings (
  text_hash BLOB NOT NULL CHECK (length(text_hash) = 16),
  model TEXT NOT NULL,
  vector BLOB NOT NULL CHECK (length(vector) > 0 AND length(vector) % 4 = 0),
  PRIMARY KEY (text_hash, model)
) WITHOUT ROWID;
-- The semantic ranker's score of a candidate, and the rankers that placed it in their own
-- top k (space-separated names; NULL for rows written before).
ALTER TABLE candidates ADD COLUMN semantic REAL;
ALTER TABLE candidates ADD COLUMN placed_by TEXT;
