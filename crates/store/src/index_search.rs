//! What a search asks the index, read by Factdesk rather than by tantivy's query parser,
//! and how its hits are ranked and collected.
//!
//! A query is words and "quoted phrases", every one of which must match, and
//! `kind:claim` / `kind:sentence`. Nothing else is syntax: tantivy's parser took field
//! names, ranges, sets, regexes, fuzzy terms and boosts, and `text:>0` (one "word" that
//! matches every term of the index) repeated 64 times cost 4 s a search on a 2,000-claim
//! project, while a server's connections waited behind it (issue 31). Here every piece of
//! the query goes through the index's own tokenizer, so `text:>0` is the words "text" and
//! "0" in a row, and a query's cost is bounded by its number of words.

use crate::index::{Hit, HitKind};
use crate::index_tokens::analyzer;
use std::collections::HashSet;
use std::sync::Arc;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::query::{
    AllQuery, Bm25StatisticsProvider, BooleanQuery, EmptyQuery, Occur, PhraseQuery, Query,
    TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::{Token, TokenStream};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader, Term};

/// The columns a hit's id and kind are read from.
pub(crate) const ID: &str = "id";
pub(crate) const DOCUMENT_ID: &str = "document_id";

/// A search query as Factdesk reads it: each clause a word or phrase that must match, as
/// the index's tokens, and the kind of hit asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// Each clause's tokens with their positions from its first (a word the tokenizer
    /// splits, "SARS CoV", is a phrase of its own, as a quoted one is).
    clauses: Vec<Vec<(usize, String)>>,
    kind: Option<HitKind>,
}

impl SearchQuery {
    /// Reads `query`: `kind:claim` or `kind:sentence` words (any case, quoted or not,
    /// plural or not; the last one counts), "quoted phrases" (an unclosed quote runs to the
    /// end), and words; every other character is only text to the tokenizer.
    pub fn parse(query: &str) -> SearchQuery {
        let (words, kind) = kind_filter(query);
        let mut clauses: Vec<Vec<(usize, String)>> = Vec::new();
        for piece in pieces(&words) {
            let tokens = tokens_of(piece);
            // A word repeated adds nothing but cost.
            if !tokens.is_empty() && !clauses.contains(&tokens) {
                clauses.push(tokens);
            }
        }
        SearchQuery { clauses, kind }
    }

    /// How many terms the index is asked for: the bound on a search's cost.
    pub fn terms(&self) -> usize {
        self.clauses.iter().map(Vec::len).sum()
    }

    pub(crate) fn kind(&self) -> Option<HitKind> {
        self.kind
    }

    /// The query for the index's `text` field: every clause must match. No clause and no
    /// kind asked for matches nothing; a kind alone matches every row (the collector keeps
    /// that kind).
    pub(crate) fn query(&self, text: Field) -> Box<dyn Query> {
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(self.clauses.len());
        for clause in &self.clauses {
            let term = |t: &str| Term::from_field_text(text, t);
            let q: Box<dyn Query> = match clause.as_slice() {
                [(_, only)] => Box::new(TermQuery::new(term(only), IndexRecordOption::WithFreqs)),
                several => Box::new(PhraseQuery::new_with_offset(
                    several.iter().map(|(at, t)| (*at, term(t))).collect(),
                )),
            };
            must.push((Occur::Must, q));
        }
        match (must.len(), self.kind) {
            (0, None) => Box::new(EmptyQuery),
            (0, Some(_)) => Box::new(AllQuery),
            (1, _) => must.pop().map_or(Box::new(EmptyQuery), |(_, q)| q),
            _ => Box::new(BooleanQuery::new(must)),
        }
    }
}

/// The query without its `kind:claim` / `kind:sentence` words, and the kind they ask for
/// (the last one given).
fn kind_filter(query: &str) -> (String, Option<HitKind>) {
    let mut kind = None;
    let mut words = Vec::new();
    for word in query.split_whitespace() {
        let asked = word
            .get(..5)
            .filter(|head| head.eq_ignore_ascii_case("kind:"))
            .and_then(|_| word.get(5..))
            .map(|rest| rest.trim_matches('"').to_ascii_lowercase());
        match asked.as_deref() {
            Some("claim" | "claims") => kind = Some(HitKind::Claim),
            Some("sentence" | "sentences") => kind = Some(HitKind::Sentence),
            _ => words.push(word),
        }
    }
    (words.join(" "), kind)
}

/// The words and quoted phrases of `query`, each as written (quotes left out).
fn pieces(query: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, part) in query.split('"').enumerate() {
        // Parts alternate: outside quotes, inside, outside, … ; an unclosed quote's part
        // is the last, and inside.
        if i % 2 == 1 {
            out.push(part);
        } else {
            out.extend(part.split_whitespace());
        }
    }
    out
}

/// `text` as the index's tokens, each with its position from the first.
fn tokens_of(text: &str) -> Vec<(usize, String)> {
    let mut tokens = Vec::new();
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut first = None;
    stream.process(&mut |t: &Token| {
        let from = *first.get_or_insert(t.position);
        tokens.push((t.position.saturating_sub(from), t.text.clone()));
    });
    tokens
}

/// How a search's hits are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// BM25 with the whole index's statistics: every claim's and sentence's words count
    /// in each word's weight. For someone who may see every row (a lead).
    Index,
    /// BM25 of each text by its own words alone: how often the query's words occur in
    /// it and how long it is, with the same weight for every word and the same average
    /// length. An annotator's ranking may not depend on rows they cannot see (others'
    /// refutations): whole-index scores moved within 80 ms of a colleague's save, the
    /// word that fell most was the one in the new refutation (16 of 16), and whole
    /// numbers of document frequency gave the index's size exactly (issue 31). Counting
    /// only what they may see would still tell them how many sentences the project has,
    /// which is a lead's; a text's own words tell nothing of any other row.
    ///
    /// Hits of equal score (every hit of a query of `kind:` alone, or of texts alike in
    /// their words) come in the order of a keyed hash of each row under `order`, and the
    /// same order decides which of them make the limit. In row order, `kind:claim` listed
    /// an annotator's originals before their refutations (40 of 40, hostile pass of
    /// session 34), and tied sentences came grouped by document.
    OwnText { order: [u8; 32] },
}

/// [`Ranking::OwnText`]'s statistics: one document in [`OWN_TEXT_DOCS`] holds every
/// word, and texts are [`OWN_TEXT_LENGTH`] words long on average (about a sentence).
struct OwnTextStatistics;

const OWN_TEXT_DOCS: u64 = 1_000_000;
const OWN_TEXT_LENGTH: u64 = 20;

impl Bm25StatisticsProvider for OwnTextStatistics {
    fn total_num_tokens(&self, _field: Field) -> tantivy::Result<u64> {
        Ok(OWN_TEXT_DOCS * OWN_TEXT_LENGTH)
    }
    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(OWN_TEXT_DOCS)
    }
    fn doc_freq(&self, _term: &Term) -> tantivy::Result<u64> {
        Ok(1)
    }
}

/// The statistics [`Ranking::OwnText`] scores with.
pub(crate) fn own_text_statistics() -> &'static dyn Bm25StatisticsProvider {
    &OwnTextStatistics
}

/// Which claims a search may return: all, or only those of a set (an annotator's: the
/// claims they worked on). Sentences are always returned.
#[derive(Debug, Clone)]
pub enum ClaimsShown {
    All,
    Only(Arc<HashSet<i64>>),
}

/// Collects the best `limit` hits of a kind (or any) among the rows shown, best score
/// first, then claims before sentences, then by id: the same project always gives the
/// same hits, whatever its segments (equal scores once came back in segment order). Rows
/// not shown are left out before the cut, so they never take a shown row's place.
pub(crate) struct HitCollector {
    pub(crate) limit: usize,
    pub(crate) kind: Option<HitKind>,
    pub(crate) claims: ClaimsShown,
    /// The key tied hits are ordered by ([`Ranking::OwnText`]); `None`: by row id.
    pub(crate) order: Option<[u8; 32]>,
}

/// [`HitCollector`] on one segment: its columns and the best hits so far, worst on top.
pub(crate) struct SegmentHits {
    ids: Column<i64>,
    documents: Column<i64>,
    limit: usize,
    kind: Option<HitKind>,
    claims: ClaimsShown,
    order: Option<[u8; 32]>,
    best: std::collections::BinaryHeap<Ranked>,
}

/// A hit ordered so that the greater is the worse ([`HitCollector`]'s order), with the
/// key that orders it among hits of the same score and kind.
#[derive(Debug, Clone)]
pub(crate) struct Ranked(pub(crate) Hit, u64);

impl Ranked {
    fn new(hit: Hit, order: Option<&[u8; 32]>) -> Ranked {
        let tie = order.map_or(0, |key| {
            let mut message = [0u8; 9];
            message[0] = u8::from(hit.kind == HitKind::Sentence);
            message[1..].copy_from_slice(&hit.id.to_le_bytes());
            let hash = blake3::keyed_hash(key, &message);
            let mut first = [0u8; 8];
            first.copy_from_slice(&hash.as_bytes()[..8]);
            u64::from_le_bytes(first)
        });
        Ranked(hit, tie)
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Ranked) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Ranked {}

impl Ord for Ranked {
    fn cmp(&self, other: &Ranked) -> std::cmp::Ordering {
        let (a, b) = (&self.0, &other.0);
        b.score
            .total_cmp(&a.score)
            .then(a.kind.cmp_key().cmp(&b.kind.cmp_key()))
            .then(self.1.cmp(&other.1))
            .then(a.id.cmp(&b.id))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Ranked) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Collector for HitCollector {
    type Fruit = Vec<Hit>;
    type Child = SegmentHits;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentHits> {
        let fast = segment.fast_fields();
        Ok(SegmentHits {
            ids: fast.i64(ID)?,
            documents: fast.i64(DOCUMENT_ID)?,
            limit: self.limit,
            kind: self.kind,
            claims: self.claims.clone(),
            order: self.order,
            best: std::collections::BinaryHeap::with_capacity(self.limit.min(1024) + 1),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, segments: Vec<Vec<Ranked>>) -> tantivy::Result<Vec<Hit>> {
        let mut all: Vec<Ranked> = segments.into_iter().flatten().collect();
        all.sort();
        all.truncate(self.limit);
        Ok(all.into_iter().map(|r| r.0).collect())
    }
}

impl SegmentCollector for SegmentHits {
    type Fruit = Vec<Ranked>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if self.limit == 0 {
            return;
        }
        let Some(id) = self.ids.first(doc) else {
            return;
        };
        let kind = match self.documents.first(doc) {
            Some(_) => HitKind::Sentence,
            None => HitKind::Claim,
        };
        if self.kind.is_some_and(|k| k != kind) {
            return;
        }
        if let (HitKind::Claim, ClaimsShown::Only(shown)) = (kind, &self.claims) {
            if !shown.contains(&id) {
                return;
            }
        }
        // A hit scored below the worst kept cannot enter: its tie key is not worked out.
        let full = self.best.len() >= self.limit;
        if full && (self.best.peek()).is_some_and(|worst| score.total_cmp(&worst.0.score).is_lt()) {
            return;
        }
        let hit = Ranked::new(Hit { kind, id, score }, self.order.as_ref());
        if self.best.len() < self.limit {
            self.best.push(hit);
        } else if self.best.peek().is_some_and(|worst| hit < *worst) {
            self.best.pop();
            self.best.push(hit);
        }
    }

    fn harvest(self) -> Vec<Ranked> {
        self.best.into_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &SearchQuery) -> Vec<Vec<&str>> {
        (q.clauses.iter())
            .map(|c| c.iter().map(|(_, t)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn query_syntax_is_only_words_phrases_and_kind() {
        let q = SearchQuery::parse("text:>0 text:[a TO z] lig* masks~2 face^9 /re.*/");
        assert_eq!(
            words(&q),
            [
                vec!["text", "0"],
                vec!["text", "a"],
                vec!["to"],
                vec!["z"],
                vec!["lig"],
                vec!["masks", "2"],
                vec!["face", "9"],
                vec!["re"],
            ]
        );
        let q = SearchQuery::parse("kind:sentence \"wear  Masks\" Café café");
        assert_eq!(q.kind(), Some(HitKind::Sentence));
        assert_eq!(words(&q), [vec!["wear", "masks"], vec!["cafe"]]);
        let q = SearchQuery::parse("\"unclosed phrase here");
        assert_eq!(words(&q), [vec!["unclosed", "phrase", "here"]]);
        assert_eq!(SearchQuery::parse(&"text:>0 ".repeat(64)).terms(), 2);
        assert_eq!(SearchQuery::parse(":> [] {} *").terms(), 0);
    }
}
