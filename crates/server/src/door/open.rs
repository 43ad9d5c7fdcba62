//! The open connections, counted by address, by block and by person, and the order in
//! which the door closes one of them to make room.

use super::activity::{Activity, Counts, Holder};
use super::{block_of, LIGHT_ADDRESS};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Open connections, in all, by address and block, and someone's by person.
#[derive(Debug, Default)]
pub(super) struct Open {
    pub(super) total: usize,
    pub(super) places: HashMap<IpAddr, Arc<Counts>>,
    /// By block ([`block_of`]): an IPv6 /48, an IPv4 address.
    pub(super) blocks: HashMap<IpAddr, Arc<Counts>>,
    pub(super) connections: HashMap<u64, Arc<Activity>>,
    pub(super) by_peer: HashMap<SocketAddr, u64>,
    /// Each person's connections, in the order their sessions vouched for them: the
    /// last one's address is the person's shield ([`Open::evict_one`]).
    pub(super) persons: HashMap<i64, Vec<Arc<Activity>>>,
    pub(super) next_id: u64,
}

/// The counts at `key` in `map`, made if new.
fn counts_at(map: &mut HashMap<IpAddr, Arc<Counts>>, key: IpAddr) -> Arc<Counts> {
    map.entry(key).or_default().clone()
}

/// One fewer at `key`, forgetting a key where none is left.
fn count_down(map: &mut HashMap<IpAddr, Arc<Counts>>, key: IpAddr) {
    if let Some(counts) = map.get(&key) {
        Counts::add(&counts.all, false);
        if counts.all() == 0 {
            map.remove(&key);
        }
    }
}

impl Open {
    /// Counts in a new connection from `peer`, counted under `address`, opened at `now`.
    pub(super) fn admit(
        &mut self,
        peer: SocketAddr,
        address: IpAddr,
        now: u64,
        epoch: Instant,
    ) -> Arc<Activity> {
        let place = counts_at(&mut self.places, address);
        let block = counts_at(&mut self.blocks, block_of(address));
        Counts::add(&place.all, true);
        Counts::add(&block.all, true);
        self.total += 1;
        self.next_id += 1;
        let activity = Arc::new(Activity::new(
            self.next_id,
            peer,
            address,
            (place, block),
            now,
            epoch,
        ));
        self.connections.insert(activity.id, activity.clone());
        self.by_peer.insert(peer, activity.id);
        activity
    }

    pub(super) fn count_out(&mut self, activity: &Activity) {
        self.set_holder(activity, None);
        self.connections.remove(&activity.id);
        if self.by_peer.get(&activity.peer) == Some(&activity.id) {
            self.by_peer.remove(&activity.peer);
        }
        self.total = self.total.saturating_sub(1);
        count_down(&mut self.places, activity.address);
        count_down(&mut self.blocks, block_of(activity.address));
    }

    /// Gives `c` to `holder` (or to nobody), keeping the counts of vouched connections
    /// and each person's shield.
    pub(super) fn set_holder(&mut self, c: &Activity, holder: Option<Holder>) {
        let before = c.holder().as_ref().map(|h| h.person);
        if let Some(person) = before {
            self.change_person(person, |theirs| theirs.retain(|t| t.id != c.id));
            Counts::add(&c.place.vouched, false);
            Counts::add(&c.block.vouched, false);
        }
        let after = holder.as_ref().map(|h| h.person);
        c.set_holder(holder);
        if let Some(person) = after {
            let this = self.connections.get(&c.id).cloned();
            self.change_person(person, |theirs| theirs.extend(this));
            Counts::add(&c.place.vouched, true);
            Counts::add(&c.block.vouched, true);
        }
    }

    /// Changes `person`'s list of connections, moving their shield to the address of
    /// the last one.
    fn change_person(&mut self, person: i64, change: impl FnOnce(&mut Vec<Arc<Activity>>)) {
        let theirs = self.persons.entry(person).or_default();
        let shield = |t: &Vec<Arc<Activity>>| t.last().map(|c| c.place.clone());
        let before = shield(theirs);
        change(theirs);
        let after = shield(theirs);
        if theirs.is_empty() {
            self.persons.remove(&person);
        }
        if let Some(place) = before {
            Counts::add(&place.shields, false);
        }
        if let Some(place) = after {
            Counts::add(&place.shields, true);
        }
    }

    /// Frees the place of the connection idle the longest that is not being answered,
    /// if there is one. Idle connections spread over many addresses, silent or kept
    /// alive after one answer, held every place, and newcomers (a lead among them) were
    /// refused. A client whose idle connection is closed opens another, as HTTP lets a
    /// server close idle connections at any time; a request being answered, or a body
    /// still arriving, keeps its place.
    pub(super) fn evict_one(&mut self, now_ms: u64) -> Option<Arc<Activity>> {
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
        // answered. Among nobody's, those of a person's shield go after the others (a
        // person's sign-in, or a tab's new connection, was closed before an anonymous
        // flood's, fifth pass), as long as it holds few of nobody's (one account's
        // connections from eight addresses shielded a crowd of 412 at each, sixth pass).
        // A person's shield is one address, the one their sessions vouched for last:
        // each address they used shielded eight, and two accounts shielded every place
        // from newcomers (tenth pass).
        let victim = self
            .connections
            .values()
            .filter(|c| !(c.trusted() && c.answering()))
            .min_by_key(|c| {
                let here = c.place.nobodys();
                // How crowded its place is with nobody's: at its address, or in its block
                // when that holds more.
                let crowd = here.max(c.block.nobodys());
                let hogging = c.hogging(now_ms);
                (
                    c.trusted(),
                    !hogging,
                    c.place.shielded() && here <= LIGHT_ADDRESS,
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
