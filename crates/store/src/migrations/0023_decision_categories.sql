-- Disagreement categories (issue 33): the lead settles a disagreement with a category
-- from the project's list, kept beside the free-text reason; NULL when none was given
-- (every decision made before this version).
ALTER TABLE decisions ADD COLUMN category TEXT;
