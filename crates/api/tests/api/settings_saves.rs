//! Fourteenth hostile pass: two leads who read the settings, changed different fields
//! and saved at once had one change lost. A save names the settings it was made from,
//! and one made from settings no longer stored is refused with nothing written.

use crate::common::{code, must, project, Acting};
use factdesk_api::{ErrorCode, ManualClock};

/// A save based on settings another lead changed is refused; made again on the stored
/// ones, both changes stand.
#[test]
fn a_save_based_on_settings_another_lead_changed_meanwhile_is_refused() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir.path(), 2, &clock);
    let lead = p.lead();
    let read = must(p.settings());

    let mut first = read.clone();
    first.overlap = read.overlap + 2;
    must(p.set_settings_based_on(&lead, &first, Some(&read)));

    let mut second = read.clone();
    second.reservation_minutes = read.reservation_minutes + 5;
    let refused = p.set_settings_based_on(&lead, &second, Some(&read));
    assert_eq!(code(refused), ErrorCode::Conflict);
    assert_eq!(
        must(p.settings()),
        first,
        "nothing of the refused save was stored"
    );

    let again = must(p.settings());
    let mut second = again.clone();
    second.reservation_minutes = read.reservation_minutes + 5;
    must(p.set_settings_based_on(&lead, &second, Some(&again)));
    let stored = must(p.settings());
    assert_eq!(stored.overlap, read.overlap + 2);
    assert_eq!(stored.reservation_minutes, read.reservation_minutes + 5);
}
