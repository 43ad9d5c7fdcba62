//! What the search index is fed: claims and sentences as rows of their own type rather
//! than tantivy's general documents, handed over a few at a time.
//!
//! A general document is a vector of owned values built field by field, with its text
//! copied into a string of its own; an import adds 600,000 of them on the thread that
//! also writes the project. A row is an id, an optional document id and a slice of a
//! text shared by every row of its batch: one allocation per batch instead of several
//! per row, and one message to the indexing thread per batch instead of one per row.

use crate::Result;
use std::sync::Arc;
use tantivy::indexer::UserOperation;
use tantivy::schema::document::{ReferenceValue, ReferenceValueLeaf};
use tantivy::schema::{Field, Value};
use tantivy::{Document, IndexWriter};

/// Rows sent to the indexing thread at once. Tantivy's channel holds 10,000 batches, so
/// this sets how far the writer can run ahead of the index, and how much text waits in
/// memory meanwhile: 16 rows a batch (against 4) import 100,000 claims 0.1 to 0.3 s
/// faster, with the import's indexing memory cut to make room (`IMPORT_WRITER_MEMORY`;
/// docs/performance.md, session 40).
const BATCH_ROWS: usize = 16;

/// The fields a row fills, as the schema numbers them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowFields {
    pub id: Field,
    pub document_id: Field,
    pub text: Field,
}

/// What the rows of one batch share: the fields they fill and their texts, one after
/// the other. Held once per batch, so that each of the rows waiting for the index (up
/// to 10,000 batches of them) stays small.
#[derive(Debug)]
struct Batch {
    fields: RowFields,
    texts: Box<str>,
}

/// A claim (no document id) or a sentence of a document.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    batch: Arc<Batch>,
    id: i64,
    document_id: Option<i64>,
    /// Where this row's text lies in its batch's texts.
    start: usize,
    end: usize,
}

impl Row {
    fn text(&self) -> &str {
        self.batch
            .texts
            .get(self.start..self.end)
            .unwrap_or_default()
    }
}

/// One value of a row, as tantivy reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RowValue<'a> {
    Number(i64),
    Text(&'a str),
}

impl<'a> Value<'a> for RowValue<'a> {
    type ArrayIter = std::iter::Empty<RowValue<'a>>;
    type ObjectIter = std::iter::Empty<(&'a str, RowValue<'a>)>;
    fn as_value(&self) -> ReferenceValue<'a, Self> {
        ReferenceValue::Leaf(match *self {
            RowValue::Number(n) => ReferenceValueLeaf::I64(n),
            RowValue::Text(t) => ReferenceValueLeaf::Str(t),
        })
    }
}

impl Document for Row {
    type Value<'a> = RowValue<'a>;
    type FieldsValuesIter<'a> =
        std::iter::Flatten<std::array::IntoIter<Option<(Field, RowValue<'a>)>, 3>>;
    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        let f = self.batch.fields;
        [
            Some((f.id, RowValue::Number(self.id))),
            self.document_id
                .map(|d| (f.document_id, RowValue::Number(d))),
            Some((f.text, RowValue::Text(self.text()))),
        ]
        .into_iter()
        .flatten()
    }
}

/// Rows waiting to be sent, their texts written one after the other.
#[derive(Debug)]
pub(crate) struct Rows {
    fields: RowFields,
    pending: Vec<(i64, Option<i64>, usize, usize)>,
    texts: String,
}

impl Rows {
    pub fn new(fields: RowFields) -> Rows {
        Rows {
            fields,
            pending: Vec::with_capacity(BATCH_ROWS),
            texts: String::new(),
        }
    }

    /// Adds a row, sending the batch once it is full.
    pub fn add(
        &mut self,
        writer: &IndexWriter<Row>,
        id: i64,
        document_id: Option<i64>,
        text: &str,
    ) -> Result<()> {
        let start = self.texts.len();
        self.texts.push_str(text);
        self.pending
            .push((id, document_id, start, self.texts.len()));
        if self.pending.len() >= BATCH_ROWS {
            self.send(writer)?;
        }
        Ok(())
    }

    /// Sends the rows waiting, if any.
    pub fn send(&mut self, writer: &IndexWriter<Row>) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let batch = Arc::new(Batch {
            fields: self.fields,
            texts: self.texts.as_str().into(),
        });
        self.texts.clear();
        let rows: Vec<UserOperation<Row>> = self
            .pending
            .drain(..)
            .map(|(id, document_id, start, end)| {
                UserOperation::Add(Row {
                    batch: Arc::clone(&batch),
                    id,
                    document_id,
                    start,
                    end,
                })
            })
            .collect();
        writer.run(rows)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{HitKind, SearchIndex, Store};

    /// An import on a machine with many cores indexes on several threads, each writing
    /// its own segment: every search then finds the same rows with the same scores as
    /// when one thread indexed them all, so BM25 and search do not depend on the cores.
    #[test]
    fn rows_indexed_on_several_threads_are_found_with_the_scores_of_one() {
        let words = ["harbour", "opens", "tide", "ferry", "closes", "night"];
        let text = |i: usize| {
            let mut text: Vec<&str> = (0..1 + i % 5).map(|k| words[(i + k * k) % 6]).collect();
            text.push(if i.is_multiple_of(2) { "even" } else { "odd" });
            text.join(" ")
        };
        let hits_on = |threads: usize| {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
            let path = dir.path().join("p.fdesk");
            let store = Store::create(&path, "p", 0).unwrap_or_else(|e| panic!("{e}"));
            let mut batch =
                SearchIndex::begin_on(&store, threads).unwrap_or_else(|e| panic!("{e}"));
            for i in 0..3_000 {
                let id = i as i64 + 1;
                match i % 4 {
                    0 => batch.add_claim(id, &text(i)),
                    _ => batch.add_sentence(id, 1 + id / 7, &text(i)),
                }
                .unwrap_or_else(|e| panic!("{e}"));
            }
            let index = batch.commit(store.read()).unwrap_or_else(|e| panic!("{e}"));
            let mut found = Vec::new();
            for query in [
                "harbour",
                "tide night",
                "\"opens tide\"",
                "even ferry",
                "odd",
            ] {
                let mut hits = index
                    .search_words(query, 5_000)
                    .unwrap_or_else(|e| panic!("{e}"));
                hits.sort_by_key(|h| h.id);
                let hits: Vec<(i64, HitKind, u32)> = hits
                    .iter()
                    .map(|h| (h.id, h.kind, h.score.to_bits()))
                    .collect();
                found.push((query, hits));
            }
            found
        };
        // Two cores, as here and in CI, index on one thread; sixteen on four.
        let threads: Vec<usize> = [1, 2, 3, 4, 6, 8, 10, 16, 64]
            .into_iter()
            .map(crate::index::import_writer_threads)
            .collect();
        assert_eq!(threads, [1, 1, 1, 1, 2, 3, 4, 4, 4]);
        let one = hits_on(1);
        assert!(one.iter().all(|(_, hits)| hits.len() > 100), "{one:?}");
        assert_eq!(hits_on(3), one);
    }

    /// Rows sent in batches come back each with its own id, kind and text: none is lost at
    /// a batch's end or at the commit, and no text runs into the next row's.
    #[test]
    fn rows_sent_in_batches_keep_their_ids_kinds_and_texts() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store =
            Store::create(&dir.path().join("p.fdesk"), "p", 0).unwrap_or_else(|e| panic!("{e}"));
        let mut batch = SearchIndex::begin(&store).unwrap_or_else(|e| panic!("{e}"));
        let rows: Vec<(i64, Option<i64>, String)> = (0..11)
            .map(|i| {
                let document_id = (i % 3 != 0).then_some(100 + i / 4);
                (
                    i + 1,
                    document_id,
                    format!("harbour row{i} opens and closes"),
                )
            })
            .collect();
        for (id, document_id, text) in &rows {
            match document_id {
                Some(d) => batch.add_sentence(*id, *d, text),
                None => batch.add_claim(*id, text),
            }
            .unwrap_or_else(|e| panic!("{e}"));
        }
        let index = batch.commit(store.read()).unwrap_or_else(|e| panic!("{e}"));
        let mut hits = index
            .search_words("harbour", 50)
            .unwrap_or_else(|e| panic!("{e}"));
        hits.sort_by_key(|h| h.id);
        let got: Vec<(i64, HitKind)> = hits.iter().map(|h| (h.id, h.kind)).collect();
        let want: Vec<(i64, HitKind)> = rows
            .iter()
            .map(|(id, d, _)| match d {
                Some(_) => (*id, HitKind::Sentence),
                None => (*id, HitKind::Claim),
            })
            .collect();
        assert_eq!(got, want);
        for (id, _, _) in &rows {
            let hits = index
                .search_words(&format!("row{}", id - 1), 50)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), [*id]);
        }
        // One row's last word and the next row's first are no phrase.
        assert!(index
            .search_words("\"closes harbour\"", 50)
            .unwrap_or_else(|e| panic!("{e}"))
            .is_empty());
        assert_eq!(
            index
                .search_words("\"opens and closes\"", 50)
                .unwrap_or_else(|e| panic!("{e}"))
                .len(),
            rows.len()
        );
    }
}
