//! Fourteenth hostile pass: two leads who read the settings, changed different fields
//! and saved at once had one change lost. A save names the settings it was made from,
//! and one made from settings no longer stored is refused with nothing written.

use crate::common::{code, location, must, project, Acting};
use factdesk_api::settings::Settings;
use factdesk_api::{ErrorCode, ManualClock, Project};

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

/// Sixteenth hostile pass: the command line read the settings, changed them and saved
/// them without saying what it read, so a colleague's save that landed between its read
/// and its write was lost (5 of 200 rounds). `change_settings`, which the command line
/// now uses, makes its change again on the colleague's settings.
#[test]
fn a_change_made_while_another_lead_saves_is_made_again_on_their_settings() {
    let race = race(|call| call == 1);
    let stored = must(race.outcome);
    assert_eq!(
        race.calls, 2,
        "the change was made again on the colleague's save"
    );
    assert_eq!(
        stored.overlap,
        race.read.overlap + 1,
        "the colleague's change stands"
    );
    assert_eq!(
        stored.reservation_minutes,
        race.read.reservation_minutes + 5
    );
    assert_eq!(race.stored, stored);
}

/// A colleague who saves on every try wins, and the change is refused, not made over
/// theirs: after three tries the caller is told, with nothing of theirs written.
#[test]
fn a_change_that_loses_every_race_is_refused_with_nothing_written() {
    let race = race(|_| true);
    assert_eq!(code(race.outcome), ErrorCode::Conflict);
    assert_eq!(race.calls, 3);
    assert_eq!(race.stored.overlap, race.read.overlap + 3);
    assert_eq!(
        race.stored.reservation_minutes,
        race.read.reservation_minutes
    );
}

/// Sixteenth hostile pass: a project's drawn seed is above 2^53, which the settings
/// screen's JavaScript rounded, so every save it made (based on the settings it read) was
/// refused as a conflict. The seed crosses as text: settings read as a screen reads them
/// (every number a double) and sent back are the stored ones, and the save goes through.
#[test]
fn settings_read_and_sent_back_by_a_screen_keep_a_drawn_seed_exactly() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir.path(), 2, &clock);
    let lead = p.lead();
    let mut stored = must(p.settings());
    stored.seed = 9_746_023_921_380_647_916;
    must(p.set_settings(&lead, &stored));
    let read = as_a_screen_reads(&must(p.settings()));
    assert_eq!(read, stored, "the screen holds the stored settings exactly");
    let mut changed = read.clone();
    changed.overlap += 1;
    must(p.set_settings_based_on(&lead, &changed, Some(&read)));
    assert_eq!(must(p.settings()).seed, 9_746_023_921_380_647_916);
    // Settings written with the seed as a number (older files, `--set seed=7`) still read.
    let old: Settings = must(serde_json::from_str(r#"{"seed": 7}"#));
    assert_eq!(old.seed, 7);
    // Digits alone (seventeenth hostile pass: a sign and spaces were taken).
    for bad in ["seven", "+5", " 7 ", "", "1_000", "18446744073709551616"] {
        let refused = serde_json::from_str::<Settings>(&format!(r#"{{"seed": "{bad}"}}"#)).err();
        assert!(
            refused.is_some_and(|e| e.to_string().contains("digits alone")),
            "{bad:?}"
        );
    }
    let top: Settings = must(serde_json::from_str(r#"{"seed": "18446744073709551615"}"#));
    assert_eq!(top.seed, u64::MAX);
}

/// `settings` through JSON as a browser's JSON.parse carries it: every number becomes a
/// double (a whole one is sent back without a fraction).
fn as_a_screen_reads(settings: &Settings) -> Settings {
    use serde_json::Value;
    fn doubled(v: Value) -> Value {
        match v {
            Value::Number(n) => match n.as_f64() {
                Some(d) if d.fract() == 0.0 && (0.0..1.8e19).contains(&d) => Value::from(d as u64),
                Some(d) if d.fract() == 0.0 && d.abs() < 9.2e18 => Value::from(d as i64),
                Some(d) => serde_json::Number::from_f64(d).map_or(Value::Null, Value::Number),
                None => Value::Null,
            },
            Value::Array(a) => Value::Array(a.into_iter().map(doubled).collect()),
            Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, doubled(v))).collect())
            }
            other => other,
        }
    }
    must(serde_json::from_value(doubled(must(serde_json::to_value(
        settings,
    )))))
}

/// What a `change_settings` raced by a colleague came to.
struct Race {
    outcome: factdesk_api::Result<Settings>,
    /// How often the change was made.
    calls: u32,
    /// The settings before, and as stored after.
    read: Settings,
    stored: Settings,
}

/// A lead's `change_settings` (reservation + 5) while a colleague, on a handle of their
/// own, saves overlap + the try's number during each try `colleague_saves` names.
fn race(colleague_saves: impl Fn(u32) -> bool) -> Race {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir.path(), 2, &clock);
    let lead = p.lead();
    let read = must(p.settings());
    let mut colleague = must(Project::open(
        &location(dir.path(), "p.fdesk"),
        Box::new(clock.clone()),
    ));
    let their_lead = colleague.lead();
    let mut calls = 0;
    let outcome = p.change_settings(&lead, |mut settings| {
        calls += 1;
        if colleague_saves(calls) {
            let mut theirs = must(colleague.settings());
            theirs.overlap = read.overlap + calls;
            must(colleague.set_settings(&their_lead, &theirs));
        }
        settings.reservation_minutes = read.reservation_minutes + 5;
        Ok(settings)
    });
    let stored = must(p.settings());
    Race {
        outcome,
        calls,
        read,
        stored,
    }
}
