//! Signing in: passwords hashed, sessions by bearer token that expire, a lead disabling a
//! person (who then cannot sign in or act, and whose sessions die), and the limit on
//! failed sign-ins per name and per address.

use crate::common;
use common::code;
use common::Acting;

use factdesk_api::annotators::Role;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project, Result};
use std::path::Path;

pub(crate) const START: i64 = 1_700_000_000_000;

pub(crate) fn ok<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A project with a lead (maria) and an annotator (ana), both with passwords.
pub(crate) fn team(dir: &Path, clock: &ManualClock) -> Project {
    let mut p = common::project(dir, 4, clock);
    let owner = p.lead();
    ok(p.add_annotator_with_password(&owner, "maria", Role::Lead, "maria's secret"));
    let maria = p.lead_named("maria");
    ok(p.add_annotator_with_password(&maria, "ana", Role::Annotator, "ana's secret"));
    ok(p.create_tasks(&maria, TaskKind::Evidence, Some(2)));
    p
}

#[test]
fn a_person_signs_in_with_their_password_and_the_token_stands_for_them() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let session = ok(p.login("ana", "ana's secret", "10.0.0.1", &policy));
    assert_eq!(session.role, Role::Annotator);
    assert_eq!(session.token.len(), 64, "256 random bits, hex");
    assert_eq!(session.expires_at, START + policy.session_ms);
    let actor = ok(p.actor_for_token(&session.token));
    assert_eq!(actor.name(), "ana");
    assert!(!actor.is_lead());
    // The token works as any actor does, and the gate stays the api's.
    assert!(ok(p.next_item(&actor, TaskKind::Evidence)).item.is_some());
    assert_eq!(
        code(p.as_lead(&actor, "see the annotators' records")),
        ErrorCode::Forbidden
    );
    let lead = ok(p.login(" maria ", "maria's secret", "10.0.0.1", &policy));
    assert_eq!(lead.role, Role::Lead);
    assert!(ok(p.actor_for_token(&lead.token)).is_lead());
    assert_ne!(lead.token, session.token);
}

#[test]
fn neither_the_password_nor_the_token_is_stored() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let session = ok(p.login("ana", "ana's secret", "a", &SignInPolicy::default()));
    let values = common::project_values(&p);
    let everything: String = values.iter().map(|(_, _, v)| v.as_str()).collect();
    assert!(!everything.contains("ana's secret"));
    assert!(!everything.contains(&session.token));
    assert!(
        everything.contains("$argon2id$"),
        "passwords are stored as argon2 PHC strings"
    );
}

#[test]
fn a_wrong_password_or_name_is_unauthorized_with_the_same_message() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let wrong = p.login("ana", "not her secret", "a", &policy).err();
    let nobody = p.login("zed", "ana's secret", "b", &policy).err();
    let (wrong, nobody) = (
        wrong.map(|e| (e.code, e.message)),
        nobody.map(|e| (e.code, e.message)),
    );
    assert_eq!(wrong, nobody);
    assert_eq!(wrong.map(|w| w.0), Some(ErrorCode::Unauthorized));
    // A person without a password cannot sign in at all.
    let maria = p.lead_named("maria");
    ok(p.add_annotator(&maria, "ben", Role::Annotator));
    assert_eq!(
        code(p.login("ben", "", "c", &policy)),
        ErrorCode::Unauthorized
    );
    assert_eq!(code(p.actor_for_token("0123")), ErrorCode::Unauthorized);
}

#[test]
fn tokens_expire_and_end_at_logout() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy {
        session_ms: 60_000,
        ..SignInPolicy::default()
    };
    let session = ok(p.login("ana", "ana's secret", "a", &policy));
    clock.advance_ms(59_999);
    assert!(p.actor_for_token(&session.token).is_ok());
    clock.advance_ms(1);
    assert_eq!(
        code(p.actor_for_token(&session.token)),
        ErrorCode::Unauthorized
    );
    let again = ok(p.login("ana", "ana's secret", "a", &policy));
    assert!(ok(p.logout(&again.token)));
    assert_eq!(
        code(p.actor_for_token(&again.token)),
        ErrorCode::Unauthorized
    );
}

#[test]
fn a_disabled_person_cannot_sign_in_or_act_and_their_sessions_die() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let session = ok(p.login("ana", "ana's secret", "a", &policy));
    let ana = p.who("ana");
    // Disabling is a lead's, and a lead cannot lock themselves out.
    assert_eq!(
        code(p.as_lead(&ana, "disable people")),
        ErrorCode::Forbidden
    );
    let maria = p.lead_named("maria");
    assert_eq!(
        code(p.set_disabled(&maria, "maria", true)),
        ErrorCode::Forbidden
    );
    ok(p.set_disabled(&maria, "ana", true));
    assert!(ok(p.is_disabled("ana")));
    assert_eq!(
        code(p.actor_for_token(&session.token)),
        ErrorCode::Unauthorized
    );
    // A disabled person's right password gets the answer a wrong one gets.
    let disabled = p.login("ana", "ana's secret", "a", &policy).err();
    let wrong = p.login("ana", "not her secret", "a", &policy).err();
    assert_eq!(
        disabled.map(|e| (e.code, e.message)),
        wrong.map(|e| (e.code, e.message))
    );
    assert_eq!(code(p.actor("ana")), ErrorCode::Forbidden);
    ok(p.set_disabled(&maria, "ana", false));
    let back = ok(p.login("ana", "ana's secret", "a", &policy));
    assert_eq!(ok(p.actor_for_token(&back.token)).name(), "ana");
    assert_eq!(
        code(p.actor_for_token(&session.token)),
        ErrorCode::Unauthorized,
        "a session ended by disabling stays ended"
    );
}

#[test]
fn passwords_are_set_by_a_lead_and_checked() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let ana = p.who("ana");
    assert_eq!(code(p.as_lead(&ana, "set passwords")), ErrorCode::Forbidden);
    let maria = p.lead_named("maria");
    assert_eq!(
        code(p.set_password(&maria, "ana", "short")),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        code(p.add_annotator_with_password(&maria, "cy", Role::Annotator, "short")),
        ErrorCode::InvalidInput
    );
    for blank in ["        ", "a secret\0with a NUL"] {
        assert_eq!(
            code(p.set_password(&maria, "ana", blank)),
            ErrorCode::InvalidInput,
            "{blank:?}"
        );
    }
    assert_eq!(
        code(p.person("cy")),
        ErrorCode::NotFound,
        "nobody is added with a refused password"
    );
    ok(p.set_password(&maria, "ana", "a new secret"));
    let policy = SignInPolicy::default();
    assert_eq!(
        code(p.login("ana", "ana's secret", "a", &policy)),
        ErrorCode::Unauthorized
    );
    assert!(p.login("ana", "a new secret", "a", &policy).is_ok());
}

#[test]
fn failures_block_a_name_from_one_address_and_only_slow_it_elsewhere() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy {
        failures_per_name_and_address: 3,
        failures_before_slowing_a_name: 4,
        window_ms: 60_000,
        ..SignInPolicy::default()
    };
    for _ in 0..3 {
        assert_eq!(
            code(p.login("ana", "guess", "10.0.0.1", &policy)),
            ErrorCode::Unauthorized
        );
        clock.advance_ms(1_000);
    }
    // From the guessing address even the right password is refused, for as long as
    // the oldest failure stays in the window (it was 3 s ago: 57 s more).
    let refused = p.login("ana", "ana's secret", "10.0.0.1", &policy).err();
    assert_eq!(
        refused.as_ref().map(|e| e.code),
        Some(ErrorCode::RateLimited)
    );
    assert_eq!(
        ok(p.sign_in_blocked_ms("ana", "10.0.0.1", &policy)),
        Some(57_001)
    );
    // Her own address is not blocked, and the name is not slowed yet (3 failures of 4).
    assert_eq!(ok(p.sign_in_delay_ms("ana", &policy)), 0);
    assert!(p.login("ana", "ana's secret", "10.9.9.9", &policy).is_ok());
    // Guessing from many addresses slows the name down but never refuses it.
    for i in 0..6 {
        let from = format!("10.1.0.{i}");
        assert_eq!(
            code(p.login("ana", "guess", &from, &policy)),
            ErrorCode::Unauthorized
        );
    }
    assert_eq!(ok(p.sign_in_delay_ms("ana", &policy)), 5_000);
    assert_eq!(ok(p.sign_in_delay_ms("maria", &policy)), 0);
    assert!(p.login("ana", "ana's secret", "10.9.9.9", &policy).is_ok());
    // The block ends when its failures leave the window, not before.
    clock.advance_ms(57_000);
    assert_eq!(
        code(p.login("ana", "ana's secret", "10.0.0.1", &policy)),
        ErrorCode::RateLimited
    );
    clock.advance_ms(1);
    assert!(p.login("ana", "ana's secret", "10.0.0.1", &policy).is_ok());
}

/// Hostile pass of session 26 (MEDIUM): a new name on each guess from one address
/// passed the limits by name and took every password check, and colleagues' sign-ins
/// waited 2 s or got 503. An address has a failure budget of its own, whatever the names.
#[test]
fn one_address_guessing_new_names_spends_its_own_budget_and_no_one_elses() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy {
        failures_per_address: 3,
        window_ms: 60_000,
        ..SignInPolicy::default()
    };
    // ana signed in from the shared address before the guessing began.
    assert!(p.login("ana", "ana's secret", "10.0.0.1", &policy).is_ok());
    for i in 0..3 {
        let name = format!("guess{i}");
        let refused = code(p.login(&name, "x", "10.0.0.1", &policy));
        assert_eq!(refused, ErrorCode::Unauthorized);
        clock.advance_ms(1_000);
    }
    // A fourth new name from that address is refused before its password is checked...
    assert_eq!(
        code(p.login("guess3", "x", "10.0.0.1", &policy)),
        ErrorCode::RateLimited
    );
    assert_eq!(
        code(p.login("maria", "maria's secret", "10.0.0.1", &policy)),
        ErrorCode::RateLimited
    );
    assert_eq!(
        ok(p.sign_in_blocked_ms("maria", "10.0.0.1", &policy)),
        Some(57_001)
    );
    // ...but a name that signed in from it before still gets in, and so does anyone
    // from another address. Its wrong password is answered as any name's there (second
    // hostile pass of session 26: 401 told which names had signed in from it).
    assert_eq!(
        code(p.login("ana", "not ana's", "10.0.0.1", &policy)),
        ErrorCode::RateLimited
    );
    assert!(p.login("ana", "ana's secret", "10.0.0.1", &policy).is_ok());
    assert!(p
        .login("maria", "maria's secret", "10.9.9.9", &policy)
        .is_ok());
    // The budget comes back as its failures leave the window.
    clock.advance_ms(57_001);
    assert!(p
        .login("maria", "maria's secret", "10.0.0.1", &policy)
        .is_ok());
}

#[test]
fn a_name_past_the_bound_is_refused_before_anything_is_stored() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let long = "n".repeat(201);
    assert_eq!(
        code(p.login(&long, "guess", "a", &policy)),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        code(p.login(&"n".repeat(200), "guess", "a", &policy)),
        ErrorCode::Unauthorized
    );
    let values = common::project_values(&p);
    assert!(
        !values.iter().any(|(_, _, v)| v.contains("nnnnnnnnnn")),
        "failures keep a hash of the name, not the name"
    );
}

#[test]
fn a_disabled_lead_is_not_the_one_scripts_act_as() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let maria = p.lead_named("maria");
    ok(p.add_annotator(&maria, "lou", Role::Lead));
    assert_eq!(ok(p.lead_or_owner(None)).name(), "maria");
    let lou = p.lead_named("lou");
    ok(p.set_disabled(&lou, "maria", true));
    assert_eq!(ok(p.lead_or_owner(None)).name(), "lou");
    assert_eq!(code(p.lead_or_owner(Some("maria"))), ErrorCode::Forbidden);
}

/// Issue 36, item 1: on a project file the app chooses who is working, and a stray key on
/// "Who is working?" opened the lead's screens. Someone with a password gives it there
/// too; someone without needs none; the refusal says which it was, without the hash.
#[test]
fn choosing_a_person_with_a_password_in_the_app_asks_for_it() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let owner = p.lead();
    ok(p.add_annotator(&owner, "ivy", Role::Annotator));
    assert_eq!(ok(p.choose_person("ivy", None)).name(), "ivy");
    let asked = p.choose_person("maria", None).err();
    let asked = asked.unwrap_or_else(|| panic!("maria was chosen without her password"));
    assert_eq!(asked.code, ErrorCode::Unauthorized);
    assert!(
        asked.message.contains("has a password"),
        "{}",
        asked.message
    );
    assert_eq!(
        code(p.choose_person("maria", Some("ana's secret"))),
        ErrorCode::Unauthorized
    );
    let maria = ok(p.choose_person(" maria ", Some("maria's secret")));
    assert!(maria.is_lead());
    // A lead sets someone's password from the app's operations: asked for from then on.
    ok(p.set_password(&ok(p.as_lead(&maria, "set passwords")), "ivy", "ivy's own"));
    assert_eq!(code(p.choose_person("ivy", None)), ErrorCode::Unauthorized);
    assert_eq!(ok(p.choose_person("ivy", Some("ivy's own"))).name(), "ivy");
    assert_eq!(
        code(p.choose_person("nobody", Some("x"))),
        ErrorCode::NotFound
    );
}

/// Fifth hostile pass of session 26's door (HIGH): one annotator signing in with the
/// right password in a loop took every password check, and opened 16,000 sessions in
/// five minutes. A name signs in a few times a minute, and a person holds a bounded
/// number of sessions, the oldest ending first.
#[test]
fn a_name_signs_in_a_few_times_a_minute_and_holds_a_bounded_number_of_sessions() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy {
        sign_ins_per_name_a_minute: 4,
        sessions_per_person: 5,
        ..SignInPolicy::default()
    };
    let mut tokens = Vec::new();
    for _ in 0..4 {
        tokens.push(ok(p.login("ana", "ana's secret", "10.0.0.1", &policy)).token);
        clock.advance_ms(1_000);
    }
    // Signing out between sign-ins hides none of them (sixth hostile pass: 3,421
    // password checks in 45 s, each session ended at once).
    for token in &tokens[2..] {
        assert!(ok(p.logout(token)));
    }
    let refused = p.login("ana", "ana's secret", "10.0.0.1", &policy);
    assert_eq!(code(refused.map(|_| ())), ErrorCode::RateLimited);
    assert_eq!(
        ok(p.sign_in_blocked_ms("ana", "10.0.0.9", &policy)),
        Some(56_000),
        "free a minute after the first of the four"
    );
    // Someone else signs in meanwhile.
    ok(p.login("maria", "maria's secret", "10.0.0.1", &policy));
    clock.advance_ms(56_000);
    for _ in 0..4 {
        tokens.push(ok(p.login("ana", "ana's secret", "10.0.0.1", &policy)).token);
        clock.advance_ms(1_000);
    }
    // Eight sessions opened, two signed out: of the six left five are kept, the oldest
    // ended.
    let live: Vec<bool> = tokens
        .iter()
        .map(|t| p.actor_for_token(t).is_ok())
        .collect();
    assert_eq!(live, [false, true, false, false, true, true, true, true]);
}

/// Regression (hostile pass of session 34): five wrong passwords for a name from its
/// owner's own address (a lab's NAT) held the name there for 15 minutes, the owner's right
/// password included. The device token the owner's earlier sign-in gave back tells them
/// apart; a forged or another person's token, or one from before a new password, counts
/// for nothing; and wrong passwords with any of a person's tokens share one budget, past
/// which a token counts as none (a second pass: many tokens bought many checks).
#[test]
fn a_device_token_signs_its_owner_in_past_guesses_from_the_same_address() {
    let dir = ok(tempfile::tempdir().map_err(|e| factdesk_api::Error::io("tempdir", &e)));
    let clock = ManualClock::new(START);
    let mut p = team(dir.path(), &clock);
    let policy = SignInPolicy::default();
    let nat = "10.0.0.9";
    let first = ok(p.login("maria", "maria's secret", nat, &policy));
    let device = first.device.clone();
    assert_eq!(device.len(), 65, "a nonce and a mac, hex: {device}");
    let anas = ok(p.login("ana", "ana's secret", nat, &policy)).device;
    let guesses = |p: &mut Project| {
        for i in 0..5 {
            let guess = p.login("maria", &format!("guess {i}"), nat, &policy);
            assert_eq!(code(guess), ErrorCode::Unauthorized);
        }
    };
    guesses(&mut p);
    // Without a token, from the same address: held, right password or not.
    let held = p.login("maria", "maria's secret", nat, &policy);
    assert_eq!(code(held), ErrorCode::RateLimited);
    assert!(!ok(p.device_vouches("maria", Some(&anas), &policy)));
    let last = if device.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{last}", &device[..64]);
    for other in [anas.as_str(), forged.as_str(), "", "x.y"] {
        let tried = p.login_from("maria", "maria's secret", nat, Some(other), &policy);
        assert_eq!(code(tried), ErrorCode::RateLimited, "{other}");
    }
    // With hers: in, and a new token for the next time.
    assert!(ok(p.device_vouches("maria", Some(&device), &policy)));
    let back = ok(p.login_from("maria", "maria's secret", nat, Some(&device), &policy));
    assert!(ok(p.actor_for_token(&back.token)).is_lead());
    assert_ne!(back.device, device);
    // The guesser is still held. Five wrong passwords with one of her tokens spend the
    // budget of all of them: then her other token counts as none, and she is held too.
    let still = p.login("maria", "maria's secret", nat, &policy);
    assert_eq!(code(still), ErrorCode::RateLimited);
    for i in 0..5 {
        let wrong = p.login_from(
            "maria",
            &format!("typo {i}"),
            nat,
            Some(&back.device),
            &policy,
        );
        assert_eq!(code(wrong), ErrorCode::Unauthorized);
    }
    assert!(!ok(p.device_vouches("maria", Some(&device), &policy)));
    let spent = p.login_from("maria", "maria's secret", nat, Some(&device), &policy);
    assert_eq!(code(spent), ErrorCode::RateLimited);
    // A front end passes on no spent token (it does not vouch), so it does not follow
    // her: from another address she signs in as anyone; given anyway, it is refused.
    let given = p.login_from(
        "maria",
        "maria's secret",
        "10.7.7.7",
        Some(&device),
        &policy,
    );
    assert_eq!(code(given), ErrorCode::RateLimited);
    let elsewhere = ok(p.login("maria", "maria's secret", "10.7.7.7", &policy));
    // A new password ends every token of the person, as it ends their sessions.
    clock.advance_ms(policy.window_ms + 1);
    assert!(ok(p.device_vouches(
        "maria",
        Some(&elsewhere.device),
        &policy
    )));
    let maria = p.lead_named("maria");
    ok(p.set_password(&maria, "maria", "a brand new secret"));
    assert!(!ok(p.device_vouches(
        "maria",
        Some(&elsewhere.device),
        &policy
    )));
    guesses(&mut p);
    let after = p.login_from(
        "maria",
        "a brand new secret",
        nat,
        Some(&elsewhere.device),
        &policy,
    );
    assert_eq!(code(after), ErrorCode::RateLimited);
}
