//! Fourteenth hostile pass: a request whose body is held back until after its caller's
//! password was reset, or the caller disabled, is refused, although its session was
//! live when its headers came. Held 25 s, such a call had added a lead.

use crate::harness::{ok, password, Team};
use crate::postgres::fresh_database;
use factdesk_api::sign_in::SignInPolicy;
use factdesk_api::Project;
use serde_json::json;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A request to `path` with all of its body but the last byte sent.
async fn held(team: &Team, path: &str, token: &str, body: &str) -> (TcpStream, u8) {
    let address = team.base.trim_start_matches("http://");
    let mut stream = ok(TcpStream::connect(address).await);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let (most, last) = body.as_bytes().split_at(body.len() - 1);
    ok(stream.write_all(head.as_bytes()).await);
    ok(stream.write_all(most).await);
    (stream, last[0])
}

/// Sends the held byte: the response's status.
async fn released((mut stream, last): (TcpStream, u8)) -> u16 {
    ok(stream.write_all(&[last]).await);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response);
    response
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0)
}

fn as_lead(team: &Team, change: impl FnOnce(&mut Project, &factdesk_api::Lead)) {
    tokio::task::block_in_place(|| {
        let mut p = ok(Project::open(&team.path, Box::new(team.clock.clone())));
        let maria = ok(p.as_lead(&ok(p.actor("maria")), "act as a lead"));
        change(&mut p, &maria);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_held_past_the_end_of_its_session_is_refused() {
    let mut teams = vec![Team::start(SignInPolicy::default()).await];
    match tokio::task::block_in_place(|| fresh_database().map(|(url, _, _)| url)) {
        Some(url) => teams.push(Team::start_on_postgres(&url, 4).await),
        None => eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL case did not run"),
    }
    for team in teams {
        let maria = team.token("maria").await;
        let ana = team.token("ana").await;
        let ben = team.token("ben").await;
        let add_lead = json!({"op": "add_person", "args": {"name": "mallory", "role": "lead"}});
        let next = json!({"op": "next_item", "args": {"kind": "evidence"}});
        let lead_call = held(&team, "/api/v1/call", &maria, &add_lead.to_string()).await;
        let ana_call = held(&team, "/api/v1/call", &ana, &next.to_string()).await;
        let bens_own = held(&team, "/api/v1/call", &ben, &next.to_string()).await;
        as_lead(&team, |p, lead| {
            ok(p.set_password(lead, "maria", "a brand new secret"));
            ok(p.set_disabled(lead, "ana", true));
        });
        // Past the moment a body that came with its headers is trusted without a look.
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(released(lead_call).await, 401, "maria's password was reset");
        assert_eq!(released(ana_call).await, 401, "ana was disabled");
        assert_eq!(released(bens_own).await, 200, "ben's session still lives");
        let added = tokio::task::block_in_place(|| {
            let p = ok(Project::open(&team.path, Box::new(team.clock.clone())));
            p.actor("mallory").is_ok()
        });
        assert!(!added, "no lead was added by the held call");
        assert_eq!(
            team.login("maria", &password("maria")).await.status(),
            401,
            "the old password is gone"
        );
    }
}
