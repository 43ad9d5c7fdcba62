//! Opaque names of what an annotator is shown: an item's options, and claims. Each is a
//! keyed hash under the project's secret, so it tells nothing of the row behind it (its
//! order, its kind) to anyone without the secret.
//!
//! A lead names claims by their number in the project ("#12"): the row id, given in
//! import order. An annotator must not see that order: refutations are imported (or
//! written) after their originals, so "a number above the count of originals" told a
//! label item's gold (issue 31, hostile pass of session 22). An annotator gets a
//! reference of their own instead, keyed to the claim and to them, which opens the claim
//! for them and for no one else.

use crate::actor::Actor;
use crate::{Project, Result};
use factdesk_store::annotations;

/// The first 12 hex digits of the keyed hash of `message` under the project's `secret`
/// (its first 32 bytes). Never the public `seed`: whoever knows the seed could compute
/// the names and so the rows behind them.
pub(crate) fn keyed_hex(secret: &[u8], message: &str) -> String {
    let mut key = [0u8; 32];
    for (k, s) in key.iter_mut().zip(secret) {
        *k = *s;
    }
    blake3::keyed_hash(&key, message.as_bytes()).to_hex()[..12].to_string()
}

/// How claims are named to one person.
pub(crate) enum Namer {
    /// A lead: by number.
    Number,
    /// An annotator: by a reference keyed to them.
    Opaque { annotator: i64, secret: Vec<u8> },
}

impl Namer {
    /// Whether this is a lead's naming, by the claims' numbers.
    pub(crate) fn by_number(&self) -> bool {
        matches!(self, Namer::Number)
    }

    /// The number a claim is shown with: its row id for a lead, 0 for an annotator.
    pub(crate) fn number(&self, claim_id: i64) -> i64 {
        match self {
            Namer::Number => claim_id,
            Namer::Opaque { .. } => 0,
        }
    }

    /// What claim `claim_id` is called: "#12" for a lead, "c" and 12 hex digits for an
    /// annotator.
    pub(crate) fn reference(&self, claim_id: i64) -> String {
        match self {
            Namer::Number => factdesk_core::claim::number_text(claim_id),
            Namer::Opaque { annotator, secret } => {
                format!(
                    "c{}",
                    keyed_hex(secret, &format!("claim:{annotator}:{claim_id}"))
                )
            }
        }
    }
}

/// Whether `text` has the shape of an annotator's reference.
fn is_reference(text: &str) -> bool {
    text.len() == 13
        && text.starts_with('c')
        && text[1..]
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// A lead's claim number as written: "#12", or a bare 12 where a claim is asked for.
fn number_of(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('#').unwrap_or(text);
    factdesk_core::claim::number_in(&format!("#{digits}"))
}

impl Project {
    /// How `actor` sees claims named.
    pub(crate) fn namer(&self, actor: &Actor) -> Result<Namer> {
        if actor.is_lead() {
            return Ok(Namer::Number);
        }
        Ok(Namer::Opaque {
            // An annotator of a project always has a row; without one nothing is seen
            // (`annotator_sight`), so nothing is named.
            annotator: actor.id().unwrap_or_default(),
            secret: factdesk_store::tx::secret(self.store.conn())?,
        })
    }

    /// The claim `text` names as `namer` names claims: a lead's number ("#12" or "12"),
    /// or one of the annotator's own references, which only the claims they have worked
    /// on have (the ones they may see). `None` when it names none of those.
    pub(crate) fn claim_named(&self, namer: &Namer, text: &str) -> Result<Option<i64>> {
        let text = text.trim();
        let Namer::Opaque { annotator, .. } = namer else {
            return Ok(number_of(text));
        };
        if !is_reference(text) {
            return Ok(None);
        }
        // A keyed hash runs one way: the annotator's claims are named until one matches.
        // They are the claims of their own answers, a few thousand at most.
        for id in annotations::claims_worked_on(self.store.conn(), *annotator)? {
            if namer.reference(id) == text {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }
}
