//! `factdesk serve`: people added with --password-stdin sign in over HTTP, plain HTTP is
//! refused off loopback, and every acknowledged answer survives the server being
//! SIGKILLed while answers are streaming in.

use crate::{demo_project, factdesk, ok, stderr};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Adds `name` with a password piped in.
fn add_with_password(project: &Path, name: &str, role: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("annotators")
        .arg(project)
        .args(["add", name, "--role", role, "--password-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    writeln!(stdin, "{name}-password").unwrap_or_else(|e| panic!("{e}"));
    drop(stdin);
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `factdesk serve` on a port the system chooses (`--listen 127.0.0.1:0`), and that port,
/// read from the line the server prints once it is bound: no port is picked free first
/// and taken later, when something else may have taken it.
fn serve(project: &Path) -> (Child, u16) {
    let child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("serve")
        .arg(project)
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    listening(child).unwrap_or_else(|said| panic!("the server ended without listening: {said}"))
}

/// A started `factdesk serve` (stderr piped) and the port it says it listens on, or
/// everything it said when it ended without listening.
pub(crate) fn listening(mut child: Child) -> Result<(Child, u16), String> {
    let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr"));
    let (tell, told) = std::sync::mpsc::channel();
    // Reads the server's stderr to its end, so that the server never blocks on a full
    // pipe, and sends the port once the line says it, or everything said when it ends.
    std::thread::spawn(move || {
        let mut said = String::new();
        let mut tell = Some(tell);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let port = line
                .strip_prefix("serving ")
                .and_then(|rest| rest.rsplit_once(" on http://"))
                .and_then(|(_, addr)| addr.trim().parse::<std::net::SocketAddr>().ok())
                .map(|a| a.port());
            match (port, tell.take()) {
                (Some(port), Some(t)) => {
                    let _ = t.send(Ok(port));
                }
                (_, t) => {
                    tell = t;
                    said.push_str(&line);
                    said.push('\n');
                }
            }
        }
        if let Some(t) = tell {
            let _ = t.send(Err(said));
        }
    });
    // A bound on a server that never says it listens; the margin is for a busy machine.
    match told.recv_timeout(Duration::from_secs(120)) {
        Ok(Ok(port)) => Ok((child, port)),
        Ok(Err(said)) => {
            let _ = child.wait();
            Err(said)
        }
        Err(e) => {
            let _ = child.kill();
            panic!("the server did not say where it listens: {e}")
        }
    }
}

/// One HTTP/1.1 request; the status and the JSON body, or `None` when the connection
/// failed (the server is down).
pub(crate) fn request(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> Option<(u16, Value)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .ok()?;
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.split_whitespace().nth(1)?.parse().ok()?;
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("");
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

fn login(port: u16, name: &str) -> String {
    let body = serde_json::json!({"name": name, "password": format!("{name}-password")});
    let (status, reply) = request(port, "POST", "/api/v1/login", None, &body.to_string())
        .unwrap_or_else(|| panic!("no answer to the login"));
    assert_eq!(status, 200, "{reply}");
    reply["token"].as_str().unwrap_or_default().to_string()
}

#[test]
fn people_added_with_a_password_sign_in_and_plain_http_stays_on_loopback() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &[]);
    add_with_password(&p, "maria", "lead");
    add_with_password(&p, "ana", "annotator");
    let refused = factdesk([
        Path::new("serve"),
        &p,
        Path::new("--listen"),
        Path::new("0.0.0.0:0"),
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("--tls-cert"),
        "{}",
        stderr(&refused)
    );
    for hours in ["99999999999", "0", "NaN"] {
        let refused = factdesk([
            Path::new("serve"),
            &p,
            Path::new("--listen"),
            Path::new("127.0.0.1:0"),
            Path::new("--session-hours"),
            Path::new(hours),
        ]);
        assert!(!refused.status.success(), "--session-hours {hours}");
        assert!(
            stderr(&refused).contains("--session-hours"),
            "{}",
            stderr(&refused)
        );
    }
    let (mut server, port) = serve(&p);
    let ana = login(port, "ana");
    let next = request(port, "GET", "/api/v1/next?kind=evidence", Some(&ana), "");
    let served_json = next.map(|(s, v)| (s, v["item"]["task_id"].is_i64()));
    let wrong = request(
        port,
        "POST",
        "/api/v1/login",
        None,
        r#"{"name":"ana","password":"nope"}"#,
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(served_json, Some((200, true)));
    assert_eq!(wrong.map(|(s, _)| s), Some(401));
    // Disabled from the CLI: the next start of the server refuses her.
    ok([
        Path::new("annotators"),
        &p,
        Path::new("disable"),
        Path::new("ana"),
    ]);
    let (mut server, port) = serve(&p);
    let refused = request(
        port,
        "POST",
        "/api/v1/login",
        None,
        r#"{"name":"ana","password":"ana-password"}"#,
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(refused.map(|(s, _)| s), Some(401));
}

#[test]
fn every_acknowledged_answer_survives_the_server_being_killed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &[]);
    add_with_password(&p, "maria", "lead");
    let names = ["ana", "ben", "cy"];
    for name in names {
        add_with_password(&p, name, "annotator");
    }
    let (mut server, port) = serve(&p);
    let tokens: Vec<String> = names.iter().map(|n| login(port, n)).collect();
    let acks = Arc::new(Mutex::new(Vec::<String>::new()));
    let clients: Vec<_> = tokens
        .into_iter()
        .map(|token| {
            let acks = acks.clone();
            std::thread::spawn(move || loop {
                let Some((200, next)) = request(port, "GET", "/api/v1/next", Some(&token), "")
                else {
                    return;
                };
                let Some(task_id) = next["item"]["task_id"].as_i64() else {
                    return;
                };
                let answer = serde_json::json!({"task_id": task_id, "no_evidence": true});
                match request(
                    port,
                    "POST",
                    "/api/v1/answers",
                    Some(&token),
                    &answer.to_string(),
                ) {
                    Some((200, ack)) => {
                        let uuid = ack["ack"].as_str().unwrap_or_default().to_string();
                        acks.lock().unwrap_or_else(|e| e.into_inner()).push(uuid);
                    }
                    _ => return,
                }
            })
        })
        .collect();
    // Kill it while the answers stream in: SIGKILL, nothing shuts down gracefully.
    let started = Instant::now();
    while acks.lock().unwrap_or_else(|e| e.into_inner()).len() < 5 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no answers came in"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    server.kill().unwrap_or_else(|e| panic!("{e}"));
    let _ = server.wait();
    for c in clients {
        let _ = c.join();
    }
    let acks = acks.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(acks.len() >= 5);
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    for uuid in &acks {
        let stored: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM annotations WHERE uuid = ?1",
                [uuid],
                |r| r.get(0),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            stored, 1,
            "acknowledged answer {uuid} is missing after the kill"
        );
    }
}

/// Regression (hostile pass of session 34): a server that could not start said its
/// cause twice on one line ("cannot open the project: X does not exist: X does not
/// exist", and the whole open-file refusal twice).
#[test]
fn a_server_that_cannot_start_says_why_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("missing.fdesk");
    let out = factdesk([
        Path::new("serve"),
        &missing,
        Path::new("--listen"),
        Path::new("127.0.0.1:0"),
    ]);
    let said = stderr(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("cannot open the project: "), "{said}");
    assert_eq!(said.matches("does not exist").count(), 1, "{said}");
}
