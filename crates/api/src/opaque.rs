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
            secret: factdesk_store::tx::secret(self.store.read())?,
        })
    }

    /// The key an annotator's tied search hits are ordered by: keyed to them under the
    /// project's secret, so the order is the same on every search of theirs and tells
    /// nothing of the rows' import order ([`factdesk_store::Ranking::OwnText`]).
    pub(crate) fn search_order(&self, namer: &Namer) -> Option<[u8; 32]> {
        match namer {
            Namer::Number => None,
            Namer::Opaque { annotator, secret } => {
                let mut key = [0u8; 32];
                for (k, s) in key.iter_mut().zip(secret) {
                    *k = *s;
                }
                let message = format!("search-order:{annotator}");
                Some(*blake3::keyed_hash(&key, message.as_bytes()).as_bytes())
            }
        }
    }

    /// The item ids `actor` sees: an annotator's own ([`TaskIds`]); a lead sees the rows'
    /// ids, as their screens of the project name tasks.
    pub(crate) fn task_ids(&self, actor: &Actor) -> Result<Option<TaskIds>> {
        if actor.is_lead() {
            return Ok(None);
        }
        let secret = factdesk_store::tx::secret(self.store.read())?;
        Ok(Some(TaskIds::new(&secret, actor.id().unwrap_or_default())))
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
        for id in annotations::claims_worked_on(self.store.read(), *annotator)? {
            if namer.reference(id) == text {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }
}

/// The ids an annotator's items carry, keyed to them: a permutation of task row ids below
/// 2^48 (a four-round Feistel network over two 24-bit halves, each round a keyed hash),
/// so an item's id comes back to its task without a table, and says nothing of the row.
/// Row ids are dense and follow the serving order: an annotator's first item of a kind
/// told how many tasks of the kinds before it there were, and a jump between two of
/// their items how many others had filled meanwhile (hostile pass of session 24).
#[derive(Debug, Clone)]
pub(crate) struct TaskIds {
    key: [u8; 32],
}

const HALF_BITS: u32 = 24;
const HALF: u64 = (1 << HALF_BITS) - 1;
const ROUNDS: u8 = 4;

/// The two 24-bit halves of `id`, when it is in the permutation's range.
fn halves(id: i64) -> Option<(u64, u64)> {
    let x = u64::try_from(id).ok()?;
    (x >> (2 * HALF_BITS) == 0).then_some((x >> HALF_BITS, x & HALF))
}

impl TaskIds {
    /// `annotator`'s item ids under the project's `secret`.
    pub(crate) fn new(secret: &[u8], annotator: i64) -> TaskIds {
        let mut key = [0u8; 32];
        for (k, s) in key.iter_mut().zip(secret) {
            *k = *s;
        }
        let message = format!("task-ids:{annotator}");
        TaskIds {
            key: *blake3::keyed_hash(&key, message.as_bytes()).as_bytes(),
        }
    }

    fn round(&self, round: u8, half: u64) -> u64 {
        let mut message = [0u8; 9];
        message[0] = round;
        message[1..].copy_from_slice(&half.to_le_bytes());
        let hash = blake3::keyed_hash(&self.key, &message);
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&hash.as_bytes()[..8]);
        u64::from_le_bytes(bytes) & HALF
    }

    /// The id the annotator sees for task `row`; a row id outside the permutation's
    /// range (none a project makes) is shown as it is.
    pub(crate) fn shown(&self, row: i64) -> i64 {
        let Some((mut left, mut right)) = halves(row) else {
            return row;
        };
        for r in 0..ROUNDS {
            (left, right) = (right, left ^ self.round(r, right));
        }
        ((left << HALF_BITS) | right) as i64
    }

    /// The task row behind an id the annotator sent: the inverse of [`TaskIds::shown`].
    pub(crate) fn row(&self, shown: i64) -> i64 {
        let Some((mut left, mut right)) = halves(shown) else {
            return shown;
        };
        for r in (0..ROUNDS).rev() {
            (left, right) = (right ^ self.round(r, left), left);
        }
        ((left << HALF_BITS) | right) as i64
    }

    /// `e` with each "task ROW" in its message said as "task SHOWN".
    pub(crate) fn error(&self, e: crate::Error, row: i64) -> crate::Error {
        crate::Error {
            message: self.in_message(&e.message, row),
            ..e
        }
    }

    /// `message` with each "task ROW" in it said as "task SHOWN" (errors name the task).
    pub(crate) fn in_message(&self, message: &str, row: i64) -> String {
        let said = format!("task {row}");
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(at) = rest.find(&said) {
            let after = &rest[at + said.len()..];
            out.push_str(&rest[..at]);
            if after.starts_with(|c: char| c.is_ascii_digit()) {
                out.push_str(&said);
            } else {
                out.push_str(&format!("task {}", self.shown(row)));
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::TaskIds;

    #[test]
    fn item_ids_come_back_to_their_tasks_and_differ_per_person() {
        let (ana, ben) = (TaskIds::new(b"secret", 1), TaskIds::new(b"secret", 2));
        let rows = [1_i64, 2, 3, 601, 602, 1_000_000, (1 << 48) - 1];
        for &row in &rows {
            assert_eq!(ana.row(ana.shown(row)), row);
            assert_ne!(ana.shown(row), ben.shown(row));
            assert!((0..1 << 48).contains(&ana.shown(row)));
        }
        // Neighbouring rows are far apart once shown.
        let shown: Vec<i64> = (1..=3).map(|r| ana.shown(r)).collect();
        assert!(
            shown.windows(2).all(|w| (w[0] - w[1]).abs() > 1_000),
            "{shown:?}"
        );
        // Outside the range, ids pass as they are.
        assert_eq!((ana.shown(-5), ana.row(1 << 50)), (-5, 1 << 50));
        let said = ana.in_message("task 3 was not given to you; task 31 is", 3);
        assert_eq!(
            said,
            format!("task {} was not given to you; task 31 is", ana.shown(3))
        );
    }
}
