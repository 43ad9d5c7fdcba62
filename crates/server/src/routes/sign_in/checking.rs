//! The sign-ins whose password is being checked, by name and by block: at most one
//! check of a name at once from addresses it did not sign in from before, and one place
//! in the queue for the shared password checks for each block (an IPv6 /48, an IPv4
//! address).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// How long a block's shared checks count as recent...
const RECENT: Duration = Duration::from_secs(60);
/// ...and how many recent ones make it busy: a block past them waits for the one lane
/// all busy blocks share.
const BUSY_AFTER: usize = 2;

/// Shared by every sign-in of the server ([`crate::AppState`]).
#[derive(Debug)]
pub(crate) struct Checking {
    names: Mutex<HashSet<String>>,
    /// Each block's turn, and how many sign-ins want it.
    blocks: Mutex<HashMap<String, (Arc<Semaphore>, usize)>>,
    /// When each block's recent shared checks began.
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
    /// The one lane busy blocks take turns in, so that however many blocks keep
    /// checking, a block with few recent checks finds a shared check free: 300 IPv4
    /// addresses each keeping a sign-in of a made-up name waiting starved newcomers of
    /// both (eleventh hostile pass, 5 of 16 through).
    busy_lane: Arc<Semaphore>,
}

impl Default for Checking {
    fn default() -> Self {
        Checking {
            names: Mutex::default(),
            blocks: Mutex::default(),
            recent: Mutex::default(),
            busy_lane: Arc::new(Semaphore::new(1)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned set still counts: a panic elsewhere must not lift a limit.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The block the sign-in limits' `caller` is in: an IPv6 caller's /48, which one
/// subscriber is commonly given (the door counts crowds the same way); anything else as
/// it is.
pub(crate) fn block_of_caller(caller: &str) -> String {
    match caller.parse::<std::net::IpAddr>() {
        Ok(ip) => crate::door::block_of(ip).to_string(),
        Err(_) => caller.to_string(),
    }
}

impl Checking {
    /// Claims the check of `name` for a sign-in from an address it did not sign in from
    /// before, unless another such sign-in of it is being checked. Held from before the
    /// name's spacing is read until the attempt is recorded: read apart from the record,
    /// 9 of 20 simultaneous sign-ins of a much-guessed name had their password checked
    /// where the spacing allows one (tenth hostile pass).
    pub(crate) fn claim_name(self: &Arc<Self>, name: &str) -> Option<NameClaim> {
        let name = name.trim().to_string();
        lock(&self.names).insert(name.clone()).then(|| NameClaim {
            checking: self.clone(),
            name,
        })
    }

    /// A place in `block`'s queue for the shared password checks; its turn
    /// ([`BlockPlace::turn`]) is one check at a time. Hundreds of /64s of one /48, each
    /// keeping a sign-in of a made-up name waiting, held both shared checks, and
    /// newcomers waited 2 s or got 503 (tenth hostile pass).
    pub(crate) fn queue(self: &Arc<Self>, block: String) -> BlockPlace {
        let mut blocks = lock(&self.blocks);
        let entry = blocks
            .entry(block.clone())
            .or_insert_with(|| (Arc::new(Semaphore::new(1)), 0));
        entry.1 += 1;
        BlockPlace {
            checking: self.clone(),
            turn: entry.0.clone(),
            block,
        }
    }

    /// The busy blocks' lane when `block` has had [`BUSY_AFTER`] shared checks in the
    /// last [`RECENT`]; none otherwise.
    pub(crate) fn busy_lane(&self, block: &str, now: Instant) -> Option<Arc<Semaphore>> {
        let mut recent = lock(&self.recent);
        let busy = recent.get_mut(block).is_some_and(|times| {
            while times
                .front()
                .is_some_and(|t| now.duration_since(*t) > RECENT)
            {
                times.pop_front();
            }
            times.len() >= BUSY_AFTER
        });
        // Forget blocks with nothing recent, so the map holds only the last minute's.
        recent.retain(|_, times| {
            times
                .back()
                .is_some_and(|t| now.duration_since(*t) <= RECENT)
        });
        busy.then(|| self.busy_lane.clone())
    }

    /// Notes a shared check begun for `block`.
    pub(crate) fn checked(&self, block: &str, now: Instant) {
        lock(&self.recent)
            .entry(block.to_string())
            .or_default()
            .push_back(now);
    }

    #[cfg(test)]
    fn blocks_queued(&self) -> usize {
        lock(&self.blocks).len()
    }
}

/// A name's check, claimed until dropped.
#[derive(Debug)]
pub(crate) struct NameClaim {
    checking: Arc<Checking>,
    name: String,
}

impl Drop for NameClaim {
    fn drop(&mut self) {
        lock(&self.checking.names).remove(&self.name);
    }
}

/// A sign-in's place in its block's queue, given up when dropped.
#[derive(Debug)]
pub(crate) struct BlockPlace {
    checking: Arc<Checking>,
    turn: Arc<Semaphore>,
    block: String,
}

impl BlockPlace {
    /// The block it queues in.
    pub(crate) fn block(&self) -> &str {
        &self.block
    }

    /// The checking state it belongs to.
    pub(crate) fn checking(&self) -> &Checking {
        &self.checking
    }

    /// The block's turn: one of its sign-ins at a time waits for, or holds, a shared
    /// check.
    pub(crate) fn turn(&self) -> Arc<Semaphore> {
        self.turn.clone()
    }
}

impl Drop for BlockPlace {
    fn drop(&mut self) {
        let mut blocks = lock(&self.checking.blocks);
        if let Some(entry) = blocks.get_mut(&self.block) {
            entry.1 = entry.1.saturating_sub(1);
            if entry.1 == 0 {
                blocks.remove(&self.block);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tenth hostile pass (LOW): the spacing was read apart from the attempt's record,
    /// so simultaneous sign-ins of a name each found it free.
    #[test]
    fn a_name_is_checked_once_at_a_time_from_elsewhere() {
        let checking = Arc::new(Checking::default());
        let first = checking.claim_name("ana");
        assert!(first.is_some());
        assert!(checking.claim_name(" ana ").is_none(), "the same name");
        assert!(checking.claim_name("ben").is_some());
        drop(first);
        assert!(checking.claim_name("ana").is_some(), "free once recorded");
    }

    /// Tenth hostile pass (MEDIUM): /64s of one /48 each kept a sign-in waiting and held
    /// every shared check.
    #[tokio::test]
    async fn the_64s_of_one_48_take_one_turn_at_a_time() {
        let checking = Arc::new(Checking::default());
        let block = |caller: &str| block_of_caller(caller);
        assert_eq!(block("2001:db8:78:5::"), block("2001:db8:78:ffff::"));
        assert_ne!(block("2001:db8:78::"), block("2001:db8:79::"));
        assert_eq!(block("10.0.0.4"), "10.0.0.4");
        let first = checking.queue(block("2001:db8:78:5::"));
        let second = checking.queue(block("2001:db8:78:6::"));
        let other = checking.queue(block("2001:db8:99:1::"));
        let held = first.turn().try_acquire_owned();
        assert!(held.is_ok());
        assert!(second.turn().try_acquire_owned().is_err(), "one at a time");
        assert!(other.turn().try_acquire_owned().is_ok(), "another block");
        drop(held);
        assert!(second.turn().try_acquire_owned().is_ok());
        drop((first, second, other));
        assert_eq!(checking.blocks_queued(), 0, "forgotten once none waits");
    }
}
