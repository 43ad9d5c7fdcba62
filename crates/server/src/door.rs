//! Caps on the connections held open at once, in all and per address: each costs a file
//! descriptor, and the process has a limit on those. A connection past a cap is closed
//! as it is accepted (and logged), so the server never runs out of descriptors and
//! keeps accepting others. Near the cap in all, the last places are kept for addresses
//! holding few connections (a lead opening the dashboard), not for the ones holding many;
//! at the cap, a newcomer takes the place of the connection idle the longest that is not
//! being answered, so idle connections spread over many addresses cannot shut everyone
//! out. An IPv6 caller is counted under its /64.
//!
//! The caps in force are sized below the open-file limit by [`crate::open_files`].

mod accept;
mod activity;
mod open;

pub use accept::{Capped, Counted};
pub(crate) use activity::{Activity, Holder};
use open::Open;
use std::net::IpAddr;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// An address holding fewer connections than this may take the last places in all.
pub const LIGHT_ADDRESS: usize = 8;
/// How long nobody's connection may be answered without a pause and still keep its
/// place over a newcomer: a sign-in waits for a password check at most 2 s
/// ([`crate::DEFAULT_HASHING_WAIT`]) beside its two short reads of the project.
pub const ANONYMOUS_SHIELD_MS: u64 = 5_000;
/// A pause shorter than this between two requests of nobody's connection does not end
/// its stretch of being answered: back-to-back requests are one stretch.
pub const PAUSE_MS: u64 = 1_000;
/// The fewest connections in all the server starts with.
pub const MIN_CONNECTIONS: usize = 64;
/// The most connections one person's sessions make someone's at once: a browser opens
/// six to a server, the app two. One annotator's account made every connection it
/// touched someone's (fourth hostile pass of session 26).
pub const VOUCHED_PER_PERSON: usize = 8;

/// How many connections the door admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// In all, from every address together.
    pub total: usize,
    /// From one address (the trusted proxy excepted).
    pub per_address: usize,
}

impl Caps {
    /// The places kept, near the cap in all, for addresses holding fewer than
    /// [`LIGHT_ADDRESS`] connections.
    fn reserve(&self) -> usize {
        (self.total / 8).max(1)
    }
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Full,
    Address,
    Reserved,
}

/// The address a connection is counted under: an IPv6 caller under its /64, which one
/// machine is commonly given whole (so counting each address let it hold every place).
pub fn counted_as(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(std::net::Ipv6Addr::from(bits))
            }
        },
        v4 => v4,
    }
}

/// The block an address is crowded with: an IPv6 /48, which one subscriber is commonly
/// given (a free tunnel broker hands out /48s: 65,536 /64s, each counted apart above,
/// held every place as lone connections, ninth hostile pass); an IPv4 address itself.
pub(crate) fn block_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 80) - 1);
            IpAddr::V6(std::net::Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// Open connections shared by the acceptor's clones and the answering layer.
#[derive(Debug)]
pub struct Doorkeeper {
    open: Mutex<Open>,
    started: Instant,
    /// Evictions and refusals, logged at most once a second each, with a count, so that
    /// an attack's churn does not fill the disk with log lines (89 MB in 45 s, fourth
    /// hostile pass of session 26).
    evictions: Tally,
    refusals: Tally,
    /// Requests answered 503 or 429, logged the same way.
    turned_away: Tally,
    failed: Tally,
}

/// Events since the last one logged, and when that was.
#[derive(Debug, Default)]
struct Tally {
    unlogged: AtomicU64,
    logged_at_ms: AtomicU64,
}

impl Tally {
    /// Counts one event at `now`; the count to log, once a second at most.
    fn note(&self, now: u64) -> Option<u64> {
        let unlogged = self.unlogged.fetch_add(1, Ordering::AcqRel) + 1;
        let last = self.logged_at_ms.load(Ordering::Acquire);
        let due = last == 0 || now.saturating_sub(last) >= 1000;
        let claimed = due
            && self
                .logged_at_ms
                .compare_exchange(last, now.max(1), Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        claimed.then(|| {
            self.unlogged.fetch_sub(unlogged, Ordering::AcqRel);
            unlogged
        })
    }
}

/// The door's shared state: give the same one to [`Capped`] and to the answering layer (`crate::answering::layer`).
pub type Door = Arc<Doorkeeper>;

/// A new door, with no connection open.
pub fn door() -> Door {
    Arc::new(Doorkeeper {
        open: Mutex::default(),
        started: Instant::now(),
        evictions: Tally::default(),
        refusals: Tally::default(),
        turned_away: Tally::default(),
        failed: Tally::default(),
    })
}

impl Doorkeeper {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        // A poisoned count still counts: a panic elsewhere must not open the door.
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one more connection from `peer` unless a cap refuses it; `proxy`: it is
    /// the trusted reverse proxy's, whose connections are everyone's and count only in
    /// all. With every place taken, the connection idle the longest makes room (see
    /// [`Open::evict_one`]).
    fn take(self: &Arc<Self>, peer: SocketAddr, caps: Caps, proxy: bool) -> Result<Held, Refusal> {
        let address = if proxy {
            peer.ip()
        } else {
            counted_as(peer.ip())
        };
        let now = self.now_ms();
        let (evicted, activity) = {
            let mut open = self.lock();
            let held = open.places.get(&address).map_or(0, |c| c.all());
            if !proxy && held >= caps.per_address {
                return Err(Refusal::Address);
            }
            if !proxy && held >= LIGHT_ADDRESS && open.total >= caps.total - caps.reserve() {
                return Err(Refusal::Reserved);
            }
            let evicted = if open.total >= caps.total {
                Some(open.evict_one(now).ok_or(Refusal::Full)?)
            } else {
                None
            };
            let activity = open.admit(peer, address, now, self.started);
            (evicted, activity)
        };
        if let Some(victim) = evicted {
            self.log_eviction(now);
            // Its task may wait to read or to write (a client that never reads what it
            // asked for): either way it wakes, fails, and closes the socket.
            for waiting in [&victim.reader, &victim.writer] {
                let waker = waiting.lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
        }
        Ok(Held {
            open: self.clone(),
            activity,
        })
    }

    fn log_eviction(&self, now: u64) {
        if let Some(closed) = self.evictions.note(now) {
            tracing::warn!(
                closed,
                "every connection place was taken: closed connections to make room"
            );
        }
    }

    fn log_refusal(&self, why: &str) {
        if let Some(refused) = self.refusals.note(self.now_ms()) {
            tracing::warn!(refused, "refused connections, the last: {why}");
        }
    }

    /// Makes `activity` someone's: `holder`'s. A person's sessions vouch for at most
    /// [`VOUCHED_PER_PERSON`] connections; past that, the one of theirs idle the longest
    /// is nobody's again.
    pub(crate) fn vouch(&self, activity: &Activity, holder: Holder) {
        let mut open = self.lock();
        if !open.connections.contains_key(&activity.id) {
            return;
        }
        let person = holder.person;
        open.set_holder(activity, Some(holder));
        let mut theirs = open.persons.get(&person).cloned().unwrap_or_default();
        if theirs.len() > VOUCHED_PER_PERSON {
            theirs.sort_by_key(|c| {
                (
                    c.id == activity.id,
                    c.last_active_ms.load(Ordering::Acquire),
                )
            });
            for c in &theirs[..theirs.len() - VOUCHED_PER_PERSON] {
                open.set_holder(c, None);
            }
        }
    }

    /// Every connection `token`'s session vouched for is nobody's again: the session
    /// ended.
    pub(crate) fn withdraw(&self, token: &str) {
        let mut open = self.lock();
        let held: Vec<Arc<Activity>> = open
            .persons
            .values()
            .flatten()
            .filter(|c| c.held_by(token))
            .cloned()
            .collect();
        for c in held {
            open.set_holder(&c, None);
        }
    }

    /// The sessions vouching for connections now, each once.
    pub(crate) fn vouching(&self) -> Vec<Arc<str>> {
        let open = self.lock();
        let mut tokens: Vec<Arc<str>> = open
            .persons
            .values()
            .flatten()
            .filter_map(|c| c.holder().as_ref().map(|h| h.token.clone()))
            .collect();
        tokens.sort_unstable();
        tokens.dedup();
        tokens
    }

    pub(crate) fn log_turned_away(&self, status: u16, why: &str) {
        if let Some(answered) = self.turned_away.note(self.now_ms()) {
            tracing::warn!(answered, status, "requests turned away, the last: {why}");
        }
    }

    /// Logs a request that failed inside the server (a full disk, a database gone), once a
    /// second at most with the count: one failure a request, answered by the thousand,
    /// wrote a line each onto the disk that was already full (twelfth hostile pass).
    pub(crate) fn log_failed(&self, status: u16, why: &str) {
        if let Some(answered) = self.failed.note(self.now_ms()) {
            tracing::error!(
                answered,
                status,
                "requests failed inside the server, the last: {why}"
            );
        }
    }

    /// The connection from `peer`, while it is open.
    pub(crate) fn connection(&self, peer: SocketAddr) -> Option<Arc<Activity>> {
        let open = self.lock();
        let id = open.by_peer.get(&peer)?;
        open.connections.get(id).cloned()
    }
}

/// One counted connection; dropping it frees its place (unless it was evicted, which
/// freed it then).
#[derive(Debug)]
struct Held {
    open: Arc<Doorkeeper>,
    activity: Arc<Activity>,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.open.lock();
        if open.connections.contains_key(&self.activity.id) {
            open.count_out(&self.activity);
        }
    }
}

#[cfg(test)]
#[path = "door_tests.rs"]
mod tests;
