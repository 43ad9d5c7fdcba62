//! Full-text search over claims and sentences, and keeping the index current.

use crate::actor::Actor;
use crate::dto::{SearchHit, SearchHitKind};
use crate::{Project, Result};
use factdesk_store::{HitKind, SearchIndex};

impl Project {
    /// The project's search index, built or brought up to date first if needed.
    pub fn search_index(&self, lead: &Actor) -> Result<SearchIndex> {
        self.require_lead(lead, "open the search index")?;
        Ok(SearchIndex::open(&self.store)?)
    }

    /// Searches claims and sentences; `"quoted words"` match as a phrase. Anyone working
    /// on the project may: hits are imported text, never answers or tricks.
    pub fn search(&self, actor: &Actor, query: &str, limit: usize) -> Result<Vec<SearchHit>> {
        self.member(actor)?;
        let hits = SearchIndex::open(&self.store)?.search(query, limit)?;
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            let found = match hit.kind {
                HitKind::Claim => self.store.claim(hit.id)?.map(|c| SearchHit {
                    kind: SearchHitKind::Claim,
                    id: c.id,
                    ext_id: c.ext_id,
                    text: c.text,
                    document_id: None,
                    score: hit.score,
                }),
                HitKind::Sentence => self.store.sentence(hit.id)?.map(|s| SearchHit {
                    kind: SearchHitKind::Sentence,
                    id: s.id,
                    ext_id: s.document_ext_id,
                    text: s.text,
                    document_id: Some(s.document_id),
                    score: hit.score,
                }),
            };
            out.extend(found);
        }
        Ok(out)
    }

    /// Rebuilds the search index from the project file.
    pub fn reindex(&self, lead: &Actor) -> Result<()> {
        self.require_lead(lead, "rebuild the search index")?;
        // The index lives beside the project, so a read-only project cannot keep one.
        self.store.require_writable()?;
        SearchIndex::rebuild(&self.store)?;
        Ok(())
    }
}
