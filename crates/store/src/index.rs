//! The full-text index of claims and sentences (tantivy), kept beside the project file.
//!
//! SQLite is the source of truth: the index can be deleted at any time and is rebuilt
//! from it. Each commit carries a stamp of what it holds (project id, row counts and
//! highest ids) written atomically with the commit, so a stale or foreign index is
//! noticed and brought up to date: new rows are added, anything else rebuilds.

use crate::index_lock;
use crate::index_rows::{Row, RowFields, Rows};
use crate::index_search::{
    own_text_statistics, ClaimsShown, HitCollector, Ranking, SearchQuery, DOCUMENT_ID, ID,
};
use crate::index_stamp::{coverage, last_claim_hash, read_stamp, Coverage, Stamp};
use crate::index_tokens::{analyzer, TOKENIZER};
use crate::{Error, Result, Store};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, ExistsQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term};

/// Bumped when the index layout changes, so old indexes rebuild. (6: ids and document ids
/// are columns, no longer indexed terms. 7: nothing stored and no `kind` field; a row
/// with a document id is a sentence, one without is a claim.)
const LAYOUT: u32 = 7;
/// Indexing threads and their memory: two, as the machines we run on have two cores.
const WRITER_THREADS: usize = 2;
const WRITER_MEMORY: usize = 2 * 32 * 1024 * 1024;
/// Memory for each of an import's indexing threads: less than a rebuild's, since the
/// rows waiting for them take the rest of an import's 300 MB (`index_rows::BATCH_ROWS`).
/// At 20 MiB the import spent more CPU and took longer (docs/performance.md, session 40).
const IMPORT_WRITER_MEMORY: usize = 24 * 1024 * 1024;

/// How many threads an import indexes on, given the machine's cores: one up to three
/// cores, which the writes, the ranking and the index share, then one more for every two
/// further cores, at most four. The one indexing thread was the longest-running of an
/// import's threads (docs/performance.md, "Across cores").
pub(crate) fn import_writer_threads(cores: usize) -> usize {
    (cores.saturating_sub(2) / 2).clamp(1, 4)
}

/// Where a project's index lives: `<project file>.index/`.
pub fn index_dir(project: &Path) -> PathBuf {
    crate::sibling(project, ".index")
}

/// What a search hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Claim,
    Sentence,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    pub kind: HitKind,
    pub id: i64,
    pub score: f32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    id: Field,
    document_id: Field,
    pub(crate) text: Field,
}

impl Fields {
    fn rows(self) -> RowFields {
        RowFields {
            id: self.id,
            document_id: self.document_id,
            text: self.text,
        }
    }
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    // No query looks rows up by id or document: both are columns read for hits, not
    // indexed terms (indexed, every sentence added a term of its own to the index). Nothing
    // is stored: a hit's id and kind come from these columns, so indexing writes no
    // document store.
    let id = b.add_i64_field(ID, NumericOptions::default().set_fast());
    let document_id = b.add_i64_field(DOCUMENT_ID, NumericOptions::default().set_fast());
    let text_opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let text = b.add_text_field("text", text_opts);
    (
        b.build(),
        Fields {
            id,
            document_id,
            text,
        },
    )
}

/// An open, current index of a project.
pub struct SearchIndex {
    index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    /// An import's index, committed before the import's own transaction: nobody
    /// rebuilds the index until that transaction has ended (see [`IndexBatch`]).
    _writing: Option<index_lock::Building>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex").finish_non_exhaustive()
    }
}

impl SearchIndex {
    /// Opens the project's index, building or updating it first if it is missing or
    /// behind the project. An index only behind while an import writes into the project
    /// (which holds the index's writer until it commits the new rows with their stamp)
    /// is used as it stands: those rows are not the team's to see yet.
    pub fn open(store: &Store) -> Result<SearchIndex> {
        SearchIndex::open_current(store, true)
    }

    /// [`SearchIndex::open`]; with `stale_when_busy` false, an index behind is always
    /// brought up to date first, waiting for the writer.
    fn open_current(store: &Store, stale_when_busy: bool) -> Result<SearchIndex> {
        SearchIndex::open_current_holding(store, stale_when_busy, None)
    }

    /// [`SearchIndex::open_current`] by whoever holds the index's build (`held`: an
    /// import about to write), which then brings it up to date without asking again.
    fn open_current_holding(
        store: &Store,
        stale_when_busy: bool,
        held: Option<&index_lock::Building>,
    ) -> Result<SearchIndex> {
        if store.access() == crate::Access::ReadOnly {
            return SearchIndex::open_read_only(store);
        }
        if let Some(building) = held {
            return SearchIndex::bring_up_to_date(store, building, stale_when_busy);
        }
        let dir = store.index_dir()?;
        let now = stamp_now(store.read())?;
        // A look without the build, which a rebuild may move aside meanwhile: tantivy
        // opens files by the folder's name, so a reader opened as it moves fails (one
        // search in 430 during reindexes, issue 31) rather than mixing the two. What it
        // opens whole is either index; a failed one looks again under the build.
        let seen = open_existing(&dir).and_then(|index| read_stamp(&index).map(|s| (index, s)));
        let mut behind = None;
        if let Some((index, stamp)) = seen {
            if stamp == now {
                match SearchIndex::ready(index) {
                    Ok(ready) => return Ok(ready),
                    Err(e) => tracing::info!("the search index moved while it opened: {e}"),
                }
            } else if stale_when_busy && only_appended(store, &stamp, &now)? {
                behind = Some(index);
            }
        }
        match index_lock::building(&dir) {
            Ok(building) => SearchIndex::bring_up_to_date(store, &building, stale_when_busy),
            // Someone builds or imports: an index merely behind serves as it stands, and
            // one moved even so is searched again in a moment.
            Err(Error::IndexBuilding) => match behind {
                Some(index) => SearchIndex::ready(index).map_err(|_| Error::IndexBuilding),
                None => Err(Error::IndexBuilding),
            },
            Err(e) => Err(e),
        }
    }

    /// The index brought up to date by the holder of its build, under which nobody else
    /// moves or writes it: used as it is when current, given the new rows when the
    /// project only gained rows since, built again otherwise (also when it cannot be
    /// read). With `stale_when_busy`, an index whose writer is taken is used as it stands.
    fn bring_up_to_date(
        store: &Store,
        building: &index_lock::Building,
        stale_when_busy: bool,
    ) -> Result<SearchIndex> {
        let dir = store.index_dir()?;
        let now = stamp_now(store.read())?;
        if let Some(index) = open_existing(&dir) {
            match read_stamp(&index) {
                Some(stamp) if stamp == now => match SearchIndex::ready(index) {
                    Ok(ready) => return Ok(ready),
                    Err(e) => tracing::warn!("rebuilding the search index, unreadable: {e}"),
                },
                Some(stamp) if only_appended(store, &stamp, &now)? => {
                    let writer = match stale_when_busy {
                        true => index_lock::try_writer(&index, WRITER_THREADS, WRITER_MEMORY)?,
                        false => Some(index_lock::writer(&index, WRITER_THREADS, WRITER_MEMORY)?),
                    };
                    let Some(writer) = writer else {
                        return SearchIndex::ready(index);
                    };
                    tracing::info!("adding new rows to the search index");
                    write_rows(store, writer, Some(stamp.coverage), &now)?;
                    return SearchIndex::ready(index);
                }
                _ => {}
            }
        }
        SearchIndex::build(store, building)
    }

    /// A read-only project's index is used as it is when it is current; otherwise one is
    /// built in memory, since nothing may be written beside the project.
    fn open_read_only(store: &Store) -> Result<SearchIndex> {
        let stamp = stamp_now(store.read())?;
        if let Some(index) = open_existing(&store.index_dir()?) {
            if read_stamp(&index).as_ref() == Some(&stamp) {
                if let Ok(ready) = SearchIndex::ready(index) {
                    return Ok(ready);
                }
            }
        }
        tracing::info!("building the search index in memory: the project is read-only");
        let (schema, _) = schema();
        let index = Index::create_in_ram(schema);
        index.tokenizers().register(TOKENIZER, analyzer());
        let writer = index_lock::writer(&index, WRITER_THREADS, WRITER_MEMORY)?;
        write_rows(store, writer, None, &stamp)?;
        SearchIndex::ready(index)
    }

    /// Throws the index away and builds it again from the project.
    pub fn rebuild(store: &Store) -> Result<SearchIndex> {
        let building = index_lock::building(&store.index_dir()?)?;
        SearchIndex::build(store, &building)
    }

    /// Builds the index from the project in a folder of its own, then puts it in place.
    fn build(store: &Store, building: &index_lock::Building) -> Result<SearchIndex> {
        let dir = store.index_dir()?;
        tracing::info!(dir = %dir.display(), "building the search index");
        let folder = building.fresh_folder()?;
        let stamp = stamp_now(store.read())?;
        {
            let (schema, _) = schema();
            let index = Index::create_in_dir(&folder, schema)?;
            index.tokenizers().register(TOKENIZER, analyzer());
            let writer = index_lock::writer(&index, WRITER_THREADS, WRITER_MEMORY)?;
            write_rows(store, writer, None, &stamp)?;
        }
        building.put_in_place(&folder)?;
        let index = open_existing(&dir)
            .ok_or_else(|| Error::Index(format!("{} could not be opened", dir.display())))?;
        SearchIndex::ready(index)
    }

    fn ready(index: Index) -> Result<SearchIndex> {
        index.tokenizers().register(TOKENIZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields: schema().1,
            _writing: None,
        })
    }

    /// The best `limit` hits of `query` among the rows `claims` lets through, scored as
    /// `ranking` says (see [`SearchQuery`] for what a query may ask).
    pub fn search(
        &self,
        query: &SearchQuery,
        limit: usize,
        ranking: Ranking,
        claims: ClaimsShown,
    ) -> Result<Vec<Hit>> {
        let q = query.query(self.fields.text);
        let mut collector = HitCollector {
            limit,
            kind: query.kind(),
            claims,
            order: None,
        };
        let searcher = self.reader.searcher();
        Ok(match ranking {
            Ranking::Index => searcher.search(&*q, &collector)?,
            Ranking::OwnText { order } => {
                collector.order = Some(order);
                searcher.search_with_statistics_provider(&*q, &collector, own_text_statistics())?
            }
        })
    }

    /// [`SearchIndex::search`] of `query` as a lead searches: for this crate's tests.
    #[cfg(test)]
    pub(crate) fn search_words(&self, query: &str, limit: usize) -> Result<Vec<Hit>> {
        let query = SearchQuery::parse(query);
        self.search(&query, limit, Ranking::Index, ClaimsShown::All)
    }

    /// Ranks the sentences of the given documents against a claim with BM25. Sentences
    /// sharing no word with the claim are not returned.
    pub fn bm25(&self, claim: &str, document_ids: &[i64], limit: usize) -> Result<Vec<(i64, f32)>> {
        let words: Vec<Term> = {
            let mut seen = std::collections::BTreeSet::new();
            let mut words = Vec::new();
            analyzer()
                .token_stream(claim)
                .process(&mut |t: &Token| words.push(t.text.clone()));
            words
                .into_iter()
                .filter(|w| seen.insert(w.clone()))
                .map(|w| Term::from_field_text(self.fields.text, &w))
                .collect()
        };
        if words.is_empty() || document_ids.is_empty() {
            return Ok(Vec::new());
        }
        let any_word: Vec<(Occur, Box<dyn Query>)> = words
            .into_iter()
            .map(|t| {
                (
                    Occur::Should,
                    Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)) as Box<dyn Query>,
                )
            })
            .collect();
        let sentences_only = ExistsQuery::new(DOCUMENT_ID.to_string(), false);
        let q = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(sentences_only), 0.0)) as Box<dyn Query>,
            ),
            (Occur::Must, Box::new(BooleanQuery::new(any_word))),
        ]);
        // Every hit, then only those of the documents asked for (document ids are a
        // column, not terms to filter on); ids come from the fast field rather than each
        // stored document. Ranking scores in memory (`Bm25Corpus`): this query is what
        // those scores are checked against.
        let searcher = self.reader.searcher();
        let every = usize::try_from(searcher.num_docs())
            .unwrap_or(usize::MAX)
            .max(1);
        let top = searcher.search(&q, &TopDocs::with_limit(every))?;
        let wanted: std::collections::HashSet<i64> = document_ids.iter().copied().collect();
        let mut out = Vec::new();
        let mut columns = std::collections::HashMap::new();
        for (score, addr) in top {
            let (ids, documents) = match columns.entry(addr.segment_ord) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let fast = searcher.segment_reader(addr.segment_ord).fast_fields();
                    e.insert((fast.i64(ID)?, fast.i64(DOCUMENT_ID)?))
                }
            };
            let document = documents.first(addr.doc_id);
            if let (Some(id), Some(d)) = (ids.first(addr.doc_id), document) {
                if wanted.contains(&d) {
                    out.push((id, score));
                }
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(limit);
        Ok(out)
    }
}

impl HitKind {
    /// Claims before sentences among hits of equal score.
    pub(crate) fn cmp_key(self) -> u8 {
        match self {
            HitKind::Claim => 0,
            HitKind::Sentence => 1,
        }
    }
}

/// What the project held when an [`IndexBatch`] was stamped, for its commit.
#[derive(Debug)]
pub struct IndexStamp(Stamp);

/// Rows added to the index while the project file is written, committed to the index only
/// after the project's own transaction has committed; dropped, they leave no trace.
pub struct IndexBatch {
    index: Index,
    writer: IndexWriter<Row>,
    rows: Rows,
    pub(crate) fields: Fields,
    /// The index as it was before this batch, for its statistics.
    pub(crate) before: IndexReader,
    /// The index's build, held from the batch's start to the end of the write that
    /// commits it: an import commits its rows to the index before its own transaction,
    /// and a search that found the index ahead of the project rebuilt it and moved its
    /// folder away under the import, which then failed (eighteenth hostile pass).
    building: index_lock::Building,
}

impl std::fmt::Debug for IndexBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexBatch").finish_non_exhaustive()
    }
}

impl SearchIndex {
    /// Brings the index up to date, then starts adding the rows a write is about to make,
    /// so that indexing runs beside the write instead of after it.
    pub fn begin(store: &Store) -> Result<IndexBatch> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        SearchIndex::begin_on(store, import_writer_threads(cores))
    }

    /// [`SearchIndex::begin`] indexing on `threads` threads.
    pub(crate) fn begin_on(store: &Store, threads: usize) -> Result<IndexBatch> {
        // A rebuild under way finishes first.
        let building = index_lock::building_wait(&store.index_dir()?)?;
        let current = SearchIndex::open_current_holding(store, false, Some(&building))?;
        let memory = threads * IMPORT_WRITER_MEMORY;
        let writer = crate::index_lock::writer(&current.index, threads, memory)?;
        Ok(IndexBatch {
            index: current.index,
            writer,
            rows: Rows::new(current.fields.rows()),
            fields: current.fields,
            before: current.reader,
            building,
        })
    }
}

impl IndexBatch {
    pub fn add_claim(&mut self, id: i64, text: &str) -> Result<()> {
        self.rows.add(&self.writer, id, None, text)
    }

    pub fn add_sentence(&mut self, id: i64, document_id: i64, text: &str) -> Result<()> {
        self.rows.add(&self.writer, id, Some(document_id), text)
    }

    /// Commits the added rows, stamped with what the project holds as `conn` sees it, and
    /// returns the index ready for searching. An import commits it inside its own
    /// transaction, to rank the new claims before they commit; should that transaction
    /// then fail, the stamp no longer matches the project (counts, highest ids and the
    /// last claim's hash) and the index is rebuilt when next opened.
    pub fn commit(self, conn: &crate::Read) -> Result<SearchIndex> {
        let stamp = self.stamp(conn)?;
        self.commit_stamped(stamp)
    }

    /// What [`IndexBatch::commit`] stamps the index with, read from `conn` now. Taken
    /// first, it lets the commit run on another thread while the caller goes on writing
    /// rows the stamp does not count (an import's candidates).
    pub fn stamp(&self, conn: &crate::Read) -> Result<IndexStamp> {
        Ok(IndexStamp(stamp_now(conn)?))
    }

    /// The highest claim and sentence ids the index held when this batch began: rows
    /// above them that the batch was not given are not in the index (a write between
    /// the transactions of an import into a live project).
    pub fn covered(&self) -> Option<(i64, i64)> {
        read_stamp(&self.index).map(|s| (s.coverage.claims_max, s.coverage.sentences_max))
    }

    /// [`IndexBatch::commit`] with a stamp taken earlier by [`IndexBatch::stamp`].
    pub fn commit_stamped(mut self, stamp: IndexStamp) -> Result<SearchIndex> {
        self.rows.send(&self.writer)?;
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(&serde_json::to_string(&stamp.0)?);
        prepared.commit()?;
        self.writer.wait_merging_threads()?;
        let mut ready = SearchIndex::ready(self.index)?;
        ready._writing = Some(self.building);
        Ok(ready)
    }
}

/// The stamp of an index current with the project as `conn` reads it now.
fn stamp_now(conn: &crate::Read) -> Result<Stamp> {
    Ok(Stamp {
        layout: LAYOUT,
        project_id: crate::project::get(conn)?.id,
        coverage: coverage(conn, None)?,
    })
}

/// Whether the project only gained rows since the index was stamped with `stamp`: the
/// same project and layout, and the rows the index holds unchanged.
fn only_appended(store: &Store, stamp: &Stamp, now: &Stamp) -> Result<bool> {
    if stamp.layout != now.layout || stamp.project_id != now.project_id {
        return Ok(false);
    }
    let added = coverage(store.read(), Some(stamp.coverage.clone()))?;
    Ok(stamp.coverage.claims + added.claims == now.coverage.claims
        && stamp.coverage.sentences + added.sentences == now.coverage.sentences
        && stamp.coverage.claims_last == last_claim_hash(store.read(), stamp.coverage.claims_max)?)
}

/// The index at `dir`, if a folder (not a link, which may lead out of the project's
/// folder: the index is then built anew, the link moved aside) holds one.
fn open_existing(dir: &Path) -> Option<Index> {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let index = Index::open_in_dir(dir).ok()?;
    index.tokenizers().register(TOKENIZER, analyzer());
    Some(index)
}

/// Adds claims and sentences newer than `after` through `writer` and commits with `stamp`.
fn write_rows(
    store: &Store,
    mut writer: IndexWriter<Row>,
    after: Option<Coverage>,
    stamp: &Stamp,
) -> Result<()> {
    let after = after.unwrap_or_default();
    let mut added = Rows::new(schema().1.rows());
    {
        let mut stmt = store
            .read()
            .prepare("SELECT id, text FROM claims WHERE id > ?1")?;
        let mut rows = stmt.query([after.claims_max])?;
        while let Some(r) = rows.next()? {
            let (id, t): (i64, String) = (r.get(0)?, r.get(1)?);
            added.add(&writer, id, None, &t)?;
        }
    }
    {
        let mut stmt = store
            .read()
            .prepare("SELECT id, document_id, text FROM sentences WHERE id > ?1")?;
        let mut rows = stmt.query([after.sentences_max])?;
        while let Some(r) = rows.next()? {
            let (id, d, t): (i64, i64, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            added.add(&writer, id, Some(d), &t)?;
        }
    }
    added.send(&writer)?;
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(&serde_json::to_string(stamp)?);
    prepared.commit()?;
    writer.wait_merging_threads()?;
    Ok(())
}
