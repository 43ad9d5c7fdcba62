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

pub use accept::{Capped, Counted};
use std::collections::HashMap;
use std::net::IpAddr;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;
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
fn block_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 80) - 1);
            IpAddr::V6(std::net::Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// What the door knows of one open connection: enough to choose, when every place is
/// taken, the one idle the longest, and to close it from its own task.
#[derive(Debug)]
pub(crate) struct Activity {
    id: u64,
    peer: SocketAddr,
    address: IpAddr,
    /// Milliseconds from the door's start to the last bytes read or written.
    last_active_ms: AtomicU64,
    /// Requests in the server's handlers (see [`crate::answering`]), and of those, the
    /// ones whose body is still arriving: a connection with a request whose body has all
    /// arrived keeps its place (the server is working on it); one still sending keeps
    /// it only by being less idle than the others.
    busy: AtomicUsize,
    receiving: AtomicUsize,
    /// Milliseconds from the door's start to when `busy` last rose from 0: how long the
    /// server has been working on it without a pause.
    busy_since_ms: AtomicU64,
    /// When `busy` last fell to 0: a request that comes within [`PAUSE_MS`] of it
    /// continues the stretch `busy_since_ms` began (pipelined requests are answered one
    /// at a time, and each restarted the clock, ninth hostile pass).
    ended_ms: AtomicU64,
    /// The door's start, which the times above count from.
    epoch: Instant,
    /// It carried a signed-in request that was not refused, or a sign-in that succeeded,
    /// under a session still live: it makes room only once no other connection can.
    /// Mirrors `holder`, read without a lock when choosing whom to close.
    trusted: AtomicBool,
    holder: Mutex<Option<Holder>>,
    evicted: AtomicBool,
    /// The tasks waiting to read from it or write to it, woken to close it once evicted.
    reader: Mutex<Option<Waker>>,
    writer: Mutex<Option<Waker>>,
}

/// The session that vouched for a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Holder {
    pub(crate) person: i64,
    pub(crate) token: Arc<str>,
}

impl Activity {
    fn trusted(&self) -> bool {
        self.trusted.load(Ordering::Acquire)
    }

    fn holder(&self) -> std::sync::MutexGuard<'_, Option<Holder>> {
        self.holder.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_holder(&self, holder: Option<Holder>) {
        let mut held = self.holder();
        self.trusted.store(holder.is_some(), Ordering::Release);
        *held = holder;
    }

    /// Whether `token`'s session already vouched for it.
    pub(crate) fn held_by(&self, token: &str) -> bool {
        self.holder().as_ref().is_some_and(|h| &*h.token == token)
    }

    /// Whether the server is working on one of its requests, all of it received.
    fn answering(&self) -> bool {
        self.busy.load(Ordering::Acquire) > self.receiving.load(Ordering::Acquire)
    }

    /// Whether nobody's connection has been answered without a pause for longer than
    /// [`ANONYMOUS_SHIELD_MS`]: requests pipelined one after another, each waiting for
    /// the project, kept a flood's connections "being answered" all the time, and every
    /// newcomer was closed in their place (seventh and eighth hostile passes).
    fn hogging(&self, now_ms: u64) -> bool {
        !self.trusted()
            && self.answering()
            && now_ms.saturating_sub(self.busy_since_ms.load(Ordering::Acquire))
                > ANONYMOUS_SHIELD_MS
    }

    fn now_ms(&self) -> u64 {
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

/// The connections nobody vouched for at `at`: all of them there less those vouched for.
fn nobodys(all: &HashMap<IpAddr, usize>, vouched: &HashMap<IpAddr, usize>, at: IpAddr) -> usize {
    let n = all.get(&at).copied().unwrap_or(0);
    n.saturating_sub(vouched.get(&at).copied().unwrap_or(0))
}

/// One fewer in `counts` at `key`, forgetting a key that reaches 0.
fn down(counts: &mut HashMap<IpAddr, usize>, key: IpAddr) {
    if let Some(count) = counts.get_mut(&key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            counts.remove(&key);
        }
    }
}

/// Open connections, in all and by address.
#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
    /// Connections by block ([`block_of`]), and of those the ones someone vouched for.
    by_block: HashMap<IpAddr, usize>,
    vouched_by_block: HashMap<IpAddr, usize>,
    /// Of those, the ones someone's session vouched for.
    vouched: HashMap<IpAddr, usize>,
    connections: HashMap<u64, Arc<Activity>>,
    by_peer: HashMap<SocketAddr, u64>,
    next_id: u64,
}

impl Open {
    fn count_out(&mut self, activity: &Activity) {
        if activity.trusted() {
            self.vouched_change(activity.address, false);
        }
        self.connections.remove(&activity.id);
        if self.by_peer.get(&activity.peer) == Some(&activity.id) {
            self.by_peer.remove(&activity.peer);
        }
        self.total = self.total.saturating_sub(1);
        down(&mut self.by_address, activity.address);
        down(&mut self.by_block, block_of(activity.address));
    }

    /// Counts one more connection from `address`.
    fn count_in(&mut self, address: IpAddr) {
        self.total += 1;
        *self.by_address.entry(address).or_default() += 1;
        *self.by_block.entry(block_of(address)).or_default() += 1;
    }

    fn vouched_change(&mut self, address: IpAddr, more: bool) {
        if more {
            *self.vouched.entry(address).or_default() += 1;
            *self.vouched_by_block.entry(block_of(address)).or_default() += 1;
        } else {
            down(&mut self.vouched, address);
            down(&mut self.vouched_by_block, block_of(address));
        }
    }

    /// Gives `c` to `holder` (or to nobody), keeping the count of vouched connections by
    /// address.
    fn set_holder(&mut self, c: &Activity, holder: Option<Holder>) {
        match (c.trusted(), holder.is_some()) {
            (false, true) => self.vouched_change(c.address, true),
            (true, false) => self.vouched_change(c.address, false),
            _ => {}
        }
        c.set_holder(holder);
    }

    /// Frees the place of the connection idle the longest that is not being answered,
    /// if there is one. Idle connections spread over many addresses, silent or kept
    /// alive after one answer, held every place, and newcomers (a lead among them) were
    /// refused. A client whose idle connection is closed opens another, as HTTP lets a
    /// server close idle connections at any time; a request being answered, or a body
    /// still arriving, keeps its place.
    fn evict_one(&mut self, now_ms: u64) -> Option<Arc<Activity>> {
        // Connections nobody vouched for go first (a churn of new ones closed a lead's
        // event stream and signed-in annotators' connections, third pass), and of those
        // first the ones the server has been answering without a pause for seconds, the
        // longest first: a flood's pipelined requests, each waiting for the project, kept
        // them "being answered" and newcomers were closed instead (eighth pass). Then the
        // most crowded with nobody's first, counted at the address or its IPv6 /48
        // ([`block_of`]): a person's two connections go after a flood's seven from an
        // address, and a /48's thousand lone /64s go before anyone's one (ninth pass);
        // then those the server is not working on; then the one idle the longest. Someone's
        // connection is closed only when no other can be, and never while it is being
        // answered. Among nobody's, those of an address where someone is signed in go
        // after the others (a person's sign-in, or a tab's new connection, was closed
        // before an anonymous flood's, fifth pass), as long as it holds few of nobody's
        // (one account's connections from eight addresses shielded a crowd of 412 at
        // each, sixth pass).
        let victim = self
            .connections
            .values()
            .filter(|c| !(c.trusted() && c.answering()))
            .min_by_key(|c| {
                let vouched = self.vouched.get(&c.address).copied().unwrap_or(0);
                let nobodys_here = nobodys(&self.by_address, &self.vouched, c.address);
                // How crowded its place is with nobody's: at its address, or in its block
                // when that holds more.
                let block = block_of(c.address);
                let crowd =
                    nobodys_here.max(nobodys(&self.by_block, &self.vouched_by_block, block));
                let hogging = c.hogging(now_ms);
                (
                    c.trusted(),
                    !hogging,
                    vouched > 0 && nobodys_here <= LIGHT_ADDRESS,
                    std::cmp::Reverse(crowd),
                    c.answering(),
                    if hogging {
                        c.busy_since_ms.load(Ordering::Acquire)
                    } else {
                        c.last_active_ms.load(Ordering::Acquire)
                    },
                )
            })?
            .clone();
        victim.evicted.store(true, Ordering::Release);
        self.count_out(&victim);
        Some(victim)
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
            let held = open.by_address.get(&address).copied().unwrap_or(0);
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
            open.count_in(address);
            open.next_id += 1;
            let activity = Arc::new(Activity {
                id: open.next_id,
                peer,
                address,
                last_active_ms: AtomicU64::new(now),
                busy: AtomicUsize::new(0),
                receiving: AtomicUsize::new(0),
                busy_since_ms: AtomicU64::new(now),
                ended_ms: AtomicU64::new(0),
                epoch: self.started,
                trusted: AtomicBool::new(false),
                holder: Mutex::new(None),
                evicted: AtomicBool::new(false),
                reader: Mutex::new(None),
                writer: Mutex::new(None),
            });
            open.connections.insert(activity.id, activity.clone());
            open.by_peer.insert(peer, activity.id);
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
        let mut theirs: Vec<Arc<Activity>> = open
            .connections
            .values()
            .filter(|c| c.holder().as_ref().is_some_and(|h| h.person == person))
            .cloned()
            .collect();
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
            .connections
            .values()
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
            .connections
            .values()
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
