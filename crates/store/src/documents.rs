//! The `documents` and `sentences` tables.

use crate::db::{CopyRow, OptionalExtension};
use crate::params;
use crate::Read;
use crate::Result;
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

/// What lies around the sentences of `text` (before each, then after the last), when the
/// sentences are, in order, exactly the text at their character offsets; `None` otherwise.
fn gaps<'t>(text: &'t str, sentences: &[NewSentence<'_>]) -> Option<Vec<&'t str>> {
    if text.is_ascii() {
        // Every character is a byte: offsets need no walk through the text.
        return gaps_at(text, sentences, Some);
    }
    gaps_at(text, sentences, walk_to_bytes(text))
}

/// Byte offsets of growing character offsets into `text`, found in one pass through it
/// (`None` for an offset behind the one before, or past the end).
fn walk_to_bytes(text: &str) -> impl FnMut(usize) -> Option<usize> + '_ {
    let mut offsets = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    let (mut at_char, mut at_byte) = (0usize, offsets.next());
    move |c: usize| -> Option<usize> {
        if c < at_char {
            return None;
        }
        while at_char < c {
            at_byte = Some(offsets.next()?);
            at_char += 1;
        }
        at_byte
    }
}

/// [`gaps`], with `byte_of` turning each sentence's character offsets (in order) into
/// byte offsets.
fn gaps_at<'t>(
    text: &'t str,
    sentences: &[NewSentence<'_>],
    mut byte_of: impl FnMut(usize) -> Option<usize>,
) -> Option<Vec<&'t str>> {
    let mut gaps = Vec::with_capacity(sentences.len() + 1);
    let mut end = 0;
    for s in sentences {
        let start = byte_of(s.start_char)?;
        let stop = byte_of(s.end_char)?;
        if start < end || text.get(start..stop)? != s.text {
            return None;
        }
        gaps.push(text.get(end..start)?);
        end = stop;
    }
    gaps.push(text.get(end..)?);
    Some(gaps)
}

/// Inserts a document and its sentences; returns the row ids of the document and of each
/// sentence. When the sentences make up the text, only what lies between them is stored
/// beside them: the text is not kept twice.
pub fn insert(
    conn: &crate::Tx<'_>,
    doc: &NewDocument<'_>,
    sentences: &[NewSentence<'_>],
) -> Result<(i64, Vec<i64>)> {
    let gaps = gaps(doc.text, sentences)
        .map(|g| serde_json::to_string(&g))
        .transpose()?;
    let text = if gaps.is_some() { "" } else { doc.text };
    if let Some(pg) = conn.copying() {
        pg.flush_if_full()?;
        let id = pg.reserve_id("documents")?;
        let row = CopyRow {
            table: "documents",
            columns: "id, ext_id, url, title, text, hash, import_id, gaps",
            ignore_conflicts: false,
        };
        pg.stage(
            row,
            params![
                id,
                doc.ext_id,
                doc.url,
                doc.title,
                text,
                doc.hash,
                doc.import_id,
                gaps
            ],
        )?;
        let row = CopyRow {
            table: "sentences",
            columns: "id, document_id, idx, start_char, end_char, text",
            ignore_conflicts: false,
        };
        let mut ids = Vec::with_capacity(sentences.len());
        for (idx, s) in sentences.iter().enumerate() {
            let sid = pg.reserve_id("sentences")?;
            pg.stage(
                row,
                params![
                    sid,
                    id,
                    idx as i64,
                    s.start_char as i64,
                    s.end_char as i64,
                    s.text
                ],
            )?;
            ids.push(sid);
        }
        return Ok((id, ids));
    }
    conn.prepare_cached(
        "INSERT INTO documents (ext_id, url, title, text, hash, import_id, gaps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![doc.ext_id, doc.url, doc.title, text, doc.hash, doc.import_id, gaps])?;
    let id = conn.last_insert_rowid()?;
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
        ids.push(conn.last_insert_rowid()?);
    }
    Ok((id, ids))
}

/// Whether the project holds any documents: an import into a project without any need not
/// look each of its rows up.
pub fn any(conn: &Read) -> Result<bool> {
    Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM documents)", [], |r| r.get(0))?)
}

/// The row id and content hash of the document imported under `ext_id`, if any.
pub fn find_by_ext_id(conn: &Read, ext_id: &str) -> Result<Option<(i64, String)>> {
    Ok(conn
        .prepare_cached("SELECT id, hash FROM documents WHERE ext_id = ?1")?
        .query_row([ext_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

pub(crate) fn get(conn: &Read, id: i64) -> Result<Option<DocumentRow>> {
    let row = conn
        .prepare_cached("SELECT id, ext_id, url, title, text, gaps FROM documents WHERE id = ?1")?
        .query_row([id], |r| {
            Ok((
                DocumentRow {
                    id: r.get(0)?,
                    ext_id: r.get(1)?,
                    url: r.get(2)?,
                    title: r.get(3)?,
                    text: r.get(4)?,
                },
                r.get::<_, Option<String>>(5)?,
            ))
        })
        .optional()?;
    let Some((mut doc, gaps)) = row else {
        return Ok(None);
    };
    if let Some(gaps) = gaps {
        let gaps: Vec<String> = serde_json::from_str(&gaps)?;
        let mut stmt =
            conn.prepare_cached("SELECT text FROM sentences WHERE document_id = ?1 ORDER BY idx")?;
        let sentences = stmt.query_map([id], |r| r.get::<_, String>(0))?;
        let mut gaps = gaps.into_iter();
        let mut text = gaps.next().unwrap_or_default();
        for s in sentences {
            text.push_str(&s?);
            text.push_str(&gaps.next().unwrap_or_default());
        }
        doc.text = text;
    }
    Ok(Some(doc))
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

pub(crate) fn sentence(conn: &Read, id: i64) -> Result<Option<SentenceRow>> {
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

/// A document `ext_id` of bare `sentences` (no text kept, no offsets), as the store's
/// tests make them: its id and its sentences' ids, in order.
#[cfg(test)]
pub(crate) fn insert_bare(
    conn: &crate::Tx<'_>,
    ext_id: &str,
    sentences: &[&str],
) -> Result<(i64, Vec<i64>)> {
    let rows: Vec<NewSentence<'_>> = sentences
        .iter()
        .map(|text| NewSentence {
            start_char: 0,
            end_char: 0,
            text,
        })
        .collect();
    let doc = NewDocument {
        ext_id,
        url: None,
        title: None,
        text: "",
        hash: ext_id,
        import_id: None,
    };
    insert(conn, &doc, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str, start_char: usize) -> NewSentence<'_> {
        NewSentence {
            start_char,
            end_char: start_char + text.chars().count(),
            text,
        }
    }

    #[test]
    fn a_document_reads_back_exactly_whether_or_not_its_text_is_kept_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut store = crate::Store::create(&dir.path().join("p.fdesk"), "p", 0)
            .unwrap_or_else(|e| panic!("{e}"));
        let text = "  Café öffnet.\n\nZweiter Satz!  Tail";
        let cases: [(&str, Vec<NewSentence<'_>>, bool); 3] = [
            (
                "split",
                vec![sentence("Café öffnet.", 2), sentence("Zweiter Satz!", 16)],
                true,
            ),
            // Offsets that do not match the text: the text is kept whole.
            ("off", vec![sentence("Café öffnet.", 3)], false),
            ("none", vec![], true),
        ];
        for (ext_id, sentences, compact) in cases {
            let doc = NewDocument {
                ext_id,
                url: None,
                title: None,
                text,
                hash: "h",
                import_id: None,
            };
            let tx = store.transaction().unwrap_or_else(|e| panic!("{e}"));
            let (id, _) = insert(&tx, &doc, &sentences).unwrap_or_else(|e| panic!("{e}"));
            tx.commit().unwrap_or_else(|e| panic!("{e}"));
            let stored: String = store
                .read()
                .query_row("SELECT text FROM documents WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(stored.is_empty(), compact, "{ext_id}");
            let back = get(store.read(), id)
                .unwrap_or_else(|e| panic!("{e}"))
                .unwrap_or_else(|| panic!("{ext_id} missing"));
            assert_eq!(back.text, text, "{ext_id}");
        }
    }

    /// An ASCII text takes character offsets as byte offsets without walking it; the
    /// gaps are those the walk finds, and offsets that do not match still give none.
    #[test]
    fn ascii_gaps_match_the_walk_through_the_text() {
        let text = "  Cafe opens.\n\nSecond one!  Tail";
        let walked = |sentences: &[NewSentence<'_>]| gaps_at(text, sentences, walk_to_bytes(text));
        let cases = [
            vec![sentence("Cafe opens.", 2), sentence("Second one!", 15)],
            vec![sentence("Cafe opens.", 3)],
            vec![sentence("Cafe opens.", 2), sentence("opens.", 7)],
            vec![sentence("Tail", 29), sentence("x", 40)],
            vec![],
        ];
        for sentences in &cases {
            assert_eq!(gaps(text, sentences), walked(sentences), "{sentences:?}");
        }
        assert_eq!(gaps(text, &cases[0]), Some(vec!["  ", "\n\n", "  Tail"]));
        assert_eq!(gaps(text, &cases[1]), None);
        assert_eq!(gaps(text, &cases[2]), None);
    }
}
