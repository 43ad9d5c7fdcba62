//! What the hostile pass broke (notes of session 8): large bodies read before the role
//! check, unbounded searches, sign-in lockouts and floods, disabled people and their
//! streams, idle connections.

use crate::harness::{error_of, ok, password, stream_ends, Team};
use crate::postgres::fresh_database;
use factdesk_api::sign_in::SignInPolicy;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Sends `head` (request line and headers, no body) on a fresh connection and reads what
/// comes back within `wait`: the status line's code, or `None` if nothing came.
pub async fn raw_status(base: &str, head: &str, wait: Duration) -> Option<u16> {
    let addr = base.trim_start_matches("http://");
    let mut stream = ok(tokio::net::TcpStream::connect(addr).await);
    ok(stream.write_all(head.as_bytes()).await);
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(wait, async {
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    if read.is_err() && got.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&got);
    text.split_whitespace().nth(1).and_then(|s| s.parse().ok())
}

fn huge_post(path: &str, token: Option<&str>) -> String {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n{auth}Content-Length: 200000000\r\n\r\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_body_is_refused_from_its_headers_unless_a_lead_sends_it() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let wait = Duration::from_secs(5);
    for path in ["/api/v1/import", "/api/v1/imports", "/api/v1/merge"] {
        // Headers only: a 200 MB body is announced and never sent, so an answer can only
        // come from a server that did not wait for it.
        let cases = [
            (None, 401),
            (Some("forged"), 401),
            (Some(ana.as_str()), 403),
        ];
        for (token, status) in cases {
            let got = raw_status(&team.base, &huge_post(path, token), wait).await;
            assert_eq!(got, Some(status), "{path} with {token:?}");
        }
    }
    a_leads_merge_reaches_the_use_case(&team).await;
}

/// A lead's merge is read in full and reaches the use case (which refuses its bad body).
async fn a_leads_merge_reaches_the_use_case(team: &Team) {
    let maria = team.token("maria").await;
    let (status, _, message) = error_of(
        team.post("/api/v1/merge", Some(&maria), r#"{"packs": 5}"#)
            .await,
    )
    .await;
    assert_eq!(status, 400, "{message}");
    assert!(message.contains("packs"), "{message}");
}

/// Regression: a refusal sent before the body is read closes its connection and says so;
/// a client that reused the connection for its next request (a lead's merge after an
/// annotator's refused one) failed with "error sending request".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_before_the_body_closes_its_connection() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let body = format!(
        r#"{{"packs": [{{"name": "a.fdpack", "base64": "{}"}}]}}"#,
        "A".repeat(64)
    );
    for token in [None, Some(ana.as_str())] {
        let response = team.post("/api/v1/merge", token, &body).await;
        assert!(response.status() == 401 || response.status() == 403);
        let connection = response
            .headers()
            .get("connection")
            .and_then(|v| v.to_str().ok());
        assert_eq!(connection, Some("close"), "{token:?}");
    }
    a_leads_merge_reaches_the_use_case(&team).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_past_the_bounds_is_400_naming_query() {
    let team = Team::start(SignInPolicy::default()).await;
    let ana = team.token("ana").await;
    let search = |query: String| serde_json::json!({"op": "search", "args": {"query": query}});
    let words = vec!["harbour"; 65].join(" ");
    let long = "h".repeat(1001);
    for query in [words, long] {
        let body = search(query).to_string();
        let (status, code, message) =
            error_of(team.post("/api/v1/call", Some(&ana), &body).await).await;
        assert_eq!((status, code.as_str()), (400, "invalid_input"), "{message}");
        assert!(message.contains("query"), "{message}");
    }
    let within = search(vec!["harbour"; 64].join(" ")).to_string();
    let response = team.post("/api/v1/call", Some(&ana), &within).await;
    assert_eq!(response.status(), 200);
    let hits: serde_json::Value = ok(response.json().await);
    assert!(
        !hits.as_array().map(Vec::is_empty).unwrap_or(true),
        "{hits}"
    );
}

/// The team on a project file, and on PostgreSQL too when FACTDESK_TEST_PG is set.
async fn on_both_engines() -> Vec<Team> {
    let mut teams = vec![Team::start(SignInPolicy::default()).await];
    // The admin client blocks as it closes: dropped off the runtime's threads.
    match tokio::task::block_in_place(|| fresh_database().map(|(url, _, _)| url)) {
        Some(url) => teams.push(Team::start_on_postgres(&url, 4).await),
        None => eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL case did not run"),
    }
    teams
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessing_a_name_blocks_the_guesser_not_its_owner_and_retry_after_is_the_truth() {
    for team in on_both_engines().await {
        let guesser = Team::client_from("127.0.0.2");
        for _ in 0..5 {
            let wrong = team.login_with(&guesser, "ana", "a guess").await;
            assert_eq!(wrong.status(), 401);
        }
        let refused = team.login_with(&guesser, "ana", &password("ana")).await;
        assert_eq!(refused.status(), 429);
        // The window is 15 minutes and the test clock stands still: the block lasts 900 s.
        assert_eq!(retry_after(&refused), 901);
        let owner = Team::client_from("127.0.0.3");
        assert_eq!(
            team.login_with(&owner, "ana", &password("ana"))
                .await
                .status(),
            200,
            "ana signs in from her own address"
        );
        let lead = team.login_with(&guesser, "maria", &password("maria")).await;
        assert_eq!(
            lead.status(),
            200,
            "the guesser's address is not blocked for others"
        );
        team.clock.advance_ms(900_000);
        assert_eq!(
            team.login_with(&guesser, "ana", &password("ana"))
                .await
                .status(),
            429
        );
        team.clock.advance_ms(1_000);
        assert_eq!(
            team.login_with(&guesser, "ana", &password("ana"))
                .await
                .status(),
            200,
            "the block ends when Retry-After said"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simultaneous_guesses_do_not_pass_the_limit() {
    for team in on_both_engines().await {
        let guesser = Team::client_from("127.0.0.5");
        let mut guesses = tokio::task::JoinSet::new();
        for i in 0..16 {
            let request = guesser
                .post(team.url("/api/v1/login"))
                .json(&serde_json::json!({"name": "ben", "password": format!("guess {i}")}));
            guesses.spawn(async move { ok(request.send().await).status().as_u16() });
        }
        let statuses: Vec<u16> = guesses.join_all().await;
        let checked = statuses.iter().filter(|s| **s == 401).count();
        assert!(
            (1..=5).contains(&checked),
            "{checked} passwords checked of 16: {statuses:?}"
        );
        assert!(
            statuses.iter().all(|s| [401, 429, 503].contains(s)),
            "{statuses:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_waiting_too_long_for_a_password_check_is_503_with_retry_after() {
    let team = Team::start_hashing(0, Duration::from_millis(50)).await;
    let busy = team.login("ana", &password("ana")).await;
    assert_eq!(busy.status(), 503);
    let wait = retry_after(&busy);
    assert!(wait >= 1);
    let (_, code, message) = error_of(busy).await;
    assert_eq!(code, "unavailable");
    // Said as every other refusal says it, with the header's number.
    assert!(
        message.ends_with(&format!("; try again in {wait} s")),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_names_are_refused_and_old_failures_are_pruned_for_every_name() {
    let team = Team::start(SignInPolicy::default()).await;
    let (status, code, message) = error_of(team.login(&"x".repeat(2_000), "a guess").await).await;
    assert_eq!((status, code.as_str()), (400, "invalid_input"), "{message}");
    assert!(message.contains("name"), "{message}");
    // Past the sign-in's body limit, the body is not even read.
    let (status, code, _) = error_of(team.login(&"x".repeat(60_000), "a guess").await).await;
    assert_eq!((status, code.as_str()), (413, "too_large"));
    for name in ["zed", "yan", "xu", "wil"] {
        assert_eq!(team.login(name, "a guess").await.status(), 401);
    }
    let rows = |path: &std::path::Path| -> i64 {
        let conn = ok(rusqlite::Connection::open(path));
        ok(conn.query_row("SELECT COUNT(*) FROM sign_in_failures", [], |r| r.get(0)))
    };
    assert_eq!(
        rows(&team.path),
        12,
        "a row per name, per name and address, and per address"
    );
    team.clock.advance_ms(SignInPolicy::default().window_ms + 1);
    assert_eq!(team.login("vic", "a guess").await.status(), 401);
    assert_eq!(rows(&team.path), 3, "only the new failure is left");
}

/// Lea's stream `ending` ends within 10 s while maria's `kept` goes on.
async fn ends_beside(ending: reqwest::Response, kept: reqwest::Response) {
    assert!(
        stream_ends(ending, Duration::from_secs(10)).await,
        "lea's stream ended"
    );
    assert!(
        !stream_ends(kept, Duration::from_secs(5)).await,
        "maria's stream goes on"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_ends_when_its_holder_is_disabled() {
    for team in on_both_engines().await {
        // The stream is a lead's: a second lead is disabled, maria's stream goes on.
        team.add_lead("lea");
        let lea = team.token("lea").await;
        let maria = team.token("maria").await;
        let (stream, kept) = (
            team.get("/api/v1/events", Some(&lea)).await,
            team.get("/api/v1/events", Some(&maria)).await,
        );
        assert_eq!(
            (stream.status().as_u16(), kept.status().as_u16()),
            (200, 200)
        );
        let path = team.path.clone();
        let clock = team.clock.clone();
        tokio::task::block_in_place(move || {
            let mut p = ok(factdesk_api::Project::open(&path, Box::new(clock)));
            let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
            ok(p.set_disabled(&maria, "lea", true));
        });
        ends_beside(stream, kept).await;
        // Her right password now gets the answer a wrong one gets.
        let disabled = error_of(team.login("lea", &password("lea")).await).await;
        let wrong = error_of(team.login("lea", "a guess").await).await;
        assert_eq!(disabled, wrong);
    }
}

/// Issue 31: the role is checked again at each heartbeat, so a lead who is no longer one
/// stops learning when answers land, though still signed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_ends_when_its_holder_is_no_longer_a_lead() {
    for team in on_both_engines().await {
        team.add_lead("lea");
        let lea = team.token("lea").await;
        let maria = team.token("maria").await;
        let stream = team.events_ready(&lea).await;
        let kept = team.events_ready(&maria).await;
        team.demote("lea");
        ends_beside(stream, kept).await;
        // Her session lives on as an annotator's: her work, but not the stream.
        let (status, code, message) = error_of(team.get("/api/v1/events", Some(&lea)).await).await;
        assert_eq!((status, code.as_str()), (403, "forbidden"), "{message}");
        let next = team.get("/api/v1/next?kind=evidence", Some(&lea)).await;
        assert_eq!(next.status(), 200);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_ends_when_its_session_expires_or_is_ended() {
    let team = Team::start(SignInPolicy {
        session_ms: 3_600_000,
        ..SignInPolicy::default()
    })
    .await;
    // Two sessions of the lead's, whose stream it is: one expires, one logs out.
    let expires = team.token("maria").await;
    let logs_out = team.token("maria").await;
    let expiring = team.get("/api/v1/events", Some(&expires)).await;
    let ended = team.get("/api/v1/events", Some(&logs_out)).await;
    assert_eq!(
        (expiring.status().as_u16(), ended.status().as_u16()),
        (200, 200)
    );
    assert_eq!(
        team.post("/api/v1/logout", Some(&logs_out), "")
            .await
            .status(),
        204
    );
    team.clock.advance_ms(3_600_000);
    let (a, b) = tokio::join!(
        stream_ends(expiring, Duration::from_secs(10)),
        stream_ends(ended, Duration::from_secs(10))
    );
    assert!(a && b, "expired: {a}, logged out: {b}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_connections_are_closed() {
    let team = Team::start_timeouts(Duration::from_secs(1), Duration::from_secs(1)).await;
    let addr = team.base.trim_start_matches("http://").to_string();
    // A client that connects and sends nothing, one that stops halfway through its
    // headers: both are closed once the header timeout passes.
    let idle = ok(tokio::net::TcpStream::connect(&addr).await);
    let mut halfway = ok(tokio::net::TcpStream::connect(&addr).await);
    ok(halfway
        .write_all(b"GET /api/v1/stats HTTP/1.1\r\nHost: t\r\n")
        .await);
    for mut stream in [idle, halfway] {
        let mut buf = [0u8; 256];
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "the connection was closed");
    }
    // A body trickled slower than the body timeout gets 408.
    let mut slow = ok(tokio::net::TcpStream::connect(&addr).await);
    let body = r#"{"name": "ana", "password": "ana-password"}"#;
    let head = format!(
        "POST /api/v1/login HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
        body.len(),
        &body[..5]
    );
    ok(slow.write_all(head.as_bytes()).await);
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    let answered = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match slow.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    got.extend_from_slice(&buf[..n]);
                    if got.windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            }
        }
    })
    .await;
    assert!(answered.is_ok(), "the slow body was answered");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    // A prompt client is served as ever.
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
}

/// Whether the server closes `stream` within `wait` without answering.
pub async fn closed_within(stream: &mut tokio::net::TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(wait, stream.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_at_most_its_cap_of_connections() {
    let team = Team::start_capped(3).await;
    let addr: std::net::SocketAddr = ok(team.base.trim_start_matches("http://").parse());
    // From an address of their own, so the harness's client's connections are not counted.
    let from = |addr: std::net::SocketAddr| async move {
        let socket = ok(tokio::net::TcpSocket::new_v4());
        ok(socket.bind(ok("127.0.0.7:0".parse())));
        ok(socket.connect(addr).await)
    };
    // Each of the three is answered before the fourth connects. The server counts a
    // connection when its task first runs, not in the order the kernel accepted them:
    // without this, under load a held one could be counted fourth and refused (the
    // cause of this test's failures in session 8; refusing whichever comes past the cap
    // is right).
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = from(addr).await;
        ok(stream
            .write_all(b"GET /no-such-page HTTP/1.1\r\nHost: x\r\n\r\n")
            .await);
        let mut got = [0u8; 512];
        let n = ok(ok(tokio::time::timeout(
            Duration::from_secs(10),
            stream.read(&mut got),
        )
        .await));
        assert!(
            got[..n].starts_with(b"HTTP/1.1 404"),
            "a held connection is served"
        );
        held.push(stream);
    }
    // A fourth connection is refused: it is never served (closed, or left without an
    // answer; see the closing note of session 8 on when its socket closes).
    let mut fourth = from(addr).await;
    let _ = fourth
        .write_all(b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let mut got = [0u8; 64];
    let answered = matches!(
        tokio::time::timeout(Duration::from_secs(2), fourth.read(&mut got)).await,
        Ok(Ok(n)) if n > 0
    );
    assert!(!answered, "a fourth connection is not served");
    for stream in &mut held {
        assert!(
            !closed_within(stream, Duration::from_millis(200)).await,
            "the first three stay open"
        );
    }
    // Another address is not counted with this one.
    let other = Team::client_from("127.0.0.6");
    assert_eq!(
        team.login_with(&other, "ana", &password("ana"))
            .await
            .status(),
        200
    );
    held.clear();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
}

/// Regression (second hostile pass): behind the trusted proxy every person's connections
/// come from its address; capping it let one annotator's event streams shut the team out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trusted_proxy_is_not_capped() {
    let team = Team::start_capped_behind(3, "127.0.0.1").await;
    let addr = team.base.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for _ in 0..6 {
        held.push(ok(tokio::net::TcpStream::connect(&addr).await));
    }
    for stream in &mut held {
        assert!(
            !closed_within(stream, Duration::from_millis(200)).await,
            "the proxy's connections stay open"
        );
    }
    assert_eq!(team.login("ana", &password("ana")).await.status(), 200);
}

/// Regression (second hostile pass): the authorization scheme is case-insensitive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lower_case_bearer_scheme_is_taken() {
    let team = Team::start(SignInPolicy::default()).await;
    let response = team.login("ana", &password("ana")).await;
    let body: serde_json::Value = ok(response.json().await);
    let token = body["token"].as_str().unwrap_or_default().to_string();
    let stats = ok(team
        .http
        .get(format!("{}/api/v1/next?kind=evidence", team.base))
        .header("Authorization", format!("bearer {token}"))
        .send()
        .await);
    assert_eq!(stats.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_not_sent_as_json_is_415() {
    let team = Team::start(SignInPolicy::default()).await;
    let login = serde_json::json!({"name": "ana", "password": password("ana")}).to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = team
            .http
            .post(team.url("/api/v1/login"))
            .body(login.clone());
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let (status, code, _) = error_of(ok(request.send().await)).await;
        assert_eq!(
            (status, code.as_str()),
            (415, "unsupported_media_type"),
            "{content_type:?}"
        );
    }
    let charset = ok(team
        .http
        .post(team.url("/api/v1/login"))
        .header("content-type", "application/json; charset=utf-8")
        .body(login)
        .send()
        .await);
    assert_eq!(charset.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_the_block_counts_per_forwarded_caller() {
    let team = Team::start_behind("127.0.0.7").await;
    let proxy = Team::client_from("127.0.0.7");
    let via = |forwarded: &str, name: &str, pass: &str| {
        proxy
            .post(team.url("/api/v1/login"))
            .header("x-forwarded-for", forwarded)
            .json(&serde_json::json!({"name": name, "password": pass}))
    };
    // The guesser forges a first entry; the proxy's own (last) one is what counts.
    for i in 0..5 {
        let forged = format!("10.9.9.{i}, 192.0.2.1");
        assert_eq!(
            ok(via(&forged, "ana", "a guess").send().await).status(),
            401
        );
    }
    let refused = ok(via("192.0.2.1", "ana", &password("ana")).send().await);
    assert_eq!(refused.status(), 429);
    let owner = ok(via("192.0.2.2", "ana", &password("ana")).send().await);
    assert_eq!(owner.status(), 200, "ana signs in through the same proxy");
    // From anyone else the header is not believed: the block stays per connection.
    let other = Team::client_from("127.0.0.8");
    for _ in 0..5 {
        let guess = other
            .post(team.url("/api/v1/login"))
            .header("x-forwarded-for", "192.0.2.3")
            .json(&serde_json::json!({"name": "ben", "password": "a guess"}));
        assert_eq!(ok(guess.send().await).status(), 401);
    }
    let blocked = ok(via("192.0.2.3", "ben", &password("ben")).send().await);
    assert_eq!(
        blocked.status(),
        200,
        "the untrusted peer's header was not believed"
    );
    let direct = team.login_with(&other, "ben", &password("ben")).await;
    assert_eq!(direct.status(), 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_json_names_no_made_up_field() {
    let team = Team::start(SignInPolicy::default()).await;
    let (status, _, message) = error_of(
        team.post("/api/v1/login", None, r#"{"name": "ana", "#)
            .await,
    )
    .await;
    assert_eq!(status, 400);
    assert!(!message.contains("\"?\""), "{message}");
    assert!(message.contains("EOF"), "{message}");
}
