//! Full-text search over claims and sentences, and keeping the index current.

use crate::actor::Actor;
use crate::dto::{SearchHit, SearchHitKind};
use crate::opaque::Namer;
use crate::Lead;
use crate::{Project, Result};
use factdesk_store::{annotations, ClaimRow, HitKind, SearchIndex};

/// How many more hits than asked an annotator's search looks through, as some are
/// other people's refutations and are dropped.
const ANNOTATOR_OVERFETCH: usize = 4;

/// The longest search query taken, in characters, and the most words in it: a query's
/// cost grows with its terms, and one person's search must not stall everyone's work.
pub const MAX_QUERY_CHARS: usize = 1000;
pub const MAX_QUERY_WORDS: usize = 64;

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

impl Project {
    /// The project's search index, built or brought up to date first if needed.
    pub fn search_index(&self, lead: &Lead) -> Result<SearchIndex> {
        self.acting_lead(lead)?;
        Ok(SearchIndex::open(&self.store)?)
    }

    /// Searches claims and sentences; `"quoted words"` match as a phrase, and a claim's
    /// reference finds that claim too (a lead's `#1234`, an annotator's own opaque one).
    /// Anyone working on the project may. A lead sees every hit as it is stored. An
    /// annotator sees the document sentences and the claims they have worked on (see
    /// `annotator_sight`), never another's refutation, and a claim by their own reference
    /// only, never by its number, which follows import order (`crate::opaque`); a
    /// written refutation's id names its parent claim but not the answer that wrote it,
    /// and a sentence comes without its id or document, which would tell the trick (a
    /// sentence of an unrelated document) apart from the real candidates of an item.
    pub fn search(&self, actor: &Actor, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        self.member(actor)?;
        bounded("query", query)?;
        let full = actor.is_lead();
        let namer = self.namer(actor)?;
        let fetch = if full {
            limit
        } else {
            limit.saturating_mul(ANNOTATOR_OVERFETCH)
        };
        let hits = SearchIndex::open(&self.store)?.search(query, fetch)?;
        let mut out = Vec::with_capacity(hits.len().min(limit));
        // A claim's reference names it: that claim comes first, scored as the best hit,
        // then whatever the words find. A lead's bare number is words (a year, a figure).
        let reference = if full {
            factdesk_core::claim::number_in(query)
        } else {
            self.claim_named(&namer, query)?
        };
        let named = match reference {
            Some(n) if limit > 0 => {
                self.claim_hit(actor, &namer, n, hits.first().map_or(1.0, |h| h.score))?
            }
            _ => None,
        };
        let named_id = named.as_ref().map(|h| h.id);
        out.extend(named);
        for hit in hits {
            if out.len() >= limit {
                break;
            }
            let found = match hit.kind {
                HitKind::Claim if Some(hit.id) == named_id => None,
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
                    score: hit.score,
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
            score,
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
