//! What the door knows of one open connection, and the counts of the address and block
//! it is counted under, which each connection there shares.

use super::{ANONYMOUS_SHIELD_MS, PAUSE_MS};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;
use std::time::Instant;

/// The connections open at one address (or in one block), shared with each of them so
/// that choosing whom to close reads them without a map lookup: hashing each
/// connection's address five times cost ~1.1 ms of the door's lock for every newcomer
/// at the default cap (tenth hostile pass). Changed only under the door's lock; atomic
/// only to be shared.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub(super) all: AtomicUsize,
    /// Of those, the ones someone's session vouched for.
    pub(super) vouched: AtomicUsize,
    /// The persons whose shield is here ([`super::open::Open`]): at most one address a
    /// person.
    pub(super) shields: AtomicUsize,
}

impl Counts {
    pub(super) fn all(&self) -> usize {
        self.all.load(Ordering::Relaxed)
    }

    /// The connections here nobody vouched for.
    pub(super) fn nobodys(&self) -> usize {
        self.all()
            .saturating_sub(self.vouched.load(Ordering::Relaxed))
    }

    pub(super) fn shielded(&self) -> bool {
        self.shields.load(Ordering::Relaxed) > 0
    }

    pub(super) fn add(counter: &AtomicUsize, more: bool) {
        if more {
            counter.fetch_add(1, Ordering::Relaxed);
        } else {
            // Never below 0, whatever the order of calls.
            let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(1))
            });
        }
    }
}

/// What the door knows of one open connection: enough to choose, when every place is
/// taken, the one idle the longest, and to close it from its own task.
#[derive(Debug)]
pub(crate) struct Activity {
    pub(super) id: u64,
    pub(super) peer: SocketAddr,
    pub(super) address: IpAddr,
    /// The counts of its address and of its block ([`super::block_of`]).
    pub(super) place: Arc<Counts>,
    pub(super) block: Arc<Counts>,
    /// Milliseconds from the door's start to the last bytes read or written.
    pub(super) last_active_ms: AtomicU64,
    /// Requests in the server's handlers (see [`crate::answering`]), and of those, the
    /// ones whose body is still arriving: a connection with a request whose body has all
    /// arrived keeps its place (the server is working on it); one still sending keeps
    /// it only by being less idle than the others.
    pub(super) busy: AtomicUsize,
    pub(super) receiving: AtomicUsize,
    /// Milliseconds from the door's start to when `busy` last rose from 0: how long the
    /// server has been working on it without a pause.
    pub(super) busy_since_ms: AtomicU64,
    /// When `busy` last fell to 0: a request that comes within [`PAUSE_MS`] of it
    /// continues the stretch `busy_since_ms` began (pipelined requests are answered one
    /// at a time, and each restarted the clock, ninth hostile pass).
    pub(super) ended_ms: AtomicU64,
    /// The door's start, which the times above count from.
    pub(super) epoch: Instant,
    /// It carried a signed-in request that was not refused, or a sign-in that succeeded,
    /// under a session still live: it makes room only once no other connection can.
    /// Mirrors `holder`, read without a lock when choosing whom to close.
    pub(super) trusted: AtomicBool,
    pub(super) holder: Mutex<Option<Holder>>,
    pub(super) evicted: AtomicBool,
    /// The tasks waiting to read from it or write to it, woken to close it once evicted.
    pub(super) reader: Mutex<Option<Waker>>,
    pub(super) writer: Mutex<Option<Waker>>,
}

/// The session that vouched for a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Holder {
    pub(crate) person: i64,
    pub(crate) token: Arc<str>,
}

impl Activity {
    /// A connection just opened at `now` (milliseconds from `epoch`), nobody's.
    pub(super) fn new(
        id: u64,
        peer: SocketAddr,
        address: IpAddr,
        (place, block): (Arc<Counts>, Arc<Counts>),
        now: u64,
        epoch: Instant,
    ) -> Activity {
        Activity {
            id,
            peer,
            address,
            place,
            block,
            last_active_ms: AtomicU64::new(now),
            busy: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            busy_since_ms: AtomicU64::new(now),
            ended_ms: AtomicU64::new(0),
            epoch,
            trusted: AtomicBool::new(false),
            holder: Mutex::new(None),
            evicted: AtomicBool::new(false),
            reader: Mutex::new(None),
            writer: Mutex::new(None),
        }
    }

    pub(super) fn trusted(&self) -> bool {
        self.trusted.load(Ordering::Acquire)
    }

    pub(super) fn holder(&self) -> std::sync::MutexGuard<'_, Option<Holder>> {
        self.holder.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn set_holder(&self, holder: Option<Holder>) {
        let mut held = self.holder();
        self.trusted.store(holder.is_some(), Ordering::Release);
        *held = holder;
    }

    /// Whether `token`'s session already vouched for it.
    pub(crate) fn held_by(&self, token: &str) -> bool {
        self.holder().as_ref().is_some_and(|h| &*h.token == token)
    }

    /// Whether the server is working on one of its requests, all of it received.
    pub(super) fn answering(&self) -> bool {
        self.busy.load(Ordering::Acquire) > self.receiving.load(Ordering::Acquire)
    }

    /// Whether nobody's connection has been answered without a pause for longer than
    /// [`ANONYMOUS_SHIELD_MS`]: requests pipelined one after another, each waiting for
    /// the project, kept a flood's connections "being answered" all the time, and every
    /// newcomer was closed in their place (seventh and eighth hostile passes).
    pub(super) fn hogging(&self, now_ms: u64) -> bool {
        !self.trusted()
            && self.answering()
            && now_ms.saturating_sub(self.busy_since_ms.load(Ordering::Acquire))
                > ANONYMOUS_SHIELD_MS
    }

    pub(super) fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub(crate) fn request_started(&self, body_to_come: bool) {
        if self.busy.fetch_add(1, Ordering::AcqRel) == 0 {
            let now = self.now_ms();
            if now.saturating_sub(self.ended_ms.load(Ordering::Acquire)) > PAUSE_MS {
                self.busy_since_ms.store(now, Ordering::Release);
            }
        }
        if body_to_come {
            self.receiving.fetch_add(1, Ordering::AcqRel);
        }
    }

    pub(crate) fn body_received(&self) {
        self.receiving.fetch_sub(1, Ordering::AcqRel);
    }

    pub(crate) fn request_ended(&self) {
        if self.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.ended_ms.store(self.now_ms(), Ordering::Release);
        }
    }
}
