//! Issue 31: a password change ends the person's sessions (every route and the event
//! stream), a lead lists and ends sessions; connections are capped in all, with places
//! kept for addresses holding few; guesses spread over many addresses hit the name's
//! budget, after which its passwords are not checked at all.

use crate::harness::{error_of, ok, password, stream_ends, Team, START};
use crate::postgres::fresh_database;
use factdesk_api::annotators::Role;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::{ManualClock, Project};
use factdesk_server::AppState;
use serde_json::json;
use std::time::Duration;

/// The team on a project file, and on PostgreSQL too when FACTDESK_TEST_PG is set.
async fn on_both_engines() -> Vec<Team> {
    let mut teams = vec![Team::start(SignInPolicy::default()).await];
    match tokio::task::block_in_place(|| fresh_database().map(|(url, _, _)| url)) {
        Some(url) => teams.push(Team::start_on_postgres(&url, 4).await),
        None => eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL case did not run"),
    }
    teams
}

/// What `token` gets from `/next`, `/call` and `/events` (a lead's: 403 for an
/// annotator signed in).
async fn statuses(team: &Team, token: &str) -> [u16; 3] {
    let next = team.get("/api/v1/next?kind=evidence", Some(token)).await;
    let call = json!({"op": "next_item", "args": {"kind": "evidence"}}).to_string();
    let call = team.post("/api/v1/call", Some(token), &call).await;
    let events = team.get("/api/v1/events", Some(token)).await;
    [next, call, events].map(|r| r.status().as_u16())
}

/// Runs `change` on the project beside the server, as maria (the CLI's way in).
fn as_lead<T>(team: &Team, change: impl FnOnce(&mut Project, &factdesk_api::Lead) -> T) -> T {
    tokio::task::block_in_place(|| {
        let mut p = ok(Project::open(&team.path, Box::new(team.clock.clone())));
        let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
        change(&mut p, &maria)
    })
}

/// What an annotator signed in gets: their work, but not the lead's event stream.
const ANNOTATOR: [u16; 3] = [200, 200, 403];
const ENDED: [u16; 3] = [401, 401, 401];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_every_session_of_that_person_and_a_lead_ends_sessions() {
    for team in on_both_engines().await {
        // The event stream is a lead's: lea, a second lead, holds the one a password
        // change ends, maria the one kept until a lead ends her sessions.
        team.add_lead("lea");
        let ana = team.token("ana").await;
        let also_ana = team.token("ana").await;
        let ben = team.token("ben").await;
        let lea = team.token("lea").await;
        let also_lea = team.token("lea").await;
        let maria = team.token("maria").await;
        assert_eq!(statuses(&team, &ana).await, ANNOTATOR);
        assert_eq!(statuses(&team, &lea).await, [200, 200, 200]);
        let stream = team.get("/api/v1/events", Some(&also_lea)).await;
        let kept = team.get("/api/v1/events", Some(&maria)).await;
        assert_eq!(
            (stream.status().as_u16(), kept.status().as_u16()),
            (200, 200)
        );

        let listed = as_lead(&team, |p, maria| ok(p.sessions(maria)));
        let names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["ana", "ana", "ben", "lea", "lea", "maria"]);
        let shown = ok(serde_json::to_string(&listed));
        for token in [&ana, &also_ana, &ben, &lea, &also_lea, &maria] {
            assert!(!shown.contains(token.as_str()), "a token is never listed");
        }
        assert!(listed
            .iter()
            .all(|s| s.address.as_deref() == Some("127.0.0.1")));
        assert!(listed.iter().all(|s| s.last_seen_at >= Some(s.created_at)));

        as_lead(&team, |p, maria| {
            ok(p.set_password(maria, "ana", "a brand new secret"));
            ok(p.set_password(maria, "lea", "a brand new secret"));
        });
        for token in [&ana, &also_ana, &lea, &also_lea] {
            assert_eq!(statuses(&team, token).await, ENDED);
        }
        assert!(
            stream_ends(stream, Duration::from_secs(20)).await,
            "lea's open event stream ended"
        );
        assert_eq!(statuses(&team, &ben).await, ANNOTATOR);
        let after = as_lead(&team, |p, maria| ok(p.sessions(maria)));
        assert!(after.iter().all(|s| s.name != "ana" && s.name != "lea"));

        // A lead ends ben's sessions and maria's by name, and a new one of ana's by its id.
        let ended = as_lead(&team, |p, maria| ok(p.end_sessions(maria, "ben")));
        assert_eq!(ended, 1);
        assert_eq!(statuses(&team, &ben).await, ENDED);
        assert_eq!(statuses(&team, &maria).await, [200, 200, 200]);
        let ended = as_lead(&team, |p, maria| ok(p.end_sessions(maria, "maria")));
        assert_eq!(ended, 1);
        assert_eq!(statuses(&team, &maria).await, ENDED);
        assert!(
            stream_ends(kept, Duration::from_secs(20)).await,
            "maria's open event stream ended"
        );
        let again = ok(team
            .login("ana", "a brand new secret")
            .await
            .json::<serde_json::Value>()
            .await);
        let again = again["token"].as_str().unwrap_or_default().to_string();
        assert_eq!(statuses(&team, &again).await, ANNOTATOR);
        let id = as_lead(&team, |p, maria| ok(p.sessions(maria)))
            .into_iter()
            .find(|s| s.name == "ana")
            .map(|s| s.id)
            .unwrap_or_default();
        as_lead(&team, |p, maria| ok(p.end_session(maria, &id)));
        assert_eq!(statuses(&team, &again).await, ENDED);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guesses_from_many_addresses_hit_the_names_budget_and_no_password_is_checked_past_it() {
    let policy = SignInPolicy {
        failures_per_name: 6,
        ..SignInPolicy::default()
    };
    let team = Team::start(policy).await;
    // Ben worked from 127.0.0.3 before the guessing began.
    let home = Team::client_from("127.0.0.3");
    assert_eq!(
        team.login_with(&home, "ben", &password("ben"))
            .await
            .status(),
        200
    );
    // Two guesses from each address: the limit per name and address (5) never trips.
    for i in 0..3 {
        let guesser = Team::client_from(&format!("127.0.1.{i}"));
        for _ in 0..2 {
            let wrong = team.login_with(&guesser, "ben", "a guess").await;
            assert_eq!(wrong.status(), 401);
        }
    }
    let checks = |team: &Team| -> i64 {
        let conn = ok(rusqlite::Connection::open(&team.path));
        ok(conn.query_row("SELECT SUM(failures) FROM sign_in_names", [], |r| r.get(0)))
    };
    assert_eq!(checks(&team), 6);
    // Past the budget, from fresh addresses, the right password and a wrong one get the
    // same refusal: neither is checked.
    for i in 0..8 {
        let fresh = Team::client_from(&format!("127.0.2.{i}"));
        let right = team.login_with(&fresh, "ben", &password("ben")).await;
        assert!(right.headers().contains_key("retry-after"));
        let right = error_of(right).await;
        let wrong = error_of(team.login_with(&fresh, "ben", "a guess").await).await;
        assert_eq!(right.0, 429, "{right:?}");
        assert_eq!(right, wrong);
    }
    assert_eq!(checks(&team), 6, "no password was checked past the budget");
    // Meanwhile the lead signs in from one of those addresses, and ben from home.
    let fresh = Team::client_from("127.0.2.0");
    assert_eq!(
        team.login_with(&fresh, "maria", &password("maria"))
            .await
            .status(),
        200
    );
    assert_eq!(
        team.login_with(&home, "ben", &password("ben"))
            .await
            .status(),
        200
    );
    // The name is checked again a second after its last failure, then after 2 s.
    team.clock.advance_ms(1_000);
    let next = Team::client_from("127.0.3.1");
    assert_eq!(team.login_with(&next, "ben", "a guess").await.status(), 401);
    team.clock.advance_ms(1_000);
    assert_eq!(team.login_with(&next, "ben", "a guess").await.status(), 429);
    team.clock.advance_ms(1_000);
    assert_eq!(team.login_with(&next, "ben", "a guess").await.status(), 401);
    assert_eq!(checks(&team), 8);
}

/// A server over a project with one lead, capped at `total` connections in all (and as
/// many per address), whose idle connections stay open for the test's length.
fn capped_server(total: usize) -> (tempfile::TempDir, String, tokio::sync::oneshot::Sender<()>) {
    capped_server_with(total, |state| state).0
}

/// [`capped_server`], its state changed by `tweak`; also a session token of maria's.
#[allow(clippy::type_complexity)]
fn capped_server_with(
    total: usize,
    tweak: impl FnOnce(AppState) -> AppState,
) -> (
    (tempfile::TempDir, String, tokio::sync::oneshot::Sender<()>),
    String,
) {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(START);
    let path = dir.path().join("capped.fdesk");
    let mut p = ok(Project::create(&path, Box::new(clock.clone())));
    let owner = ok(p.as_lead(&ok(p.lead_or_owner(None)), "act as a lead"));
    ok(p.add_annotator_with_password(&owner, "maria", Role::Lead, &password("maria")));
    let session = ok(p.login(
        "maria",
        &password("maria"),
        "127.0.0.9",
        &SignInPolicy::default(),
    ));
    drop(p);
    let open = factdesk_server::opener(path, move || Box::new(clock.clone()));
    let state = AppState::new(open, 2, SignInPolicy::default(), 64 * 1024)
        .with_connections_in_all(total)
        .with_connections_per_address(total)
        .with_read_timeouts(Duration::from_secs(300), Duration::from_secs(30));
    let state = tweak(state);
    let listener = ok(std::net::TcpListener::bind("127.0.0.1:0"));
    let base = format!("http://{}", ok(listener.local_addr()));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(factdesk_server::serve_on(
        listener,
        state,
        None,
        async move {
            let _ = stopped.await;
        },
    ));
    ((dir, base, stop), session.token)
}

/// One request on a new connection of `client` that the client keeps open after: the
/// status, or `None` when the server closed the connection instead of answering.
async fn hold(client: &reqwest::Client, base: &str) -> Option<u16> {
    let response = client
        .get(format!("{base}/api/v1/openapi.json"))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    response.bytes().await.ok()?;
    Some(status)
}

/// A raw connection from `from` to the server at `base`.
async fn connect_from(base: &str, from: &str) -> tokio::net::TcpStream {
    let addr: std::net::SocketAddr = ok(base.trim_start_matches("http://").parse());
    let socket = ok(tokio::net::TcpSocket::new_v4());
    ok(socket.bind(ok(format!("{from}:0").parse())));
    ok(socket.connect(addr).await)
}

/// A raw connection from `from` that sent `request` and was answered with a response
/// starting `expected`, kept open.
async fn answered_from(
    base: &str,
    from: &str,
    request: &str,
    expected: &str,
) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = connect_from(base, from).await;
    ok(stream.write_all(request.as_bytes()).await);
    let mut got = [0u8; 512];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut got));
    let n = ok(ok(read.await));
    let answer = String::from_utf8_lossy(&got[..n]);
    assert!(answer.starts_with(expected), "{answer:?}");
    stream
}

/// Hostile passes of session 26: idle connections, seven from each of 1,186 addresses,
/// held every place and shut everyone out (first pass); so did connections kept alive
/// after one answer (second), and requests whose bodies came a byte at a time (third); a
/// stream of new connections closed a sign-in waiting for its password check (second)
/// and signed-in people's connections (third). At the cap a newcomer takes the place of
/// the connection idle the longest that the server is not working on, signed-in
/// people's last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_a_newcomer_takes_the_place_of_the_connection_idle_the_longest() {
    use tokio::io::AsyncWriteExt;
    const TOTAL: usize = 8;
    // No password check is free: a sign-in waits in the server, all of it received.
    let ((_dir, base, _stop), token) = capped_server_with(TOTAL, |state| {
        state.with_hashing(0, Duration::from_secs(30))
    });
    let step = || tokio::time::sleep(Duration::from_millis(30));
    let body = format!(
        r#"{{"name": "maria", "password": "{}"}}"#,
        password("maria")
    );
    let mut waiting = connect_from(&base, "127.0.7.1").await;
    ok(waiting
        .write_all(format!("POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
        .await);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // A sign-in whose body comes slowly: "100 Continue" once its handler reads it.
    let slow_head = "POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\nExpect: 100-continue\r\n\r\n";
    let mut slow = answered_from(&base, "127.0.7.2", slow_head, "HTTP/1.1 100").await;
    ok(slow.write_all(b"{").await);
    step().await;
    // Maria's, answered once signed in, then idle.
    let next = format!("GET /api/v1/next?kind=evidence HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n");
    let mut hers = answered_from(&base, "127.0.7.3", &next, "HTTP/1.1 200").await;
    step().await;
    // Answered once without signing in, then idle.
    let lost = "GET /no-such-page HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut kept_alive = answered_from(&base, "127.0.7.4", lost, "HTTP/1.1 404").await;
    step().await;
    let mut silent = Vec::new();
    for i in 5..=TOTAL {
        silent.push(connect_from(&base, &format!("127.0.7.{i}")).await);
        step().await;
    }
    // Counted once the server has taken each: the next one is the ninth.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let closed = crate::guard::closed_within;
    // Each newcomer's client is kept, and with it its connection.
    let mut newcomers: Vec<reqwest::Client> = Vec::new();
    let mut serve_newcomers = async |count: usize| {
        for _ in 0..count {
            let i = newcomers.len();
            let client = Team::client_from(&format!("127.0.7.{}", 50 + i));
            assert_eq!(
                hold(&client, &base).await,
                Some(200),
                "newcomer {i} is served"
            );
            newcomers.push(client);
        }
    };
    serve_newcomers(2).await;
    assert!(
        closed(&mut slow, Duration::from_secs(5)).await,
        "the slow body made room first"
    );
    assert!(
        closed(&mut kept_alive, Duration::from_secs(5)).await,
        "then the one answered once"
    );
    for (stream, what) in [
        (&mut waiting, "the sign-in the server works on"),
        (&mut hers, "maria's"),
    ] {
        assert!(
            !closed(stream, Duration::from_millis(100)).await,
            "{what} keeps its place"
        );
    }
    // The silent ones go next, then the newcomers' own: maria's stays to the last.
    serve_newcomers(silent.len() + 2).await;
    for stream in &mut silent {
        assert!(
            closed(stream, Duration::from_secs(5)).await,
            "a silent one made room"
        );
    }
    assert!(
        !closed(&mut hers, Duration::from_millis(100)).await,
        "maria's stays"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_an_addresss_share_are_closed_and_the_last_places_kept_for_light_addresses(
) {
    const TOTAL: usize = 24; // the last 3 kept for addresses holding fewer than 8
    let (_dir, base, _stop) = capped_server(TOTAL);
    let client = |address: &str| {
        let ip: std::net::IpAddr = ok(address.parse());
        ok(reqwest::Client::builder()
            .local_address(ip)
            .pool_max_idle_per_host(1)
            .build())
    };
    // One address takes all but the kept places, then is refused.
    let mut heavy = Vec::new();
    for _ in 0..TOTAL - 3 {
        let c = client("127.0.4.1");
        assert_eq!(hold(&c, &base).await, Some(200));
        heavy.push(c);
    }
    let one_more = client("127.0.4.1");
    assert_eq!(hold(&one_more, &base).await, None, "past its share");
    // A light address still gets in and signs in, until the cap in all is reached.
    let lead = client("127.0.4.2");
    let signed_in = ok(lead
        .post(format!("{base}/api/v1/login"))
        .json(&json!({"name": "maria", "password": password("maria")}))
        .send()
        .await);
    assert_eq!(signed_in.status(), 200);
    let others = [client("127.0.4.3"), client("127.0.4.4")];
    for c in &others {
        assert_eq!(hold(c, &base).await, Some(200));
    }
    // At the cap in all, the connection idle the longest (one of the heavy address's)
    // makes room for the next.
    let late = client("127.0.4.5");
    assert_eq!(
        hold(&late, &base).await,
        Some(200),
        "the cap in all makes room"
    );
    // Places come back as connections close, and the server accepts again.
    drop(heavy);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        if hold(&client("127.0.4.5"), &base).await == Some(200) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "closed connections gave their places back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Second hostile pass of session 26 (MEDIUM): new names from many addresses took every
/// password check, and a colleague who had signed in from their address before waited
/// 2 s behind them. Such a sign-in has a check of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_known_at_its_address_has_a_password_check_kept_for_it() {
    // No shared check at all: only the kept one is left.
    let team = Team::start_hashing(0, Duration::from_millis(50)).await;
    tokio::task::block_in_place(|| {
        let mut p = team.project();
        ok(p.login(
            "ana",
            &password("ana"),
            "127.0.0.1",
            &SignInPolicy::default(),
        ));
    });
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
    assert_eq!(team.login("ben", &password("ben")).await.status(), 503);
    // A lead has one kept for her from anywhere (sixth hostile pass: a lead on a new
    // network got 503 while an anonymous flood held the others).
    let elsewhere = Team::client_from("127.0.5.5");
    let lead = team
        .login_with(&elsewhere, "maria", &password("maria"))
        .await;
    assert_eq!(lead.status(), 200);
}

/// Fifth hostile pass of session 26's door (LOW): a connection once someone's stayed so
/// after its session ended, by signing out on it or by a lead ending the person's
/// sessions, and kept its place over connections of people still signed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_is_someones_only_while_its_session_lasts() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const TOTAL: usize = 4;
    let ((dir, base, _stop), token) = capped_server_with(TOTAL, |state| state);
    let step = || tokio::time::sleep(Duration::from_millis(300));
    // A second session of hers, from a client dropped after.
    let second = {
        let client = Team::client_from("127.0.9.9");
        let login = json!({"name": "maria", "password": password("maria")});
        let response = ok(client
            .post(format!("{base}/api/v1/login"))
            .json(&login)
            .send()
            .await);
        let session: serde_json::Value = ok(response.json().await);
        session["token"].as_str().unwrap_or_default().to_owned()
    };
    let next = |token: &str| {
        format!("GET /api/v1/next?kind=evidence HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n")
    };
    let mut silent = Vec::new();
    for from in ["127.0.9.1", "127.0.9.2"] {
        silent.push(connect_from(&base, from).await);
        step().await;
    }
    let mut kept = answered_from(&base, "127.0.9.3", &next(&second), "HTTP/1.1 200").await;
    step().await;
    let mut signed_out = answered_from(&base, "127.0.9.4", &next(&token), "HTTP/1.1 200").await;
    step().await;
    let logout = format!("POST /api/v1/logout HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: 0\r\n\r\n");
    ok(signed_out.write_all(logout.as_bytes()).await);
    let mut got = [0u8; 256];
    let n = ok(ok(tokio::time::timeout(
        Duration::from_secs(10),
        signed_out.read(&mut got),
    )
    .await));
    assert!(got[..n].starts_with(b"HTTP/1.1 204"), "signed out");
    step().await;
    let closed = crate::guard::closed_within;
    let mut newcomers: Vec<reqwest::Client> = Vec::new();
    let mut serve_newcomers = async |count: usize| {
        for _ in 0..count {
            let client = Team::client_from(&format!("127.0.9.{}", 50 + newcomers.len()));
            assert_eq!(
                hold(&client, &base).await,
                Some(200),
                "a newcomer is served"
            );
            newcomers.push(client);
        }
    };
    serve_newcomers(silent.len() + 1).await;
    for stream in &mut silent {
        assert!(
            closed(stream, Duration::from_secs(5)).await,
            "a silent one made room"
        );
    }
    assert!(
        closed(&mut signed_out, Duration::from_secs(5)).await,
        "the connection signed out on is nobody's: it made room"
    );
    assert!(
        !closed(&mut kept, Duration::from_millis(100)).await,
        "the one of a session still live kept its place"
    );
    // A lead ends maria's sessions: within a few seconds her last connection is nobody's.
    let path = dir.path().join("capped.fdesk");
    let mut p = ok(Project::open(&path, Box::new(ManualClock::new(START))));
    let lead = ok(p.as_lead(&ok(p.lead_or_owner(None)), "end sessions"));
    assert_eq!(ok(p.end_sessions(&lead, "maria")), 1);
    drop(p);
    tokio::time::sleep(Duration::from_secs(7)).await;
    serve_newcomers(1).await;
    assert!(
        closed(&mut kept, Duration::from_secs(5)).await,
        "the connection of an ended session made room before newcomers'"
    );
}

/// Fifth hostile pass of session 26's door (MEDIUM): 20 guesses of a name from elsewhere
/// made its owner's sign-in wait 5 s for 15 minutes, even from where she always works
/// (and her sign-in, waiting, was the first connection closed under a flood).
/// The spacing spares a name at an address it signed in from before. Seventh hostile
/// pass (HIGH): a spaced sign-in slept in its handler, its connection "being answered"
/// all the while, and a few hundred of them held every place the server had; it is now
/// answered at once with 429 and `Retry-After`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guessed_name_is_spaced_out_elsewhere_at_once_and_not_where_it_signed_in_before() {
    let team = Team::start(SignInPolicy::default()).await;
    let home = Team::client_from("127.0.0.3");
    let sign_in = async |client: &reqwest::Client| {
        let began = std::time::Instant::now();
        let response = team.login_with(client, "ben", &password("ben")).await;
        let retry = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        (response.status().as_u16(), retry, began.elapsed())
    };
    assert_eq!(sign_in(&home).await.0, 200);
    // Three guesses from each of five addresses, each under its own limit (five): the
    // first eleven are checked (ten, after which the name's checks are spaced, and the
    // one that starts the spacing); the four that follow at once are refused unchecked.
    let mut checked = 0;
    for i in 0..5 {
        let guesser = Team::client_from(&format!("127.0.1.{i}"));
        for _ in 0..3 {
            let began = std::time::Instant::now();
            match team
                .login_with(&guesser, "ben", "a guess")
                .await
                .status()
                .as_u16()
            {
                401 => checked += 1,
                429 => assert!(began.elapsed() < Duration::from_secs(2), "held"),
                other => panic!("a guess got {other}"),
            }
        }
    }
    assert_eq!(checked, 11);
    let elsewhere = Team::client_from("127.0.0.9");
    let (status, retry, took) = sign_in(&elsewhere).await;
    assert_eq!((status, retry), (429, Some(1)), "elsewhere the name waits");
    assert!(took < Duration::from_secs(2), "answered at once: {took:?}");
    let (status, _, took) = sign_in(&home).await;
    assert_eq!(status, 200);
    assert!(
        took < Duration::from_secs(2),
        "at home it does not wait: {took:?}"
    );
    // Once the wait is over, elsewhere signs in too.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(sign_in(&elsewhere).await.0, 200);
}
