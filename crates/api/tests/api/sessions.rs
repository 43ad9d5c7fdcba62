//! Issue 31: sessions end with their password and a lead lists and ends them; guessing a
//! name from many addresses is held to the name's budget, with a wait that doubles.

use crate::common;
use common::code;
use common::Acting;

use factdesk_api::annotators::Role;
use factdesk_api::sign_in::{SignInPolicy, FIRST_NAME_WAIT_MS, LAST_SEEN_EVERY_MS};
use factdesk_api::{ErrorCode, ManualClock, Project, Result};
use std::path::Path;

const START: i64 = 1_700_000_000_000;

fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project with a lead (maria) and annotators (ana, ben), all with passwords.
fn team(dir: &Path, clock: &ManualClock) -> Project {
    let mut p = common::project(dir, 2, clock);
    let owner = p.lead();
    ok(p.add_annotator_with_password(&owner, "maria", Role::Lead, "maria's secret"));
    let maria = p.lead_named("maria");
    for name in ["ana", "ben"] {
        ok(p.add_annotator_with_password(
            &maria,
            name,
            Role::Annotator,
            &format!("{name}'s secret"),
        ));
    }
    p
}

#[test]
fn a_password_change_ends_the_persons_sessions_and_only_theirs() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let ana = ok(p.login("ana", "ana's secret", "10.0.0.1", &policy));
    let ana_elsewhere = ok(p.login("ana", "ana's secret", "10.0.0.2", &policy));
    let ben = ok(p.login("ben", "ben's secret", "10.0.0.3", &policy));
    let maria = p.lead_named("maria");
    ok(p.set_password(&maria, "ana", "a brand new secret"));
    for token in [&ana.token, &ana_elsewhere.token] {
        assert_eq!(code(p.actor_for_token(token)), ErrorCode::Unauthorized);
    }
    assert!(p.actor_for_token(&ben.token).is_ok());
    assert!(p
        .login("ana", "a brand new secret", "10.0.0.1", &policy)
        .is_ok());
}

#[test]
fn a_lead_lists_sessions_without_tokens_and_ends_them_by_name_or_id() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let ana = ok(p.login("ana", "ana's secret", "10.0.0.1", &policy));
    clock.advance_ms(1_000);
    let ben = ok(p.login("ben", "ben's secret", "10.0.0.3", &policy));
    let ben_too = ok(p.login("ben", "ben's secret", "10.0.0.4", &policy));
    // A use a minute later is noted; one sooner is not written at all.
    clock.advance_ms(LAST_SEEN_EVERY_MS);
    ok(p.actor_for_token(&ana.token));
    let maria = p.lead_named("maria");
    let annotator = p.who("ana");
    assert_eq!(
        code(p.as_lead(&annotator, "list sessions")),
        ErrorCode::Forbidden
    );
    assert_eq!(
        code(p.as_lead(&annotator, "end sessions")),
        ErrorCode::Forbidden
    );
    let listed = ok(p.sessions(&maria));
    let mut rows: Vec<(&str, Option<&str>, i64, Option<i64>)> = listed
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.address.as_deref(),
                s.created_at,
                s.last_seen_at,
            )
        })
        .collect();
    // Ben's two were opened in the same millisecond: their order is the tokens'.
    rows.sort();
    assert_eq!(
        rows,
        [
            (
                "ana",
                Some("10.0.0.1"),
                START,
                Some(START + 1_000 + LAST_SEEN_EVERY_MS)
            ),
            ("ben", Some("10.0.0.3"), START + 1_000, Some(START + 1_000)),
            ("ben", Some("10.0.0.4"), START + 1_000, Some(START + 1_000)),
        ]
    );
    assert!(listed
        .iter()
        .all(|s| s.expires_at == s.created_at + policy.session_ms));
    let shown = serde_json::to_string(&listed).unwrap_or_else(|e| panic!("{e}"));
    for token in [&ana.token, &ben.token, &ben_too.token] {
        assert!(!shown.contains(token.as_str()));
    }
    assert_eq!(ok(p.end_sessions(&maria, "ben")), 2);
    assert_eq!(code(p.actor_for_token(&ben.token)), ErrorCode::Unauthorized);
    assert_eq!(
        code(p.actor_for_token(&ben_too.token)),
        ErrorCode::Unauthorized
    );
    assert!(p.actor_for_token(&ana.token).is_ok());
    ok(p.end_session(&maria, &listed[0].id));
    assert_eq!(code(p.actor_for_token(&ana.token)), ErrorCode::Unauthorized);
    assert_eq!(
        code(p.end_session(&maria, &listed[0].id)),
        ErrorCode::NotFound
    );
    assert_eq!(
        code(p.end_session(&maria, "not an id")),
        ErrorCode::InvalidInput
    );
    assert!(ok(p.sessions(&maria)).is_empty());
}

#[test]
fn guesses_spread_over_addresses_wait_twice_as_long_after_each_failure_past_the_budget() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy {
        failures_per_name: 4,
        longest_name_wait_ms: 8 * FIRST_NAME_WAIT_MS,
        ..SignInPolicy::default()
    };
    // Ana works from 10.9.9.9.
    ok(p.login("ana", "ana's secret", "10.9.9.9", &policy));
    let mut address = 0;
    let mut fresh = || {
        address += 1;
        format!("10.1.{}.{}", address / 250, address % 250)
    };
    for _ in 0..4 {
        let from = fresh();
        assert_eq!(
            code(p.login("ana", "guess", &from, &policy)),
            ErrorCode::Unauthorized
        );
    }
    // Each wait: refused until it passes, whatever the password, then one check.
    let mut checks = 4;
    for wait in [1, 2, 4, 8, 8, 8].map(|s| s * FIRST_NAME_WAIT_MS) {
        let from = fresh();
        assert_eq!(
            code(p.login("ana", "ana's secret", &from, &policy)),
            ErrorCode::RateLimited
        );
        assert_eq!(ok(p.sign_in_blocked_ms("ana", &from, &policy)), Some(wait));
        clock.advance_ms(wait - 1);
        assert_eq!(
            code(p.login("ana", "guess", &fresh(), &policy)),
            ErrorCode::RateLimited
        );
        clock.advance_ms(1);
        assert_eq!(
            code(p.login("ana", "guess", &fresh(), &policy)),
            ErrorCode::Unauthorized
        );
        checks += 1;
        // Meanwhile other names sign in from anywhere, and ana from her own address.
        assert!(p
            .login("maria", "maria's secret", &fresh(), &policy)
            .is_ok());
        assert!(p.login("ana", "ana's secret", "10.9.9.9", &policy).is_ok());
        assert_eq!(ok(p.sign_in_blocked_ms("ana", "10.9.9.9", &policy)), None);
    }
    assert_eq!(checks, 10);
    // A name left alone for a day starts afresh.
    clock.advance_ms(factdesk_api::sign_in::NAME_MEMORY_MS);
    assert!(p.login("ana", "ana's secret", &fresh(), &policy).is_ok());
}
