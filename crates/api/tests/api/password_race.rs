//! A sign-in in flight during a password reset (hostile pass 21, F3): the password is
//! checked outside any transaction, so a reset or a disabling can commit between the
//! check and the session's insert; the insert re-checks that the hash it verified is
//! still the person's, so no session opened with the old password survives.

use crate::common;
use common::code;
use common::Acting;

use factdesk_api::annotators::Role;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{ErrorCode, ManualClock, Project, Result};
use std::path::Path;

fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A lead (maria) and an annotator (ana), both with passwords.
fn team(dir: &Path, clock: &ManualClock) -> Project {
    let mut p = common::project(dir, 2, clock);
    let owner = p.lead();
    ok(p.add_annotator_with_password(&owner, "maria", Role::Lead, "maria's secret"));
    let maria = p.lead_named("maria");
    ok(p.add_annotator_with_password(&maria, "ana", Role::Annotator, "ana's secret"));
    p
}

fn sessions_of(p: &Project, name: &str) -> usize {
    let maria = p.lead_named("maria");
    ok(p.sessions(&maria))
        .iter()
        .filter(|s| s.name == name)
        .count()
}

#[test]
fn a_reset_between_the_check_and_the_session_refuses_the_sign_in() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    // The old password checked; the lead's reset commits before the session is written.
    let checked = ok(p.check_sign_in("ana", "ana's secret", "10.0.0.1", None, &policy));
    let maria = p.lead_named("maria");
    ok(p.set_password(&maria, "ana", "a brand new secret"));
    assert_eq!(
        code(p.open_session(checked, &policy)),
        ErrorCode::Unauthorized
    );
    assert_eq!(sessions_of(&p, "ana"), 0);
    // A reset to the very same password is a new hash too (a new salt): still refused.
    let checked = ok(p.check_sign_in("ana", "a brand new secret", "10.0.0.1", None, &policy));
    ok(p.set_password(&maria, "ana", "a brand new secret"));
    assert_eq!(
        code(p.open_session(checked, &policy)),
        ErrorCode::Unauthorized
    );
    assert_eq!(sessions_of(&p, "ana"), 0);
    // Nothing else changed: the new password signs in, the old one does not.
    let session = ok(p.login("ana", "a brand new secret", "10.0.0.1", &policy));
    assert!(p.actor_for_token(&session.token).is_ok());
    assert_eq!(
        code(p.login("ana", "ana's secret", "10.0.0.1", &policy)),
        ErrorCode::Unauthorized
    );
}

#[test]
fn a_disabling_between_the_check_and_the_session_refuses_the_sign_in() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let checked = ok(p.check_sign_in("ana", "ana's secret", "10.0.0.1", None, &policy));
    let maria = p.lead_named("maria");
    ok(p.set_disabled(&maria, "ana", true));
    assert_eq!(
        code(p.open_session(checked, &policy)),
        ErrorCode::Unauthorized
    );
    assert_eq!(sessions_of(&p, "ana"), 0);
    // With nothing in between, the two halves are a sign-in.
    ok(p.set_disabled(&maria, "ana", false));
    let checked = ok(p.check_sign_in("ana", "ana's secret", "10.0.0.1", None, &policy));
    let session = ok(p.open_session(checked, &policy));
    assert!(p.actor_for_token(&session.token).is_ok());
    assert_eq!(sessions_of(&p, "ana"), 1);
}
