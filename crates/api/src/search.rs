//! Full-text search over claims and sentences, and keeping the index current.

use crate::actor::Actor;
use crate::dto::{SearchHit, SearchHitKind};
use crate::opaque::Namer;
use crate::Lead;
use crate::{Project, Result};
use factdesk_store::{
    annotations, ClaimRow, ClaimsShown, Hit, HitKind, Ranking, SearchIndex, SearchQuery,
};
use std::sync::Arc;

/// How many hits a search from the app's screens shows.
pub const HITS_SHOWN: usize = 50;

/// The longest search query taken, in characters, and the most words in it: a query's
/// cost grows with its terms, and one person's search must not stall everyone's work.
pub const MAX_QUERY_CHARS: usize = 1000;
pub const MAX_QUERY_WORDS: usize = 64;
/// The most terms a query may ask the index for once read (a word the tokenizer splits,
/// "a.b.c", is several): the bound on one search's cost that the words alone do not give.
pub const MAX_QUERY_TERMS: usize = 128;

/// Refuses a query past [`MAX_QUERY_CHARS`] or [`MAX_QUERY_WORDS`], naming `field`.
pub(crate) fn bounded(field: &str, query: &str) -> Result<()> {
    let chars = query.chars().count();
    let words = query.split_whitespace().count();
    if chars > MAX_QUERY_CHARS || words > MAX_QUERY_WORDS {
        return Err(crate::Error::new(
            crate::ErrorCode::InvalidInput,
            format!(
                "{field}: a search takes at most {MAX_QUERY_CHARS} characters and {MAX_QUERY_WORDS} words; this one has {chars} and {words}"
            ),
        ));
    }
    Ok(())
}

/// A search read, checked and its index opened: what [`SearchPlan::run`] needs to search
/// the index without the project, so a server's search holds none of its connections
/// while the index is searched (issue 31: searches holding every connection kept the
/// team's answers waiting 55 s).
#[derive(Debug)]
pub struct SearchPlan {
    actor: Actor,
    index: SearchIndex,
    query: SearchQuery,
    limit: usize,
    claims: ClaimsShown,
    /// The claim the query names by its reference, listed first.
    named: Option<i64>,
    /// An annotator's key for the order of tied hits; `None` for a lead.
    order: Option<[u8; 32]>,
}

/// What the index found for a [`SearchPlan`], for [`Project::finish_search`] to read
/// from the project.
#[derive(Debug)]
pub struct SearchFound {
    actor: Actor,
    hits: Vec<Hit>,
    limit: usize,
    named: Option<i64>,
}

impl SearchPlan {
    /// Searches the index. A lead's hits are ranked by BM25 over the whole index; an
    /// annotator's only by each text's own words, and only among the rows they may see,
    /// so nothing they cannot see moves their hits or their order (`Ranking::OwnText`).
    pub fn run(self) -> Result<SearchFound> {
        let ranking = match self.order {
            Some(order) => Ranking::OwnText { order },
            None => Ranking::Index,
        };
        let hits = (self.index).search(&self.query, self.limit, ranking, self.claims)?;
        Ok(SearchFound {
            actor: self.actor,
            hits,
            limit: self.limit,
            named: self.named,
        })
    }
}

impl Project {
    /// The project's search index, built or brought up to date first if needed.
    pub fn search_index(&self, lead: &Lead) -> Result<SearchIndex> {
        self.acting_lead(lead)?;
        Ok(SearchIndex::open(&self.store)?)
    }

    /// Searches claims and sentences for words (all must match) and `"quoted phrases"`,
    /// as `factdesk_store::SearchQuery` reads them: nothing else in the query is syntax.
    /// A claim's reference finds that claim too (a lead's `#1234`, an annotator's own
    /// opaque one). Anyone working on the project may. A lead sees every hit as it is
    /// stored, with its score. An annotator sees the document sentences and the claims
    /// they have worked on (see `annotator_sight`), never another's refutation, and a
    /// claim by their own reference only, never by its number, which follows import order
    /// (`crate::opaque`); a written refutation's id names its parent claim but not the
    /// answer that wrote it, and a sentence comes without its id or document, which
    /// would tell the trick (a sentence of an unrelated document) apart from the real
    /// candidates of an item. An annotator's hits carry no score, and their order
    /// depends on no row they cannot see ([`SearchPlan::run`]).
    ///
    /// [`Project::plan_search`], [`SearchPlan::run`] and [`Project::finish_search`] in
    /// one: a server runs the middle one without a connection.
    pub fn search(&self, actor: &Actor, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        let found = self.plan_search(actor, query, limit)?.run()?;
        self.finish_search(found)
    }

    /// Reads and checks a search, finds the claim it names and the claims `actor` may
    /// find, and opens the index (bringing it up to date if needed).
    pub fn plan_search(&self, actor: &Actor, query: &str, limit: usize) -> Result<SearchPlan> {
        self.member(actor)?;
        bounded("query", query)?;
        let parsed = SearchQuery::parse(query);
        if parsed.terms() > MAX_QUERY_TERMS {
            return Err(crate::Error::new(
                crate::ErrorCode::InvalidInput,
                format!(
                    "query: a search looks for at most {MAX_QUERY_TERMS} words once split at punctuation; this one has {}",
                    parsed.terms()
                ),
            ));
        }
        let full = actor.is_lead();
        // A claim's reference names it: that claim comes first, then whatever the words
        // find. A lead's bare number is words (a year, a figure).
        let namer = self.namer(actor)?;
        let named = match (full, limit) {
            (_, 0) => None,
            (true, _) => factdesk_core::claim::number_in(query),
            (false, _) => self.claim_named(&namer, query)?,
        };
        let claims = match (full, actor.id()) {
            (true, _) => ClaimsShown::All,
            (false, Some(me)) => ClaimsShown::Only(Arc::new(
                annotations::claims_worked_on(self.store.read(), me)?
                    .into_iter()
                    .collect(),
            )),
            (false, None) => ClaimsShown::Only(Arc::default()),
        };
        Ok(SearchPlan {
            actor: actor.clone(),
            index: SearchIndex::open(&self.store)?,
            query: parsed,
            limit,
            claims,
            named,
            order: self.search_order(&namer),
        })
    }

    /// The hits `found` as its searcher may see them, read from the project.
    pub fn finish_search(&self, found: SearchFound) -> Result<Vec<SearchHit>> {
        let SearchFound {
            actor,
            hits,
            limit,
            named,
        } = found;
        let actor = &actor;
        let full = actor.is_lead();
        let namer = self.namer(actor)?;
        let mut out = Vec::with_capacity(hits.len().min(limit));
        // A lead's named claim is scored as the best hit.
        let best = hits.first().map_or(1.0, |h| h.score);
        let named_hit = match named {
            Some(n) => self.claim_hit(actor, &namer, n, best)?,
            None => None,
        };
        // The named claim's row, when it is listed first: not listed again.
        let listed = named_hit.as_ref().and(named);
        out.extend(named_hit);
        for hit in hits {
            if out.len() >= limit {
                break;
            }
            let found = match hit.kind {
                HitKind::Claim if Some(hit.id) == listed => None,
                HitKind::Claim => self.claim_hit(actor, &namer, hit.id, hit.score)?,
                HitKind::Sentence => self.store.sentence(hit.id)?.map(|s| SearchHit {
                    kind: SearchHitKind::Sentence,
                    // Sentence ids run through a document in order, so an id would tie
                    // a sentence to its neighbours' document too.
                    id: if full { s.id } else { 0 },
                    reference: String::new(),
                    ext_id: if full {
                        s.document_ext_id
                    } else {
                        String::new()
                    },
                    text: s.text,
                    document_id: full.then_some(s.document_id),
                    score: full.then_some(hit.score),
                }),
            };
            out.extend(found);
        }
        Ok(out)
    }

    /// Claim `id` as a search hit, if `actor` may see it, named as `namer` names it.
    fn claim_hit(
        &self,
        actor: &Actor,
        namer: &Namer,
        id: i64,
        score: f32,
    ) -> Result<Option<SearchHit>> {
        let full = actor.is_lead();
        let Some(c) = self.store.claim(id)? else {
            return Ok(None);
        };
        let own = if full {
            false
        } else {
            match self.annotator_sight(&c, actor)? {
                Some(own) => own,
                None => return Ok(None),
            }
        };
        Ok(Some(SearchHit {
            kind: SearchHitKind::Claim,
            id: namer.number(c.id),
            reference: namer.reference(c.id),
            ext_id: self.shown_ext_id(&c, full, own)?,
            text: c.text,
            document_id: None,
            // A score is the whole index's BM25, which moves with rows an annotator
            // cannot see (issue 31): a lead's only.
            score: full.then_some(score),
        }))
    }

    /// Whether an annotator may see `claim`: `None` unless they have worked on it
    /// (answered an item of it, or written it), else `Some(own)`, `own` when they wrote
    /// it. What an annotator can find must not tell them anything about an item before
    /// they answer it: if search found original claims but not refutations, a label
    /// item's claim that search cannot find would be a refutation, so REFUTED (100 of 100
    /// right in the attack), and a counter-claim to verify would be a model's or
    /// a person's by whether it is found. Claims one has worked on are found alike,
    /// whatever they are.
    pub(crate) fn annotator_sight(&self, claim: &ClaimRow, actor: &Actor) -> Result<Option<bool>> {
        let Some(me) = actor.id() else {
            return Ok(None);
        };
        let conn = self.store.read();
        let own = annotations::writer_of_claim(conn, claim.id)? == Some(me);
        Ok((own || annotations::answered_claim(conn, me, claim.id)?).then_some(own))
    }

    /// A claim's own id as `full` (a lead) or an annotator sees it; `own` when the
    /// annotator wrote it. An imported id tells a refutation from an original
    /// ("…/refuted") and a model's counter-claim from a person's ("…/model/…"), so an
    /// annotator is shown none: their own reference names it. Their own written
    /// refutation shows as its parent's id and "/written" (its stored id carries the uuid
    /// of the answer that wrote it).
    pub(crate) fn shown_ext_id(&self, claim: &ClaimRow, full: bool, own: bool) -> Result<String> {
        if full {
            return Ok(claim.ext_id.clone());
        }
        if claim.refutation_state.is_none() || !own {
            return Ok(String::new());
        }
        let parent = match claim.parent_id {
            Some(p) => self.store.claim(p)?.map(|c| c.ext_id),
            None => None,
        };
        Ok(format!("{}/written", parent.unwrap_or_default()))
    }

    /// Rebuilds the search index from the project file.
    pub fn reindex(&self, lead: &Lead) -> Result<()> {
        self.acting_lead(lead)?;
        // The index lives beside the project, so a read-only project cannot keep one.
        self.store.require_writable()?;
        SearchIndex::rebuild(&self.store)?;
        Ok(())
    }
}
