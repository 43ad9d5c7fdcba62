-- Version 26 on PostgreSQL: which rankers placed a candidate, as bits, as
-- migrations/0026_candidates_placed_as_bits.sql.
ALTER TABLE candidates ADD COLUMN placed SMALLINT CHECK (placed BETWEEN 0 AND 15);
UPDATE candidates SET placed =
      CASE WHEN ' ' || placed_by || ' ' LIKE '% bm25 %' THEN 1 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% levenshtein %' THEN 2 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% jaccard %' THEN 4 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% semantic %' THEN 8 ELSE 0 END
WHERE placed_by IS NOT NULL;
ALTER TABLE candidates DROP COLUMN placed_by;
