"""The plain reference for the import benchmark: what a short, reasonable Python script
does with the same rows. It parses the claims and documents (JSON Lines), splits the
documents into sentences, stores documents, sentences, claims and their links in SQLite
in one transaction, and indexes sentences and claims with FTS5. It does not rank.

Usage: import_reference.py DB CLAIMS.jsonl DOCUMENTS.jsonl
"""

import json
import re
import sqlite3
import sys

# A sentence ends at . ! or ? followed by whitespace and an upper-case letter or digit.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def main() -> None:
    db, claims_path, docs_path = sys.argv[1:4]
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(
        """
        CREATE TABLE documents (id INTEGER PRIMARY KEY, ext_id TEXT NOT NULL UNIQUE,
                                title TEXT, text TEXT NOT NULL);
        CREATE TABLE sentences (id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL,
                                idx INTEGER NOT NULL, text TEXT NOT NULL);
        CREATE TABLE claims (id INTEGER PRIMARY KEY, ext_id TEXT NOT NULL UNIQUE,
                             text TEXT NOT NULL, label TEXT);
        CREATE TABLE claim_documents (claim_id INTEGER NOT NULL, document_id INTEGER NOT NULL,
                                      PRIMARY KEY (claim_id, document_id)) WITHOUT ROWID;
        CREATE VIRTUAL TABLE sentence_search USING fts5(text, content='sentences', content_rowid='id');
        CREATE VIRTUAL TABLE claim_search USING fts5(text, content='claims', content_rowid='id');
        """
    )
    with conn:
        doc_ids = {}
        sentence_rows = []
        with open(docs_path) as f:
            for line in f:
                d = json.loads(line)
                cur = conn.execute(
                    "INSERT INTO documents (ext_id, title, text) VALUES (?, ?, ?)",
                    (d["id"], d.get("title"), d["text"]),
                )
                doc_id = cur.lastrowid
                doc_ids[d["id"]] = doc_id
                for i, s in enumerate(SENTENCE_END.split(d["text"].strip())):
                    sentence_rows.append((doc_id, i, s))
        conn.executemany("INSERT INTO sentences (document_id, idx, text) VALUES (?, ?, ?)", sentence_rows)
        links = []
        with open(claims_path) as f:
            for line in f:
                c = json.loads(line)
                cur = conn.execute(
                    "INSERT INTO claims (ext_id, text, label) VALUES (?, ?, ?)",
                    (c["id"], c["claim"], c.get("label")),
                )
                links.extend((cur.lastrowid, doc_ids[d]) for d in c.get("doc_ids", []))
        conn.executemany("INSERT OR IGNORE INTO claim_documents VALUES (?, ?)", links)
        conn.execute("INSERT INTO sentence_search (rowid, text) SELECT id, text FROM sentences")
        conn.execute("INSERT INTO claim_search (rowid, text) SELECT id, text FROM claims")
    conn.close()


if __name__ == "__main__":
    main()
