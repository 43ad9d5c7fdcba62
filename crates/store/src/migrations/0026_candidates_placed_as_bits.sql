-- Which rankers put a candidate in their own top k, as bits (bm25 1, levenshtein 2,
-- jaccard 4, semantic 8: core's `Ranker::PLACING`) rather than their names spelled out
-- on every row: an import of 100,000 claims writes 500,000 candidate rows on its one
-- writer, and the names were a fifth of each. NULL, as before: ranked before this was
-- recorded.
ALTER TABLE candidates ADD COLUMN placed INTEGER CHECK (placed BETWEEN 0 AND 15);
UPDATE candidates SET placed =
      CASE WHEN ' ' || placed_by || ' ' LIKE '% bm25 %' THEN 1 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% levenshtein %' THEN 2 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% jaccard %' THEN 4 ELSE 0 END
    + CASE WHEN ' ' || placed_by || ' ' LIKE '% semantic %' THEN 8 ELSE 0 END
WHERE placed_by IS NOT NULL;
ALTER TABLE candidates DROP COLUMN placed_by;
