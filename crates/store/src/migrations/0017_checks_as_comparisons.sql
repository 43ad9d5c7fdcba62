-- A CHECK of `x IN (three or more values)` builds a temporary b-tree of the values for
-- every row inserted or updated: at 100,000 claims most of each insert's cost. The same
-- checks written as comparisons joined by OR accept and refuse the same values (NULL
-- included), and the files' pages do not change, so only the schema's text is rewritten
-- (SQLite's documented procedure for changes that leave the stored content alone). The
-- caller bumps schema_version afterwards so every connection reads the new text.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(replace(replace(replace(replace(sql,
    'label IN (''SUPPORTED'', ''REFUTED'', ''NOT ENOUGH INFO'', ''FAILED'')',
    'label = ''SUPPORTED'' OR label = ''REFUTED'' OR label = ''NOT ENOUGH INFO'' OR label = ''FAILED'''),
    'refutation_state IN (''pending_review'', ''accepted'', ''no_review_needed'', ''rejected'', ''superseded'')',
    'refutation_state = ''pending_review'' OR refutation_state = ''accepted'' OR refutation_state = ''no_review_needed'' OR refutation_state = ''rejected'' OR refutation_state = ''superseded'''),
    'kind IN (''evidence'', ''refute'', ''verify'', ''label'')',
    'kind = ''evidence'' OR kind = ''refute'' OR kind = ''verify'' OR kind = ''label'''),
    'state IN (''reserved'', ''answered'', ''released'')',
    'state = ''reserved'' OR state = ''answered'' OR state = ''released'''),
    'kind IN (''evidence'', ''verify'', ''label'')',
    'kind = ''evidence'' OR kind = ''verify'' OR kind = ''label''')
WHERE type = 'table' AND name IN ('claims', 'tasks', 'assignments', 'studies', 'predictions');
PRAGMA writable_schema = OFF;
