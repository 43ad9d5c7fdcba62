//! The order in which the door makes room, and how it counts addresses.

use super::*;

/// An open connection from `ip`, idle since `at`, answering or not, someone's or not.
fn open(into: &mut Open, ip: [u8; 4], at: u64, answering: bool, trusted: bool) -> u64 {
    into.next_id += 1;
    let peer = SocketAddr::from((ip, 1000 + into.next_id as u16));
    let activity = Arc::new(Activity {
        id: into.next_id,
        peer,
        address: peer.ip(),
        last_active_ms: AtomicU64::new(at),
        busy: AtomicUsize::new(usize::from(answering)),
        receiving: AtomicUsize::new(0),
        trusted: AtomicBool::new(trusted),
        evicted: AtomicBool::new(false),
        reader: Mutex::new(None),
        writer: Mutex::new(None),
    });
    into.total += 1;
    *into.by_address.entry(peer.ip()).or_default() += 1;
    into.by_peer.insert(peer, activity.id);
    into.connections.insert(activity.id, activity);
    into.next_id
}

/// Fourth hostile pass of session 26 (HIGH): sign-ins queued one after another on
/// every connection of an attacker's kept them all "being answered", and only
/// signed-in people's connections were left to close.
#[test]
fn room_is_made_from_nobodys_idle_then_busy_crowds_then_lone_then_someones() {
    let mut door = Open::default();
    let someones_busy = open(&mut door, [10, 0, 0, 1], 0, true, true);
    let someones_idle = open(&mut door, [10, 0, 0, 2], 1, false, true);
    let lone_sign_in = open(&mut door, [10, 0, 0, 3], 2, true, false);
    let crowd: Vec<u64> = (0..2)
        .map(|i| open(&mut door, [10, 0, 0, 4], 3 + i, true, false))
        .collect();
    let idle = open(&mut door, [10, 0, 0, 5], 9, false, false);
    let order: Vec<u64> = std::iter::from_fn(|| door.evict_one().map(|c| c.id)).collect();
    // Once the crowd is down to one, it is lone too, and the older goes first.
    assert_eq!(
        order,
        [idle, crowd[0], lone_sign_in, crowd[1], someones_idle]
    );
    assert!(
        door.connections.contains_key(&someones_busy),
        "never closed while answered"
    );
    assert_eq!(door.total, 1);
}

#[test]
fn an_ipv6_caller_counts_under_its_64_and_a_mapped_ipv4_as_itself() {
    let v6: IpAddr = "2001:db8:7:7:1:2:3:4"
        .parse()
        .unwrap_or(IpAddr::from([0; 4]));
    assert_eq!(counted_as(v6).to_string(), "2001:db8:7:7::");
    let mapped: IpAddr = "::ffff:10.0.0.4".parse().unwrap_or(IpAddr::from([0; 4]));
    assert_eq!(counted_as(mapped).to_string(), "10.0.0.4");
}
