//! Tenth hostile pass of the door: simultaneous sign-ins of one much-guessed name, and
//! a flood of password checks from the /64s of one IPv6 /48.

use crate::harness::{ok, password, Team};
use std::time::{Duration, Instant};

/// A sign-in of `name` from `caller`, as the trusted proxy on loopback names it.
async fn sign_in_as(team: &Team, caller: &str, name: &str, password: &str) -> u16 {
    let url = team.url("/api/v1/login");
    sign_in_at(
        team.http.clone(),
        url,
        caller.to_string(),
        name.to_string(),
        password.to_string(),
    )
    .await
}

async fn sign_in_at(
    http: reqwest::Client,
    url: String,
    caller: String,
    name: String,
    password: String,
) -> u16 {
    let sent = http
        .post(url)
        .header("x-forwarded-for", &caller)
        .json(&serde_json::json!({"name": name, "password": password}))
        .send()
        .await;
    ok(sent).status().as_u16()
}

/// Password checks of `name` so far: its failures in the window.
fn checks(team: &Team) -> i64 {
    let conn = ok(rusqlite::Connection::open(&team.path));
    ok(conn.query_row(
        "SELECT COALESCE(SUM(failures), 0) FROM sign_in_names",
        [],
        |r| r.get(0),
    ))
}

/// Tenth hostile pass (LOW): the spacing of a much-guessed name was read in a call of
/// its own, before the sign-in waited for a password check and recorded its attempt, so
/// 9 of 20 simultaneous sign-ins from fresh addresses were checked where the spacing
/// allows one. The spacing and the attempt's record are one step: one is checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_sign_ins_of_a_spaced_name_gets_one_password_check() {
    let team = Team::start_behind("127.0.0.1").await;
    // Eleven failures from a few addresses (each under its own limit): the name's
    // checks are spaced a second apart from now.
    let mut guessed = 0;
    for i in 0..4 {
        for _ in 0..3 {
            if sign_in_as(&team, &format!("10.8.0.{i}"), "ben", "a guess").await == 401 {
                guessed += 1;
            }
        }
    }
    assert_eq!(guessed, 11);
    let before = checks(&team);
    team.clock.advance_ms(1_000);
    let burst = (0..12).map(|i| {
        let caller = format!("10.50.0.{i}");
        at_once(&team, caller, "ben".into(), "a guess".into())
    });
    let answers = all_of(burst.collect()).await;
    let checked = answers.iter().filter(|s| **s == 401).count();
    let spaced = answers.iter().filter(|s| **s == 429).count();
    assert_eq!((checked, spaced), (1, 11), "{answers:?}");
    assert_eq!(checks(&team) - before, 1);
}

/// Tenth hostile pass (MEDIUM): hundreds of /64s of one IPv6 /48, each keeping a
/// sign-in of a made-up name waiting for a password check, held the shared checks, and
/// newcomers waited 2 s or got 503. One block holds or waits for one at a time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_from_one_48_take_one_shared_check_at_a_time() {
    let team = Team::start_behind_hashing("127.0.0.1", 1, Duration::from_millis(1_500)).await;
    let flood: Vec<_> = (0..120)
        .map(|i| {
            let caller = format!("2001:db8:78:{i:x}::1");
            at_once(
                &team,
                caller,
                format!("nobody-{i}"),
                "made up, wrong".into(),
            )
        })
        .collect();
    let newcomer = async {
        // Once the flood waits for its checks.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let began = Instant::now();
        let status = sign_in_as(&team, "2001:db8:99:1::1", "ana", &password("ana")).await;
        (status, began.elapsed())
    };
    let (flooded, (status, took)) = tokio::join!(all_of(flood), newcomer);
    assert_eq!(status, 200, "took {took:?}; the flood got {flooded:?}");
    assert!(took < Duration::from_millis(1_000), "took {took:?}");
    // The flood's were refused at once or checked one at a time, none held past the wait.
    assert!(
        flooded.iter().all(|s| matches!(s, 401 | 503)),
        "{flooded:?}"
    );
}

/// Eleventh hostile pass (LOW-MEDIUM): an address past its failure budget kept sign-ins
/// of others' names in flight; each claimed the name before the budget refused it inside
/// the check, unrecorded, and newcomers' sign-ins of those names were answered 429. A
/// spent address is now refused before it may claim a name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_address_cannot_hold_a_name_from_its_owner() {
    let team = Team::start_behind("127.0.0.1").await;
    let spent = "10.9.0.1";
    for i in 0..30 {
        sign_in_as(&team, spent, &format!("made-up-{i}"), "guess").await;
    }
    assert_eq!(sign_in_as(&team, spent, "ana", "guess").await, 429);
    for round in 0..5 {
        let hold: Vec<_> = (0..12)
            .map(|_| at_once(&team, spent.into(), "ana".into(), "guess".into()))
            .collect();
        let owner = at_once(
            &team,
            format!("10.60.0.{round}"),
            "ana".into(),
            password("ana"),
        );
        let held = all_of(hold).await;
        let owner = owner.await.unwrap_or(0);
        assert_eq!(owner, 200, "round {round}: the spent address got {held:?}");
        assert!(held.iter().all(|s| *s == 429), "{held:?}");
    }
}

/// Eleventh hostile pass (MEDIUM): 300 IPv4 addresses (a block each) kept sign-ins of
/// made-up names waiting, and the first-come queue for the shared checks made newcomers
/// wait past its 2 s (5 of 16 through). A block that checked a few times in the last
/// minute waits in one lane with all the others that did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_that_keep_checking_share_one_lane_and_a_newcomer_finds_a_check() {
    let team = Team::start_behind_hashing("127.0.0.1", 2, Duration::from_millis(1_500)).await;
    let flooders: Vec<String> = (0..60)
        .map(|i| format!("10.70.{}.{}", i / 250, i % 250 + 1))
        .collect();
    // Each flooding address has checked twice already.
    for (i, caller) in flooders.iter().enumerate() {
        for round in 0..2 {
            sign_in_as(&team, caller, &format!("warm-{i}-{round}"), "wrong").await;
        }
    }
    let flood: Vec<_> = flooders
        .iter()
        .enumerate()
        .flat_map(|(i, caller)| (0..2).map(move |k| (caller.clone(), format!("flood-{i}-{k}"))))
        .map(|(caller, name)| at_once(&team, caller, name, "wrong".into()))
        .collect();
    let newcomer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let began = Instant::now();
        let status = sign_in_as(&team, "10.99.0.1", "ana", &password("ana")).await;
        (status, began.elapsed())
    };
    let (flooded, (status, took)) = tokio::join!(all_of(flood), newcomer);
    assert_eq!(status, 200, "took {took:?}; the flood got {flooded:?}");
    assert!(took < Duration::from_millis(1_000), "took {took:?}");
}

/// A sign-in started now, on a task of its own.
fn at_once(
    team: &Team,
    caller: String,
    name: String,
    password: String,
) -> tokio::task::JoinHandle<u16> {
    let url = team.url("/api/v1/login");
    tokio::spawn(sign_in_at(team.http.clone(), url, caller, name, password))
}

/// Each one's status, 0 for a task that failed.
async fn all_of(started: Vec<tokio::task::JoinHandle<u16>>) -> Vec<u16> {
    let mut statuses = Vec::new();
    for one in started {
        statuses.push(one.await.unwrap_or(0));
    }
    statuses
}
