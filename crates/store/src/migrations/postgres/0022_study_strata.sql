-- Stratified studies (issue 33): how a study's sample was grouped ("jaccard-bins:10",
-- "label", "field:topic"; NULL for a uniform draw) and each sampled item's group, named
-- as it was when drawn: a later ranking or import does not move an item between strata.
ALTER TABLE studies ADD COLUMN strata TEXT;
ALTER TABLE study_items ADD COLUMN stratum TEXT;
