-- Version 17 rewrote SQLite's list checks as comparisons (a per-row cost of SQLite's);
-- PostgreSQL evaluates its checks without that cost, so its schema stays as it is.
SELECT 1;
