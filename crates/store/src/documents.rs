//! The `documents` and `sentences` tables.

use crate::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

#[derive(Debug, Clone)]
pub struct NewDocument<'a> {
    pub ext_id: &'a str,
    pub url: Option<&'a str>,
    pub title: Option<&'a str>,
    pub text: &'a str,
    pub hash: &'a str,
    pub import_id: Option<i64>,
}

/// A sentence of a document, with character offsets into the document text.
#[derive(Debug, Clone)]
pub struct NewSentence<'a> {
    pub start_char: usize,
    pub end_char: usize,
    pub text: &'a str,
}

#[derive(Debug, Clone, Serialize)]
pub struct DocumentRow {
    pub id: i64,
    pub ext_id: String,
    pub url: Option<String>,
    pub title: Option<String>,
    pub text: String,
}

/// Inserts a document and its sentences; returns the row ids of the document and of each
/// sentence.
pub fn insert(
    conn: &Connection,
    doc: &NewDocument<'_>,
    sentences: &[NewSentence<'_>],
) -> Result<(i64, Vec<i64>)> {
    conn.prepare_cached(
        "INSERT INTO documents (ext_id, url, title, text, hash, import_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![doc.ext_id, doc.url, doc.title, doc.text, doc.hash, doc.import_id])?;
    let id = conn.last_insert_rowid();
    let mut stmt = conn.prepare_cached(
        "INSERT INTO sentences (document_id, idx, start_char, end_char, text) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut ids = Vec::with_capacity(sentences.len());
    for (idx, s) in sentences.iter().enumerate() {
        stmt.execute(params![
            id,
            idx as i64,
            s.start_char as i64,
            s.end_char as i64,
            s.text
        ])?;
        ids.push(conn.last_insert_rowid());
    }
    Ok((id, ids))
}

/// The row id and content hash of the document imported under `ext_id`, if any.
pub fn find_by_ext_id(conn: &Connection, ext_id: &str) -> Result<Option<(i64, String)>> {
    Ok(conn
        .prepare_cached("SELECT id, hash FROM documents WHERE ext_id = ?1")?
        .query_row([ext_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

pub(crate) fn get(conn: &Connection, id: i64) -> Result<Option<DocumentRow>> {
    Ok(conn
        .prepare_cached("SELECT id, ext_id, url, title, text FROM documents WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(DocumentRow {
                id: r.get(0)?,
                ext_id: r.get(1)?,
                url: r.get(2)?,
                title: r.get(3)?,
                text: r.get(4)?,
            })
        })
        .optional()?)
}

/// A sentence with where it comes from.
#[derive(Debug, Clone, Serialize)]
pub struct SentenceRow {
    pub id: i64,
    pub document_id: i64,
    pub document_ext_id: String,
    pub idx: i64,
    pub start_char: i64,
    pub end_char: i64,
    pub text: String,
}

pub(crate) fn sentence(conn: &Connection, id: i64) -> Result<Option<SentenceRow>> {
    Ok(conn
        .prepare_cached(
            "SELECT s.id, s.document_id, d.ext_id, s.idx, s.start_char, s.end_char, s.text
             FROM sentences s JOIN documents d ON d.id = s.document_id WHERE s.id = ?1",
        )?
        .query_row([id], |r| {
            Ok(SentenceRow {
                id: r.get(0)?,
                document_id: r.get(1)?,
                document_ext_id: r.get(2)?,
                idx: r.get(3)?,
                start_char: r.get(4)?,
                end_char: r.get(5)?,
                text: r.get(6)?,
            })
        })
        .optional()?)
}
