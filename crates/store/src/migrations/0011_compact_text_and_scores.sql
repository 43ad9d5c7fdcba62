-- A document whose text is its sentences with what lies between them keeps only those
-- gaps (JSON: the text before each sentence, then after the last) and an empty text;
-- the sentences already hold the rest. NULL: the text is stored in full.
ALTER TABLE documents ADD COLUMN gaps TEXT;
-- Each ranker's score of a candidate as numbers rather than a JSON object per row; rows
-- written before keep their `scores` JSON and leave these NULL.
ALTER TABLE candidates ADD COLUMN bm25 REAL;
ALTER TABLE candidates ADD COLUMN levenshtein REAL;
ALTER TABLE candidates ADD COLUMN jaccard REAL;
ALTER TABLE candidates ADD COLUMN fused REAL;
